import { basename } from 'node:path'
import type { Readable } from 'node:stream'
import type { AppInfo, ImportTraceResult, JobError, JobInfo, RunStatus, ScenarioProblem, StartRunRequest, StartRunResult, StoredRun } from '../shared/ipc'
import type { VariantResult } from '../shared/result'
import type { RunStore } from './run-store'
import type { Emit } from './run-service'
import * as scenarios from './scenario-service'
import * as real from '../real/runner'
import { RealCancelled, RealRefusal } from '../real/errors'
import { analyzeStream } from '../trace'

/**
 * The workbench's real runs (src/real, as `schedlab real`) and trace imports (src/trace, as
 * `schedlab analyze`), saved in the run store like simulated runs. Real runs go one variant x
 * repeat at a time, one real run at a time, and never beside simulations: the machine must be
 * left to the workload being measured.
 */

export interface RealServiceDeps {
  store: RunStore
  emit: Emit
  version: string
  /** Whether simulations are running (a real run then waits for nothing: it is refused). */
  simulating(): boolean
}

interface ActiveReal {
  id: string
  abort: AbortController
  done: Promise<void>
}

/** The wait for a quiet machine before each run: SCHEDLAB_REAL_QUIET_WAIT_S seconds (0: none), default 60. */
function quietOption(): { timeoutMs: number } | false {
  const v = Number(process.env.SCHEDLAB_REAL_QUIET_WAIT_S ?? 60)
  return Number.isFinite(v) && v > 0 ? { timeoutMs: v * 1000 } : false
}

const problem = (file: string, path: string, message: string): ScenarioProblem => ({ file, message: `${file}: ${message}`, issues: [{ path, message }] })

export class RealService {
  private active: ActiveReal | null = null
  private availability: AppInfo['real'] | null = null

  constructor(private readonly deps: RealServiceDeps) {}

  /** Whether this machine can run scenarios for real, and why not (checked once). */
  async available(): Promise<AppInfo['real']> {
    if (this.availability) return this.availability
    const why = real.realUnavailableReason() ?? (process.getuid?.() === 0 ? null : 'real runs need root (a private tracefs instance): start the app or `schedlab serve` as root')
    this.availability = why ? { available: false, reason: why } : { available: true }
    return this.availability
  }

  running(): boolean {
    return this.active !== null
  }

  async start(req: StartRunRequest): Promise<StartRunResult> {
    const file = req.file
    const avail = await this.available()
    if (!avail.available) return { ok: false, problem: problem(file, '(machine)', `cannot run on this machine: ${avail.reason}`) }
    if (this.active) return { ok: false, problem: problem(file, '(machine)', 'a real run is already going on; cancel it or wait for it to end') }
    if (this.deps.simulating()) return { ok: false, problem: problem(file, '(machine)', 'simulations are running: a real run needs the machine to itself; wait for them to end') }
    const parsed = scenarios.parse(req.text, file)
    if (!parsed.ok) return parsed
    const s = parsed.scenario
    const unknown = req.variants ? scenarios.unknownVariants(s, req.variants) : []
    if (unknown.length > 0) return { ok: false, problem: problem(file, 'variants', `no variant named ${unknown.map((u) => `"${u}"`).join(', ')}`) }
    // the run bar's seeds and duration apply as they do to a simulation (the CLI's --seeds, --duration-ms)
    const over = scenarios.requestOverrides(s, req)
    if (!over.ok) return over
    const expanded = scenarios.expand(s, file, req.variants, undefined, over.overrides)
    if (!expanded.ok) return expanded
    const specs = expanded.specs
    try {
      // refusals (another kernel needed, a tool or the compiler missing) before anything starts
      real.checkRealVariants(specs)
      real.preflightReal(specs)
    } catch (e) {
      if (e instanceof RealRefusal) return { ok: false, problem: problem(file, '(machine)', e.message) }
      throw e
    }
    const createdAt = new Date()
    const id = this.deps.store.newId(createdAt)
    const jobs: JobInfo[] = specs.map((spec, i) => ({ jobId: `${id}:${i}`, variant: s.variants[spec.variantIndex].name, variantIndex: spec.variantIndex, seed: spec.seed }))
    const abort = new AbortController()
    const t0 = performance.now()
    const results: VariantResult[] = []
    const errors: JobError[] = []
    const run = async (): Promise<void> => {
      for (let i = 0; i < specs.length; i++) {
        const job = jobs[i]
        if (abort.signal.aborted) {
          errors.push({ variant: job.variant, seed: job.seed, kind: 'canceled', message: 'canceled' })
          this.deps.emit('run-job', { runId: id, jobId: job.jobId, state: 'canceled' })
          continue
        }
        const durationNs = specs[i].scenario.durationMs * 1e6
        let startedAt = 0
        const timer = setInterval(() => {
          if (startedAt > 0) this.deps.emit('run-progress', { runId: id, jobs: [{ jobId: job.jobId, simNs: Math.min(durationNs, (Date.now() - startedAt) * 1e6), durationNs }] })
        }, 250)
        try {
          const r = await real.runRealOne(specs[i], {
            signal: abort.signal,
            quiet: quietOption(),
            timelines: true,
            log: (line) => {
              if (line.startsWith('running ')) startedAt = Date.now()
            }
          })
          results.push(r)
          this.deps.emit('run-job', { runId: id, jobId: job.jobId, state: 'done' })
        } catch (e) {
          const canceled = e instanceof RealCancelled
          errors.push({ variant: job.variant, seed: job.seed, kind: canceled ? 'canceled' : 'error', message: (e as Error).message })
          this.deps.emit('run-job', { runId: id, jobId: job.jobId, state: canceled ? 'canceled' : 'failed', error: errors[errors.length - 1] })
        } finally {
          clearInterval(timer)
        }
      }
      const failed = errors.filter((x) => x.kind !== 'canceled').length
      const status: RunStatus = abort.signal.aborted ? 'canceled' : results.length === 0 ? 'failed' : failed > 0 ? 'partial' : 'done'
      this.active = null
      if (results.length === 0) {
        this.deps.emit('run-finished', { runId: id, status, run: null, errors })
        return
      }
      const stored: StoredRun = {
        format: 1,
        id,
        name: req.name?.trim() || `${s.name} (real)`,
        scenarioName: s.name,
        scenarioFile: file,
        createdAt: createdAt.toISOString(),
        status,
        variants: [...new Set(results.map((r) => r.name))],
        seeds: [...new Set(results.map((r) => r.seed))].sort((a, b) => a - b),
        durationMs: over.overrides.durationMs ?? s.durationMs,
        wallMs: Math.round(performance.now() - t0),
        version: this.deps.version,
        source: 'real',
        scenarioText: req.text,
        results,
        errors
      }
      await this.save(stored, errors)
    }
    this.active = { id, abort, done: run().catch((e: Error) => {
      this.active = null
      this.deps.emit('run-finished', { runId: id, status: 'failed', run: null, errors: [{ variant: '*', seed: 0, kind: 'error', message: e.message }] })
    }) }
    return { ok: true, runId: id, jobs }
  }

  cancel(runId: string): boolean {
    if (!this.active || this.active.id !== runId) return false
    this.active.abort.abort()
    return true
  }

  async shutdown(): Promise<void> {
    const a = this.active
    if (!a) return
    a.abort.abort()
    await a.done
  }

  /** A trace (a stream of ftrace text) analyzed and saved as a run. */
  async importTrace(input: Readable, file: string): Promise<ImportTraceResult> {
    const name = basename(file)
    let v
    try {
      v = await analyzeStream(input, { name, timelines: true })
    } catch (e) {
      return { ok: false, problem: problem(file, '(file)', `cannot read the trace: ${(e as Error).message}`) }
    }
    if (v.trace.events === 0) {
      const first = v.trace.malformedExamples?.[0]
      return { ok: false, problem: problem(file, first ? `line ${first.line}` : '(file)', `no sched events in ${v.trace.lines ?? 0} line(s)${first ? ` (line ${first.line}: ${first.reason})` : ''}: expected ftrace text with sched_switch and sched_waking (tracefs trace, trace-cmd report, perf script, or run --trace)`) }
    }
    const createdAt = new Date()
    const stored: StoredRun = {
      format: 1,
      id: this.deps.store.newId(createdAt),
      name,
      scenarioName: name,
      scenarioFile: file,
      createdAt: createdAt.toISOString(),
      status: 'done',
      variants: [v.name],
      seeds: [v.seed],
      durationMs: Math.round(v.stats.simulatedMs),
      wallMs: v.stats.wallMs,
      version: this.deps.version,
      source: 'trace',
      scenarioText: '',
      results: [v],
      errors: []
    }
    const summary = await this.deps.store.save(stored)
    this.deps.emit('runs-changed', { reason: 'saved' })
    return { ok: true, run: summary }
  }

  private async save(stored: StoredRun, errors: JobError[]): Promise<void> {
    try {
      const summary = await this.deps.store.save(stored)
      this.deps.emit('run-finished', { runId: stored.id, status: stored.status, run: summary, errors })
      this.deps.emit('runs-changed', { reason: 'saved' })
    } catch (err) {
      errors.push({ variant: '*', seed: 0, kind: 'error', message: `the run could not be saved: ${(err as Error).message}` })
      this.deps.emit('run-finished', { runId: stored.id, status: 'failed', run: null, errors })
    }
  }
}
