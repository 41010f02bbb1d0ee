/**
 * How intervals and significance read in every table (CLI, exports, workbench): `value ±h`
 * (h = half the 95 % interval) where the interval is symmetric within 10 %, `value [lo, hi]`
 * where it is lopsided (a tail's interval often is: `864 ±1962` would read as reaching below
 * zero), the seed threads' change `(+55 %)` (positive = better) and the mmtests mark `*` for a
 * significant change; "n/a (N samples; need M)" for a percentile with too few samples beyond it.
 * `formatInterval` is the one formatter of a value with its interval.
 */
import { formatInsufficient, type Estimate } from './quantile'
import type { Change } from './summary'

export const LEGEND =
  '±h: half-width of the 95 % interval; [lo, hi]: the 95 % interval where it is lopsided; (+x %): x % better (lower) than the first column; ' +
  '*: significant (the 95 % interval of the change excludes 0; Welch t test on the log ratio, p < 0.05); ' +
  'n/a: fewer than 10 samples beyond the percentile'

/** Digits as the threads print latencies: whole microseconds from 10 up, else one decimal. */
export function formatNumber(v: number, digits?: number): string {
  if (digits !== undefined) return v.toFixed(digits)
  return Math.abs(v) >= 10 ? String(Math.round(v)) : v.toFixed(1)
}

export function halfWidth(e: Estimate): number | null {
  return e.ci95 ? (e.ci95[1] - e.ci95[0]) / 2 : null
}

/** The interval's arms (value - lo, hi - value) differ by more than 10 % of the longer one. */
export function lopsided(value: number, ci: readonly [number, number]): boolean {
  const down = value - ci[0]
  const up = ci[1] - value
  if (down < 0 || up < 0) return true
  const long = Math.max(down, up)
  return long > 0 && Math.abs(up - down) > 0.1 * long
}

/**
 * A value with its 95 % interval: "1018 ±35", "864 [57, 3981]" when lopsided, "1018" without
 * one. `digits` fixes the decimals (3 for times in seconds); without it, numbers from 10 up
 * are whole and smaller ones keep one decimal, each by its own size ("57 ±0.3").
 */
export function formatInterval(value: number, ci: readonly [number, number] | null, digits?: number): string {
  const [v, interval] = intervalParts(value, ci, digits)
  return interval ? `${v} ${interval}` : v
}

/** The two parts of formatInterval: the value, and "±35", "[57, 3981]" or '' (the page stacks them). */
export function intervalParts(value: number, ci: readonly [number, number] | null, digits?: number): [string, string] {
  const v = formatNumber(value, digits)
  if (!ci) return [v, '']
  const lo = formatNumber(ci[0], digits)
  const hi = formatNumber(ci[1], digits)
  // an interval narrower than the printed digits shows nothing as [57, 57]: its half-width does
  if (lopsided(value, ci) && !(lo === v && hi === v)) return [v, `[${lo}, ${hi}]`]
  return [v, `±${formatNumber((ci[1] - ci[0]) / 2, digits)}`]
}

/** "1018 ±35", "864 [57, 3981]", "1018" without an interval, or "n/a (264 samples; need 10000)". */
export function formatEstimate(e: Estimate, digits?: number): string {
  if (e.insufficient) return formatInsufficient(e.insufficient)
  if (!Number.isFinite(e.value)) return '-'
  return formatInterval(e.value, e.ci95, digits)
}

/** "(+55 %)", "(0 %)", "(-1 %)": the threads' notation, positive = improvement (no padding inside the brackets). */
export function formatImprovement(pct: number | null): string {
  if (pct === null || !Number.isFinite(pct)) return ''
  const n = Math.round(pct)
  const sign = n > 0 ? '+' : n < 0 ? '-' : ' '
  return n === 0 ? '(0 %)' : `(${sign}${Math.abs(n)} %)`
}

/** The improvement (threads' sign) of a change, for a metric where lower or higher is better. */
export function improvementOf(c: Change, better: 'lower' | 'higher' = 'lower'): number | null {
  if (c.change === null) return null
  return better === 'lower' ? -c.change : c.change
}

/** "(+55 %)*" or "(+1 %)": the change with the mark when significant. */
export function formatMark(c: Change, better: 'lower' | 'higher' = 'lower'): string {
  const s = formatImprovement(improvementOf(c, better))
  return s && c.significant ? `${s}*` : s
}

/** The 95 % interval of the change, in the threads' sign, for tooltips: "+41 % .. +63 %". */
export function formatChangeInterval(c: Change, better: 'lower' | 'higher' = 'lower'): string {
  if (!c.ci95) return c.note ?? 'no interval'
  const f = (x: number): string => `${x > 0 ? '+' : ''}${x.toFixed(1)} %`
  const [a, b] = better === 'lower' ? [-c.ci95[1], -c.ci95[0]] : c.ci95
  return `${f(a)} .. ${f(b)}${c.pValue !== null ? `, p = ${c.pValue < 0.001 ? '< 0.001' : c.pValue.toFixed(3)}` : ''}`
}
