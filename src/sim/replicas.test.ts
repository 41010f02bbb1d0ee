import { describe, expect, it } from 'vitest'
import { simulate } from './index'
import { parseScenario } from './scenario'
import type { VariantResult } from '../shared/result'
import { mergeReplicas, planReplicas, REPLICA_MIN_MS, replicaScenario, replicaSeed, steadyState } from './replicas'

function scenario(over: Record<string, unknown> = {}, workloads?: unknown[]): ReturnType<typeof parseScenario> {
  return parseScenario(JSON.stringify({
    topology: 'smp-1', durationMs: 40_000,
    workloads: workloads ?? [
      { type: 'cyclictest', name: 'ct', periodUs: 1000 },
      { type: 'hog', name: 'hog', count: 2 }
    ],
    ...over
  }), 'replicas.json')
}

/** The replicas of one run, simulated one after the other (the pool runs them in parallel). */
function replicated(s: ReturnType<typeof scenario>, seed: number, k: number): VariantResult {
  const plan = planReplicas(s, 1, k, k)!
  const rs = Array.from({ length: k }, (_, j) => simulate(replicaScenario(s, plan), 0, replicaSeed(seed, j), { warmupMs: plan.warmupMs }))
  return mergeReplicas(rs, plan)
}

describe('parallel replicas of one long run', () => {
  it('are split only when long, steady and the pool has idle workers', () => {
    const s = scenario()
    expect(planReplicas(s, 1, 4)).toMatchObject({ replicas: 4, measureMs: 10_000 })
    expect(planReplicas(s, 2, 4)?.replicas).toBe(2)
    expect(planReplicas(s, 4, 4)).toBeNull() // no idle worker
    expect(planReplicas(s, 3, 2)?.replicas).toBe(2) // 6 pieces on 2 workers: none idle at the end
    expect(planReplicas({ ...s, durationMs: REPLICA_MIN_MS - 1 }, 1, 4)).toBeNull()
    expect(planReplicas({ ...s, durationMs: 20_000 }, 1, 16)?.replicas).toBe(4) // pieces of at least 5 s
    const finite = scenario({}, [{ type: 'cyclictest', name: 'ct', periodUs: 1000, loops: 100 }])
    expect(steadyState(finite)).toBe(false)
    expect(planReplicas(finite, 1, 4)).toBeNull()
    expect(planReplicas(finite, 1, 4, 3)?.replicas).toBe(3) // asked for
    const hb = scenario({}, [{ type: 'hackbench', name: 'hb', groups: 1, loops: 100 }])
    expect(steadyState(hb)).toBe(false)
    expect(steadyState(scenario({}, [{ type: 'hackbench', name: 'hb', groups: 1, loops: 100, repeat: true }]))).toBe(true)
    // own seeds: the first is the run's, the others never its neighbours'
    const seeds = [0, 1, 2, 3].map((j) => replicaSeed(7, j))
    expect(seeds[0]).toBe(7)
    expect(new Set([...seeds, 6, 8]).size).toBe(6)
  })

  it('give the same steady-state sample as one run (known case: cyclictest beside two hogs on one CPU)', () => {
    // Fair cyclictest every 1 ms against two CPU hogs: its latency is the wait for the hog's
    // slice end or its own wakeup preemption, a distribution that does not change over time.
    const s = scenario()
    const one = simulate(s, 0, 1)
    const four = replicated(s, 1, 4)
    const a = one.workloads[0].latencyUs
    const b = four.workloads[0].latencyUs
    expect(four.replicas).toBe(4)
    expect(four.replicaResults).toHaveLength(4)
    expect(four.stats.simulatedMs).toBe(40_000)
    // as many samples (a period each), of the same distribution: percentiles within a few % (a
    // histogram bucket is 1.6 %), the mean within 3 %
    expect(Math.abs(b.count - a.count) / a.count).toBeLessThan(0.01)
    for (const p of ['p50', 'p90', 'p99'] as const) expect(Math.abs(b[p] - a[p]) / a[p]).toBeLessThan(0.05)
    expect(Math.abs(b.avg - a.avg) / a.avg).toBeLessThan(0.03)
    // the counts of the pooled run are those of the whole duration
    expect(Math.abs(four.stats.contextSwitches - one.stats.contextSwitches) / one.stats.contextSwitches).toBeLessThan(0.05)
    expect(four.workloads[0].extra?.cycles).toBe(b.count)
    // every replica's batches: 20 each, for intervals on the pooled result
    expect(four.workloads[0].latencyBatches?.counts).toHaveLength(80)
    // the warm-up is simulated but not measured
    expect(four.stats.warmupMs).toBe(4 * planReplicas(s, 1, 4, 4)!.warmupMs)
    expect(four.replicaResults?.every((r) => r.simulatedMs === 10_000)).toBe(true)
  })

  it('a warm-up is discarded: the result measures the scenario duration after it', () => {
    const s = scenario({ durationMs: 2000 })
    const r = simulate(s, 0, 3, { warmupMs: 500 })
    expect(r.stats.simulatedMs).toBe(2000)
    expect(r.stats.warmupMs).toBe(500)
    expect(r.workloads[0].extra?.cycles).toBe(r.workloads[0].latencyUs.count)
    // a period a sample, some skipped behind the hogs; none of the warm-up's 500
    expect(r.workloads[0].latencyUs.count).toBeLessThanOrEqual(2001)
    expect(r.workloads[0].latencyUs.count).toBeGreaterThan(1900)
    expect(r.cpus[0].busyPct).toBeGreaterThan(99)
  })
})
