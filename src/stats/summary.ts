/**
 * The statistics of results: per variant (a column of seeds), pooled percentiles and hackbench
 * time with 95 % intervals; every variant against the first with a test of the change. This is
 * the `summary` and `comparisons` of `run --json` (DESIGN.md "Statistics, precision and sweeps").
 */
import type { VariantResult, WorkloadResult } from '../shared/result'
import { meanEstimate, PooledLatency, type Estimate, type Insufficient } from './quantile'
import { tQuantile, tTwoSidedP } from './tdist'
import { distinctResults } from './replicas'

export type PercentileKey = 'p50' | 'p90' | 'p99' | 'p99_9'
export type MetricName = PercentileKey | 'timeSec'

export const PERCENTILE_KEYS: readonly PercentileKey[] = ['p50', 'p90', 'p99', 'p99_9']
export const PERCENTILE_OF: Record<PercentileKey, number> = { p50: 50, p90: 90, p99: 99, p99_9: 99.9 }

/** The statistics of one workload over a column's runs. */
export interface WorkloadStats {
  name: string
  type: string
  count: number
  avgUs: number
  maxUs: number
  latency: Record<PercentileKey, Estimate>
  /** Sections the latency intervals rest on (batches of all runs). */
  sections: number
  timeSec: Estimate | null
  /** The pooled data, for percentiles beyond the four above. */
  pooled: PooledLatency
}

/**
 * Every workload of a column of runs (one variant's seeds), in order of appearance. Seeds that
 * gave identical results count once (replicas.ts, distinctResults).
 */
export function columnStats(results: readonly VariantResult[]): WorkloadStats[] {
  const names: string[] = []
  const byName = new Map<string, WorkloadResult[]>()
  for (const r of distinctResults(results).distinct) {
    for (const w of r.workloads) {
      let list = byName.get(w.name)
      if (!list) {
        list = []
        byName.set(w.name, list)
        names.push(w.name)
      }
      list.push(w)
    }
  }
  return names.map((name) => workloadStats(byName.get(name)!))
}

/** One workload's runs (one entry per seed or replica result). */
export function workloadStats(ws: readonly WorkloadResult[]): WorkloadStats {
  const pooled = new PooledLatency(ws.map((w) => ({
    count: w.latencyUs.count, minUs: w.latencyUs.min, maxUs: w.latencyUs.max, hist: w.latencyHist, batches: w.latencyBatches
  })))
  const latency = {} as Record<PercentileKey, Estimate>
  for (const k of PERCENTILE_KEYS) latency[k] = pooled.percentile(PERCENTILE_OF[k])
  if (!pooled.complete) {
    // Results without histograms (hand-made ones): the seeds' own figures, averaged, no interval.
    const withSamples = ws.filter((w) => w.latencyUs.count > 0)
    for (const k of PERCENTILE_KEYS) {
      if (latency[k].insufficient) continue
      latency[k] = { value: withSamples.reduce((a, w) => a + w.latencyUs[k], 0) / withSamples.length, ci95: null, df: 0, seLog: null }
    }
  }
  const timed = ws.filter((w) => typeof w.timeSec === 'number')
  const timeSections = timed.flatMap((w) =>
    w.timeBatches ? w.timeBatches.sumSec.map((sum, i) => ({ sum, count: w.timeBatches!.count[i] })) : [{ sum: w.timeSec as number, count: 1 }])
  return {
    name: ws[0].name,
    type: ws[0].type,
    count: pooled.count,
    avgUs: pooled.count > 0 ? ws.reduce((a, w) => a + w.latencyUs.avg * w.latencyUs.count, 0) / pooled.count : 0,
    maxUs: pooled.maxUs,
    latency,
    sections: pooled.sections.filter((s) => s.some((x) => x > 0)).length,
    timeSec: meanEstimate(timeSections),
    pooled
  }
}

/** The change of `other` against `base`: percent, its interval, and a test that it is not zero. */
export interface Change {
  /** (other - base) / base, percent: negative = lower (better, for latency and time). */
  change: number | null
  ci95: [number, number] | null
  pValue: number | null
  significant: boolean
  /** Why there is no test: too few samples, no interval. */
  note?: string
}

/**
 * Welch's t test on the log of the two estimates (their intervals give the standard errors and
 * degrees of freedom); the interval of the ratio, minus one, is the interval of the change.
 * Significant means p < 0.05, which is the same as that interval excluding zero.
 */
export function compareEstimates(base: Estimate | null, other: Estimate | null): Change {
  if (!base || !other) return { change: null, ci95: null, pValue: null, significant: false, note: 'missing' }
  const ins = base.insufficient ?? other.insufficient
  if (ins) return { change: null, ci95: null, pValue: null, significant: false, note: `n/a (${ins.samples} samples; need ${ins.need})` }
  if (!(base.value > 0) || !(other.value > 0)) return { change: null, ci95: null, pValue: null, significant: false, note: 'zero baseline' }
  const change = (other.value / base.value - 1) * 100
  if (base.seLog === null || other.seLog === null) return { change, ci95: null, pValue: null, significant: false, note: 'no interval' }
  const d = Math.log(other.value / base.value)
  const va = base.seLog ** 2
  const vb = other.seLog ** 2
  const v = va + vb
  if (v === 0) {
    const p = d === 0 ? 1 : 0
    return { change, ci95: [change, change], pValue: p, significant: p < 0.05 }
  }
  const df = (v * v) / ((va * va) / base.df + (vb * vb) / other.df)
  const se = Math.sqrt(v)
  const p = tTwoSidedP(d / se, df)
  const h = tQuantile(0.975, df) * se
  return {
    change,
    ci95: [(Math.exp(d - h) - 1) * 100, (Math.exp(d + h) - 1) * 100],
    pValue: p,
    significant: p < 0.05
  }
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000

// ---------------------------------------------------------------------------------------------
// The `run --json` objects

export interface SummaryLatency {
  count: number
  p50: number | null
  p90: number | null
  p99: number | null
  p99_9: number | null
  max: number
  ci95: Record<PercentileKey, [number, number] | null>
  /** Percentiles with fewer than 10 samples beyond them: not estimated. */
  insufficient?: Partial<Record<PercentileKey, Insufficient>>
  /** Independent sections (batches of all seeds) the intervals rest on. */
  sections: number
}

export interface SummaryWorkload {
  name: string
  latencyUs: SummaryLatency
  timeSec?: { mean: number; ci95: [number, number] | null }
}

export interface SummaryEntry {
  name: string
  seeds: number
  /** Groups of seeds whose results were identical: each group counts as one sample. */
  identicalSeeds?: number[][]
  workloads: SummaryWorkload[]
}

export interface ComparisonEntry {
  baseline: string
  variant: string
  workload: string
  metric: MetricName
  change: number | null
  ci95: [number, number] | null
  pValue: number | null
  significant: boolean
  note?: string
}

export function summaryWorkload(w: WorkloadStats): SummaryWorkload {
  const ci95 = {} as Record<PercentileKey, [number, number] | null>
  const insufficient: Partial<Record<PercentileKey, Insufficient>> = {}
  const value = {} as Record<PercentileKey, number | null>
  for (const k of PERCENTILE_KEYS) {
    const e = w.latency[k]
    ci95[k] = e.ci95
    value[k] = e.insufficient ? null : r3(e.value)
    if (e.insufficient) insufficient[k] = e.insufficient
  }
  const out: SummaryWorkload = {
    name: w.name,
    latencyUs: {
      count: w.count, ...value, max: r3(w.maxUs), ci95,
      ...(Object.keys(insufficient).length > 0 ? { insufficient } : {}),
      sections: w.sections
    }
  }
  if (w.timeSec) out.timeSec = { mean: round9(w.timeSec.value), ci95: w.timeSec.ci95 ? [round9(w.timeSec.ci95[0]), round9(w.timeSec.ci95[1])] : null }
  return out
}

const round9 = (x: number): number => Math.round(x * 1e9) / 1e9

/** `summary` and `comparisons` of a run's results, variants in first-appearance order. */
export function summarize(results: readonly VariantResult[]): { summary: SummaryEntry[]; comparisons: ComparisonEntry[] } {
  const names: string[] = []
  for (const r of results) if (!names.includes(r.name)) names.push(r.name)
  const columns = names.map((n) => results.filter((r) => r.name === n))
  const stats = columns.map(columnStats)
  const summary: SummaryEntry[] = names.map((name, i) => {
    const { identical } = distinctResults(columns[i])
    return {
      name,
      seeds: new Set(columns[i].map((r) => r.seed)).size,
      ...(identical.length > 0 ? { identicalSeeds: identical } : {}),
      workloads: stats[i].map(summaryWorkload)
    }
  })
  const comparisons: ComparisonEntry[] = []
  for (let i = 1; i < names.length; i++) {
    for (const w of stats[i]) {
      const b = stats[0].find((x) => x.name === w.name)
      if (!b) continue
      comparisons.push(...compareWorkloads(names[0], names[i], b, w))
    }
  }
  return { summary, comparisons }
}

/** The comparison entries of one workload of two columns. */
export function compareWorkloads(baseline: string, variant: string, b: WorkloadStats, w: WorkloadStats): ComparisonEntry[] {
  const out: ComparisonEntry[] = []
  if (b.count > 0 || w.count > 0) {
    for (const k of PERCENTILE_KEYS) out.push({ baseline, variant, workload: w.name, metric: k, ...rounded(compareEstimates(b.latency[k], w.latency[k])) })
  }
  if (b.timeSec || w.timeSec) out.push({ baseline, variant, workload: w.name, metric: 'timeSec', ...rounded(compareEstimates(b.timeSec, w.timeSec)) })
  return out
}

/** A change as the JSON carries it: percent to 0.01, p to 1e-6. */
function rounded(c: Change): Change {
  const r2 = (x: number): number => Math.round(x * 100) / 100
  return {
    ...c,
    change: c.change === null ? null : r2(c.change),
    ci95: c.ci95 ? [r2(c.ci95[0]), r2(c.ci95[1])] : null,
    pValue: c.pValue === null ? null : Math.round(c.pValue * 1e6) / 1e6
  }
}
