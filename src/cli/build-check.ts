import { closeSync, existsSync, openSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { makeDirs } from '../services/data-dir'

/**
 * The built app (out/) must match the sources: `schedlab serve` and the tests that load the
 * build rebuild it with electron-vite when it is missing or older than a source file. A lock
 * file keeps two concurrent callers (parallel test files) from building over each other.
 */

const OUTPUTS = ['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html']
// everything the bundles import: main (with the services it runs), preload, renderer
const SOURCES = [
  'src/main', 'src/services', 'src/preload', 'src/renderer', 'src/shared', 'src/sim', 'src/stats', 'src/trace', 'src/real', 'src/sweep',
  'electron.vite.config.ts', 'package.json'
]

function newestSource(root: string, rel: string): number {
  const p = join(root, rel)
  if (!existsSync(p)) return 0
  const st = statSync(p)
  if (!st.isDirectory()) return st.mtimeMs
  let newest = 0
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.name === '__fixtures__' || e.name.endsWith('.test.ts')) continue
    newest = Math.max(newest, newestSource(root, join(rel, e.name)))
  }
  return newest
}

export function buildIsCurrent(root: string): boolean {
  const outs = OUTPUTS.map((o) => join(root, o))
  if (!outs.every((o) => existsSync(o))) return false
  const oldestOut = Math.min(...outs.map((o) => statSync(o).mtimeMs))
  return SOURCES.every((s) => newestSource(root, s) <= oldestOut)
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

export interface BuildOptions {
  /** Where the one line "building the workbench…" (and, on failure or verbose, the build's output) goes. */
  log?: (text: string) => void
  /** Show electron-vite's whole output as it builds. */
  verbose?: boolean
}

export function ensureBuilt(root: string, options: BuildOptions = {}): void {
  const log = options.log ?? ((l: string) => process.stderr.write(l.endsWith('\n') ? l : l + '\n'))
  if (buildIsCurrent(root)) return
  const lock = join(root, 'out', '.build-lock')
  makeDirs(join(root, 'out'))
  let fd = -1
  for (let waited = 0; fd < 0; waited += 200) {
    try {
      fd = openSync(lock, 'wx')
    } catch {
      // Someone else is building; a lock older than 5 minutes is from a killed build.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { force: true })
      if (waited > 600_000) throw new Error(`waited 10 minutes for ${lock}`)
      sleep(200)
    }
  }
  try {
    if (buildIsCurrent(root)) return
    log('schedlab: building the workbench… (out/ is missing or older than the sources)')
    const bin = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js')
    const r = spawnSync(process.execPath, [bin, 'build'], { cwd: root, stdio: options.verbose ? ['ignore', 2, 2] : ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
    if (r.status !== 0 || !buildIsCurrent(root)) {
      if (!options.verbose) log(`${r.stdout ?? ''}${r.stderr ?? ''}`)
      throw new Error('building the workbench failed (its output is above); `npm run build` shows it again')
    }
  } finally {
    closeSync(fd)
    rmSync(lock, { force: true })
  }
}
