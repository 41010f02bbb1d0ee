import type { RunOutput, VariantResult, WorkloadResult } from '../shared/result'
import { columnStats, distinctResults, formatEstimate, identicalNote, type Estimate } from '../stats'
import { buildTables, identicalSeedNotes, tablesToMarkdown, tablesToText, type WorkloadTable } from '../shared/tables'

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
      rows.push([w.name, w.type, String(w.count), ...PCT_KEYS.map((k) => (w.count > 0 ? formatEstimate(l[k]) : '-')), r(w.maxUs, 1), otherOf(first, runs.length > 1 ? null : first, w.timeSec)])
    }
    parts.push(grid(rows, 2))
    for (const n of identicalNote(distinctResults(runs).identical)) parts.push(`warning: ${n}`)
    for (const v of runs) {
      const ui = v.unreasonableIdle.events
      if (ui['2.5-3ms'] + ui['3-4ms'] + ui['4ms+'] > 0) parts.push(`unreasonable idle events${runs.length > 1 ? `, seed ${v.seed}` : ''}: 2.5-3ms ${ui['2.5-3ms']}, 3-4ms ${ui['3-4ms']}, 4ms+ ${ui['4ms+']}`)
    }
    for (const w of [...new Set(runs.flatMap((v) => v.warnings ?? []))]) parts.push(`warning: ${w}`)
  }
  parts.push('', `±: half-width of the 95 % interval; [lo, hi]: the 95 % interval where it is lopsided (docs/statistics.md); n/a: fewer than 10 samples beyond the percentile`)
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

/**
 * `compare`: the variants side by side in the seed threads' form, built by the one table
 * builder the workbench and its exports use (shared/tables.ts).
 */
export interface Comparison {
  scenario: string
  variants: string[]
  seeds: number[]
  /** Seeds with identical results, counted once ("seeds 1, 2 and 3 gave identical results ..."). */
  notes: string[]
  tables: WorkloadTable[]
}

/**
 * Group the runs by variant (in `variants` order) and build the tables, with the unreasonable
 * idle events and any further percentiles. Throws an Error naming the percentile when one
 * cannot be computed (no histogram data).
 */
export function compareResults(scenario: string, runs: VariantResult[], variants: string[], percentiles: number[] = [], opts: { noise?: boolean } = {}): Comparison {
  const columns = variants.map((v) => ({ label: v, results: runs.filter((x) => x.name === v) }))
  const seeds = [...new Set(runs.map((x) => x.seed))].sort((a, b) => a - b)
  return { scenario, variants, seeds, notes: identicalSeedNotes(columns), tables: buildTables(columns, 0, { percentiles, noise: opts.noise, idle: true }) }
}

function seedNote(c: Comparison): string {
  return c.seeds.length > 1 ? `pooled over seeds ${c.seeds[0]}..${c.seeds[c.seeds.length - 1]}` : `seed ${c.seeds[0] ?? '-'}`
}

export function renderCompareText(c: Comparison): string {
  return [`${c.scenario}  (${seedNote(c)}; against ${c.variants[0]})`, ...c.notes.map((n) => `warning: ${n}`), '', tablesToText(c.variants, c.tables)].join('\n')
}

export function renderCompareMarkdown(c: Comparison): string {
  const notes = c.notes.map((n) => `> ${n}`)
  return [`${seedNote(c)}; against ${c.variants[0]}.`, ...(notes.length ? ['', ...notes] : []), '', tablesToMarkdown(c.scenario, c.variants, c.tables)].join('\n')
}
