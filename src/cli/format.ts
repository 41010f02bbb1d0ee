import type { HistogramData, LatencySummary, RunOutput, VariantResult, WorkloadResult } from '../shared/result'

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

export function renderRunText(out: RunOutput): string {
  const parts: string[] = [`scenario: ${out.scenario}`]
  for (const v of out.variants) {
    const s = v.stats
    const how = v.source === 'real' ? 'measured on this machine' : v.source === 'trace' ? 'traced, read' : 'simulated'
    parts.push('', `== ${v.name}, seed ${v.seed}: ${r(s.simulatedMs)} ms ${how} in ${r(s.wallMs / 1000, 2)} s, ${s.events} events, ${s.contextSwitches} context switches, ${s.migrations} migrations`)
    const rows: string[][] = [['workload', 'type', 'samples', 'avg', 'p50', 'p90', 'p99', 'p99.9', 'max (us)', 'other']]
    for (const w of v.workloads) {
      const l = w.latencyUs
      rows.push([w.name, w.type, String(l.count), r(l.avg, 1), r(l.p50, 1), r(l.p90, 1), r(l.p99, 1), r(l.p99_9, 1), r(l.max, 1), otherOf(w)])
    }
    parts.push(grid(rows, 2))
    const ui = v.unreasonableIdle.events
    if (ui['2.5-3ms'] + ui['3-4ms'] + ui['4ms+'] > 0) parts.push(`unreasonable idle events: 2.5-3ms ${ui['2.5-3ms']}, 3-4ms ${ui['3-4ms']}, 4ms+ ${ui['4ms+']}`)
    for (const w of v.warnings ?? []) parts.push(`warning: ${w}`)
  }
  return parts.join('\n') + '\n'
}

function otherOf(w: WorkloadResult): string {
  const bits: string[] = []
  if (w.timeSec !== undefined) bits.push(`time ${w.timeSec.toFixed(3)} s`)
  if (w.requestLatencyUs) bits.push(`request p50 ${r(w.requestLatencyUs.p50)} p99 ${r(w.requestLatencyUs.p99)} us`)
  if (w.extra?.rps !== undefined) bits.push(`rps ${r(w.extra.rps)}`)
  if (w.extra?.missedPeriods) bits.push(`missed periods ${w.extra.missedPeriods}`)
  return bits.join(', ')
}

// ---------------------------------------------------------------- compare

export interface CompareCell {
  /** Mean over the variant's seeds; null when the variant has no such figure. */
  value: number | null
  /** Relative standard deviation over seeds, percent (hackbench rows with several seeds). */
  spreadPct?: number
  /** Percent lower than the first column (positive = better); null for the first column. */
  changePct: number | null
}

export interface CompareRow {
  label: string
  cells: CompareCell[]
}

export interface CompareTable {
  title: string
  workload: string
  /** Which direction is an improvement; the change is positive when better. */
  better: 'lower' | 'higher'
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

const PCT_FIELDS: Record<string, keyof LatencySummary> = { '50': 'p50', '90': 'p90', '99': 'p99', '99.9': 'p99_9' }

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

function latencyValue(l: LatencySummary, hist: HistogramData | undefined, key: number | 'max'): number | undefined {
  if (key === 'max') return l.max
  const field = PCT_FIELDS[String(key)]
  if (field) return l[field]
  return hist ? percentileFromHist(hist, key) : undefined
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length
}

function stddevPct(xs: number[]): number {
  if (xs.length < 2) return 0
  const m = mean(xs)
  const v = xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)
  return m === 0 ? 0 : (Math.sqrt(v) / m) * 100
}

function cells(values: (number[] | null)[], spread: boolean, better: 'lower' | 'higher' = 'lower'): CompareCell[] {
  const means = values.map((v) => (v && v.length > 0 ? mean(v) : null))
  const base = means[0]
  const sign = better === 'lower' ? 1 : -1
  return means.map((m, i) => ({
    value: m,
    ...(spread && values[i] && (values[i] as number[]).length > 1 ? { spreadPct: stddevPct(values[i] as number[]) } : {}),
    changePct: i === 0 || m === null || base === null || base === 0 ? null : (sign * (base - m) / base) * 100
  }))
}

/**
 * Group the runs by variant (in `variants` order) and build one table per measured workload.
 * Throws an Error naming the percentile when one cannot be computed (no histogram data).
 */
export function compareResults(scenario: string, runs: VariantResult[], variants: string[], percentiles: number[] = []): Comparison {
  const byVariant = variants.map((v) => runs.filter((x) => x.name === v))
  const seeds = [...new Set(runs.map((x) => x.seed))].sort((a, b) => a - b)
  // Every workload of any column, in order of appearance (a variant may disable some).
  const workloads: WorkloadResult[] = []
  for (const r of runs) for (const w of r.workloads) if (!workloads.some((x) => x.name === w.name)) workloads.push(w)
  const tables: CompareTable[] = []
  const pick = (wl: string): (WorkloadResult | undefined)[][] => byVariant.map((rs) => rs.map((x) => x.workloads.find((w) => w.name === wl)))
  const extra = [...new Set(percentiles)].filter((p) => p !== 99 && p !== 99.9).sort((a, b) => a - b)
  for (const w of workloads) {
    const per = pick(w.name)
    const hasLatency = per.some((ws) => ws.some((x) => (x?.latencyUs.count ?? 0) > 0))
    if (hasLatency) {
      const rowOf = (label: string, key: number | 'max'): CompareRow => {
        const values = per.map((ws) => {
          const xs: number[] = []
          for (const x of ws) {
            if (!x) continue
            const v = latencyValue(x.latencyUs, x.latencyHist, key)
            if (v === undefined) throw new Error(`percentile ${key} of ${w.name} needs histogram data, which this result does not carry`)
            xs.push(v)
          }
          return xs.length ? xs : null
        })
        return { label, cells: cells(values, false) }
      }
      tables.push({
        title: `scheduling latency (us) for ${w.name}`,
        workload: w.name,
        better: 'lower',
        digits: 0,
        rows: [...extra.map((p) => rowOf(percentileLabel(p), p)), rowOf('99th Percentile', 99), rowOf('99.9th Percentile', 99.9), rowOf('Maximum', 'max')]
      })
    }
    if (w.timeSec !== undefined) {
      const values = per.map((ws) => {
        const xs = ws.filter((x): x is WorkloadResult => x?.timeSec !== undefined).map((x) => x.timeSec as number)
        return xs.length ? xs : null
      })
      tables.push({ title: `${w.name} time (s)`, workload: w.name, better: 'lower', digits: 3, rows: [{ label: w.name, cells: cells(values, true) }] })
    }
    if (!hasLatency && w.timeSec === undefined) {
      // A CPU-bound workload (no wakeups): its throughput is the CPU time it got.
      const values = byVariant.map((rs) => {
        const xs = rs.filter((x) => x.workloads.some((y) => y.name === w.name)).map((x) => x.tasks.filter((t) => t.workload === w.name).reduce((n, t) => n + t.cpuTimeMs, 0))
        return xs.length ? xs : null
      })
      tables.push({ title: `CPU time (ms) for ${w.name} (throughput: higher is better)`, workload: w.name, better: 'higher', digits: 0, rows: [{ label: 'CPU time', cells: cells(values, true, 'higher') }] })
    }
    if (w.requestLatencyUs) {
      const rowOf = (label: string, field: keyof LatencySummary): CompareRow => ({
        label,
        cells: cells(per.map((ws) => {
          const xs = ws.filter((x) => x?.requestLatencyUs).map((x) => (x?.requestLatencyUs as LatencySummary)[field])
          return xs.length ? xs : null
        }), false)
      })
      tables.push({ title: `request latency (us) for ${w.name}`, workload: w.name, better: 'lower', digits: 0, rows: [rowOf('Median (P50)', 'p50'), rowOf('99th Percentile', 'p99'), rowOf('99.9th Percentile', 'p99_9'), rowOf('Maximum', 'max')] })
    }
  }
  const idle = (key: '2.5-3ms' | '3-4ms' | '4ms+'): CompareRow => ({ label: key, cells: cells(byVariant.map((rs) => (rs.length ? rs.map((x) => x.unreasonableIdle.events[key]) : null)), false) })
  const idleRows = [idle('2.5-3ms'), idle('3-4ms'), idle('4ms+')]
  const idleValues = idleRows.flatMap((row) => row.cells.map((c) => c.value ?? 0))
  if (idleValues.some((v) => v > 0)) {
    tables.push({ title: 'unreasonable idle events', workload: '', better: 'lower', digits: idleValues.every(Number.isInteger) ? 0 : 1, rows: idleRows })
  }
  return { scenario, variants, seeds, tables }
}

/** "(+55 %)", "(  0 %)", "(- 1 %)": the seed threads' change notation. */
export function formatChange(pct: number | null): string {
  if (pct === null) return ''
  const n = Math.round(pct)
  const sign = n > 0 ? '+' : n < 0 ? '-' : ' '
  return `(${sign}${String(Math.abs(n)).padStart(2)} %)`
}

function formatCell(c: CompareCell, digits: number): string {
  if (c.value === null) return '-'
  let s = c.value.toFixed(digits)
  if (c.spreadPct !== undefined) s += ` (+/-${c.spreadPct.toFixed(1)}%)`
  const ch = formatChange(c.changePct)
  return ch ? `${s} ${ch}` : s
}

export function renderCompareText(c: Comparison): string {
  const seedNote = c.seeds.length > 1 ? `mean over seeds ${c.seeds[0]}..${c.seeds[c.seeds.length - 1]}; ` : ''
  const out: string[] = [`${c.scenario}  (${seedNote}(+x %) = x % better than ${c.variants[0]}: lower latency or time)`]
  for (const t of c.tables) {
    const rows: string[][] = [['', ...c.variants]]
    for (const row of t.rows) rows.push([row.label, ...row.cells.map((cell) => formatCell(cell, t.digits))])
    const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)))
    out.push('', t.title, ...rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[i]))).join(' | ')))
  }
  return out.join('\n') + '\n'
}

export function renderCompareMarkdown(c: Comparison): string {
  const out: string[] = [`### ${c.scenario}`, '', `(+x %) = x % better than ${c.variants[0]} (lower latency or time)${c.seeds.length > 1 ? `; mean over ${c.seeds.length} seeds` : ''}.`]
  for (const t of c.tables) {
    out.push('', `**${t.title}**`, '', `| | ${c.variants.join(' | ')} |`, `|---|${c.variants.map(() => '---:').join('|')}|`)
    for (const row of t.rows) out.push(`| ${row.label} | ${row.cells.map((cell) => formatCell(cell, t.digits)).join(' | ')} |`)
  }
  return out.join('\n') + '\n'
}
