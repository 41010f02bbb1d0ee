/**
 * Comparison tables in the form the seed threads use ("1018 (+55 %)"): one table per
 * workload, one column per variant (or saved run), each value after the first column
 * followed by its change against the baseline column. The sign convention is the
 * threads': a positive change is an improvement (lower latency, shorter hackbench time).
 */
import type { LatencySummary, VariantResult, WorkloadResult } from './result'
import { histogramPercentile, mergeHistograms } from './histogram-data'
import { columnStats, compareEstimates, formatImprovement, formatInsufficient, improvementOf, LEGEND, type Estimate, type PercentileKey, type WorkloadStats } from '../stats'

/** A column: the results of one variant, one per seed. */
export interface TableColumn {
  label: string
  results: VariantResult[]
}

export type MetricKey = 'count' | 'avg' | 'p50' | 'p90' | 'p99' | 'p99_9' | 'max' | 'timeSec'

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
}

export interface WorkloadTable {
  workload: string
  type: string
  title: string
  rows: MetricRow[]
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

export function buildTables(columns: readonly TableColumn[], baseline = 0): WorkloadTable[] {
  const stats = columns.map((c) => new Map(columnStats(c.results).map((w) => [w.name, w])))
  const names: string[] = []
  const types = new Map<string, string>()
  for (const p of stats) {
    for (const [name, w] of p) {
      if (!types.has(name)) {
        names.push(name)
        types.set(name, w.type)
      }
    }
  }
  // A workload without latency samples or a completion time (a hog) has nothing to compare.
  const measured = (name: string): boolean => stats.some((p) => {
    const w = p.get(name)
    return !!w && (w.count > 0 || w.timeSec !== null)
  })
  return names.filter(measured).map((name) => {
    const cells = stats.map((p) => p.get(name) ?? null)
    const row = (key: MetricKey, label: string, pick: (w: WorkloadStats) => Estimate | null, test: boolean): MetricRow => {
      const est = cells.map((c) => (c ? pick(c) : null))
      const base = est[baseline]
      const r: MetricRow = { key, label, values: [], changes: [], ci: [], na: [], significant: [], changeCi: [], pValues: [] }
      est.forEach((e, i) => {
        const usable = e && !e.insufficient && Number.isFinite(e.value)
        r.values.push(usable ? e.value : null)
        r.ci.push(usable ? e.ci95 : null)
        r.na.push(e?.insufficient ? formatInsufficient(e.insufficient) : null)
        const compared = i !== baseline && key !== 'count' && usable && base && !base.insufficient
        const c = compared ? (test ? compareEstimates(base, e) : compareEstimates(PLAIN(base.value), PLAIN(e.value))) : null
        r.changes.push(c ? improvementOf(c) ?? improvementPct(base!.value, e!.value) : null)
        r.significant.push(!!c && c.significant)
        r.changeCi.push(c?.ci95 ? [-c.ci95[1], -c.ci95[0]] : null)
        r.pValues.push(c?.pValue ?? null)
      })
      return r
    }
    const rows: MetricRow[] = [
      row('count', 'Total Samples', (w) => PLAIN(w.count), false),
      row('avg', 'Average (us)', (w) => (w.count > 0 ? PLAIN(w.avgUs) : null), false),
      ...PERCENTILE_ROWS.map(([k, label]) => row(k, label, (w) => (w.count > 0 ? w.latency[k] : null), true)),
      row('max', 'Maximum (us)', (w) => (w.count > 0 ? PLAIN(w.maxUs) : null), false)
    ]
    if (cells.some((c) => c?.timeSec)) rows.push(row('timeSec', 'Time (s)', (w) => w.timeSec, true))
    return { workload: name, type: types.get(name)!, title: `scheduling latency (us) for ${name}`, rows }
  })
}

const PERCENTILE_ROWS: readonly [PercentileKey, string][] = [
  ['p50', 'Median (P50) (us)'],
  ['p90', '90th Percentile (us)'],
  ['p99', '99th Percentile (us)'],
  ['p99_9', '99.9th Percentile (us)']
]

// ---------------------------------------------------------------------------------------------
// Formatting

/** "(+55 %)", "(+ 1 %)", "(  0 %)", "(-14 %)" as in the seed threads. */
export const formatChange = formatImprovement

export function formatValue(key: MetricKey, v: number | null): string {
  if (v === null) return '-'
  if (key === 'count') return String(Math.round(v))
  if (key === 'timeSec') return v.toFixed(3)
  return Math.abs(v) >= 10 ? String(Math.round(v)) : v.toFixed(1)
}

/** "±35": half the 95 % interval, in the value's format; '' without an interval. */
export function formatHalfWidth(row: MetricRow, i: number): string {
  const ci = row.ci[i]
  if (!ci) return ''
  return `±${formatValue(row.key, (ci[1] - ci[0]) / 2)}`
}

/** The value and its half-width, "1018 ±35", or the n/a reason. */
export function formatValueCell(row: MetricRow, i: number): string {
  if (row.na[i]) return row.na[i] as string
  const v = formatValue(row.key, row.values[i])
  const h = formatHalfWidth(row, i)
  return h ? `${v} ${h}` : v
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
  if (ci) parts.push(`95 % interval ${formatValue(row.key, ci[0])} .. ${formatValue(row.key, ci[1])}`)
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

/** Only the rows of `metrics` (all when absent); tables left with no row are dropped. */
export function pickMetrics(tables: readonly WorkloadTable[], metrics?: readonly MetricKey[]): WorkloadTable[] {
  if (!metrics) return [...tables]
  return tables.map((t) => ({ ...t, rows: t.rows.filter((r) => metrics.includes(r.key)) })).filter((t) => t.rows.length > 0)
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
