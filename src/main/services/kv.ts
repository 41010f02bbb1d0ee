import { existsSync } from 'node:fs'
import type { StoreProblem } from '../../shared/ipc'
import { moveAsideSync } from './aside'

/**
 * The key-value store behind settings and the run index: electron-store in the desktop app,
 * its Electron-free base `conf` in `schedlab serve`. Both write config.json atomically.
 */
export interface KeyValueStore {
  get(key: string): unknown
  set(key: string, value: unknown): void
}

/**
 * Open the store; when its file cannot be parsed, move the file aside, report it, and start
 * from an empty one (the run index is rebuilt from the run files).
 */
export function openKeyValueStore(
  file: string,
  factory: () => KeyValueStore
): { kv: KeyValueStore; problems: StoreProblem[] } {
  try {
    const kv = factory()
    kv.get('runs') // conf parses lazily; force the read so a corrupt file fails here
    return { kv, problems: [] }
  } catch (err) {
    if (!existsSync(file)) throw err
    const movedTo = moveAsideSync(file)
    const problem: StoreProblem = {
      file,
      message: `settings and run index could not be read (${(err as Error).message}); moved aside and rebuilt from the run files`,
      movedTo
    }
    return { kv: factory(), problems: [problem] }
  }
}
