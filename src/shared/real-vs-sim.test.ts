import { describe, expect, it } from 'vitest'
import type { LatencySummary, VariantResult } from './result'
import { isMeasured, realVsSim, verdict } from './real-vs-sim'

const lat = (p50: number, p99: number): LatencySummary => ({ count: 100, min: 1, avg: p50, p50, p90: p50 + 5, p99, p99_9: p99 * 2, max: p99 * 3 })
const res = (seed: number, l: LatencySummary, source?: 'real'): VariantResult => ({
  name: 'v', seed, ...(source ? { source } : {}),
  stats: { events: 1, wallMs: 1, simulatedMs: 1, contextSwitches: 0, migrations: 0, wakeups: 0, sysPct: 0 },
  workloads: [{ name: 'ct', type: 'cyclictest', latencyUs: l }, { name: 'hog', type: 'hog', latencyUs: { ...l, count: 0 } }],
  tasks: [], cpus: [], unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
})

describe('real beside simulated', () => {
  it('says inside, near (the range widened by half) or outside', () => {
    expect(verdict(10, 20, 15)).toBe('inside')
    expect(verdict(10, 20, 24)).toBe('near')
    expect(verdict(10, 20, 26)).toBe('outside')
    expect(verdict(64, 64, 64)).toBe('inside')
    expect(verdict(64, 64, 65)).toBe('outside')
  })

  it('compares the real repeats\' range with the mean of the seeds, per percentile of workloads with samples', () => {
    const real = [res(1, lat(64, 90), 'real'), res(2, lat(66, 75), 'real'), res(3, lat(65, 80), 'real')]
    const sim = [res(1, lat(57, 80)), res(2, lat(59, 100))]
    expect(isMeasured(real)).toBe(true)
    expect(isMeasured(sim)).toBe(false)
    const rows = realVsSim(real, sim)
    expect(rows.map((r) => [r.workload, r.metric, r.real.lo, r.real.hi, r.sim.value, r.verdict])).toEqual([
      ['ct', 'p50', 64, 66, 58, 'outside'],
      ['ct', 'p90', 69, 71, 63, 'outside'],
      ['ct', 'p99', 75, 90, 90, 'inside'],
      ['ct', 'p99_9', 150, 180, 180, 'inside']
    ])
  })
})
