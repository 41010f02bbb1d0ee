import { describe, expect, it } from 'vitest'
import type { LatencySummary, VariantResult } from '../../../shared/result'
import { LIGHT_CHARTS, cdfConfig, cpuConfig, distributionConfig, formatShare, formatUs, histogramConfig, markIdentical, percentileConfig, taskConfig, type IntervalDataset } from './configs'
import { exponential, syntheticResult } from '../../../stats/testing'
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
      { name: 'cyc-0', workload: 'cyc', cpuTimeMs: seed, latencyUs: lat({ count: 2000, p99: 90 * scale }), migrations: 2, contextSwitches: 4, wakeups: 10, lastCpu: 0 },
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

type Label = (c: { dataset: { label?: string }; parsed: { x: number | null; y: number | null }; label?: string }) => string
const tooltipOf = (c: { options?: unknown }): Label => (c.options as { plugins: { tooltip: { callbacks: { label: Label } } } }).plugins.tooltip.callbacks.label

describe('the latency tail and what the charts say', () => {
  it('draws the complementary CDF on log-log axes by default: from 1 down to the last sample', () => {
    const c = distributionConfig(series, 'cyc', LIGHT_CHARTS)
    expect((c.options!.scales!.x as { type: string }).type).toBe('logarithmic')
    expect((c.options!.scales!.y as { type: string }).type).toBe('logarithmic')
    for (const d of c.data.datasets) {
      const ys = d.data.map((p) => p.y as number)
      expect(ys[0]).toBe(1)
      expect(ys.every((y, i) => y > 0 && (i === 0 || y <= ys[i - 1]))).toBe(true)
    }
    // base pools 20 samples, 2 in the last bucket: the tail ends at 10 %
    expect(c.data.datasets[0].data.at(-1)!.y).toBeCloseTo(0.1)
    expect((c.options!.scales!.y as { min: number }).min).toBeLessThanOrEqual(0.1)
    const cdf = distributionConfig(series, 'cyc', LIGHT_CHARTS, { view: 'cdf', logY: true })
    expect((cdf.options!.scales!.y as { type: string }).type).toBe('logarithmic')
    expect((cdfConfig(series, 'cyc', LIGHT_CHARTS).options!.scales!.y as { type: string }).type).toBe('linear')
  })

  it('keeps identical curves visible: dashed, drawn on top, named in the legend', () => {
    const twin: Series[] = [series[0], { label: 'copy', results: series[0].results }, series[1]]
    const c = distributionConfig(twin, 'cyc', LIGHT_CHARTS)
    expect(c.data.datasets.map((d) => d.label)).toEqual(['base', 'copy (identical to base)', 'patched'])
    expect(c.data.datasets[1].borderDash).toEqual([6, 4])
    expect(c.data.datasets[0].borderDash).toBeUndefined()
    expect(c.data.datasets[1].order).toBeLessThan(0)
    expect(markIdentical([{ label: 'a', data: [] }, { label: 'b', data: [] }]).map((d) => d.label)).toEqual(['a', 'b'])
  })

  it('gives tooltips with units and the variant', () => {
    const pct = percentileConfig(series, 'cyc', LIGHT_CHARTS)
    expect(tooltipOf(pct)({ dataset: { label: 'dd-neglag 8/20 ms' }, parsed: { x: 3, y: 4284 }, label: 'p99.9' })).toBe('p99.9 = 4,284 us (dd-neglag 8/20 ms)')
    const tail = distributionConfig(series, 'cyc', LIGHT_CHARTS)
    expect(tooltipOf(tail)({ dataset: { label: 'copy (identical to base)' }, parsed: { x: 52, y: 0.001 } })).toBe('P(latency > 52 us) = 0.1 % (copy)')
    const cdf = cdfConfig(series, 'cyc', LIGHT_CHARTS)
    expect(tooltipOf(cdf)({ dataset: { label: 'base' }, parsed: { x: 2.1, y: 0.9 } })).toBe('90 % of wakeups ≤ 2.1 us (base)')
    expect(tooltipOf(taskConfig(series, LIGHT_CHARTS))({ dataset: { label: 'base p99' }, parsed: { x: 1234.5, y: 0 }, label: 'cyc-0' })).toBe('cyc-0 p99 = 1,235 us (base)')
    expect(formatUs(12.34)).toBe('12.3')
    expect(formatShare(0.000012)).toBe('0.0012 %')
  })

  it('shows one workload\'s tasks in the per-task chart, and only tasks with latency', () => {
    const withOther: Series[] = series.map((s) => ({ ...s, results: s.results.map((r) => ({ ...r, tasks: [...r.tasks, { ...r.tasks[0], name: 'other-0', workload: 'other' }] })) }))
    expect(taskConfig(withOther, LIGHT_CHARTS, 'cyc').data.labels).toEqual(['cyc-0'])
    expect(taskConfig(withOther, LIGHT_CHARTS, 'other').data.labels).toEqual(['other-0'])
    expect(new Set(taskConfig(withOther, LIGHT_CHARTS).data.labels)).toEqual(new Set(['cyc-0', 'other-0']))
    expect(taskConfig(withOther, LIGHT_CHARTS, 'hog').data.labels).toEqual([])
  })

  it('follows the tables\' n/a rule: no p99 bar from too few samples, and an empty chart says why', () => {
    const few: Series[] = series.map((s) => ({ ...s, results: s.results.map((r) => ({ ...r, tasks: r.tasks.map((t) => ({ ...t, latencyUs: { ...t.latencyUs, count: 19 } })) })) }))
    const t = taskConfig(few, LIGHT_CHARTS, 'cyc')
    expect(t.data.labels).toEqual([])
    expect(t.emptyNote).toBe('n/a: p99 per task needs 1000 samples of a task; the most any task has is 38')
    expect(taskConfig(series, LIGHT_CHARTS, 'cyc').emptyNote).toBeUndefined()
    expect(percentileConfig(series, 'nothing', LIGHT_CHARTS).emptyNote).toBe('n/a: no latency samples of nothing')
  })

  it('counts seeds with identical results once in every chart', () => {
    const copy = (r: VariantResult, seed: number): VariantResult => ({ ...r, seed, stats: { ...r.stats, wallMs: 99 } })
    const once = series[1].results
    const thrice = [copy(once[0], 2), copy(once[0], 3), ...once]
    expect(pooledTasks(thrice)).toEqual(pooledTasks(once))
    expect(idleCounts(thrice)).toEqual(idleCounts(once))
    expect(percentileConfig([{ label: 'p', results: thrice }], 'cyc', LIGHT_CHARTS).data.datasets[0].data)
      .toEqual(percentileConfig([{ label: 'p', results: once }], 'cyc', LIGHT_CHARTS).data.datasets[0].data)
  })
})
