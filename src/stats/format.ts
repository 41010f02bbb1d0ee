/**
 * How intervals and significance read in every table (CLI, exports, workbench): `value ±h`
 * (h = half the 95 % interval), the seed threads' change `(+55 %)` (positive = better) and the
 * mmtests mark `*` for a significant change; "n/a (N samples; need M)" for a percentile with
 * too few samples beyond it.
 */
import { formatInsufficient, type Estimate } from './quantile'
import type { Change } from './summary'

export const LEGEND =
  '±h: half-width of the 95 % interval; (+x %): x % better (lower) than the first column; ' +
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

/** "1018 ±35", "1018" without an interval, or "n/a (264 samples; need 10000)". */
export function formatEstimate(e: Estimate, digits?: number): string {
  if (e.insufficient) return formatInsufficient(e.insufficient)
  if (!Number.isFinite(e.value)) return '-'
  const h = halfWidth(e)
  const v = formatNumber(e.value, digits)
  return h === null ? v : `${v} ±${formatNumber(h, digits)}`
}

/** "(+55 %)", "(  0 %)", "(- 1 %)": the threads' notation, positive = improvement. */
export function formatImprovement(pct: number | null): string {
  if (pct === null || !Number.isFinite(pct)) return ''
  const n = Math.round(pct)
  const sign = n > 0 ? '+' : n < 0 ? '-' : ' '
  return `(${sign}${String(Math.abs(n)).padStart(2)} %)`
}

/** The improvement (threads' sign) of a change, for a metric where lower or higher is better. */
export function improvementOf(c: Change, better: 'lower' | 'higher' = 'lower'): number | null {
  if (c.change === null) return null
  return better === 'lower' ? -c.change : c.change
}

/** "(+55 %)*" or "(+ 1 %)": the change with the mark when significant. */
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
