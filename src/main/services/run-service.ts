import type {
  ApiEventName, ApiEvents, JobError, JobInfo, JobProgress, RunStatus, StartRunRequest, StartRunResult, StoredRun
} from '../../shared/ipc'
import type { VariantResult } from '../../shared/result'
import type { JobHandle, JobOutcome, WorkerPool } from './worker-pool'
import type { RunStore } from './run-store'
import * as scenarios from './scenario-service'
import { runName, type RunFacts } from '../../shared/run-name'

export type Emit = <E extends ApiEventName>(event: E, payload: ApiEvents[E]) => void

interface ActiveJob {
  info: JobInfo
  handle: JobHandle<VariantResult>
  progress: JobProgress | null
  outcome: JobOutcome<VariantResult> | null
}

interface ActiveRun {
  id: string
  /** The scenario's name (and the variants run, when not all); what differs is added on save. */
  name: string
  /** The user gave the name: keep it as it is. */
  named: boolean
  seeds: number
  text: string
  file: string
  scenarioName: string
  durationMs: number
  createdAt: Date
  t0: number
  jobs: ActiveJob[]
  canceled: boolean
  dirty: Set<string>
  timer: NodeJS.Timeout
  done: Promise<void>
}

export interface RunServiceDeps {
  pool: WorkerPool<VariantResult>
  store: RunStore
  emit: Emit
  version: string
  /** Minimum interval between progress events of one run. */
  progressIntervalMs?: number
}

/**
 * Runs a scenario: expands it into variant x seed jobs, runs them on the worker pool,
 * forwards throttled progress, and saves the run (scenario text, version, seeds, results and
 * per-job errors) when its last job ends. A failed or canceled job never discards the others.
 */
export class RunService {
  private readonly active = new Map<string, ActiveRun>()

  constructor(private readonly deps: RunServiceDeps) {}

  start(req: StartRunRequest): StartRunResult {
    const parsed = scenarios.parse(req.text, req.file)
    if (!parsed.ok) return parsed
    const s = parsed.scenario
    const unknown = req.variants ? scenarios.unknownVariants(s, req.variants) : []
    if (unknown.length > 0) {
      const message = `no variant named ${unknown.map((u) => `"${u}"`).join(', ')} (variants: ${s.variants.map((v) => v.name).join(', ')})`
      return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: 'variants', message }] } }
    }
    let durationMs = req.durationMs
    if (req.published) {
      if (s.publishedDurationMs === undefined) {
        const message = 'the scenario gives no publishedDurationMs (the duration of the published test), so it cannot run for it'
        return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: 'publishedDurationMs', message }] } }
      }
      durationMs = s.publishedDurationMs
    }
    const expanded = scenarios.expand(s, req.file, { variants: req.variants, seeds: req.seeds, durationMs })
    if (!expanded.ok) return expanded
    const specs = expanded.specs
    if (specs.length === 0) {
      const message = 'the scenario has nothing to run (no variant selected)'
      return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: 'variants', message }] } }
    }
    const createdAt = new Date()
    const id = this.deps.store.newId(createdAt)
    const run: ActiveRun = {
      id, text: req.text, file: req.file, createdAt, t0: performance.now(),
      // A run of some variants only says which, so history entries stay distinguishable.
      name: req.name?.trim() || (req.variants && req.variants.length < s.variants.length ? `${s.name} [${req.variants.join(', ')}]` : s.name),
      named: !!req.name?.trim(),
      seeds: new Set(specs.map((x) => x.seed)).size,
      scenarioName: s.name,
      durationMs: durationMs ?? s.durationMs,
      jobs: [], canceled: false, dirty: new Set(),
      timer: setInterval(() => this.flushProgress(run), this.deps.progressIntervalMs ?? 150),
      done: Promise.resolve()
    }
    run.jobs = specs.map((spec, i) => {
      const info: JobInfo = { jobId: `${id}:${i}`, variant: s.variants[spec.variantIndex].name, variantIndex: spec.variantIndex, seed: spec.seed }
      const job: ActiveJob = { info, progress: null, outcome: null, handle: null as unknown as JobHandle<VariantResult> }
      job.handle = this.deps.pool.submit(spec, {
        onProgress: (simNs, durationNs) => {
          job.progress = { jobId: info.jobId, simNs, durationNs }
          run.dirty.add(info.jobId)
        }
      })
      return job
    })
    this.active.set(id, run)
    run.done = Promise.all(run.jobs.map((j) => j.handle.outcome.then((o) => this.onJobEnd(run, j, o))))
      .then(() => this.finish(run))
    return { ok: true, runId: id, jobs: run.jobs.map((j) => j.info) }
  }

  cancel(runId: string): boolean {
    const run = this.active.get(runId)
    if (!run) return false
    run.canceled = true
    for (const j of run.jobs) j.handle.cancel()
    return true
  }

  activeRuns(): string[] {
    return [...this.active.keys()]
  }

  /** Resolves when every run started so far has been saved (tests, shutdown). */
  async whenIdle(): Promise<void> {
    await Promise.all([...this.active.values()].map((r) => r.done))
  }

  async shutdown(): Promise<void> {
    for (const id of this.active.keys()) this.cancel(id)
    await this.whenIdle()
  }

  private flushProgress(run: ActiveRun): void {
    if (run.dirty.size === 0) return
    const jobs = run.jobs.filter((j) => run.dirty.has(j.info.jobId) && j.progress && !j.outcome).map((j) => j.progress!)
    run.dirty.clear()
    if (jobs.length > 0) this.deps.emit('run-progress', { runId: run.id, jobs })
  }

  /** The last saved run of the same scenario, to name this one after what differs from it. */
  private async lastRunOf(run: ActiveRun): Promise<RunFacts | null> {
    const prev = this.deps.store.list().find((r) => r.scenarioName === run.scenarioName && r.id !== run.id)
    if (!prev) return null
    try {
      const p = await this.deps.store.get(prev.id)
      return { text: p.scenarioText, durationMs: p.durationMs, seeds: p.seeds.length }
    } catch {
      return null
    }
  }

  private onJobEnd(run: ActiveRun, job: ActiveJob, outcome: JobOutcome<VariantResult>): void {
    job.outcome = outcome
    const state = outcome.status === 'done' ? 'done' : outcome.status === 'failed' ? 'failed' : 'canceled'
    this.deps.emit('run-job', { runId: run.id, jobId: job.info.jobId, state, error: errorOf(job) ?? undefined })
  }

  private async finish(run: ActiveRun): Promise<void> {
    clearInterval(run.timer)
    this.active.delete(run.id)
    const results: VariantResult[] = []
    const errors: JobError[] = []
    for (const j of run.jobs) {
      if (j.outcome?.status === 'done') results.push(j.outcome.result)
      // A canceled simulation's figures up to where it stopped are kept, marked partial.
      if (j.outcome?.status === 'canceled' && j.outcome.partial) results.push({ ...j.outcome.partial, partial: true })
      const e = errorOf(j)
      if (e) errors.push(e)
    }
    const failed = errors.filter((e) => e.kind !== 'canceled').length
    const status: RunStatus = run.canceled ? 'canceled'
      : results.length === 0 ? 'failed'
        : failed > 0 ? 'partial' : 'done'
    if (results.length === 0) {
      this.deps.emit('run-finished', { runId: run.id, status, run: null, errors })
      return
    }
    const stored: StoredRun = {
      format: 1,
      id: run.id,
      name: run.named ? run.name : runName(run.name, await this.lastRunOf(run), { text: run.text, durationMs: run.durationMs, seeds: run.seeds }),
      scenarioName: run.scenarioName,
      scenarioFile: run.file,
      createdAt: run.createdAt.toISOString(),
      status,
      variants: [...new Set(results.map((r) => r.name))],
      seeds: [...new Set(run.jobs.map((j) => j.info.seed))].sort((a, b) => a - b),
      durationMs: run.durationMs,
      wallMs: Math.round(performance.now() - run.t0),
      version: this.deps.version,
      scenarioText: run.text,
      results,
      errors
    }
    try {
      const summary = await this.deps.store.save(stored)
      this.deps.emit('run-finished', { runId: run.id, status, run: summary, errors })
      this.deps.emit('runs-changed', { reason: 'saved' })
    } catch (err) {
      errors.push({ variant: '*', seed: 0, kind: 'error', message: `the run could not be saved: ${(err as Error).message}` })
      this.deps.emit('run-finished', { runId: run.id, status: 'failed', run: null, errors })
    }
  }
}

function errorOf(job: ActiveJob): JobError | null {
  const o = job.outcome
  if (!o || o.status === 'done') return null
  const { variant, seed } = job.info
  if (o.status === 'canceled') {
    const ms = o.partial?.stats.simulatedMs
    return { variant, seed, kind: 'canceled', message: ms === undefined ? 'canceled' : `canceled after ${ms} ms simulated; its figures are kept, marked partial` }
  }
  return { variant, seed, kind: o.kind, message: o.message }
}
