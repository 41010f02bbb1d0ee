import { describe, expect, it } from 'vitest'
import type { LatencySummary, VariantResult } from '../../../shared/result'
import { LIGHT_CHARTS, cdfConfig, cpuConfig, histogramConfig, percentileConfig, taskConfig, type IntervalDataset } from './configs'
import { exponential, syntheticResult } from '../../../stats/synthetic'
import { idleCounts, pooledCpus, pooledTasks, workloadNames, type Series } from './data'

const lat = (p: Partial<LatencySummary>): LatencySummary => ({ count: 10, min: 1, avg: 5, p50: 4, p90: 8, p99: 9, p99_9: 10, max: 10, ...p })

function result(name: string, seed: number, scale: number): VariantResult {
  return {
    name, seed,
    stats: { events: 1, wallMs: 1, simulatedMs: 1, contextSwitches: 0, migrations: 0, wakeups: 0, sysPct: 0 },
    workloads: [
      { name: 'cyc', type: 'cyclictest', latencyUs: lat({ p99: 90 * scale }), latencyHist: { lowUs: [2 * scale, 50 * scale], highUs: [2.1 * scale, 52 * scale], counts: [9, 1] } },
      { name: 'hog', type: 'hog', latencyUs: lat({ count: 0, p99: 0 }) }
    ],
    tasks: [
      { name: 'cyc-0', workload: 'cyc', cpuTimeMs: seed, latencyUs: lat({ p99: 90 * scale }), migrations: 2, contextSwitches: 4, wakeups: 10, lastCpu: 0 },
      { name: 'hog-0', workload: 'hog', cpuTimeMs: 100, latencyUs: lat({ count: 0, p99: 0 }), migrations: 0, contextSwitches: 1, wakeups: 0, lastCpu: 1 }
    ],
    cpus: [{ id: 1, cluster: 'big', busyPct: 40 + seed }, { id: 0, cluster: 'little', busyPct: 10 }],
    unreasonableIdle: { events: { '2.5-3ms': seed, '3-4ms': 0, '4ms+': 1 } }
  }
}

const series: Series[] = [
  { label: 'base', results: [result('base', 1, 1), result('base', 2, 1)] },
  { label: 'patched', results: [result('patched', 1, 2)] }
]

describe('chart data', () => {
  it('lists only workloads with samples', () => {
    expect(workloadNames(series)).toEqual(['cyc'])
  })

  it('pools seeds: tasks by name, CPUs by id, idle events summed', () => {
    const tasks = pooledTasks(series[0].results)
    expect(tasks.find((t) => t.name === 'cyc-0')!.cpuTimeMs).toBe(1.5)
    expect(pooledCpus(series[0].results).map((c) => [c.id, c.busyPct])).toEqual([[0, 10], [1, 41.5]])
    expect(idleCounts(series[0].results)).toEqual({ '2.5-3ms': 3, '3-4ms': 0, '4ms+': 2 })
  })
})

describe('chart configurations', () => {
  it('CDF: one rising curve per series on a log x axis, reaching 100 %', () => {
    const c = cdfConfig(series, 'cyc', LIGHT_CHARTS)
    expect(c.data.datasets.map((d) => d.label)).toEqual(['base', 'patched'])
    expect((c.options!.scales!.x as { type: string }).type).toBe('logarithmic')
    for (const d of c.data.datasets) {
      const ys = d.data.map((p) => p.y as number)
      expect(ys.at(-1)).toBe(1)
      expect(ys.every((y, i) => i === 0 || y >= ys[i - 1])).toBe(true)
      expect(d.data.every((p) => p.x > 0)).toBe(true)
    }
    // the two seeds of "base" are pooled: 18 of 20 samples in the first bucket
    expect(c.data.datasets[0].data[1].y).toBeCloseTo(0.9)
    expect(c.data.datasets[0].borderColor).not.toBe(c.data.datasets[1].borderColor)
  })

  it('histogram: each series sums to 100 % on common bins', () => {
    const c = histogramConfig(series, 'cyc', LIGHT_CHARTS)
    const [a, b] = c.data.datasets
    expect(a.data.map((p) => p.x)).toEqual(b.data.map((p) => p.x))
    for (const d of c.data.datasets) expect(d.data.reduce((s, p) => s + (p.y ?? 0), 0)).toBeCloseTo(100)
  })

  it('percentiles, tasks and CPUs', () => {
    const p = percentileConfig(series, 'cyc', LIGHT_CHARTS)
    expect(p.data.labels).toEqual(['p50', 'p90', 'p99', 'p99.9', 'max'])
    // 10 samples: no percentile is estimated (n/a), only the maximum has a bar
    expect(p.data.datasets[1].data).toEqual([null, null, null, null, 10])
    const many: Series[] = [{ label: 'x', results: [1, 2].map((seed) => syntheticResult('x', seed, 3000, exponential(100_000))) }]
    const q = percentileConfig(many, 'ct', LIGHT_CHARTS)
    const d = q.data.datasets[0] as IntervalDataset
    expect(d.data.slice(0, 3).every((v) => typeof v === 'number')).toBe(true)
    expect(d.data[3]).toBeNull()
    for (const j of [0, 1, 2]) {
      const [lo, hi] = d.intervals![j]!
      expect(lo).toBeLessThanOrEqual(d.data[j] as number)
      expect(hi).toBeGreaterThanOrEqual(d.data[j] as number)
    }
    expect(q.plugins?.map((x) => x.id)).toContain('schedlabIntervals')
    const t = taskConfig(series, LIGHT_CHARTS)
    expect(t.data.labels).toEqual(['cyc-0'])
    expect(t.options!.indexAxis).toBe('y')
    const cpu = cpuConfig(series, LIGHT_CHARTS)
    expect(cpu.data.labels).toEqual(['cpu0 little', 'cpu1 big'])
    expect(cpu.data.datasets[1].data).toEqual([10, 41])
  })
})
