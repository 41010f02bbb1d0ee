/**
 * Comparison tables in the form the seed threads use ("1018 (+55 %)"): one table per
 * workload, one column per variant (or saved run), each value after the first column
 * followed by its change against the baseline column. The sign convention is the
 * threads': a positive change is an improvement (lower latency, shorter hackbench time).
 */
import type { LatencySummary, VariantResult, WorkloadResult } from './result'
import { histogramPercentile, mergeHistograms } from './histogram-data'
import { groupBy } from './group'

/** A column: the results of one variant, one per seed. */
export interface TableColumn {
  label: string
  results: VariantResult[]
}

export type MetricKey = 'count' | 'avg' | 'p50' | 'p90' | 'p99' | 'p99_9' | 'max' | 'timeSec'

export interface MetricRow {
  key: MetricKey
  label: string
  /** Null where the column has no such workload. */
  values: (number | null)[]
  /** Percent improvement over the baseline column; null for the baseline and for counts. */
  changes: (number | null)[]
}

export interface WorkloadTable {
  workload: string
  type: string
  title: string
  rows: MetricRow[]
}

const LATENCY_ROWS: readonly [MetricKey, string][] = [
  ['count', 'Total Samples'],
  ['avg', 'Average (us)'],
  ['p50', 'Median (P50) (us)'],
  ['p90', '90th Percentile (us)'],
  ['p99', '99th Percentile (us)'],
  ['p99_9', '99.9th Percentile (us)'],
  ['max', 'Maximum (us)']
]

const PERCENTILES: readonly [MetricKey, number][] = [['p50', 50], ['p90', 90], ['p99', 99], ['p99_9', 99.9]]

/**
 * One latency summary for a variant over all its seeds: samples pooled (percentiles read from
 * the merged histograms when every seed has one, otherwise the mean of the seeds' values),
 * exact count, average, min and max.
 */
export function poolLatency(list: readonly LatencySummary[], hists?: readonly (WorkloadResult['latencyHist'])[]): LatencySummary {
  if (list.length === 1) return list[0]
  const withSamples = list.filter((l) => l.count > 0)
  if (withSamples.length === 0) return list[0] ?? { count: 0, min: 0, avg: 0, p50: 0, p90: 0, p99: 0, p99_9: 0, max: 0 }
  const count = withSamples.reduce((n, l) => n + l.count, 0)
  const min = Math.min(...withSamples.map((l) => l.min))
  const max = Math.max(...withSamples.map((l) => l.max))
  const avg = withSamples.reduce((s, l) => s + l.avg * l.count, 0) / count
  const out: LatencySummary = { count, min, avg, max, p50: 0, p90: 0, p99: 0, p99_9: 0 }
  const allHists = hists && hists.length === list.length && hists.every((h) => h !== undefined)
  if (allHists) {
    const merged = mergeHistograms(hists as NonNullable<WorkloadResult['latencyHist']>[])
    for (const [k, p] of PERCENTILES) out[k as 'p50'] = histogramPercentile(merged, p, min, max)
  } else {
    for (const [k] of PERCENTILES) {
      out[k as 'p50'] = withSamples.reduce((s, l) => s + l[k as 'p50'], 0) / withSamples.length
    }
  }
  return out
}

interface PooledWorkload {
  type: string
  latency: LatencySummary
  timeSec: number | null
}

function poolWorkloads(col: TableColumn): Map<string, PooledWorkload> {
  const byName = groupBy(col.results.flatMap((r) => r.workloads), (w) => w.name)
  const out = new Map<string, PooledWorkload>()
  for (const [name, ws] of byName) {
    const times = ws.map((w) => w.timeSec).filter((t): t is number => typeof t === 'number')
    out.set(name, {
      type: ws[0].type,
      latency: poolLatency(ws.map((w) => w.latencyUs), ws.map((w) => w.latencyHist)),
      timeSec: times.length > 0 ? times.reduce((a, b) => a + b, 0) / times.length : null
    })
  }
  return out
}

/** Percent improvement of `v` over `base` for a lower-is-better metric. */
export function improvementPct(base: number, v: number): number | null {
  if (base === 0) return v === 0 ? 0 : null
  return ((base - v) / base) * 100
}

export function buildTables(columns: readonly TableColumn[], baseline = 0): WorkloadTable[] {
  const pooled = columns.map(poolWorkloads)
  const names: string[] = []
  const types = new Map<string, string>()
  for (const p of pooled) {
    for (const [name, w] of p) {
      if (!types.has(name)) {
        names.push(name)
        types.set(name, w.type)
      }
    }
  }
  // A workload without latency samples or a completion time (a hog) has nothing to compare.
  const measured = (name: string): boolean =>
    pooled.some((p) => {
      const w = p.get(name)
      return !!w && (w.latency.count > 0 || w.timeSec !== null)
    })
  return names.filter(measured).map((name) => {
    const cells = pooled.map((p) => p.get(name) ?? null)
    const row = (key: MetricKey, label: string, pick: (w: PooledWorkload) => number | null): MetricRow => {
      const values = cells.map((c) => (c ? pick(c) : null))
      const base = values[baseline]
      const changes = values.map((v, i) =>
        i === baseline || key === 'count' || v === null || base === null ? null : improvementPct(base, v))
      return { key, label, values, changes }
    }
    const rows = LATENCY_ROWS.map(([k, label]) => row(k, label, (w) => w.latency[k as keyof LatencySummary]))
    if (cells.some((c) => c?.timeSec !== null && c?.timeSec !== undefined)) {
      rows.push(row('timeSec', 'Time (s)', (w) => w.timeSec))
    }
    return { workload: name, type: types.get(name)!, title: `scheduling latency (us) for ${name}`, rows }
  })
}

// ---------------------------------------------------------------------------------------------
// Formatting

/** "(+55 %)", "(+ 1 %)", "(  0 %)", "(-14 %)" as in the seed threads. */
export function formatChange(pct: number | null): string {
  if (pct === null || !Number.isFinite(pct)) return ''
  const r = Math.round(pct)
  const sign = r > 0 ? '+' : r < 0 ? '-' : ' '
  return `(${sign}${String(Math.abs(r)).padStart(2)} %)`
}

export function formatValue(key: MetricKey, v: number | null): string {
  if (v === null) return '-'
  if (key === 'count') return String(Math.round(v))
  if (key === 'timeSec') return v.toFixed(3)
  return Math.abs(v) >= 10 ? String(Math.round(v)) : v.toFixed(1)
}

/** A cell as the threads print it: the value, then its change for non-baseline columns. */
export function formatCell(row: MetricRow, i: number): string {
  const v = formatValue(row.key, row.values[i])
  const c = formatChange(row.changes[i])
  return c ? `${v} ${c}` : v
}

/** Whether a change is good, bad or neither, for colouring. */
export function changeTone(pct: number | null): 'better' | 'worse' | 'same' | 'none' {
  if (pct === null || !Number.isFinite(pct)) return 'none'
  const r = Math.round(pct)
  return r > 0 ? 'better' : r < 0 ? 'worse' : 'same'
}

export function tablesToText(labels: readonly string[], tables: readonly WorkloadTable[]): string {
  const out: string[] = []
  for (const t of tables) {
    const cells = t.rows.map((r) => labels.map((_, i) => formatCell(r, i)))
    const labelW = Math.max(...t.rows.map((r) => r.label.length))
    const widths = labels.map((l, i) => Math.max(l.length, ...cells.map((c) => c[i].length)))
    out.push(t.title)
    out.push(' '.repeat(labelW) + ' ' + labels.map((l, i) => l.padStart(widths[i])).join(' | '))
    t.rows.forEach((r, ri) => {
      out.push(r.label.padEnd(labelW) + ' ' + cells[ri].map((c, i) => c.padStart(widths[i])).join(' | '))
    })
    out.push('')
  }
  return out.join('\n')
}

const mdEscape = (s: string): string => s.replace(/\|/g, '\\|')

export function tablesToMarkdown(title: string, labels: readonly string[], tables: readonly WorkloadTable[]): string {
  const out: string[] = []
  if (title) out.push(`## ${mdEscape(title)}`, '')
  for (const t of tables) {
    out.push(`**${mdEscape(t.title)}**`, '')
    out.push(`| | ${labels.map(mdEscape).join(' | ')} |`)
    out.push(`|:--|${labels.map(() => '--:').join('|')}|`)
    for (const r of t.rows) out.push(`| ${r.label} | ${labels.map((_, i) => formatCell(r, i)).join(' | ')} |`)
    out.push('')
  }
  return out.join('\n')
}

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000

/** Wide CSV: one line per workload metric; raw numbers, change columns in percent. */
export function tablesToCsv(labels: readonly string[], tables: readonly WorkloadTable[], baseline = 0): string {
  const head = ['workload', 'metric']
  labels.forEach((l, i) => {
    head.push(l)
    if (i !== baseline) head.push(`${l} change %`)
  })
  const lines = [head.map(csvField).join(',')]
  for (const t of tables) {
    for (const r of t.rows) {
      const f = [t.workload, r.key]
      r.values.forEach((v, i) => {
        f.push(v === null ? '' : String(round3(v)))
        if (i !== baseline) f.push(r.changes[i] === null ? '' : (r.changes[i] as number).toFixed(1))
      })
      lines.push(f.map(csvField).join(','))
    }
  }
  return lines.join('\n') + '\n'
}

/**
 * Column headers for a comparison: the variant name when it is unique among the columns,
 * else the variant with its run's name.
 */
export function columnLabels(cols: readonly { variant: string; runName: string }[]): string[] {
  const counts = new Map<string, number>()
  for (const c of cols) counts.set(c.variant, (counts.get(c.variant) ?? 0) + 1)
  const labels = cols.map((c) => (counts.get(c.variant)! > 1 ? `${c.variant} [${c.runName}]` : c.variant))
  // Two runs with the same name and variant still need distinct headers.
  const seen = new Map<string, number>()
  return labels.map((l) => {
    const n = (seen.get(l) ?? 0) + 1
    seen.set(l, n)
    return n > 1 ? `${l} #${n}` : l
  })
}

/** The results of one variant of a run, seeds ascending. */
export function variantResults(results: readonly VariantResult[], variant: string): VariantResult[] {
  return results.filter((r) => r.name === variant).sort((a, b) => a.seed - b.seed)
}
