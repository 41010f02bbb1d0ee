import { basename } from 'node:path'
import { Readable } from 'node:stream'
import type { AppInfo, ImportTraceResult, ScenarioProblem, StoredRun } from '../shared/ipc'
import type { RunStore } from './run-store'
import type { Emit } from './run-service'
import { MeasuredRuns, machineProblem } from './measured-runs'
import * as real from '../real/runner'
import { RealCancelled, RealRefusal } from '../real/errors'
import { analyzeStream, type TraceVariantResult } from '../trace'

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
  /** Analyze a trace sent as text off this thread (the worker pool); in-process without it. */
  analyzeText?(text: string, name: string): Promise<TraceVariantResult>
}

/** The wait for a quiet machine before each run: SCHEDLAB_REAL_QUIET_WAIT_S seconds (0: none), default 60. */
function quietOption(): { timeoutMs: number } | false {
  const v = Number(process.env.SCHEDLAB_REAL_QUIET_WAIT_S ?? 60)
  return Number.isFinite(v) && v > 0 ? { timeoutMs: v * 1000 } : false
}

const problem = (file: string, path: string, message: string): ScenarioProblem => machineProblem(file, message, path)

let availability: AppInfo['real'] | null = null

/** Whether this machine can run scenarios for real, and why not (checked once). */
function realAvailability(): AppInfo['real'] {
  if (availability) return availability
  const why = real.realUnavailableReason() ?? (process.getuid?.() === 0 ? null : 'real runs need root (a private tracefs instance): start the app or `schedlab serve` as root')
  availability = why ? { available: false, reason: why } : { available: true }
  return availability
}

export class RealService extends MeasuredRuns {
  constructor(private readonly realDeps: RealServiceDeps) {
    super(realDeps, {
      source: 'real',
      label: () => '(real)',
      unavailable: async () => {
        const avail = realAvailability()
        if (!avail.available) return `cannot run on this machine: ${avail.reason}`
        if (realDeps.simulating()) return 'simulations are running: a real run needs the machine to itself; wait for them to end'
        return null
      },
      // refusals (another kernel needed, a tool or the compiler missing) before anything starts
      preflight: async (specs) => {
        real.checkRealVariants(specs)
        real.preflightReal(specs)
      },
      runOne: (spec, _req, job) =>
        real.runRealOne(spec, {
          signal: job.signal,
          quiet: quietOption(),
          timelines: true,
          log: (line) => {
            if (line.startsWith('running ')) job.measuring()
          }
        }),
      refusal: (e) => e instanceof RealRefusal,
      cancelled: (e) => e instanceof RealCancelled
    })
  }

  async available(): Promise<AppInfo['real']> {
    return realAvailability()
  }

  /** A trace (a stream of ftrace text, or the text itself) analyzed and saved as a run. */
  async importTrace(input: Readable | string, file: string): Promise<ImportTraceResult> {
    const name = basename(file)
    let v
    try {
      if (typeof input !== 'string') v = await analyzeStream(input, { name, timelines: true })
      else if (this.realDeps.analyzeText) v = await this.realDeps.analyzeText(input, name)
      else v = await analyzeStream(Readable.from([input]), { name, timelines: true })
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
      id: this.realDeps.store.newId(createdAt),
      name,
      scenarioName: name,
      scenarioFile: file,
      createdAt: createdAt.toISOString(),
      status: 'done',
      variants: [v.name],
      seeds: [v.seed],
      durationMs: Math.round(v.stats.simulatedMs),
      wallMs: v.stats.wallMs,
      version: this.realDeps.version,
      source: 'trace',
      scenarioText: '',
      results: [v],
      errors: []
    }
    const summary = await this.realDeps.store.save(stored)
    this.realDeps.emit('runs-changed', { reason: 'saved' })
    return { ok: true, run: summary }
  }
}
