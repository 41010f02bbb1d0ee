import type { JobError, JobInfo, RunStatus, ScenarioProblem, StartRunRequest, StartRunResult, StoredRun } from '../shared/ipc'
import type { ResultSource, VariantResult } from '../shared/result'
import type { RunSpec } from '../sim/scenario'
import type { RunStore } from './run-store'
import type { Emit } from './run-service'
import * as scenarios from './scenario-service'

/**
 * A run measured on a kernel rather than simulated (a VM's, this machine's): one variant x seed
 * at a time, cancellable, saved in the run store like a simulated run, with the same events
 * (run-job, run-progress while it measures, run-finished). The kind says how to refuse what it
 * cannot run and how to run one job.
 */

export interface MeasuredDeps {
  store: RunStore
  emit: Emit
  version: string
}

export interface MeasuredJob {
  signal: AbortSignal
  /** The workloads started: progress counts from here over the run's duration. */
  measuring(): void
  /** What the run does now (the progress card's line). */
  phase(text: string, fraction?: number): void
}

export interface MeasuredKind {
  source: ResultSource
  /** Appended to the scenario's name for the saved run, e.g. "(vm 6.12)". */
  label(req: StartRunRequest): string
  /** Why this machine cannot, or null (checked before anything is parsed). */
  unavailable(): Promise<string | null>
  /** Refuse runs before anything starts (throws; `refusal(e)` tells which errors are the user's). */
  preflight(specs: RunSpec[], req: StartRunRequest): Promise<void>
  runOne(spec: RunSpec, req: StartRunRequest, job: MeasuredJob): Promise<VariantResult>
  refusal(e: unknown): boolean
  cancelled(e: unknown): boolean
}

export const machineProblem = (file: string, message: string, path = '(machine)'): ScenarioProblem => ({ file, message: `${file}: ${message}`, issues: [{ path, message }] })

interface Active {
  id: string
  abort: AbortController
  done: Promise<void>
}

export class MeasuredRuns {
  private active: Active | null = null

  constructor(private readonly deps: MeasuredDeps, private readonly kind: MeasuredKind) {}

  running(): boolean {
    return this.active !== null
  }

  async start(req: StartRunRequest): Promise<StartRunResult> {
    const file = req.file
    const why = await this.kind.unavailable()
    if (why) return { ok: false, problem: machineProblem(file, why) }
    if (this.active) return { ok: false, problem: machineProblem(file, `a ${this.kind.source} run is already going on; cancel it or wait for it to end`) }
    const parsed = scenarios.parse(req.text, file)
    if (!parsed.ok) return parsed
    const s = parsed.scenario
    const unknown = req.variants ? scenarios.unknownVariants(s, req.variants) : []
    if (unknown.length > 0) return { ok: false, problem: machineProblem(file, `no variant named ${unknown.map((u) => `"${u}"`).join(', ')}`, 'variants') }
    const over = scenarios.requestOverrides(s, req)
    if (!over.ok) return over
    const expanded = scenarios.expand(s, file, req.variants, undefined, over.overrides)
    if (!expanded.ok) return expanded
    const specs = expanded.specs
    try {
      await this.kind.preflight(specs, req)
    } catch (e) {
      if (this.kind.refusal(e)) return { ok: false, problem: machineProblem(file, (e as Error).message) }
      throw e
    }
    const createdAt = new Date()
    const id = this.deps.store.newId(createdAt)
    const jobs: JobInfo[] = specs.map((spec, i) => ({ jobId: `${id}:${i}`, variant: s.variants[spec.variantIndex].name, variantIndex: spec.variantIndex, seed: spec.seed }))
    const abort = new AbortController()
    const t0 = performance.now()
    const results: VariantResult[] = []
    const errors: JobError[] = []
    const emit = this.deps.emit
    const run = async (): Promise<void> => {
      for (let i = 0; i < specs.length; i++) {
        const job = jobs[i]
        if (abort.signal.aborted) {
          errors.push({ variant: job.variant, seed: job.seed, kind: 'canceled', message: 'canceled' })
          emit('run-job', { runId: id, jobId: job.jobId, state: 'canceled' })
          continue
        }
        const durationNs = specs[i].scenario.durationMs * 1e6
        let startedAt = 0
        const timer = setInterval(() => {
          if (startedAt > 0) emit('run-progress', { runId: id, jobs: [{ jobId: job.jobId, simNs: Math.min(durationNs, (Date.now() - startedAt) * 1e6), durationNs }] })
        }, 250)
        try {
          const r = await this.kind.runOne(specs[i], req, {
            signal: abort.signal,
            measuring: () => {
              startedAt = Date.now()
            },
            phase: (text, fraction) => emit('run-phase', { runId: id, text: `${job.variant}, seed ${job.seed} (${i + 1} of ${specs.length}): ${text}`, ...(fraction !== undefined ? { fraction } : {}) })
          })
          results.push(r)
          emit('run-job', { runId: id, jobId: job.jobId, state: 'done' })
        } catch (e) {
          const canceled = this.kind.cancelled(e)
          errors.push({ variant: job.variant, seed: job.seed, kind: canceled ? 'canceled' : 'error', message: (e as Error).message })
          emit('run-job', { runId: id, jobId: job.jobId, state: canceled ? 'canceled' : 'failed', error: errors[errors.length - 1] })
        } finally {
          clearInterval(timer)
        }
      }
      const failed = errors.filter((x) => x.kind !== 'canceled').length
      const status: RunStatus = abort.signal.aborted ? 'canceled' : results.length === 0 ? 'failed' : failed > 0 ? 'partial' : 'done'
      this.active = null
      if (results.length === 0) {
        emit('run-finished', { runId: id, status, run: null, errors })
        return
      }
      const stored: StoredRun = {
        format: 1,
        id,
        name: req.name?.trim() || `${s.name} ${this.kind.label(req)}`,
        scenarioName: s.name,
        scenarioFile: file,
        createdAt: createdAt.toISOString(),
        status,
        variants: [...new Set(results.map((r) => r.name))],
        seeds: [...new Set(results.map((r) => r.seed))].sort((a, b) => a - b),
        durationMs: over.overrides.durationMs ?? s.durationMs,
        wallMs: Math.round(performance.now() - t0),
        version: this.deps.version,
        source: this.kind.source,
        scenarioText: req.text,
        results,
        errors
      }
      await this.save(stored, errors)
    }
    this.active = {
      id,
      abort,
      done: run().catch((e: Error) => {
        this.active = null
        emit('run-finished', { runId: id, status: 'failed', run: null, errors: [{ variant: '*', seed: 0, kind: 'error', message: e.message }] })
      })
    }
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
