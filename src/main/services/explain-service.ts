import type { ExplainRequest, StoredRun, TraceContent, TraceExportRequest } from '../../shared/ipc'
import type { ExplainResult } from '../../shared/explain'
import type { VariantResult } from '../../shared/result'
import type { WorkerPool } from './worker-pool'
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
  constructor(
    private readonly pool: WorkerPool<VariantResult>,
    private readonly getRun: (id: string) => Promise<StoredRun>
  ) {}

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

  private async job<T>(payload: WorkerJob): Promise<T> {
    const handle = (this.pool as unknown as WorkerPool<T>).submit(payload)
    const o = await handle.outcome
    if (o.status === 'done') return o.result
    if (o.status === 'canceled') throw new Error('the explanation was canceled')
    throw new Error(o.message)
  }

  async explain(req: ExplainRequest): Promise<ExplainResult> {
    const { run, spec } = await this.spec(req.runId, req.variant, req.seed)
    if (req.workload !== undefined && !spec.scenario.workloads.some((w) => w.name === req.workload)) {
      throw new Error(`run ${req.runId} has no workload "${req.workload}"`)
    }
    const e = await this.job<ExplainResult>({ job: 'explain', ...spec, workload: req.workload, sample: req.sample ?? 'max', idle: req.idle })
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

  async perfettoTrace(req: TraceExportRequest): Promise<TraceContent> {
    const { spec } = await this.spec(req.runId, req.variant, req.seed)
    const bytes = await this.job<Uint8Array>({ job: 'perfetto', ...spec, startNs: req.startNs, endNs: req.endNs })
    const slug = `${spec.scenario.name}-${req.variant}-seed${req.seed}`.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 150) || 'trace'
    return { fileName: `${slug}.perfetto-trace`, base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') }
  }
}
