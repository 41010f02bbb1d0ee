import { describe, expect, it } from 'vitest'
import { simulate } from '../sim/index'
import { parseScenario } from '../sim/scenario'
import { replicaSeed } from '../sim/replicas'
import type { VariantResult } from '../shared/result'
import { plansFor, submitRun, type PoolLike, type SimJob } from './replica-runner'
import type { JobHandle, JobOutcome } from './worker-pool'

/** A long steady run: cyclictest beside two hogs on one CPU (src/sim/replicas.test.ts). */
function scenario(over: Record<string, unknown> = {}): ReturnType<typeof parseScenario> {
  return parseScenario(JSON.stringify({
    topology: 'smp-1', durationMs: 40_000,
    workloads: [{ type: 'cyclictest', name: 'ct', periodUs: 1000 }, { type: 'hog', name: 'hog', count: 2 }],
    ...over
  }), 'replicas.json')
}

describe('parallel replicas of one long run', () => {
  it('on a pool: one handle per run, resolved with the merged result', async () => {
    const submitted: SimJob[] = []
    let id = 0
    const pool: PoolLike = {
      size: 2,
      submit(payload): JobHandle<VariantResult> {
        const job = payload as SimJob
        submitted.push(job)
        const result = simulate(job.scenario, job.variantIndex, job.seed, { warmupMs: job.warmupMs })
        return { id: ++id, outcome: Promise.resolve({ status: 'done', result, wallMs: 1 } as JobOutcome<VariantResult>), cancel() {} }
      }
    }
    const s = scenario({ durationMs: 20_000 })
    const spec = { scenario: s, variantIndex: 0, variant: 'base', seed: 5 }
    const [plan] = plansFor([spec], pool.size)
    expect(plan?.replicas).toBe(2)
    const o = await submitRun(pool, spec, plan).outcome
    expect(submitted.map((j) => j.seed)).toEqual([5, replicaSeed(5, 1)])
    expect(submitted.every((j) => j.warmupMs === plan!.warmupMs && j.scenario.durationMs === 10_000)).toBe(true)
    expect(o.status).toBe('done')
    if (o.status === 'done') {
      expect(o.result.replicas).toBe(2)
      expect(o.result.seed).toBe(5)
    }
  })

  it('on a pool: a canceled run keeps what its replicas computed', async () => {
    let n = 0
    const pool: PoolLike = {
      size: 2,
      submit(payload): JobHandle<VariantResult> {
        const job = payload as SimJob
        const result = simulate({ ...job.scenario, durationMs: 1000 }, job.variantIndex, job.seed, { warmupMs: job.warmupMs })
        // the first replica had finished, the second was canceled midway with its figures so far
        const outcome: JobOutcome<VariantResult> = n++ === 0 ? { status: 'done', result, wallMs: 1 } : { status: 'canceled', partial: result }
        return { id: n, outcome: Promise.resolve(outcome), cancel() {} }
      }
    }
    const s = scenario({ durationMs: 20_000 })
    const spec = { scenario: s, variantIndex: 0, variant: 'base', seed: 5 }
    const [plan] = plansFor([spec], pool.size)
    const o = await submitRun(pool, spec, plan).outcome
    expect(o.status).toBe('canceled')
    expect(o.status === 'canceled' && o.partial?.replicas).toBe(2)
    expect(o.status === 'canceled' && o.partial!.workloads[0].latencyUs.count).toBeGreaterThan(0)
  })
})
