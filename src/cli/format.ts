import type { HistogramData, LatencySummary, RunOutput, VariantResult, WorkloadResult } from '../shared/result'
import {
  columnStats, compareEstimates, formatEstimate, formatImprovement, formatInsufficient, halfWidth, improvementOf, LEGEND, meanEstimate, workloadStats,
  type Estimate, type PercentileKey
} from '../stats'

/**
 * Text, Markdown and JSON renderings of results. `compare` follows the seed threads' table
 * form: one column per variant, each value after the first followed by its change against the
 * first column, "1018 (+55 %)", where a positive change means lower (better) latency or time.
 */

const r = (x: number, digits = 0): string => x.toFixed(digits)

function pad(s: string, w: number, left = false): string {
  return left ? s.padEnd(w) : s.padStart(w)
}

function grid(rows: string[][], leftCols = 1): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => (row[c] ?? '').length)))
  return rows.map((row) => row.map((cell, c) => pad(cell, widths[c], c < leftCols)).join('  ').trimEnd()).join('\n')
}

// ---------------------------------------------------------------- run

/**
 * `run`'s table: per variant, its seeds pooled, each percentile with the half-width of its 95 %
 * interval (or n/a); with `perSeed`, each seed's own table after it.
 */
export function renderRunText(out: RunOutput, opts: { perSeed?: boolean } = {}): string {
  const parts: string[] = [`scenario: ${out.scenario}`]
  const names: string[] = []
  for (const v of out.variants) if (!names.includes(v.name)) names.push(v.name)
  for (const name of names) {
    const runs = out.variants.filter((v) => v.name === name)
    const seeds = runs.map((v) => v.seed)
    const wall = runs.reduce((a, v) => a + v.stats.wallMs, 0)
    const events = runs.reduce((a, v) => a + v.stats.events, 0)
    const seedText = runs.length === 1 ? `seed ${seeds[0]}` : `${runs.length} seeds (${seeds.join(', ')})`
    parts.push('', `== ${name}, ${seedText}: ${r(runs[0].stats.simulatedMs)} ms ${howOf(runs[0])}${runs.length > 1 ? ' each' : ''} in ${r(wall / 1000, 2)} s, ${events} events${runs.length === 1 ? `, ${runs[0].stats.contextSwitches} context switches, ${runs[0].stats.migrations} migrations` : ''}`)
    const rows: string[][] = [['workload', 'type', 'samples', 'p50', 'p90', 'p99', 'p99.9', 'max (us)', 'other']]
    const stats = columnStats(runs)
    for (const w of stats) {
      const first = runs.flatMap((v) => v.workloads).find((x) => x.name === w.name)!
      const l = w.latency
      rows.push([w.name, w.type, String(w.count), ...PCT_KEYS.map((k) => (w.count > 0 ? formatEstimate(l[k], 1) : '-')), r(w.maxUs, 1), otherOf(first, runs.length > 1 ? null : first, w.timeSec)])
    }
    parts.push(grid(rows, 2))
    for (const v of runs) {
      const ui = v.unreasonableIdle.events
      if (ui['2.5-3ms'] + ui['3-4ms'] + ui['4ms+'] > 0) parts.push(`unreasonable idle events${runs.length > 1 ? `, seed ${v.seed}` : ''}: 2.5-3ms ${ui['2.5-3ms']}, 3-4ms ${ui['3-4ms']}, 4ms+ ${ui['4ms+']}`)
    }
    for (const w of [...new Set(runs.flatMap((v) => v.warnings ?? []))]) parts.push(`warning: ${w}`)
  }
  parts.push('', `±: half-width of the 95 % interval (docs/statistics.md); n/a: fewer than 10 samples beyond the percentile`)
  if (opts.perSeed) parts.push('', renderPerSeedText(out).trimEnd())
  return parts.join('\n') + '\n'
}

const PCT_KEYS = ['p50', 'p90', 'p99', 'p99_9'] as const

function howOf(v: VariantResult): string {
  return v.source === 'real' ? 'measured on this machine' : v.source === 'trace' ? 'traced, read' : 'simulated'
}

/** Each run's own table (`--per-seed`), as `run` printed before seeds were pooled. */
export function renderPerSeedText(out: RunOutput): string {
  const parts: string[] = []
  for (const v of out.variants) {
    const s = v.stats
    parts.push(`-- ${v.name}, seed ${v.seed}: ${r(s.simulatedMs)} ms ${howOf(v)} in ${r(s.wallMs / 1000, 2)} s, ${s.events} events, ${s.contextSwitches} context switches, ${s.migrations} migrations`)
    const rows: string[][] = [['workload', 'type', 'samples', 'avg', 'p50', 'p90', 'p99', 'p99.9', 'max (us)', 'other']]
    for (const w of v.workloads) {
      const l = w.latencyUs
      rows.push([w.name, w.type, String(l.count), r(l.avg, 1), r(l.p50, 1), r(l.p90, 1), r(l.p99, 1), r(l.p99_9, 1), r(l.max, 1), otherOf(w, w, null)])
    }
    parts.push(grid(rows, 2), '')
  }
  return parts.join('\n')
}

/** Time (pooled, with its interval), and with one run its request latency, rps, missed periods. */
function otherOf(w: WorkloadResult, single: WorkloadResult | null, time: Estimate | null): string {
  const bits: string[] = []
  if (time) bits.push(`time ${formatEstimate(time, 3)} s`)
  else if (w.timeSec !== undefined) bits.push(`time ${w.timeSec.toFixed(3)} s`)
  if (!single) return bits.join(', ')
  if (single.requestLatencyUs) bits.push(`request p50 ${r(single.requestLatencyUs.p50)} p99 ${r(single.requestLatencyUs.p99)} us`)
  if (single.extra?.rps !== undefined) bits.push(`rps ${r(single.extra.rps)}`)
  if (single.extra?.missedPeriods) bits.push(`missed periods ${single.extra.missedPeriods}`)
  return bits.join(', ')
}

// ---------------------------------------------------------------- compare

export interface CompareCell {
  /** The column's estimate (pooled percentile, mean over rounds or seeds); null when absent or n/a. */
  value: number | null
  /** Half-width of its 95 % interval; absent without one. */
  halfWidth?: number
  /** "n/a (N samples; need M)": too few samples beyond the percentile. */
  na?: string
  /** Percent better than the first column (positive = better); null for the first column. */
  changePct: number | null
  /** The change's 95 % interval excludes zero (Welch t test on the log ratio, p < 0.05). */
  significant?: boolean
  /** 95 % interval of the change, percent in the same sign as changePct. */
  changeCi?: [number, number]
  pValue?: number
}

export interface CompareRow {
  label: string
  cells: CompareCell[]
}

export interface CompareTable {
  title: string
  workload: string
  /** Which direction is an improvement; the change is positive when better ('none': no change is shown). */
  better: 'lower' | 'higher' | 'none'
  /** Digits after the decimal point for values. */
  digits: number
  rows: CompareRow[]
}

export interface Comparison {
  scenario: string
  variants: string[]
  seeds: number[]
  tables: CompareTable[]
}

export function percentileLabel(p: number): string {
  if (p === 50) return 'Median (P50)'
  return `${p}th Percentile`
}

/** Nearest-rank percentile from histogram buckets (bucket midpoint), microseconds. */
export function percentileFromHist(h: HistogramData, p: number): number {
  const total = h.counts.reduce((a, b) => a + b, 0)
  if (total === 0) return 0
  const rank = Math.max(1, Math.ceil((p / 100) * total))
  let seen = 0
  for (let i = 0; i < h.counts.length; i++) {
    seen += h.counts[i]
    if (seen >= rank) return (h.lowUs[i] + h.highUs[i]) / 2
  }
  return h.highUs[h.highUs.length - 1]
}

/** One figure per run, as sections of one: the interval is over seeds. */
function overSeeds(xs: number[] | null): Estimate | null {
  return xs && xs.length > 0 ? meanEstimate(xs.map((x) => ({ sum: x, count: 1 }))) : null
}

const PLAIN = (v: number): Estimate => ({ value: v, ci95: null, df: 0, seLog: null })

/** Cells of a row of estimates: each against the first, marked when significant. */
export function cellsOf(estimates: (Estimate | null)[], better: 'lower' | 'higher' = 'lower', test = true): CompareCell[] {
  const base = estimates[0]
  return estimates.map((e, i) => {
    if (!e) return { value: null, changePct: null }
    if (e.insufficient) return { value: null, na: formatInsufficient(e.insufficient), changePct: null }
    const h = halfWidth(e)
    const cell: CompareCell = { value: e.value, ...(h !== null ? { halfWidth: h } : {}), changePct: null }
    if (i === 0 || !base || base.insufficient) return cell
    const c = test ? compareEstimates(base, e) : compareEstimates(PLAIN(base.value), PLAIN(e.value))
    cell.changePct = improvementOf(c, better)
    if (test) cell.significant = c.significant
    if (c.ci95) cell.changeCi = better === 'lower' ? [-c.ci95[1], -c.ci95[0]] : c.ci95
    if (c.pValue !== null && test) cell.pValue = c.pValue
    return cell
  })
}

/**
 * Group the runs by variant (in `variants` order) and build one table per measured workload.
 * Latency percentiles are pooled over seeds with their intervals (src/stats); the maximum has
 * none. Throws an Error naming the percentile when one cannot be computed (no histogram data).
 */
export function compareResults(scenario: string, runs: VariantResult[], variants: string[], percentiles: number[] = [], opts: { noise?: boolean } = {}): Comparison {
  const byVariant = variants.map((v) => runs.filter((x) => x.name === v))
  const seeds = [...new Set(runs.map((x) => x.seed))].sort((a, b) => a - b)
  // Every workload of any column, in order of appearance (a variant may disable some).
  const workloads: WorkloadResult[] = []
  for (const r of runs) for (const w of r.workloads) if (!workloads.some((x) => x.name === w.name)) workloads.push(w)
  const tables: CompareTable[] = []
  const pick = (wl: string): WorkloadResult[][] => byVariant.map((rs) => rs.flatMap((x) => x.workloads.filter((w) => w.name === wl)))
  const extra = [...new Set(percentiles)].filter((p) => p !== 99 && p !== 99.9).sort((a, b) => a - b)
  for (const w of workloads) {
    // Background noise is the setting, not a result: left out unless asked for, and then its
    // CPU time is shown for reference, with no direction (more or less of it is neither better).
    if (w.type === 'noise') {
      if (!opts.noise) continue
      const values = byVariant.map((rs) => {
        const xs = rs.filter((x) => x.workloads.some((y) => y.name === w.name)).map((x) => x.tasks.filter((t) => t.workload === w.name).reduce((n, t) => n + t.cpuTimeMs, 0))
        return xs.length ? xs : null
      })
      const cells = cellsOf(values.map(overSeeds), 'lower', false).map((c): CompareCell => ({ value: c.value, ...(c.halfWidth !== undefined ? { halfWidth: c.halfWidth } : {}), changePct: null }))
      tables.push({ title: `CPU time (ms) of ${w.name} (background noise, for reference)`, workload: w.name, better: 'none', digits: 0, rows: [{ label: 'CPU time', cells }] })
      continue
    }
    const per = pick(w.name)
    const stats = per.map((ws) => (ws.length > 0 ? workloadStats(ws) : null))
    const hasLatency = stats.some((st) => (st?.count ?? 0) > 0)
    if (hasLatency) {
      const rowOf = (p: number): CompareRow => {
        const key = STANDARD[String(p)]
        return {
          label: percentileLabel(p),
          cells: cellsOf(stats.map((st) => {
            if (!st) return null
            if (key) return st.latency[key]
            if (st.count > 0 && !st.pooled.complete) throw new Error(`percentile ${p} of ${w.name} needs histogram data, which this result does not carry`)
            return st.pooled.percentile(p)
          }))
        }
      }
      const maxRow: CompareRow = { label: 'Maximum', cells: cellsOf(stats.map((st) => (st ? PLAIN(st.maxUs) : null)), 'lower', false) }
      tables.push({
        title: `scheduling latency (us) for ${w.name}`,
        workload: w.name,
        better: 'lower',
        digits: 0,
        rows: [...extra.map(rowOf), rowOf(99), rowOf(99.9), maxRow]
      })
    }
    if (w.timeSec !== undefined) {
      tables.push({ title: `${w.name} time (s)`, workload: w.name, better: 'lower', digits: 3, rows: [{ label: w.name, cells: cellsOf(stats.map((st) => st?.timeSec ?? null)) }] })
    }
    if (!hasLatency && w.timeSec === undefined) {
      // A CPU-bound workload (no wakeups): its throughput is the CPU time it got.
      const values = byVariant.map((rs) => {
        const xs = rs.filter((x) => x.workloads.some((y) => y.name === w.name)).map((x) => x.tasks.filter((t) => t.workload === w.name).reduce((n, t) => n + t.cpuTimeMs, 0))
        return xs.length ? xs : null
      })
      tables.push({ title: `CPU time (ms) for ${w.name} (throughput: higher is better)`, workload: w.name, better: 'higher', digits: 0, rows: [{ label: 'CPU time', cells: cellsOf(values.map(overSeeds), 'higher') }] })
    }
    if (w.requestLatencyUs) {
      const rowOf = (label: string, field: keyof LatencySummary): CompareRow => ({
        label,
        cells: cellsOf(per.map((ws) => overSeeds(ws.filter((x) => x.requestLatencyUs).map((x) => (x.requestLatencyUs as LatencySummary)[field]))))
      })
      tables.push({ title: `request latency (us) for ${w.name}`, workload: w.name, better: 'lower', digits: 0, rows: [rowOf('Median (P50)', 'p50'), rowOf('99th Percentile', 'p99'), rowOf('99.9th Percentile', 'p99_9'), rowOf('Maximum', 'max')] })
    }
  }
  const idle = (key: '2.5-3ms' | '3-4ms' | '4ms+'): CompareRow => ({ label: key, cells: cellsOf(byVariant.map((rs) => overSeeds(rs.length ? rs.map((x) => x.unreasonableIdle.events[key]) : null))) })
  const idleRows = [idle('2.5-3ms'), idle('3-4ms'), idle('4ms+')]
  const idleValues = idleRows.flatMap((row) => row.cells.map((c) => c.value ?? 0))
  if (idleValues.some((v) => v > 0)) {
    tables.push({ title: 'unreasonable idle events', workload: '', better: 'lower', digits: idleValues.every(Number.isInteger) ? 0 : 1, rows: idleRows })
  }
  return { scenario, variants, seeds, tables }
}

const STANDARD: Record<string, PercentileKey> = { '50': 'p50', '90': 'p90', '99': 'p99', '99.9': 'p99_9' }

/** "(+55 %)", "(  0 %)", "(- 1 %)": the seed threads' change notation. */
export const formatChange = formatImprovement

export function renderCompareCell(c: CompareCell, digits: number): string {
  if (c.na) return c.na
  if (c.value === null) return '-'
  let s = c.value.toFixed(digits)
  if (c.halfWidth !== undefined) s += ` ±${c.halfWidth.toFixed(digits)}`
  const ch = formatChange(c.changePct)
  return ch ? `${s} ${ch}${c.significant ? '*' : ''}` : s
}

function seedNote(c: Comparison): string {
  return c.seeds.length > 1 ? `pooled over seeds ${c.seeds[0]}..${c.seeds[c.seeds.length - 1]}` : `seed ${c.seeds[0] ?? '-'}`
}

export function renderCompareText(c: Comparison): string {
  const out: string[] = [`${c.scenario}  (${seedNote(c)}; against ${c.variants[0]})`, LEGEND]
  for (const t of c.tables) {
    const rows: string[][] = [['', ...c.variants]]
    for (const row of t.rows) rows.push([row.label, ...row.cells.map((cell) => renderCompareCell(cell, t.digits))])
    const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)))
    out.push('', t.title, ...rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[i]))).join(' | ')))
  }
  return out.join('\n') + '\n'
}

export function renderCompareMarkdown(c: Comparison): string {
  const out: string[] = [`### ${c.scenario}`, '', `${seedNote(c)}; against ${c.variants[0]}. ${LEGEND}.`]
  for (const t of c.tables) {
    out.push('', `**${t.title}**`, '', `| | ${c.variants.join(' | ')} |`, `|---|${c.variants.map(() => '---:').join('|')}|`)
    for (const row of t.rows) out.push(`| ${row.label} | ${row.cells.map((cell) => renderCompareCell(cell, t.digits)).join(' | ')} |`)
  }
  return out.join('\n') + '\n'
}
