import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Conf from 'conf'
import { createBackend } from '../services/backend'
import { openKeyValueStore, parseConfigJson, type KeyValueStore } from '../services/kv'
import { SIM_WORKER_SOURCE, tsxWorkerExecArgv } from '../services/tsx-worker'
import { startWebHost, type WebHost } from './serve-host'
import { ensureBuilt as ensureBuiltAt } from './build-check'
import { defaultDataDir, DirError, makeDirs } from '../services/data-dir'
import { SERVE_PATCHES_REFUSED } from '../services/patch-library'
import { limitArgs } from './args'
import { UsageError } from './errors'
import type { HostLimits } from '../shared/ipc'

/**
 * `schedlab serve [--port N] [--data-dir DIR]`: the workbench in a browser. Prints the URL
 * (with its access token) as the first line of stdout, everything else on stderr.
 */

export const PROJECT_ROOT = resolve(__dirname, '../..')
export const RENDERER_DIR = join(PROJECT_ROOT, 'out', 'renderer')

export const SERVE_USAGE = `usage: schedlab serve [--port N] [--data-dir DIR] [--verbose] [--allow-patches] [--max-events N] [--max-total-events N] [--memory-share F]

Serve the schedlab workbench on http://127.0.0.1 and print its URL (with an access token).
  --port N        TCP port (default: a free port)
  --data-dir DIR  where settings and saved runs live (default: the desktop app's folder, ${defaultDataDir()})
  --verbose       show the whole build output when the workbench is built first (else one line)
  --allow-patches run patch modules (your own scheduler code) from the page, in the simulation
                  workers; without it the page can edit and save them but not run them
  --max-events N, --max-total-events N, --memory-share F
                  limits on what one run from the page may cost (per run, per submission, share
                  of this machine's memory); above the saved settings, and no scenario can raise them`

export interface ServeArgs {
  port: number
  dataDir: string
  /** Limits given as flags (only those given). */
  limits?: Partial<HostLimits>
  /** The build's whole output instead of one line. */
  verbose?: boolean
  /** Run patch modules from the page (code on this machine; docs/security.md). */
  allowPatches?: boolean
}

export function parseServeArgs(argv: readonly string[]): ServeArgs | 'help' {
  let port = 0
  let dataDir = defaultDataDir()
  let verbose = false
  let allowPatches = false
  const limitFlags: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined]
    const value = (): string => {
      const v = inline ?? argv[++i]
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value`)
      return v
    }
    switch (flag) {
      case '-h':
      case '--help':
        return 'help'
      case '--port': {
        const v = value()
        if (!/^\d+$/.test(v) || Number(v) > 65535) throw new UsageError(`--port: expected a port number 0..65535, got "${v}"`)
        port = Number(v)
        break
      }
      case '--data-dir':
        dataDir = resolve(value())
        break
      case '-v':
      case '--verbose':
        verbose = true
        break
      case '--allow-patches':
        allowPatches = true
        break
      case '--max-events':
      case '--max-total-events':
      case '--memory-share':
        limitFlags[flag.slice(2)] = value()
        break
      default:
        throw new UsageError(`unknown argument "${a}"`)
    }
  }
  const extra = { ...(verbose ? { verbose } : {}), ...(allowPatches ? { allowPatches } : {}) }
  if (Object.keys(limitFlags).length === 0) return { port, dataDir, ...extra }
  let l
  try {
    l = limitArgs(limitFlags)
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
  const limits = Object.fromEntries(Object.entries({ maxEventsPerRun: l.maxEvents, maxTotalEvents: l.maxTotalEvents, memoryShare: l.memoryShare }).filter(([, v]) => v !== undefined))
  return { port, dataDir, limits, ...extra }
}

export { defaultDataDir }

export function projectVersion(): string {
  return (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version
}

/** Build the app when out/ is missing or stale (a fresh clone, edited sources). */
export function ensureBuilt(verbose = false): void {
  ensureBuiltAt(PROJECT_ROOT, { verbose })
}

export function openConfStore(dataDir: string): ReturnType<typeof openKeyValueStore> {
  return openKeyValueStore(join(dataDir, 'config.json'), (): KeyValueStore => new Conf({ cwd: dataDir, configName: 'config', projectName: 'schedlab', deserialize: parseConfigJson }))
}

export interface RunningServe {
  host: WebHost
  close(): Promise<void>
}

export async function startServe(args: ServeArgs): Promise<RunningServe> {
  // before the settings store, whose own recursive mkdir would spin for ever inside /proc
  makeDirs(args.dataDir)
  ensureBuilt(args.verbose)
  const { kv, problems } = openConfStore(args.dataDir)
  const backend = await createBackend({
    dataDir: args.dataDir, kv, kvProblems: problems,
    workerPath: SIM_WORKER_SOURCE, execArgv: tsxWorkerExecArgv(),
    version: projectVersion(), platform: 'web', limits: args.limits,
    patches: args.allowPatches ? { allowed: true } : { allowed: false, reason: SERVE_PATCHES_REFUSED },
    warmWorkers: true
  })
  try {
    const host = await startWebHost({ backend, rendererDir: RENDERER_DIR, port: args.port })
    return {
      host,
      async close() {
        await host.close()
        await backend.close()
      }
    }
  } catch (err) {
    await backend.close()
    throw err
  }
}

/** CLI entry; resolves with the exit code once the server has stopped (SIGINT/SIGTERM). */
export async function serveCommand(argv: readonly string[]): Promise<number> {
  let args: ServeArgs | 'help'
  try {
    args = parseServeArgs(argv)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    process.stderr.write(`schedlab serve: ${err.message}\n${SERVE_USAGE}\n`)
    return 2
  }
  if (args === 'help') {
    process.stdout.write(SERVE_USAGE + '\n')
    return 0
  }
  let running: RunningServe
  try {
    running = await startServe(args)
  } catch (err) {
    if (err instanceof DirError) {
      process.stderr.write(`schedlab serve: --data-dir: ${err.message}\n`)
      return 2
    }
    const e = err as NodeJS.ErrnoException
    const msg = e.code === 'EADDRINUSE' ? `port ${args.port} is already in use` : e.message
    process.stderr.write(`schedlab serve: ${msg}\n`)
    return 1
  }
  process.stdout.write(running.host.url + '\n')
  process.stderr.write(`schedlab serve: data in ${args.dataDir}; Ctrl+C to stop\n`)
  return new Promise<number>((done) => {
    const stop = (): void => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      void running.close().then(() => done(0), () => done(1))
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}
