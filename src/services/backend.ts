import { join } from 'node:path'
import type { ApiEventName, ApiEvents, AppInfo, HostLimits, ServiceMethods, StoreProblem } from '../shared/ipc'
import { memoryBudgetBytes, runMemoryOf } from './limits'
import type { VariantResult } from '../shared/result'
import { WorkerPool } from './worker-pool'
import { INDEX_LOCK, RunNotFoundError, RunStore } from './run-store'
import { RunService } from './run-service'
import { analyzeOnPool } from './trace-job'
import { RealService } from './real-service'
import { VmService } from './vm-service'
import { SettingsService } from './settings'
import { lockedWrites, type KeyValueStore } from './kv'
import { exportContent } from './export'
import * as scenarios from './scenario-service'
import * as sim from './sim-adapter'
import { ExplainService } from './explain-service'
import { PatchLibraryService, SERVE_PATCHES_REFUSED, type PatchAccess } from './patch-library'
import type { PatchCheckJob } from './patch-check-job'
import { patchReader } from './patch-loader'
import { patchLibraryDir } from './data-dir'
import type { PatchCheckResult } from '../shared/ipc'

export interface BackendOptions {
  dataDir: string
  kv: KeyValueStore
  /** Problems met while opening the key-value store (a corrupt config.json). */
  kvProblems?: StoreProblem[]
  workerPath: string | URL
  execArgv?: string[]
  poolSize?: number
  version: string
  platform: AppInfo['platform']
  /** Limits given on the command line (`schedlab serve --max-events ...`): above the saved setting. */
  limits?: Partial<HostLimits>
  /**
   * Whether runs may use patch modules (code the user runs on this machine, in the simulation
   * workers only): the desktop app yes, `schedlab serve` with --allow-patches.
   */
  patches?: PatchAccess
  /** Start the simulation workers at once, warmed up (the long-lived hosts: the app, serve). */
  warmWorkers?: boolean
  /** Runs queued or running at one time (the run service's MAX_ACTIVE_RUNS by default). */
  maxActiveRuns?: number
}

export type EventListener = <E extends ApiEventName>(event: E, payload: ApiEvents[E]) => void

/**
 * The Electron-free services behind both hosts: worker pool, run store, settings, scenario
 * validation, exports. `service` implements the contract's ServiceMethods; hosts add delivery
 * (IPC + dialogs, or WebSocket + browser downloads).
 */
export interface Backend {
  service: ServiceMethods
  settings: SettingsService
  store: RunStore
  runs: RunService
  /** Real runs on this machine and trace imports. */
  real: RealService
  /** Runs on a mainline kernel in a VM. */
  vm: VmService
  pool: WorkerPool<VariantResult>
  /** Subscribe to events for the renderer(s); returns an unsubscribe function. */
  onEvent(listener: EventListener): () => void
  close(): Promise<void>
}

export async function createBackend(opts: BackendOptions): Promise<Backend> {
  const listeners = new Set<EventListener>()
  const emit: EventListener = (event, payload) => {
    for (const l of listeners) l(event, payload)
  }
  const store = await RunStore.open(opts.dataDir, opts.kv, opts.kvProblems ?? [])
  // settings share config.json with the run index: their writes hold the same lock
  const settings = new SettingsService(lockedWrites(opts.kv, join(opts.dataDir, INDEX_LOCK)), opts.limits)
  // Every job of every run, whoever submits it, waits for its memory to fit (or is refused).
  const pool = new WorkerPool<VariantResult>({
    workerPath: opts.workerPath, execArgv: opts.execArgv, size: opts.poolSize,
    memoryBudgetBytes: () => memoryBudgetBytes(settings.limits()),
    memoryOf: runMemoryOf,
    ...(opts.warmWorkers ? { warm: true } : {})
  })
  const runs = new RunService({ pool, store, emit, version: opts.version, limits: () => settings.limits(), ...(opts.maxActiveRuns ? { maxActiveRuns: opts.maxActiveRuns } : {}) })
  const real = new RealService({ store, emit, version: opts.version, simulating: () => runs.activeRuns().length > 0, analyzeText: (text, name) => analyzeOnPool(pool, text, name) })
  const vm = new VmService({ store, emit, version: opts.version, dataDir: opts.dataDir })
  // Another process sharing the data folder saved or deleted runs: every window refreshes.
  const unwatch = store.watch(() => emit('runs-changed', { reason: 'external' }))

  const getRun = async (id: string) => {
    try {
      return await store.get(id)
    } catch (err) {
      // finished, but the disk refused its save: the results are in memory
      const unsaved = runs.unsavedRun(id)
      if (unsaved) return unsaved
      if (err instanceof RunNotFoundError || store.has(id)) throw err
      // A corrupt file was just moved aside and is now among the store's problems, which every
      // window lists after this event: say so here, not the same report a second time.
      emit('runs-changed', { reason: 'problem' })
      throw new Error(`run ${id} could not be read; it was moved aside (see the saved runs' problems)`)
    }
  }

  const explainer = new ExplainService(pool, getRun, emit)
  const patchAccess: PatchAccess = opts.patches ?? { allowed: false, reason: SERVE_PATCHES_REFUSED }
  const patches = new PatchLibraryService(patchLibraryDir(opts.dataDir), patchAccess, async (src) => {
    const o = await (pool as unknown as WorkerPool<PatchCheckResult>).submit({ job: 'patch-check', src } satisfies PatchCheckJob).outcome
    if (o.status === 'done') return o.result
    return { ok: false, problem: { message: o.status === 'failed' ? o.message : 'canceled' } }
  })
  const readPatch = patchAccess.allowed
    ? patchReader(patches.library)
    : (ref: string): never => {
        throw new Error(`${patchAccess.reason ?? SERVE_PATCHES_REFUSED} ("${ref}")`)
      }
  scenarios.setPatchReader(readPatch)

  const service: ServiceMethods = {
    appInfo: async () => ({ version: opts.version, dataDir: opts.dataDir, workers: pool.size, platform: opts.platform, real: await real.available(), vm: await vm.available(), patches: patchAccess }),
    editorInfo: async () => scenarios.editorInfo(),
    listPresets: () => sim.listPresets(),
    readPreset: (id) => sim.readPreset(id),
    validateScenario: async (text, file) => scenarios.validate(text, file, settings.limits()),
    importRtApp: async (text, file) => scenarios.importRtApp(text, file),
    startRun: async (req) => {
      if (real.running()) {
        const message = 'a real run is measuring this machine: simulations wait until it ends (or cancel it)'
        return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: '(machine)', message }] } }
      }
      return runs.start(req)
    },
    startRealRun: (req) => {
      if (vm.running()) return Promise.resolve({ ok: false as const, problem: { file: req.file, message: `${req.file}: a VM run is going on: a real run needs the machine to itself; wait for it to end`, issues: [{ path: '(machine)', message: 'a VM run is going on' }] } })
      return real.start(req)
    },
    startVmRun: (req) => {
      if (real.running()) return Promise.resolve({ ok: false as const, problem: { file: req.file, message: `${req.file}: a real run is measuring this machine: VM runs wait until it ends`, issues: [{ path: '(machine)', message: 'a real run is going on' }] } })
      return vm.start(req)
    },
    cancelRun: async (id) => runs.cancel(id) || real.cancel(id) || vm.cancel(id),
    resumeRun: async (id) => {
      if (real.running()) {
        const message = 'a real run is measuring this machine: simulations wait until it ends (or cancel it)'
        return { ok: false, problem: { file: id, message: `${id}: ${message}`, issues: [{ path: '(machine)', message }] } }
      }
      return runs.resume(await store.get(id))
    },
    importTrace: (text, file) => real.importTrace(text, file),
    listRuns: async () => {
      await store.refresh()
      return { runs: store.list(), problems: store.getProblems() }
    },
    getRun,
    renameRun: async (id, name) => {
      const s = await store.rename(id, name)
      emit('runs-changed', { reason: 'renamed' })
      return s
    },
    deleteRun: async (id) => {
      await store.delete(id)
      if (settings.get().baselineRunId === id) settings.setBaseline(null)
      emit('runs-changed', { reason: 'deleted' })
    },
    setBaseline: async (id) => {
      if (id !== null && !store.has(id)) throw new Error(`no saved run with id ${id}`)
      const s = settings.setBaseline(id)
      emit('runs-changed', { reason: 'baseline' })
      return s
    },
    getSettings: async () => settings.get(),
    updateSettings: async (patch) => {
      if (patch.limits) settings.setLimits(patch.limits)
      return settings.update(patch)
    },
    exportContent: (req) => exportContent(req, getRun),
    explain: (req) => explainer.explain(req),
    cancelExplain: async (requestId) => explainer.cancel(requestId),
    perfettoTrace: (req) => explainer.perfettoTrace(req),
    listPatchModules: () => patches.list(),
    checkPatchModule: (name, source) => patches.check(name, source),
    savePatchModule: async (name, source) => {
      const r = await patches.save(name, source)
      emit('runs-changed', { reason: 'patches' })
      return r
    },
    deletePatchModule: async (name) => {
      await patches.delete(name)
      emit('runs-changed', { reason: 'patches' })
    }
  }

  return {
    service, settings, store, runs, real, vm, pool,
    onEvent(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async close() {
      unwatch()
      await real.shutdown()
      await vm.shutdown()
      await runs.shutdown()
      await pool.close()
    }
  }
}
