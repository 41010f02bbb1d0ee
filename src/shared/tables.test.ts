import { describe, expect, it } from 'vitest'
import type { LatencySummary, VariantResult, WorkloadResult } from './result'
import {
  buildTables, columnLabels, cellTitle, cellTone, formatCell, formatChange, formatValueCell, identicalSeedNotes, poolLatency, tablesToCsv, tablesToMarkdown, tablesToText
} from './tables'
import { exponential, syntheticResult } from '../stats/testing'
import { cdfPoints, histogramPercentile, logEdges, mergeHistograms, rebin } from './histogram-data'

function lat(p: Partial<LatencySummary>): LatencySummary {
  return { count: 100000, min: 1, avg: 50, p50: 40, p90: 60, p99: 91, p99_9: 126, max: 2273, ...p }
}

export function variant(name: string, seed: number, workloads: WorkloadResult[]): VariantResult {
  return {
    name, seed,
    stats: { events: 1, wallMs: 1, simulatedMs: 1000, contextSwitches: 0, migrations: 0, wakeups: 0, sysPct: 0 },
    workloads, tasks: [], cpus: [], unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
  }
}

const base = variant('tip/sched/core', 1, [{ name: 'cyclictest', type: 'cyclictest', latencyUs: lat({}) }])
const patched = variant('this patchset', 1, [{ name: 'cyclictest', type: 'cyclictest', latencyUs: lat({ p99: 90, p99_9: 108, max: 1018 }) }])

describe('seed-thread table format', () => {
  it('formats changes as the threads do', () => {
    expect(formatChange(55.2)).toBe('(+55 %)')
    expect(formatChange(1.1)).toBe('(+1 %)')
    expect(formatChange(0.3)).toBe('(0 %)')
    expect(formatChange(-0.4)).toBe('(0 %)')
    expect(formatChange(-1)).toBe('(-1 %)')
    expect(formatChange(-14)).toBe('(-14 %)')
    expect(formatChange(-250)).toBe('(-250 %)')
    expect(formatChange(null)).toBe('')
  })

  it('reproduces the cyclictest rows of seed 000', () => {
    const [t] = buildTables([{ label: 'tip/sched/core', results: [base] }, { label: 'this patchset', results: [patched] }])
    const row = (k: string) => t.rows.find((r) => r.key === k)!
    expect(formatCell(row('p99'), 1)).toBe('90 (+1 %)')
    expect(formatCell(row('p99_9'), 1)).toBe('108 (+14 %)')
    expect(formatCell(row('max'), 1)).toBe('1018 (+55 %)')
    expect(formatCell(row('max'), 0)).toBe('2273')
    // counts are not compared
    expect(formatCell(row('count'), 1)).toBe('100000')
    // no histograms, so no intervals: no change is tested, none is coloured
    expect(cellTone(row('max'), 1)).toBe('same')
    expect(cellTitle(row('p99'), 1)).toBe('no interval for this change: not tested')
  })

  it('colours only significant changes, and never an n/a cell', () => {
    const a = [1, 2, 3].map((s) => syntheticResult('a', s, 3000, exponential(100_000)))
    const better = [1, 2, 3].map((s) => syntheticResult('b', 10 + s, 3000, exponential(60_000)))
    const same = [1, 2, 3].map((s) => syntheticResult('c', 20 + s, 3000, exponential(100_000)))
    const [t] = buildTables([{ label: 'a', results: a }, { label: 'b', results: better }, { label: 'c', results: same }])
    const row = (k: string) => t.rows.find((r) => r.key === k)!
    expect(cellTone(row('p50'), 1)).toBe('better')
    expect(formatCell(row('p50'), 1)).toMatch(/^\d+ (±\d+(\.\d)?|\[\d+, \d+\]) \(\+\d\d %\)\*$/)
    expect(cellTone(row('p50'), 2)).toBe('same')
    expect(formatCell(row('p50'), 2)).not.toContain('*')
    expect(cellTitle(row('p50'), 2)).toMatch(/^95 % interval .* change .* not significant$/)
    // 9000 samples: p99.9 has 9 beyond it
    expect(formatCell(row('p99_9'), 1)).toBe('n/a (9000 samples; need 10000)')
    expect(cellTone(row('p99_9'), 1)).toBe('none')
    expect(cellTone(row('p99_9'), 0)).toBe('none')
  })

  it('marks a regression as worse with a minus sign', () => {
    const worse = variant('v2', 1, [{ name: 'cyclictest', type: 'cyclictest', latencyUs: lat({ p99: 92 }) }])
    const [t] = buildTables([{ label: 'a', results: [base] }, { label: 'b', results: [worse] }])
    const p99 = t.rows.find((r) => r.key === 'p99')!
    expect(formatCell(p99, 1)).toBe('92 (-1 %)')
    expect(cellTone(p99, 1)).toBe('same')
  })

  it('compares against the chosen baseline column', () => {
    const [t] = buildTables([{ label: 'a', results: [base] }, { label: 'b', results: [patched] }], 1)
    const max = t.rows.find((r) => r.key === 'max')!
    expect(max.changes[1]).toBeNull()
    expect(formatChange(max.changes[0])).toBe('(-123 %)')
  })

  it('adds a hackbench time row and leaves missing workloads empty', () => {
    const hb = variant('b', 1, [
      { name: 'cyclictest', type: 'cyclictest', latencyUs: lat({}) },
      { name: 'hackbench', type: 'hackbench', latencyUs: lat({}), timeSec: 0.764 }
    ])
    const hb0 = variant('a', 1, [{ name: 'hackbench', type: 'hackbench', latencyUs: lat({}), timeSec: 0.863 }])
    const tables = buildTables([{ label: 'a', results: [hb0] }, { label: 'b', results: [hb] }])
    expect(tables.map((t) => t.workload)).toEqual(['hackbench', 'cyclictest'])
    const time = tables[0].rows.find((r) => r.key === 'timeSec')!
    expect(formatCell(time, 1)).toBe('0.764 (+11 %)')
    expect(cellTitle(time, 1)).toBe('no interval for this change: not tested')
    expect(tables[1].rows[0].values[0]).toBeNull()
  })

  it('gives a workload with no latency (a hog) its CPU time, where higher is better', () => {
    const withHog = variant('a', 1, [
      { name: 'cyclictest', type: 'cyclictest', latencyUs: lat({}) },
      { name: 'hog', type: 'hog', latencyUs: lat({ count: 0 }) }
    ])
    const tables = buildTables([{ label: 'a', results: [withHog] }])
    expect(tables.map((t) => [t.workload, t.better])).toEqual([['cyclictest', 'lower'], ['hog', 'higher']])
    expect(tables[1].rows.map((r) => r.key)).toEqual(['cpuMs'])
  })

  it('counts seeds with identical results once: no interval, percentile or mark made of copies', () => {
    const a = variant('a', 1, [{ name: 'cyclictest', type: 'cyclictest', latencyUs: lat({ count: 5000, p99_9: 500 }), latencyHist: { lowUs: [10, 20, 4000], highUs: [11, 21, 4001], counts: [4000, 990, 10] } }])
    const b = variant('b', 1, [{ name: 'cyclictest', type: 'cyclictest', latencyUs: lat({ count: 5000, p99_9: 900 }), latencyHist: { lowUs: [10, 20, 6000], highUs: [11, 21, 6001], counts: [4000, 990, 10] } }])
    const copies = (r: VariantResult) => [1, 2, 3].map((seed) => ({ ...r, seed, stats: { ...r.stats, wallMs: seed * 7 } }))
    const once = buildTables([{ label: 'a', results: [a] }, { label: 'b', results: [b] }])
    const thrice = buildTables([{ label: 'a', results: copies(a) }, { label: 'b', results: copies(b) }])
    expect(thrice).toEqual(once)
    const p999 = thrice[0].rows.find((r) => r.key === 'p99_9')!
    // 5000 samples leave 5 beyond p99.9: n/a, as with one seed (15000 copied samples would give 15)
    expect(p999.na[1]).toBe('n/a (5000 samples; need 10000)')
    expect(p999.significant).toEqual([false, false])
    expect(identicalSeedNotes([{ label: 'a', results: copies(a) }, { label: 'b', results: [b] }])).toEqual([
      'a: seeds 1, 2 and 3 gave identical results: they count as one sample (nothing in this scenario draws on the seed; one seed is the answer)'
    ])
  })

  it('prints a lopsided interval as [lo, hi], a symmetric one as ±h, each figure by its own size', () => {
    const r = (value: number, ci: [number, number]) => formatValueCell({ key: 'p99', label: '', values: [value], ci: [ci], na: [null], changes: [null], significant: [false], changeCi: [null], pValues: [null] }, 0)
    expect(r(864, [57, 3981])).toBe('864 [57, 3981]')
    expect(r(57, [56.7, 57.3])).toBe('57 ±0.3')
    expect(r(1018, [983, 1053])).toBe('1018 ±35')
    expect(r(100, [95, 105.5])).toBe('100 ±5.3') // arms 5 and 5.5: within 10 %
    expect(r(100, [95, 106])).toBe('100 [95, 106]')
    expect(r(57, [56.6, 57.4999])).toBe('57 ±0.4') // lopsided, but both ends print as 57
  })

  it('renders text, markdown and CSV with the same cells', () => {
    const labels = ['tip/sched/core', 'this patchset']
    const tables = buildTables([{ label: labels[0], results: [base] }, { label: labels[1], results: [patched] }])
    const txt = tablesToText(labels, tables)
    expect(txt).toContain('scheduling latency (us) for cyclictest')
    expect(txt).toMatch(/Maximum \(us\)\s+2273 \|\s+1018 \(\+55 %\)/)
    const md = tablesToMarkdown('RB5', labels, tables)
    expect(md).toContain('| Maximum (us) | 2273 | 1018 (+55 %) |')
    expect(md.split('\n').filter((l) => l.startsWith('|')).length).toBe(2 + 7)
    expect(md).toMatch(/_±h: half-width of the 95 % interval; .*\*: significant/)
    expect(txt).toMatch(/\(\+x %\): x % better \(lower\) than the first column/)
    const csv = tablesToCsv(labels, tables)
    const lines = csv.trim().split('\n')
    expect(lines[0]).toBe('workload,metric,tip/sched/core,tip/sched/core ci95 low,tip/sched/core ci95 high,this patchset,this patchset ci95 low,this patchset ci95 high,this patchset change %,this patchset significant')
    expect(lines).toContain('cyclictest,max,2273,,,1018,,,55.2,')
    expect(lines.at(-1)).toMatch(/^# ±h: /)
  })

  it('quotes CSV fields that need it', () => {
    const tables = buildTables([{ label: 'a,b', results: [base] }])
    expect(tablesToCsv(['a,"b"'], tables).split('\n')[0]).toBe('workload,metric,"a,""b""","a,""b"" ci95 low","a,""b"" ci95 high"')
  })
})

describe('pooling seeds', () => {
  const h1 = { lowUs: [1, 2, 3], highUs: [1.001, 2.001, 3.001], counts: [1, 1, 1] }
  const h2 = { lowUs: [3, 4], highUs: [3.001, 4.001], counts: [1, 2] }

  it('merges histograms bucket by bucket', () => {
    const m = mergeHistograms([h1, h2])
    expect(m.lowUs).toEqual([1, 2, 3, 4])
    expect(m.counts).toEqual([1, 1, 2, 2])
  })

  it('reads pooled percentiles from merged histograms', () => {
    const s1 = lat({ count: 3, min: 1, max: 3, avg: 2 })
    const s2 = lat({ count: 3, min: 3, max: 4, avg: 11 / 3 })
    const p = poolLatency([s1, s2], [h1, h2])
    expect(p.count).toBe(6)
    expect(p.max).toBe(4)
    expect(p.min).toBe(1)
    expect(p.avg).toBeCloseTo(17 / 6)
    expect(p.p50).toBe(3)
    expect(p.p99).toBe(4)
  })

  it('averages percentiles when a seed has no histogram', () => {
    const p = poolLatency([lat({ p99: 10 }), lat({ p99: 20 })], [h1, undefined])
    expect(p.p99).toBe(15)
  })

  it('keeps a single seed unchanged', () => {
    const s = lat({ p99: 77 })
    expect(poolLatency([s])).toBe(s)
  })

  it('percentile midpoints stay inside [min, max]', () => {
    const wide = { lowUs: [100], highUs: [200], counts: [10] }
    expect(histogramPercentile(wide, 50, 120, 130)).toBe(130)
    expect(histogramPercentile(wide, 50, 0, 1000)).toBeCloseTo(149.9995)
  })
})

describe('chart data', () => {
  it('CDF rises monotonically to 1', () => {
    const pts = cdfPoints({ lowUs: [0, 5, 50], highUs: [0.001, 6, 52], counts: [2, 5, 3] })
    expect(pts[0]).toEqual({ x: 0.001, y: 0 })
    expect(pts.at(-1)!.y).toBe(1)
    for (let i = 1; i < pts.length; i++) expect(pts[i].y).toBeGreaterThanOrEqual(pts[i - 1].y)
    expect(pts.every((p) => p.x > 0)).toBe(true)
  })

  it('re-binning keeps every sample', () => {
    const h = { lowUs: [0.5, 3, 30, 5000], highUs: [0.501, 3.2, 31, 5100], counts: [1, 2, 3, 4] }
    const edges = logEdges(1, 1000, 5)
    const bins = rebin(h, edges)
    expect(bins.reduce((a, b) => a + b, 0)).toBe(10)
    expect(bins[0]).toBe(1)
    expect(bins.at(-1)).toBe(4)
    expect(edges[0]).toBeCloseTo(1)
    expect(edges.at(-1)).toBeCloseTo(1000)
  })
})

describe('wide text exports', () => {
  it('wrap 8 columns into blocks under 100 columns, each with the row labels and every header', () => {
    const labels = Array.from({ length: 8 }, (_, i) => `variant ${i} [run of cyclictest + hackbench, RB5 ${i}]`)
    const cols = labels.map((label, i) => ({ label, results: [variant(label, 1, [{ name: 'cyclictest', type: 'cyclictest', latencyUs: lat({ p99: 90 + i, max: 1000 + 100 * i }) }])] }))
    const text = tablesToText(labels, buildTables(cols))
    const lines = text.split('\n')
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(100)
    const blocks = lines.filter((l) => l.startsWith('scheduling latency (us) for cyclictest'))
    expect(blocks.length).toBeGreaterThan(1)
    expect(blocks[0]).toMatch(/\(columns 1-\d of 8\)$/)
    expect(lines.filter((l) => l.startsWith('99th Percentile (us)'))).toHaveLength(blocks.length)
    for (const l of labels) for (const word of l.split(' ')) expect(text).toContain(word)
    // a narrow table stays one block
    expect(tablesToText(labels.slice(0, 2).map((_, i) => `v${i}`), buildTables(cols.slice(0, 2).map((c, i) => ({ ...c, label: `v${i}` }))))).not.toMatch(/columns 1-/)
  })
})

describe('column labels', () => {
  it('tell runs of one scenario apart by what changed, not by the whole scenario name', () => {
    const s = 'cyclictest + hackbench 1 group thread pipe, 8 ms / 16 ms slices (RB5)'
    expect(columnLabels([
      { variant: 'tip', runName: s }, { variant: 'v1', runName: s },
      { variant: 'tip', runName: `${s} · ct slice 4 ms` }, { variant: 'v1', runName: `${s} · ct slice 4 ms` }
    ])).toEqual(['tip [run 1]', 'v1 [run 1]', 'tip [ct slice 4 ms]', 'v1 [ct slice 4 ms]'])
    // runs of different scenarios keep their names; a variant unique among the columns is its name
    expect(columnLabels([{ variant: 'tip', runName: 'a' }, { variant: 'tip', runName: 'b · x' }, { variant: 'v2', runName: 'b · x' }])).toEqual(['tip [a]', 'tip [b · x]', 'v2'])
    // the same run twice still gets distinct headers
    expect(columnLabels([{ variant: 'tip', runName: 'a' }, { variant: 'tip', runName: 'a' }])).toEqual(['tip [run 1]', 'tip [run 1] #2'])
  })
})
