/**
 * Runs on a worker pool, a long steady run split into parallel replicas when the pool has idle
 * workers (src/sim/replicas.ts): each replica is a job of its own (own seed, a discarded
 * warm-up), and the run's handle resolves with their merged result (`replicas: K`). Used by the
 * workbench's run service, the CLI's pool runner and `npm run bench`.
 */
import type { RunSpec } from '../sim/scenario'
import type { VariantResult } from '../shared/result'
import { mergeReplicas, planReplicas, replicaScenario, replicaSeed, type ReplicaPlan } from '../sim/replicas'
import type { JobHandle, JobOutcome, SubmitOptions } from './worker-pool'

/** The payload of one simulation job (sim-worker.ts): a run, and a warm-up for replicas. */
export interface SimJob extends RunSpec {
  warmupMs?: number
}

export interface PoolLike {
  readonly size: number
  submit(payload: unknown, opts?: SubmitOptions): JobHandle<VariantResult>
}

/**
 * The replica plan of each run of a set submitted together: automatic (the pool's idle share
 * per run, for long steady runs), or `force` replicas each (1: none).
 */
export function plansFor(specs: readonly RunSpec[], poolSize: number, force?: number): (ReplicaPlan | null)[] {
  return specs.map((s) => planReplicas(s.scenario, specs.length, poolSize, force))
}

/** Submit one run, as one job or as the replicas of `plan`; one handle either way. */
export function submitRun(pool: PoolLike, spec: RunSpec, plan: ReplicaPlan | null, opts: SubmitOptions = {}): JobHandle<VariantResult> {
  if (!plan) return pool.submit(spec satisfies SimJob, opts)
  const k = plan.replicas
  const scenario = replicaScenario(spec.scenario, plan)
  const progress = new Array<number>(k).fill(0)
  const totalNs = spec.scenario.durationMs * 1e6 + k * plan.warmupMs * 1e6
  let started = false
  const handles = Array.from({ length: k }, (_, j) => {
    const job: SimJob = { scenario, variantIndex: spec.variantIndex, variant: spec.variant, seed: replicaSeed(spec.seed, j), warmupMs: plan.warmupMs }
    return pool.submit(job, {
      onStart: () => {
        if (started) return
        started = true
        opts.onStart?.()
      },
      onProgress: (simNs) => {
        progress[j] = simNs
        opts.onProgress?.(progress.reduce((a, x) => a + x, 0), totalNs)
      }
    })
  })
  const outcome = Promise.all(handles.map((h) => h.outcome)).then((all): JobOutcome<VariantResult> => {
    const failed = all.find((o) => o.status === 'failed')
    if (failed) return failed
    if (all.some((o) => o.status === 'canceled')) {
      // What the replicas computed before the cancel is kept (marked partial by the caller), as
      // for a run of one job: the finished replicas and the canceled ones' partial figures.
      const got = all.flatMap((o) => (o.status === 'done' ? [o.result] : o.status === 'canceled' && o.partial ? [o.partial] : []))
      return got.length ? { status: 'canceled', partial: mergeReplicas(got, { ...plan, replicas: got.length }) } : { status: 'canceled' }
    }
    const done = all as Extract<JobOutcome<VariantResult>, { status: 'done' }>[]
    return { status: 'done', result: mergeReplicas(done.map((o) => o.result), plan), wallMs: Math.max(...done.map((o) => o.wallMs)) }
  })
  return { id: handles[0].id, outcome, cancel: () => handles.forEach((h) => h.cancel()) }
}
