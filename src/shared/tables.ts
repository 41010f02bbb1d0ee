/**
 * Comparison tables in the form the seed threads use ("1018 (+55 %)"): one table per
 * workload, one column per variant (or saved run), each value after the first column
 * followed by its change against the baseline column. The sign convention is the
 * threads': a positive change is an improvement (lower latency, shorter hackbench time).
 */
import type { LatencySummary, VariantResult, WorkloadResult } from './result'
import { histogramPercentile, mergeHistograms } from './histogram-data'
import { columnStats, compareEstimates, distinctResults, formatImprovement, formatNumber, formatInsufficient, identicalNote, intervalParts, improvementOf, LEGEND, meanEstimate, type Estimate, type PercentileKey, type WorkloadStats } from '../stats'

/** A column: the results of one variant, one per seed. */
export interface TableColumn {
  label: string
  results: VariantResult[]
}

/** The rows of a workload's latency table, in the threads' order; `timeSec` for hackbench. */
export type StandardMetric = 'count' | 'avg' | 'p50' | 'p90' | 'p99' | 'p99_9' | 'max' | 'timeSec'
export const STANDARD_METRICS: readonly StandardMetric[] = ['count', 'avg', 'p50', 'p90', 'p99', 'p99_9', 'max', 'timeSec']

/**
 * A row's metric: a standard one, a further percentile (`pct:95`), the CPU time of a workload
 * that records no latency (`cpuMs`: a hog's throughput, or background noise), schbench's request
 * latency (`req:p50`...), or an unreasonable-idle bucket (`idle:4ms+`).
 */
export type MetricKey = StandardMetric | `pct:${number}` | 'cpuMs' | `req:${'p50' | 'p99' | 'p99_9' | 'max'}` | `idle:${'2.5-3ms' | '3-4ms' | '4ms+'}`

export interface MetricRow {
  key: MetricKey
  label: string
  /** Null where the column has no such workload, or too few samples for the percentile. */
  values: (number | null)[]
  /** Percent improvement over the baseline column; null for the baseline and for counts. */
  changes: (number | null)[]
  /** 95 % interval of each value (src/stats); null without one. */
  ci: ([number, number] | null)[]
  /** "n/a (264 samples; need 10000)" where a percentile has too few samples beyond it. */
  na: (string | null)[]
  /** The change's 95 % interval excludes zero: only these are coloured. */
  significant: boolean[]
  /** 95 % interval of the change (improvement sign), percent; null without a test. */
  changeCi: ([number, number] | null)[]
  pValues: (number | null)[]
  /** Fixed decimals of the row's figures; absent: by size (whole from 10 up, else one decimal). */
  digits?: number
}

export interface WorkloadTable {
  /** The workload ('' for the run-wide unreasonable-idle table). */
  workload: string
  type: string
  title: string
  /** Which way is better ('none': no change is shown, as for background noise). */
  better: 'lower' | 'higher' | 'none'
  rows: MetricRow[]
}

export interface TableOptions {
  /** Percentiles (0..100) beyond the standard four, as rows after p99.9. */
  percentiles?: readonly number[]
  /** A table of the background noise's CPU time, for reference (left out by default). */
  noise?: boolean
  /** The unreasonable-idle events per bucket, a table of its own. */
  idle?: boolean
}

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

/** Percent improvement of `v` over `base` for a lower-is-better metric. */
export function improvementPct(base: number, v: number): number | null {
  if (base === 0) return v === 0 ? 0 : null
  return ((base - v) / base) * 100
}

const PLAIN = (v: number): Estimate => ({ value: v, ci95: null, df: 0, seLog: null })

/** One figure per run, as sections of one: the interval is over seeds. */
function overSeeds(xs: readonly number[]): Estimate | null {
  return xs.length > 0 ? meanEstimate(xs.map((x) => ({ sum: x, count: 1 }))) : null
}

const STANDARD_PCT = new Set([50, 90, 99, 99.9])

/** "95th Percentile (us)", "Median (P50) (us)". */
export function percentileLabel(p: number): string {
  return p === 50 ? 'Median (P50)' : `${p}th Percentile`
}

/**
 * The comparison tables of the CLI's `compare`, the workbench's Results and Compare and every
 * table export: per workload, its latency in the threads' rows (samples, average, percentiles
 * pooled over seeds with their 95 % intervals, maximum, hackbench's time) against the baseline
 * column; a workload that records no latency, its CPU time (higher is better); schbench, its
 * request latency. Seeds with identical results count once (stats, distinctResults).
 */
export function buildTables(columns: readonly TableColumn[], baseline = 0, opts: TableOptions = {}): WorkloadTable[] {
  const distinct = columns.map((c) => distinctResults(c.results).distinct)
  const stats = distinct.map((rs) => new Map(columnStats(rs).map((w) => [w.name, w])))
  const workloads: WorkloadResult[] = []
  for (const rs of distinct) for (const r of rs) for (const w of r.workloads) if (!workloads.some((x) => x.name === w.name)) workloads.push(w)
  const extra = [...new Set(opts.percentiles ?? [])].filter((p) => !STANDARD_PCT.has(p)).sort((a, b) => a - b)
  /** Per column, one figure per seed that has the workload (null: no seed has it). */
  const perSeed = (name: string, f: (r: VariantResult) => number | undefined): (Estimate | null)[] => distinct.map((rs) => {
    const xs = rs.filter((r) => r.workloads.some((w) => w.name === name)).map(f).filter((x): x is number => typeof x === 'number')
    return overSeeds(xs)
  })
  const cpuMs = (name: string) => (r: VariantResult): number => r.tasks.filter((t) => t.workload === name).reduce((n, t) => n + t.cpuTimeMs, 0)

  const tables: WorkloadTable[] = []
  for (const w of workloads) {
    const name = w.name
    const cells = stats.map((p) => p.get(name) ?? null)
    if (w.type === 'noise') {
      // Background noise is the setting, not a result: its CPU time for reference, no direction.
      if (opts.noise) tables.push({ workload: name, type: w.type, title: `CPU time (ms) of ${name} (background noise, for reference)`, better: 'none', rows: [makeRow('cpuMs', 'CPU time (ms)', perSeed(name, cpuMs(name)), baseline, 'none', false, 0)] })
      continue
    }
    const hasLatency = cells.some((c) => (c?.count ?? 0) > 0)
    const hasTime = cells.some((c) => c?.timeSec)
    if (hasLatency || hasTime) {
      const pick = (f: (c: WorkloadStats) => Estimate | null) => cells.map((c) => (c ? f(c) : null))
      const lat = (f: (c: WorkloadStats) => Estimate | null) => pick((c) => (c.count > 0 ? f(c) : null))
      const rows: MetricRow[] = [
        makeRow('count', 'Total Samples', pick((c) => PLAIN(c.count)), baseline, 'lower', false),
        makeRow('avg', 'Average (us)', lat((c) => PLAIN(c.avgUs)), baseline, 'lower', false),
        ...PERCENTILE_ROWS.map(([k, label]) => makeRow(k, label, lat((c) => c.latency[k]), baseline, 'lower', true)),
        ...extra.map((p) => makeRow(`pct:${p}`, `${percentileLabel(p)} (us)`, lat((c) => {
          if (!c.pooled.complete) throw new Error(`percentile ${p} of ${name} needs histogram data, which this result does not carry`)
          return c.pooled.percentile(p)
        }), baseline, 'lower', true)),
        makeRow('max', 'Maximum (us)', lat((c) => PLAIN(c.maxUs)), baseline, 'lower', false)
      ]
      if (hasTime) rows.push(makeRow('timeSec', 'Time (s)', pick((c) => c.timeSec), baseline, 'lower', true, 3))
      tables.push({ workload: name, type: w.type, title: hasLatency ? `scheduling latency (us) for ${name}` : `${name} time (s)`, better: 'lower', rows: hasLatency ? rows : rows.filter((r) => r.key === 'timeSec') })
    } else {
      // A CPU-bound workload (no wakeups): its throughput is the CPU time it got.
      tables.push({ workload: name, type: w.type, title: `CPU time (ms) for ${name} (throughput: higher is better)`, better: 'higher', rows: [makeRow('cpuMs', 'CPU time (ms)', perSeed(name, cpuMs(name)), baseline, 'higher', true, 0)] })
    }
    if (w.requestLatencyUs) {
      const req = (k: 'p50' | 'p99' | 'p99_9' | 'max', label: string): MetricRow =>
        makeRow(`req:${k}`, label, perSeed(name, (r) => r.workloads.find((x) => x.name === name)?.requestLatencyUs?.[k]), baseline, 'lower', true)
      tables.push({ workload: name, type: w.type, title: `request latency (us) for ${name}`, better: 'lower', rows: [req('p50', 'Median (P50) (us)'), req('p99', '99th Percentile (us)'), req('p99_9', '99.9th Percentile (us)'), req('max', 'Maximum (us)')] })
    }
  }
  if (opts.idle) {
    const rows = (['2.5-3ms', '3-4ms', '4ms+'] as const).map((b) => makeRow(`idle:${b}`, b,
      distinct.map((rs) => overSeeds(rs.map((r) => r.unreasonableIdle.events[b]))), baseline, 'lower', true))
    const values = rows.flatMap((r) => r.values.map((v) => v ?? 0))
    if (values.some((v) => v > 0)) {
      const digits = values.every(Number.isInteger) ? 0 : 1
      tables.push({ workload: '', type: 'idle', title: 'unreasonable idle events', better: 'lower', rows: rows.map((r) => ({ ...r, digits })) })
    }
  }
  return tables
}

/** One row: each column's estimate, and each against the baseline column's (tested or plain). */
function makeRow(key: MetricKey, label: string, est: (Estimate | null)[], baseline: number, better: 'lower' | 'higher' | 'none', test: boolean, digits?: number): MetricRow {
  const base = est[baseline]
  const r: MetricRow = { key, label, values: [], changes: [], ci: [], na: [], significant: [], changeCi: [], pValues: [], ...(digits !== undefined ? { digits } : {}) }
  est.forEach((e, i) => {
    const usable = e && !e.insufficient && Number.isFinite(e.value)
    r.values.push(usable ? e.value : null)
    r.ci.push(usable ? e.ci95 : null)
    r.na.push(e?.insufficient ? formatInsufficient(e.insufficient) : null)
    const compared = better !== 'none' && i !== baseline && key !== 'count' && usable && base && !base.insufficient
    const c = compared ? (test ? compareEstimates(base, e) : compareEstimates(PLAIN(base.value), PLAIN(e.value))) : null
    const pct = c ? improvementOf(c, better === 'higher' ? 'higher' : 'lower') ?? (better === 'higher' ? improvementPct(e!.value, base!.value) : improvementPct(base!.value, e!.value)) : null
    r.changes.push(pct)
    r.significant.push(!!c && c.significant)
    r.changeCi.push(c?.ci95 ? (better === 'higher' ? c.ci95 : [-c.ci95[1], -c.ci95[0]]) : null)
    r.pValues.push(c?.pValue ?? null)
  })
  return r
}

const PERCENTILE_ROWS: readonly [PercentileKey, string][] = [
  ['p50', 'Median (P50) (us)'],
  ['p90', '90th Percentile (us)'],
  ['p99', '99th Percentile (us)'],
  ['p99_9', '99.9th Percentile (us)']
]

/** Lines that say which seeds of which column gave identical results (counted once). */
export function identicalSeedNotes(columns: readonly TableColumn[]): string[] {
  return columns.flatMap((c) => identicalNote(distinctResults(c.results).identical, columns.length > 1 ? c.label : ''))
}

// ---------------------------------------------------------------------------------------------
// Formatting

/** "(+55 %)", "(+1 %)", "(0 %)", "(-14 %)". */
export const formatChange = formatImprovement

/** A figure of a row: counts whole, times with 3 decimals, latencies by size. */
export function formatValue(key: MetricKey, v: number | null, digits?: number): string {
  if (v === null) return '-'
  if (key === 'count') return String(Math.round(v))
  return formatNumber(v, digits ?? (key === 'timeSec' ? 3 : undefined))
}

/** The value with its interval ("1018 ±35", "864 [57, 3981]"), or the n/a reason. */
export function formatValueCell(row: MetricRow, i: number): string {
  const [v, interval] = valueCellParts(row, i)
  return interval ? `${v} ${interval}` : v
}

/** formatValueCell in two parts: the value (or n/a reason, or '-') and its interval ('' without one). */
export function valueCellParts(row: MetricRow, i: number): [string, string] {
  if (row.na[i]) return [row.na[i] as string, '']
  const v = row.values[i]
  if (v === null) return ['-', '']
  if (row.key === 'count') return [formatValue('count', v), '']
  return intervalParts(v, row.ci[i], row.digits ?? (row.key === 'timeSec' ? 3 : undefined))
}

/** The change with mmtests' mark for a significant one: "(+55 %)*". */
export function formatMarkedChange(row: MetricRow, i: number): string {
  const c = formatChange(row.changes[i])
  return c && row.significant[i] ? `${c}*` : c
}

/** A cell as the threads print it, with intervals and marks: "1018 ±35 (+55 %)*". */
export function formatCell(row: MetricRow, i: number): string {
  const v = formatValueCell(row, i)
  const c = formatMarkedChange(row, i)
  return c ? `${v} ${c}` : v
}

/**
 * Colour of a cell: better or worse only when the change is significant; 'same' (grey) when it
 * is not; 'none' for the baseline, counts and n/a cells (never coloured).
 */
export function cellTone(row: MetricRow, i: number): 'better' | 'worse' | 'same' | 'none' {
  const pct = row.changes[i]
  if (row.na[i] || pct === null || !Number.isFinite(pct)) return 'none'
  if (!row.significant[i]) return 'same'
  return pct > 0 ? 'better' : pct < 0 ? 'worse' : 'same'
}

/** Tooltip of a cell: its interval, and the change's interval and p-value. */
export function cellTitle(row: MetricRow, i: number): string {
  if (row.na[i]) return `${row.na[i]}: fewer than 10 samples beyond this percentile`
  const parts: string[] = []
  const ci = row.ci[i]
  if (ci) parts.push(`95 % interval ${formatValue(row.key, ci[0], row.digits)} .. ${formatValue(row.key, ci[1], row.digits)}`)
  const cc = row.changeCi[i]
  if (cc) {
    const f = (x: number): string => `${x > 0 ? '+' : ''}${x.toFixed(1)} %`
    const p = row.pValues[i]
    parts.push(`change ${f(cc[0])} .. ${f(cc[1])} (better is +)${p !== null ? `, p = ${p < 0.001 ? '< 0.001' : p.toFixed(3)}` : ''}${row.significant[i] ? ', significant' : ', not significant'}`)
  } else if (row.changes[i] !== null && row.key !== 'count') parts.push('no interval for this change: not tested')
  return parts.join('; ')
}

/** What the marks mean, for the line under every exported table. */
export const TABLE_LEGEND = LEGEND

/** Lines of at most `width` characters, broken at spaces (a longer word stays whole). */
export function wrapWords(text: string, width: number): string[] {
  const out: string[] = []
  let line = ''
  for (const w of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + w.length > width) {
      out.push(line)
      line = w
    } else line = line ? `${line} ${w}` : w
  }
  if (line || out.length === 0) out.push(line)
  return out
}

/** A legend's "; "-separated clauses packed into lines of at most `width` (a clause breaks only when it must). */
export function wrapClauses(text: string, width: number): string[] {
  const out: string[] = []
  let line = ''
  for (const clause of text.split('; ')) {
    const next = line ? `${line}; ${clause}` : clause
    if (next.length <= width) line = next
    else {
      if (line) out.push(`${line};`)
      const parts = wrapWords(clause, width)
      out.push(...parts.slice(0, -1))
      line = parts[parts.length - 1]
    }
  }
  out.push(line)
  return out
}

/** Plain-text exports stay under this many columns: wide tables wrap into blocks of columns. */
export const TEXT_WIDTH = 99

/**
 * Fixed-width text as in the seed threads. A table too wide for `width` is printed in blocks
 * of columns, each repeating the row labels; long headers wrap onto several lines.
 */
export function tablesToText(labels: readonly string[], tables: readonly WorkloadTable[], width = TEXT_WIDTH): string {
  const out: string[] = []
  for (const t of tables) {
    const cells = t.rows.map((r) => labels.map((_, i) => formatCell(r, i)))
    const labelW = Math.max(0, ...t.rows.map((r) => r.label.length))
    const room = Math.max(8, width - labelW - 3)
    const colW = labels.map((l, i) => {
      const cellW = Math.max(0, ...cells.map((c) => c[i].length))
      const headW = Math.max(...wrapWords(l, Math.max(cellW, 16)).map((x) => x.length))
      return Math.min(room, Math.max(cellW, headW))
    })
    const blocks: number[][] = []
    let used = labelW
    for (let i = 0; i < labels.length; i++) {
      const need = colW[i] + 3
      if (blocks.length === 0 || used + need > width) {
        blocks.push([])
        used = labelW
      }
      blocks[blocks.length - 1].push(i)
      used += need
    }
    for (const cols of blocks) {
      out.push(blocks.length > 1 ? `${t.title} (columns ${cols[0] + 1}-${cols[cols.length - 1] + 1} of ${labels.length})` : t.title)
      const heads = cols.map((i) => wrapWords(labels[i], colW[i]))
      const depth = Math.max(...heads.map((x) => x.length))
      for (let k = 0; k < depth; k++) {
        // Headers sit on their last lines, right-aligned over their values.
        out.push((' '.repeat(labelW) + ' ' + cols.map((i, j) => (heads[j][k - (depth - heads[j].length)] ?? '').padStart(colW[i])).join(' | ')).trimEnd())
      }
      t.rows.forEach((r, ri) => {
        out.push(r.label.padEnd(labelW) + ' ' + cols.map((i) => cells[ri][i].padStart(colW[i])).join(' | '))
      })
      out.push('')
    }
  }
  if (tables.length > 0) out.push(...wrapClauses(TABLE_LEGEND, width), '')
  return out.join('\n')
}

/**
 * Only the standard rows of `metrics` (all when absent; rows of other metrics stay); tables
 * left with no row are dropped.
 */
export function pickMetrics(tables: readonly WorkloadTable[], metrics?: readonly MetricKey[]): WorkloadTable[] {
  if (!metrics) return [...tables]
  const standard = new Set<string>(STANDARD_METRICS)
  return tables.map((t) => ({ ...t, rows: t.rows.filter((r) => !standard.has(r.key) || metrics.includes(r.key)) })).filter((t) => t.rows.length > 0)
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
  if (tables.length > 0) out.push(`_${TABLE_LEGEND}_`, '')
  return out.join('\n')
}

function csvField(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000

/**
 * Wide CSV: one line per workload metric; raw numbers, each value's 95 % interval, change
 * columns in percent (positive = better) with their significance ("*" as in the tables).
 * The last line is the legend, as a comment.
 */
export function tablesToCsv(labels: readonly string[], tables: readonly WorkloadTable[], baseline = 0): string {
  const head = ['workload', 'metric']
  labels.forEach((l, i) => {
    head.push(l, `${l} ci95 low`, `${l} ci95 high`)
    if (i !== baseline) head.push(`${l} change %`, `${l} significant`)
  })
  const lines = [head.map(csvField).join(',')]
  for (const t of tables) {
    for (const r of t.rows) {
      const f = [t.workload, r.key]
      r.values.forEach((v, i) => {
        const ci = r.ci[i]
        f.push(r.na[i] ?? (v === null ? '' : String(round3(v))), ci ? String(round3(ci[0])) : '', ci ? String(round3(ci[1])) : '')
        if (i !== baseline) {
          f.push(r.changes[i] === null ? '' : (r.changes[i] as number).toFixed(1))
          f.push(r.changes[i] === null || r.key === 'count' ? '' : r.significant[i] ? '*' : '')
        }
      })
      lines.push(f.map(csvField).join(','))
    }
  }
  lines.push(`# ${TABLE_LEGEND}`)
  return lines.join('\n') + '\n'
}

/**
 * Column headers for a comparison: the variant name when it is unique among the columns,
 * else the variant with what tells its run apart. Runs are named "scenario · what changed"
 * (run-name.ts): runs of one scenario are told apart by what changed ("[ct slice 4 ms]"), the
 * one with no change by its place among the runs ("[run 1]"), so 8 columns stay narrow.
 */
export function columnLabels(cols: readonly { variant: string; runName: string }[]): string[] {
  const counts = new Map<string, number>()
  for (const c of cols) counts.set(c.variant, (counts.get(c.variant) ?? 0) + 1)
  const runs = [...new Set(cols.map((c) => c.runName))]
  const scenarioOf = (name: string) => name.split(' · ')[0]
  const oneScenario = new Set(runs.map(scenarioOf)).size === 1
  const runTag = (name: string): string => {
    if (!oneScenario) return name
    const rest = name.slice(scenarioOf(name).length + 3)
    return rest || `run ${runs.indexOf(name) + 1}`
  }
  const labels = cols.map((c) => (counts.get(c.variant)! > 1 ? `${c.variant} [${runTag(c.runName)}]` : c.variant))
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
