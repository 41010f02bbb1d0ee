/**
 * What the charts show, computed from saved results: one series per variant (or per saved
 * run in a comparison), the seeds of a series pooled; seeds with identical results count once,
 * as in the tables (stats, distinctResults).
 */
import type { HistogramData, LatencySummary, VariantResult } from '../../../shared/result'
import { groupBy } from '../../../shared/group'
import { mergeHistograms } from '../../../shared/histogram-data'
import { poolLatency, type TableColumn } from '../../../shared/tables'
import { workloadStats, type WorkloadStats } from '../../../stats/summary'
import { distinctResults } from '../../../stats/replicas'

const distinct = (results: readonly VariantResult[]): VariantResult[] => distinctResults(results).distinct

export type Series = TableColumn

/** Workloads with latency samples in some series (hogs record none), in first-seen order. */
export function workloadNames(series: readonly Series[]): string[] {
  const names: string[] = []
  for (const s of series) for (const r of s.results) for (const w of r.workloads) if (w.latencyUs.count > 0 && !names.includes(w.name)) names.push(w.name)
  return names
}

/** Pooled histogram of a workload's latencies over a series' seeds; null if a seed lacks one. */
export function pooledHistogram(s: Series, workload: string): HistogramData | null {
  const hists: HistogramData[] = []
  for (const r of distinct(s.results)) {
    const w = r.workloads.find((x) => x.name === workload)
    if (!w) continue
    if (!w.latencyHist) return null
    hists.push(w.latencyHist)
  }
  return hists.length ? mergeHistograms(hists) : null
}

/** The statistics of a workload over a series' seeds (pooled percentiles with intervals). */
export function pooledWorkloadStats(s: Series, workload: string): WorkloadStats | null {
  const ws = distinct(s.results).flatMap((r) => r.workloads.filter((x) => x.name === workload))
  return ws.length ? workloadStats(ws) : null
}

export interface PooledTask {
  name: string
  workload: string
  cpuTimeMs: number
  latency: LatencySummary
  migrations: number
  contextSwitches: number
  wakeups: number
}

function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0
}

/** Tasks by name, averaged over seeds (latencies pooled). */
export function pooledTasks(results: readonly VariantResult[]): PooledTask[] {
  const by = groupBy(distinct(results).flatMap((r) => r.tasks), (t) => t.name)
  return [...by.entries()].map(([name, ts]) => ({
    name,
    workload: ts[0].workload,
    cpuTimeMs: mean(ts.map((t) => t.cpuTimeMs)),
    latency: poolLatency(ts.map((t) => t.latencyUs)),
    migrations: mean(ts.map((t) => t.migrations)),
    contextSwitches: mean(ts.map((t) => t.contextSwitches)),
    wakeups: mean(ts.map((t) => t.wakeups))
  }))
}

export interface PooledCpu {
  id: number
  cluster: string
  busyPct: number
  sysPct: number | null
}

export function pooledCpus(results: readonly VariantResult[]): PooledCpu[] {
  const by = groupBy(distinct(results).flatMap((r) => r.cpus), (c) => c.id)
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([id, cs]) => {
    const sys = cs.map((c) => c.sysPct).filter((v): v is number => typeof v === 'number')
    return { id, cluster: cs[0].cluster, busyPct: mean(cs.map((c) => c.busyPct)), sysPct: sys.length ? mean(sys) : null }
  })
}

export type IdleBucket = '2.5-3ms' | '3-4ms' | '4ms+'
export const IDLE_BUCKETS: readonly IdleBucket[] = ['2.5-3ms', '3-4ms', '4ms+']

/** Unreasonable-idle events summed over seeds (they are counts of a run). */
export function idleCounts(results: readonly VariantResult[]): Record<IdleBucket, number> {
  const out: Record<IdleBucket, number> = { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 }
  for (const r of distinct(results)) for (const b of IDLE_BUCKETS) out[b] += r.unreasonableIdle?.events?.[b] ?? 0
  return out
}
