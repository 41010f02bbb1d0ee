import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { readLenient, toPlain } from '../sim/scenario/jsonc'

/**
 * The bundled scenario presets (resources/scenarios/*.json), one per test setup of the seed
 * threads. Node-only (no electron import) so that the CLI and the desktop app share it; the
 * app passes its resources directory when packaged.
 */

export interface PresetInfo {
  /** File name without .json; what `schedlab run ID` accepts. */
  id: string
  name: string
  description: string
  file: string
  durationMs?: number
  /** Duration of the published test (run it with `--published`). */
  publishedDurationMs?: number
}

export interface PresetText {
  id: string
  file: string
  text: string
}

/** Where presets live: $SCHEDLAB_PRESETS_DIR, else resources/scenarios above this module or the cwd. */
export function defaultPresetDir(): string {
  const env = process.env.SCHEDLAB_PRESETS_DIR
  if (env) return resolve(env)
  const starts = [typeof __dirname === 'string' ? __dirname : undefined, process.cwd()].filter((d): d is string => !!d)
  for (const start of starts) {
    let dir = resolve(start)
    for (;;) {
      const candidate = join(dir, 'resources', 'scenarios')
      if (existsSync(candidate)) return candidate
      const up = dirname(dir)
      if (up === dir) break
      dir = up
    }
  }
  return resolve(process.cwd(), 'resources', 'scenarios')
}

export function listPresets(dir = defaultPresetDir()): PresetInfo[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const file = join(dir, f)
      const id = f.slice(0, -'.json'.length)
      const doc = readLenient(readFileSync(file, 'utf8'))
      const v = (doc.root ? toPlain(doc.root) : {}) as Record<string, unknown>
      const num = (x: unknown): number | undefined => (typeof x === 'number' ? x : undefined)
      return {
        id,
        name: typeof v.name === 'string' ? v.name : id,
        description: typeof v.description === 'string' ? v.description : '',
        file,
        durationMs: num(v.durationMs),
        publishedDurationMs: num(v.publishedDurationMs)
      }
    })
}

/** The preset's text, or undefined when there is no such preset. */
export function readPreset(id: string, dir = defaultPresetDir()): PresetText | undefined {
  if (!/^[A-Za-z0-9._-]+$/.test(id)) return undefined
  const file = join(dir, `${id}.json`)
  if (!existsSync(file)) return undefined
  return { id, file, text: readFileSync(file, 'utf8') }
}
