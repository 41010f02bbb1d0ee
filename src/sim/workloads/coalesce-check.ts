/**
 * The equivalence check of kernel.coalesce: one scenario variant over seeds, one by one
 * (coalesce false) and coalesced, metric by metric. Used by coalesce.test.ts on short runs and
 * by `npm run coalesce:check` on longer ones (docs/model.md has its figures).
 *
 * A metric passes when the coalesced mean is within its tolerance of the one-by-one mean, or
 * when the difference is not significant: within K standard errors of the difference of the
 * two means (Welch). K = 3.5 rather than 1.96 because every preset checks a dozen metrics at
 * once; with 1.96 one in twenty would fail by chance. Latency percentiles are compared on a log
 * scale (geometric means): their spread over seeds is multiplicative (a tail is two or ten
 * times longer, rarely a fixed amount).
 */
import { simulate } from '../index'
import type { Scenario } from '../scenario/types'
import type { VariantResult } from '../../shared/result'

export const K_SE = 3.5
/** Counts (switches, migrations, wakeups) within 2 %, hackbench time within 1 %, percentiles within one histogram bucket (1.6 %). */
export const TOLERANCE = { count: 0.02, time: 0.01, percentile: 0.02 }

export interface MetricRow {
  metric: string
  exact: number
  coalesced: number
  /** (coalesced - exact) / exact */
  change: number
  /** K_SE standard errors of the difference, relative to the exact mean. */
  halfWidth: number
  tolerance: number
  equivalent: boolean
}

export interface ModeComparison {
  rows: MetricRow[]
  exactEvents: number
  coalescedEvents: number
  /** Coalesced operations that were found to wake or block when applied late (must be 0). */
  faults: number
}

function runBoth(s: Scenario, variantIndex: number, seeds: number[], coalesce: boolean): VariantResult[] {
  const sc = { ...s, kernel: { ...s.kernel, coalesce } }
  return seeds.map((seed) => simulate(sc, variantIndex, seed))
}

function mean(xs: number[]): number {
  return xs.reduce((a, x) => a + x, 0) / xs.length
}

function variance(xs: number[]): number {
  const m = mean(xs)
  return xs.length > 1 ? xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1) : 0
}

/** Values of one metric per run, or null when some run lacks it. */
type Pick = (r: VariantResult) => number | undefined

function metrics(sample: VariantResult): { name: string; pick: Pick; tolerance: number; log?: boolean }[] {
  const out: { name: string; pick: Pick; tolerance: number; log?: boolean }[] = [
    { name: 'contextSwitches', pick: (r) => r.stats.contextSwitches, tolerance: TOLERANCE.count },
    { name: 'migrations', pick: (r) => r.stats.migrations, tolerance: TOLERANCE.count },
    { name: 'wakeups', pick: (r) => r.stats.wakeups, tolerance: TOLERANCE.count }
  ]
  sample.workloads.forEach((w, i) => {
    if (w.timeSec !== undefined) out.push({ name: `${w.name}.timeSec`, pick: (r) => r.workloads[i].timeSec, tolerance: TOLERANCE.time })
    for (const p of ['p50', 'p90', 'p99'] as const) {
      out.push({ name: `${w.name}.${p}`, pick: (r) => (r.workloads[i].latencyUs.count > 0 ? r.workloads[i].latencyUs[p] : undefined), tolerance: TOLERANCE.percentile, log: true })
    }
  })
  return out
}

export function compareModes(s: Scenario, variantIndex: number, seeds: number[]): ModeComparison {
  const exact = runBoth(s, variantIndex, seeds, false)
  const batched = runBoth(s, variantIndex, seeds, true)
  const rows: MetricRow[] = []
  for (const m of metrics(exact[0])) {
    const e = exact.map(m.pick)
    const c = batched.map(m.pick)
    if (e.some((x) => x === undefined) || c.some((x) => x === undefined)) continue
    const ev = e as number[]
    const cv = c as number[]
    let change: number
    let halfWidth: number
    if (m.log && ev.every((x) => x > 0) && cv.every((x) => x > 0)) {
      const le = ev.map(Math.log)
      const lc = cv.map(Math.log)
      const d = mean(lc) - mean(le)
      change = Math.exp(d) - 1
      halfWidth = Math.exp(K_SE * Math.sqrt(variance(le) / le.length + variance(lc) / lc.length)) - 1
    } else {
      const me = mean(ev)
      const mc = mean(cv)
      if (me === 0 && mc === 0) continue
      const se = Math.sqrt(variance(ev) / ev.length + variance(cv) / cv.length)
      change = me !== 0 ? (mc - me) / me : Infinity
      halfWidth = me !== 0 ? (K_SE * se) / Math.abs(me) : 0
    }
    rows.push({ metric: m.name, exact: mean(ev), coalesced: mean(cv), change, halfWidth, tolerance: m.tolerance, equivalent: Math.abs(change) <= Math.max(m.tolerance, halfWidth) })
  }
  const sum = (rs: VariantResult[]): number => rs.reduce((a, r) => a + r.stats.events, 0)
  const faults = batched.reduce((a, r) => a + r.workloads.reduce((b, w) => b + (w.extra?.coalesceFaults ?? 0), 0), 0)
  return { rows, exactEvents: sum(exact), coalescedEvents: sum(batched), faults }
}
