import { existsSync, openSync, readFileSync, renameSync, writeFileSync, fsyncSync, closeSync } from 'node:fs'
import { dirname } from 'node:path'
import type { StoreProblem } from '../shared/ipc'
import { moveAsideSync } from './aside'
import { cleanStaleTemps, withFileLockSync } from './atomic-write'

/**
 * The key-value store behind settings and the run index: electron-store in the desktop app,
 * its Electron-free base `conf` in `schedlab serve`. Both write config.json atomically.
 */
export interface KeyValueStore {
  get(key: string): unknown
  set(key: string, value: unknown): void
}

/** conf's and electron-store's `deserialize`: JSON that an editor may have saved with a byte-order mark. */
export function parseConfigJson(text: string): Record<string, unknown> {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as Record<string, unknown>
}

/** Rewrite `file` without its byte-order mark, if it has one (conf cannot be told to expect it). */
function dropBom(file: string): void {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return
  }
  if (bytes.length < 3 || bytes[0] !== 0xef || bytes[1] !== 0xbb || bytes[2] !== 0xbf) return
  const tmp = `${file}.${process.pid}.bom`
  writeFileSync(tmp, bytes.subarray(3))
  const fd = openSync(tmp, 'r+')
  fsyncSync(fd)
  closeSync(fd)
  renameSync(tmp, file)
}

/**
 * Open the store; when its file cannot be parsed, move the file aside, report it, and start
 * from an empty one (the run index is rebuilt from the run files). Leftover temporary files of
 * interrupted writes (`config.json.tmp-*`) are removed first, never one another process is
 * writing right now.
 */
export function openKeyValueStore(
  file: string,
  factory: () => KeyValueStore
): { kv: KeyValueStore; problems: StoreProblem[] } {
  cleanStaleTemps(dirname(file))
  dropBom(file)
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

/**
 * `kv` whose writes hold `lock` (withFileLockSync): settings written by one process then do not
 * overwrite the run index another process is writing into the same config.json.
 */
export function lockedWrites(kv: KeyValueStore, lock: string): KeyValueStore {
  return {
    get: (key) => kv.get(key),
    set: (key, value) => withFileLockSync(lock, () => kv.set(key, value))
  }
}
