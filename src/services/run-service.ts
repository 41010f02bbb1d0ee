import { plansFor, submitRun } from './replica-runner'
import type { ReplicaPlan } from '../sim/replicas'
import type {
  ApiEventName, ApiEvents, JobError, JobInfo, JobProgress, PrecisionResult, RunRequestOptions, RunStatus, StartRunRequest, StartRunResult, StoredRun, StoredSweep
} from '../shared/ipc'
import type { VariantResult } from '../shared/result'
import type { JobHandle, JobOutcome, WorkerPool } from './worker-pool'
import type { RunStore } from './run-store'
import * as scenarios from './scenario-service'
import { runName, type RunFacts } from '../shared/run-name'
import * as sim from './sim-adapter'
import { DEFAULT_HOST_LIMITS, precisionRefusals, submissionLimits, type HostLimits } from './limits'
import { submissionRefusals } from '../sim/scenario/estimate'
import type { RunSpec, Scenario } from './sim-adapter'
import { cellLabel, cells, planCells } from '../sweep/grid'

interface SweepPlan {
  axes: { path: string; values: unknown[] }[]
  total: number
  cells: { index: number; values: unknown[]; label: string; specs: RunSpec[] }[]
}
import {
  DEFAULT_MAX_SEEDS, DEFAULT_MIN_SEEDS, parsePrecisionTarget, resolveTargetWorkload, runToPrecision, type PrecisionTarget, type VariantPrecision
} from '../stats/precision'

export type Emit = <E extends ApiEventName>(event: E, payload: ApiEvents[E]) => void

interface ActiveJob {
  info: JobInfo
  handle: JobHandle<VariantResult>
  progress: JobProgress | null
  outcome: JobOutcome<VariantResult> | null
  done?: Promise<void>
  /** Canceled by a precision run whose variant was precise: neither a result nor an error. */
  surplus?: boolean
}

interface ActiveRun {
  id: string
  /** The scenario's name (and the variants run, when not all); what differs is added on save. */
  name: string
  /** The user gave the name: keep it as it is. */
  named: boolean
  text: string
  file: string
  /** The options it was started with (saved, so that an interrupted run can be resumed). */
  request: RunRequestOptions
  scenarioName: string
  durationMs: number
  createdAt: Date
  t0: number
  jobs: ActiveJob[]
  canceled: boolean
  /** Canceled because the host is stopping: saved as interrupted, so that it can be resumed. */
  stopping?: boolean
  /** A sweep: its grid, and each cell's runs. */
  sweep?: SweepPlan
  /** A precision run: its results (seeds first..first+n-1 per variant) and what it reached. */
  precision?: { results: VariantResult[]; report: PrecisionResult } | null
  dirty: Set<string>
  timer: NodeJS.Timeout
  done: Promise<void>
  /** The checkpoint write in flight (resolved when none), and whether another is due. */
  checkpointing: Promise<void>
  checkpointDue: boolean
}

export interface RunServiceDeps {
  pool: WorkerPool<VariantResult>
  store: RunStore
  emit: Emit
  version: string
  /** The host's limits in force (read at each start: a changed setting applies to the next run). */
  limits?: () => HostLimits
  /** Minimum interval between progress events of one run. */
  progressIntervalMs?: number
  /** Runs queued or running on this host at one time (default MAX_ACTIVE_RUNS); more are refused. */
  maxActiveRuns?: number
}

/**
 * Default of the runs one host queues or runs at one time, from every client together: a burst
 * of 1000 startRun used to queue 4000 jobs.
 */
export const MAX_ACTIVE_RUNS = 64

/** Finished runs kept in memory when their save fails (a full disk), and how often it is retried. */
export const MAX_UNSAVED_RUNS = 16
export const UNSAVED_RETRY_MS = 30_000

/**
 * Runs a scenario: expands it into variant x seed jobs, runs them on the worker pool,
 * forwards throttled progress, and saves the run (scenario text, version, seeds, results and
 * per-job errors) when its last job ends. A failed or canceled job never discards the others.
 */
export class RunService {
  private readonly active = new Map<string, ActiveRun>()

  constructor(private readonly deps: RunServiceDeps) {}

  /**
   * Continue an interrupted run (its host stopped; the run store kept its checkpoint as a partial
   * run): the same expansion from the same text and options, each job whose result the run holds
   * is taken from it, the others run. The run keeps its id, and once saved holds what an
   * uninterrupted run would have.
   */
  resume(from: StoredRun): StartRunResult {
    const refuse = (message: string): StartRunResult => ({ ok: false, problem: { file: from.scenarioFile, message: `${from.scenarioFile}: ${message}`, issues: [{ path: '(run)', message }] } })
    if (!from.interrupted) return refuse(`run "${from.name}" was not interrupted: there is nothing to resume`)
    if (!from.request || from.precision) return refuse(`run "${from.name}" cannot be resumed (${from.precision ? 'a precision run' : 'saved before resuming existed'}): run its scenario again`)
    if (this.active.has(from.id)) return refuse(`run "${from.name}" is already running`)
    return this.start({ ...from.request, text: from.scenarioText, file: from.scenarioFile }, from)
  }

  start(req: StartRunRequest, from?: StoredRun): StartRunResult {
    const maxActive = this.deps.maxActiveRuns ?? MAX_ACTIVE_RUNS
    if (this.active.size >= maxActive) {
      const message = `refused: ${maxActive} runs are already queued or running on this host (the limit of runs at one time); wait for one to finish or cancel one`
      return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: '(run)', message }] } }
    }
    const limits = this.deps.limits?.() ?? DEFAULT_HOST_LIMITS
    const parsed = scenarios.parse(req.text, req.file, limits.maxEventsPerRun)
    if (!parsed.ok) return parsed
    const s = parsed.scenario
    const unknown = req.variants ? scenarios.unknownVariants(s, req.variants) : []
    if (unknown.length > 0) {
      const message = `no variant named ${unknown.map((u) => `"${u}"`).join(', ')} (variants: ${s.variants.map((v) => v.name).join(', ')})`
      return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: 'variants', message }] } }
    }
    // The run bar's overrides (the CLI's --seeds, --duration-ms, --published).
    const over = scenarios.requestOverrides(s, req)
    if (!over.ok) return over
    const overrides = over.overrides
    // A scenario with a "sweep" runs every cell (variants x seeds with the cell's values set).
    let sweep: SweepPlan | null = null
    let specs: RunSpec[]
    if (s.sweep && s.sweep.length > 0 && req.precision === undefined) {
      const axes = s.sweep
      try {
        const planned = planCells(axes, req.text, cells(axes), req.file,
          (t) => sim.expandRuns(scenarios.parseOrThrow(t, req.file, limits.maxEventsPerRun), { ...(req.variants ? { variants: req.variants } : {}), ...overrides }),
          (e, where) => (sim.isScenarioError(e) ? new sim.ScenarioError(where, e.issues) : e))
        sweep = { axes, total: planned.length, cells: planned.map((p) => ({ index: p.cell.index, values: p.cell.values, label: cellLabel(axes, p.cell), specs: p.scenario })) }
      } catch (err) {
        return { ok: false, problem: scenarios.problemOf(err, req.file) }
      }
      specs = sweep.cells.flatMap((c) => c.specs)
      // the whole grid is one submission: its cost is checked like a run's
      const refused = submissionRefusals(specs, submissionLimits(limits))
      if (refused.length > 0) return { ok: false, problem: { file: req.file, message: `${req.file}: ${refused[0]}`, issues: refused.map((message) => ({ path: 'sweep', message })) } }
    } else {
      const expanded = scenarios.expand(s, req.file, req.variants, submissionLimits(limits), overrides)
      if (!expanded.ok) return expanded
      specs = expanded.specs
    }
    if (specs.length === 0) {
      const message = 'the scenario has nothing to run (no variant selected)'
      return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: 'variants', message }] } }
    }
    let target: (PrecisionTarget & { text: string }) | undefined
    if (req.precision !== undefined) {
      const t = parsePrecisionTarget(req.precision)
      const w = typeof t === 'string' ? t : resolveTargetWorkload(s.workloads, t.workload)
      if (typeof t === 'string' || typeof w === 'string') {
        const message = `precision: ${typeof t === 'string' ? t : w}`
        return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: 'precision', message }] } }
      }
      target = { ...t, workload: w.name }
      const refused = precisionRefusals(specs, req.maxSeeds ?? DEFAULT_MAX_SEEDS, limits)
      if (refused.length > 0) {
        return { ok: false, problem: { file: req.file, message: `${req.file}: ${refused[0]}`, issues: refused.map((message) => ({ path: 'precision', message })) } }
      }
    }
    const createdAt = from ? new Date(from.createdAt) : new Date()
    const id = from ? from.id : this.deps.store.newId(createdAt)
    const request: RunRequestOptions = {
      ...(req.name !== undefined ? { name: req.name } : {}), ...(req.variants ? { variants: req.variants } : {}),
      ...(req.seeds !== undefined ? { seeds: req.seeds } : {}), ...(req.durationMs !== undefined ? { durationMs: req.durationMs } : {}),
      ...(req.published ? { published: true } : {})
    }
    // a resumed run's finished jobs, by cell, variant and seed (not a canceled job's partial figures)
    const kept = new Map<string, VariantResult>()
    if (from) {
      for (const r of from.results) if (!r.partial) kept.set(jobKey(undefined, r.name, r.seed), r)
      for (const c of from.sweep?.cells ?? []) for (const r of c.results) if (!r.partial) kept.set(jobKey(c.index, r.name, r.seed), r)
    }
    // A run of some variants only says which, so history entries stay distinguishable.
    const baseName = req.name?.trim() || (req.variants && req.variants.length < s.variants.length ? `${s.name} [${req.variants.join(', ')}]` : s.name)
    const run: ActiveRun = {
      id, text: req.text, file: req.file, request, createdAt, t0: performance.now(),
      name: from ? from.name : baseName,
      // a resumed run is named as it would have been, unless it was renamed while interrupted
      named: !!req.name?.trim() || (!!from && from.name !== baseName),
      scenarioName: s.name,
      durationMs: overrides.durationMs ?? s.durationMs,
      jobs: [], canceled: false, dirty: new Set(), checkpointing: Promise.resolve(), checkpointDue: false,
      timer: setInterval(() => this.flushProgress(run), this.deps.progressIntervalMs ?? 150),
      done: Promise.resolve()
    }
    const submit = (spec: RunSpec, cell?: { index: number; label: string }, plan: ReplicaPlan | null = null): ActiveJob => {
      const info: JobInfo = { jobId: `${id}:${run.jobs.length}`, variant: s.variants[spec.variantIndex].name, variantIndex: spec.variantIndex, seed: spec.seed, ...(cell ? { cell } : {}) }
      const done = kept.get(jobKey(cell?.index, info.variant, spec.seed))
      if (done) {
        // finished before the host stopped: the checkpoint's result, not run again
        const outcome: JobOutcome<VariantResult> = { status: 'done', result: done, wallMs: 0 }
        const job: ActiveJob = { info: { ...info, resumed: true }, progress: null, outcome, handle: { id: -1, outcome: Promise.resolve(outcome), cancel: () => undefined } }
        job.done = Promise.resolve()
        run.jobs.push(job)
        return job
      }
      const job: ActiveJob = { info, progress: null, outcome: null, handle: null as unknown as JobHandle<VariantResult> }
      // a long steady run takes the pool's idle workers as parallel replicas (src/sim/replicas.ts)
      job.handle = submitRun(this.deps.pool, spec, plan, {
        onProgress: (simNs, durationNs) => {
          job.progress = { jobId: info.jobId, simNs, durationNs }
          run.dirty.add(info.jobId)
        }
      })
      run.jobs.push(job)
      job.done = job.handle.outcome.then((o) => this.onJobEnd(run, job, o))
      return job
    }
    this.active.set(id, run)
    if (target) {
      run.precision = null
      const initial = run.jobs.length
      run.done = this.runPrecision(run, s, specs, target, req.maxSeeds ?? DEFAULT_MAX_SEEDS, submit)
        .then(() => this.finish(run))
      this.track(run)
      const first = run.jobs.slice(initial).map((j) => j.info)
      return { ok: true, runId: id, jobs: first }
    }
    if (sweep) {
      run.sweep = sweep
      for (const c of sweep.cells) for (const spec of c.specs) submit(spec, { index: c.index, label: c.label })
    } else {
      const plans = plansFor(specs, this.deps.pool.size)
      specs.forEach((spec, i) => submit(spec, undefined, plans[i]))
    }
    if (from) {
      // the resumed run is in flight again: its next checkpoint (and its save) replace the partial run
      this.checkpoint(run)
    }
    run.done = Promise.all(run.jobs.map((j) => j.done))
      .then(() => this.finish(run))
    this.track(run)
    return { ok: true, runId: id, jobs: run.jobs.map((j) => j.info) }
  }

  /**
   * Seeds added per variant on the pool until the target's interval is within PCT % (the same
   * rule and stopping point as `run --precision`). Jobs beyond the first ones are announced with
   * 'run-jobs'; those canceled because their variant was already precise are not errors.
   */
  private async runPrecision(
    run: ActiveRun, s: Scenario, specs: RunSpec[], target: PrecisionTarget & { text: string }, maxSeeds: number, submit: (spec: RunSpec) => ActiveJob
  ): Promise<void> {
    const specOf = new Map(specs.map((x) => [x.variantIndex, x]))
    let announced = false
    try {
      const pending = runToPrecision({
        variants: [...specOf.keys()],
        firstSeed: specs[0].seed,
        minSeeds: Math.max(DEFAULT_MIN_SEEDS, s.seeds),
        maxSeeds,
        concurrency: this.deps.pool.size,
        target,
        onCheck: (states) => this.deps.emit('run-precision', { runId: run.id, precision: precisionReport(s, target.text, states) }),
        submit: (vi, seed) => {
          const job = submit({ ...specOf.get(vi)!, seed })
          if (announced) this.deps.emit('run-jobs', { runId: run.id, jobs: [job.info] })
          job.surplus = false
          return {
            result: job.handle.outcome.then((o) => (o.status === 'done' ? o.result : o.status === 'canceled' ? null : Promise.reject(new Error(o.message)))),
            cancel: () => {
              job.surplus = true
              job.handle.cancel()
            }
          }
        }
      })
      // the first jobs are submitted synchronously above and returned by start(); later ones are announced
      announced = true
      const out = await pending
      run.precision = { results: out.results, report: precisionReport(s, target.text, out.variants) }
    } catch {
      // a failed or canceled job: the run is saved with what finished, as any run
    } finally {
      announced = true
      await Promise.all(run.jobs.map((j) => j.done))
    }
  }

  private track(run: ActiveRun): void {
    const done = run.done
    this.ending.add(done)
    void done.finally(() => this.ending.delete(done)).catch(() => undefined)
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

  /** Every run's end (its save included) not yet resolved, also once it has left `active`. */
  private readonly ending = new Set<Promise<void>>()

  /** Resolves when every run started so far has been saved (tests, shutdown). */
  async whenIdle(): Promise<void> {
    while (this.ending.size > 0) await Promise.all([...this.ending])
  }

  async shutdown(): Promise<void> {
    for (const [id, run] of this.active) {
      run.stopping = true
      this.cancel(id)
    }
    await this.whenIdle()
    // a last try for results a full disk refused
    await this.retryUnsaved()
    if (this.retryTimer) clearInterval(this.retryTimer)
    this.retryTimer = null
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
    if (outcome.status === 'done' && run.jobs.some((j) => !j.outcome)) this.checkpoint(run)
  }

  /**
   * A run of several jobs writes what has finished (seeds, sweep cells) as it goes: a host
   * killed meanwhile keeps them (the run store turns the checkpoint into a partial run at its
   * next start). One write at a time; the latest state wins.
   */
  private checkpoint(run: ActiveRun): void {
    if (run.checkpointDue) return
    run.checkpointDue = true
    run.checkpointing = run.checkpointing.then(async () => {
      run.checkpointDue = false
      if (!this.active.has(run.id)) return
      const { stored } = this.build(run, run.name)
      if (stored) await this.deps.store.saveCheckpoint(stored).catch(() => undefined)
    })
  }

  /** The run as saved from the jobs that have ended so far (null: no result yet), named `name`. */
  private build(run: ActiveRun, name: string): { stored: StoredRun | null; status: RunStatus; errors: JobError[] } {
    const results: VariantResult[] = []
    const errors: JobError[] = []
    for (const j of run.jobs) {
      if (j.outcome?.status === 'done') results.push(j.outcome.result)
      // A canceled simulation's figures up to where it stopped are kept, marked partial
      // (not a precision run's surplus seeds, which were never wanted).
      if (j.outcome?.status === 'canceled' && j.outcome.partial && !j.surplus) results.push({ ...j.outcome.partial, partial: true })
      const e = j.surplus && !run.canceled ? null : errorOf(j)
      if (e) errors.push(e)
    }
    // a precision run keeps the seeds its rule stopped at, whatever else had finished
    if (run.precision) results.splice(0, results.length, ...run.precision.results)
    let sweep: StoredSweep | undefined
    if (run.sweep) {
      const byCell = new Map<number, VariantResult[]>()
      for (const j of run.jobs) {
        if (j.outcome?.status !== 'done' || !j.info.cell) continue
        const list = byCell.get(j.info.cell.index) ?? []
        list.push(j.outcome.result)
        byCell.set(j.info.cell.index, list)
      }
      sweep = { axes: run.sweep.axes, total: run.sweep.total, cells: run.sweep.cells.map((c) => ({ index: c.index, values: c.values, results: byCell.get(c.index) ?? [] })) }
    }
    const failed = errors.filter((e) => e.kind !== 'canceled').length
    // stopped with its host (not by its user): kept as an interrupted run, resumable like a killed host's
    const interrupted = !!run.stopping && run.precision === undefined && run.jobs.some((j) => j.outcome?.status !== 'done')
    if (interrupted) errors.push({ variant: '*', seed: 0, kind: 'canceled', message: 'the host stopped before the run finished: resume it for the rest' })
    const status: RunStatus = interrupted ? 'partial' : run.canceled ? 'canceled'
      : results.length === 0 ? 'failed'
        : failed > 0 ? 'partial' : 'done'
    if (results.length === 0) return { stored: null, status, errors }
    const seeds = [...new Set(run.precision ? results.map((r) => r.seed) : run.jobs.map((j) => j.info.seed))].sort((a, b) => a - b)
    const stored: StoredRun = {
      format: 1,
      id: run.id,
      name,
      scenarioName: run.scenarioName,
      scenarioFile: run.file,
      createdAt: run.createdAt.toISOString(),
      status,
      variants: [...new Set(results.map((r) => r.name))],
      seeds,
      durationMs: run.durationMs,
      wallMs: Math.round(performance.now() - run.t0),
      version: this.deps.version,
      scenarioText: run.text,
      request: run.request,
      // a sweep keeps its results per cell (the same variant runs in every cell)
      results: sweep ? [] : results,
      errors,
      ...(run.precision ? { precision: run.precision.report } : {}),
      ...(interrupted ? { interrupted: true as const } : {}),
      ...(sweep ? { sweep, kind: 'sweep' as const } : {})
    }
    return { stored, status, errors }
  }

  private async finish(run: ActiveRun): Promise<void> {
    clearInterval(run.timer)
    this.active.delete(run.id)
    await run.checkpointing
    const { stored, status, errors } = this.build(run, run.name)
    if (!stored) {
      this.deps.emit('run-finished', { runId: run.id, status, run: null, errors })
      await this.deps.store.removeCheckpoint(run.id)
      return
    }
    if (!run.named) stored.name = runName(run.name, await this.lastRunOf(run), { text: run.text, durationMs: run.durationMs, seeds: stored.seeds.length })
    try {
      const summary = await this.deps.store.save(stored)
      this.deps.emit('run-finished', { runId: run.id, status, run: summary, errors })
      this.deps.emit('runs-changed', { reason: 'saved' })
      void this.retryUnsaved()
    } catch (err) {
      // a full disk: the results stay in memory (getRun still answers) and are saved again later
      this.keepUnsaved(stored)
      errors.push({ variant: '*', seed: 0, kind: 'error', message: `the run could not be saved: ${(err as Error).message}; its results are kept in memory and saved again every ${Math.round(UNSAVED_RETRY_MS / 1000)} s and after the next run is saved` })
      this.deps.emit('run-finished', { runId: run.id, status: 'failed', run: null, errors })
    }
    await this.deps.store.removeCheckpoint(run.id)
  }

  /** Finished runs whose save failed, oldest first: kept for a retry (at most MAX_UNSAVED_RUNS). */
  private readonly unsaved = new Map<string, StoredRun>()
  private retryTimer: NodeJS.Timeout | null = null
  private retrying: Promise<number> | null = null

  /** A finished run not saved yet (its save failed), or undefined. */
  unsavedRun(id: string): StoredRun | undefined {
    return this.unsaved.get(id)
  }

  private keepUnsaved(run: StoredRun): void {
    this.unsaved.set(run.id, run)
    while (this.unsaved.size > MAX_UNSAVED_RUNS) this.unsaved.delete(this.unsaved.keys().next().value!)
    if (!this.retryTimer) {
      this.retryTimer = setInterval(() => void this.retryUnsaved(), UNSAVED_RETRY_MS)
      this.retryTimer.unref()
    }
  }

  /** Save again the runs whose save failed; resolves with how many were saved now. */
  retryUnsaved(): Promise<number> {
    if (this.unsaved.size === 0) return Promise.resolve(0)
    this.retrying ??= (async () => {
      let saved = 0
      for (const [id, run] of [...this.unsaved]) {
        try {
          await this.deps.store.save(run)
        } catch {
          break
        }
        this.unsaved.delete(id)
        saved++
      }
      if (saved > 0) this.deps.emit('runs-changed', { reason: 'saved' })
      if (this.unsaved.size === 0 && this.retryTimer) {
        clearInterval(this.retryTimer)
        this.retryTimer = null
      }
      return saved
    })().finally(() => {
      this.retrying = null
    })
    return this.retrying
  }
}

/** A job's place in a run: its sweep cell (none for a run), variant and seed. */
function jobKey(cell: number | undefined, variant: string, seed: number): string {
  return JSON.stringify([cell ?? null, variant, seed])
}

function precisionReport(s: Scenario, target: string, states: readonly VariantPrecision[]): PrecisionResult {
  return {
    target,
    variants: states.map((v) => ({
      name: s.variants[v.variantIndex].name, seeds: v.seeds, reached: v.reached,
      halfWidthPct: v.halfWidthPct === null ? null : Math.round(v.halfWidthPct * 100) / 100
    }))
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
