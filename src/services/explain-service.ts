import type { ExplainRequest, StoredRun, TraceContent, TraceExportRequest } from '../shared/ipc'
import type { Emit } from './run-service'
import type { ExplainResult, TraceTimeline } from '../shared/explain'
import type { VariantResult } from '../shared/result'
import type { JobHandle, WorkerPool } from './worker-pool'
import * as scenarios from './scenario-service'
import type { RunSpec } from './sim-adapter'

/**
 * Why this latency, for the workbench: the saved run's scenario is expanded again, and the
 * variant x seed asked for is re-run with the decision recorder in the worker pool (the
 * renderer never simulates). The worker answers with the explanation (or the trace's bytes).
 */

/** Worker jobs besides plain runs (sim-worker.ts dispatches on `job`). */
export type WorkerJob =
  | ({ job: 'explain' } & RunSpec & Pick<ExplainRequest, 'workload' | 'sample' | 'idle'>)
  | ({ job: 'perfetto' } & RunSpec & Pick<TraceExportRequest, 'startNs' | 'endNs'>)

export class ExplainService {
  /** Explanations under way by requestId (a long run's two passes take a while: they can be stopped). */
  private readonly active = new Map<string, JobHandle<unknown>>()

  constructor(
    private readonly pool: WorkerPool<VariantResult>,
    private readonly getRun: (id: string) => Promise<StoredRun>,
    private readonly emit?: Emit
  ) {}

  cancel(requestId: string): boolean {
    const h = this.active.get(requestId)
    if (!h) return false
    h.cancel()
    return true
  }

  private async spec(runId: string, variant: string, seed: number): Promise<{ run: StoredRun; spec: RunSpec }> {
    const run = await this.getRun(runId)
    if (run.source === 'real' || run.source === 'trace') {
      throw new Error(`run ${runId} ${run.source === 'real' ? 'was measured on this machine\'s kernel' : 'is an imported trace'}: a real kernel records no scheduler decisions, so only simulated runs can be explained`)
    }
    const parsed = scenarios.parse(run.scenarioText, run.scenarioFile)
    if (!parsed.ok) throw new Error(`the saved scenario of run ${runId} no longer parses: ${parsed.problem.message}`)
    const expanded = scenarios.expand(parsed.scenario, run.scenarioFile, [variant])
    if (!expanded.ok) throw new Error(expanded.problem.message)
    const spec = expanded.specs.find((s) => s.seed === seed)
    if (!spec) throw new Error(`run ${runId} has no seed ${seed} of variant "${variant}" (seeds: ${run.seeds.join(', ')})`)
    return { run, spec }
  }

  private async job<T>(payload: WorkerJob, requestId?: string): Promise<T> {
    const emit = this.emit
    const onProgress = requestId && emit ? (simNs: number, durationNs: number) => emit('explain-progress', { requestId, simNs, durationNs }) : undefined
    const handle = (this.pool as unknown as WorkerPool<T>).submit(payload, { onProgress })
    if (requestId) {
      // a request named again replaces the one before (a second click on the same figure)
      this.active.get(requestId)?.cancel()
      this.active.set(requestId, handle)
    }
    try {
      const o = await handle.outcome
      if (o.status === 'done') return o.result
      if (o.status === 'canceled') throw new Error('the explanation was canceled')
      throw new Error(o.message)
    } finally {
      if (requestId && this.active.get(requestId) === handle) this.active.delete(requestId)
    }
  }

  async explain(req: ExplainRequest): Promise<ExplainResult> {
    const measured = await this.measured(req)
    if (measured) return measured
    const { run, spec } = await this.spec(req.runId, req.variant, req.seed)
    if (req.workload !== undefined && !spec.scenario.workloads.some((w) => w.name === req.workload)) {
      throw new Error(`run ${req.runId} has no workload "${req.workload}"`)
    }
    const e = await this.job<ExplainResult>({ job: 'explain', ...spec, workload: req.workload, sample: req.sample ?? 'max', idle: req.idle }, req.requestId)
    // a run saved by another version of the model is re-run by this one: say so if they differ
    const saved = run.results.find((r) => r.name === req.variant && r.seed === req.seed)
    const wl = saved?.workloads.find((w) => w.name === req.workload)
    if (saved?.replicas) {
      // a long steady run measured as K replicas of D/K (src/sim/replicas.ts): the explanation is
      // of the one run of D with this seed, whose samples are not the replicas'
      e.warning = `this run was measured as ${saved.replicas} parallel replicas; the explanation is of the single ${spec.scenario.durationMs} ms run with seed ${req.seed}, whose ${req.sample ?? 'max'} (${e.sample.latencyUs} us) is not the pooled figure`
    } else if (wl && (req.sample ?? 'max') === 'max' && Math.abs(wl.latencyUs.max - e.sample.latencyUs) > 0.0015) {
      e.warning = `this run was saved by schedlab ${run.version}; re-run now, its maximum is ${e.sample.latencyUs} us, not the saved ${wl.latencyUs.max} us`
    }
    return e
  }

  /**
   * A real run or an imported trace: nothing to re-run and no decisions, but the analyzer kept
   * the timeline around each workload's maximum (src/trace/worst-window.ts), which the
   * workbench shows, alone or aligned with a simulated run's. Null for simulated runs.
   */
  private async measured(req: ExplainRequest): Promise<ExplainResult | null> {
    const run = await this.getRun(req.runId)
    if (run.source !== 'real' && run.source !== 'trace') return null
    const what = run.source === 'real' ? 'was measured on this machine\'s kernel' : 'is an imported trace'
    const refuse = (why: string): never => {
      throw new Error(`run ${req.runId} ${what}: a real kernel records no scheduler decisions, so only simulated runs can be explained; ${why}`)
    }
    if (req.idle) refuse('nor does a trace count unreasonable idle')
    if ((req.sample ?? 'max') !== 'max') refuse('its timeline is kept around each workload\'s maximum only (click the max)')
    const r = run.results.find((x) => x.name === req.variant && x.seed === req.seed)
    const tl = r?.timelines?.find((t) => t.workload === req.workload)
    if (!tl) refuse(`this run kept no timeline of "${req.workload}" (runs saved before schedlab kept them, or a workload without samples)`)
    return measuredExplanation(run, req.variant, req.seed, tl!, run.source)
  }

  async perfettoTrace(req: TraceExportRequest): Promise<TraceContent> {
    const { spec } = await this.spec(req.runId, req.variant, req.seed)
    const bytes = await this.job<Uint8Array>({ job: 'perfetto', ...spec, startNs: req.startNs, endNs: req.endNs })
    const slug = `${spec.scenario.name}-${req.variant}-seed${req.seed}`.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 150) || 'trace'
    return { fileName: `${slug}.perfetto-trace`, base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') }
  }
}

/** A measured maximum as an explanation without decisions: the sample, the window, every CPU's lane. */
export function measuredExplanation(run: StoredRun, variant: string, seed: number, tl: TraceTimeline, source: 'real' | 'trace'): ExplainResult {
  const where = source === 'real' ? 'measured on this machine\'s kernel' : `read from the trace ${run.scenarioFile}`
  const waits = tl.lanes.length > 0 ? [{ task: tl.sample.task, cpu: tl.sample.cpu, readyNs: tl.sample.readyNs, ranNs: tl.sample.ranNs }] : []
  const ran = meanwhile(tl)
  return {
    scenario: run.scenarioName,
    variant,
    seed,
    workload: tl.workload,
    selector: 'max',
    sample: { ...tl.sample, index: -1 },
    summary: `${tl.sample.task} became runnable at ${(tl.sample.readyNs / 1e9).toFixed(6)} s and ran on CPU ${tl.sample.cpu} ${tl.sample.latencyUs} us later (${where}). ${ran ? `Meanwhile CPU ${tl.sample.cpu} ran ${ran}. ` : ''}A real kernel records no scheduler decisions: the timeline shows what ran on each CPU. Align a simulated run below it (Align with…) to compare; its own maximum, clicked, is explained.${tl.truncated ? ' The window held more slices than are kept: its end is missing.' : ''}`,
    cause: '',
    causes: [],
    window: tl.window,
    cpus: [tl.sample.cpu],
    timeline: tl.lanes.filter((l) => l.cpu === tl.sample.cpu),
    decisions: [],
    lanes: tl.lanes,
    waits,
    measured: source
  }
}

/** What ran on the sample's CPU while it waited, longest first (at most four, with their times). */
function meanwhile(tl: TraceTimeline): string {
  const { cpu, readyNs, ranNs } = tl.sample
  const by = new Map<string, number>()
  for (const s of tl.lanes.find((l) => l.cpu === cpu)?.slices ?? []) {
    const ns = Math.min(s.endNs, ranNs) - Math.max(s.startNs, readyNs)
    if (ns > 0) by.set(s.task, (by.get(s.task) ?? 0) + ns)
  }
  const idle = (tl.lanes.find((l) => l.cpu === cpu)?.idle ?? []).reduce((a, s) => a + Math.max(0, Math.min(s.endNs, ranNs) - Math.max(s.startNs, readyNs)), 0)
  const fmt = (ns: number): string => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : `${(ns / 1e3).toFixed(1)} us`)
  const parts = [...by.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([t, ns]) => `${t} (${fmt(ns)})`)
  if (by.size > 4) parts.push(`${by.size - 4} other task${by.size === 5 ? '' : 's'}`)
  if (idle > 0) parts.push(`idle (${fmt(idle)})`)
  return parts.join(', ')
}
