import type { VariantResult } from './result'

/**
 * A real run beside a simulated run of the same scenario: per workload and percentile, the
 * range of the real repeats, the simulated value (the mean over its seeds), and where the
 * simulated value lies: inside the real range, near it (inside the range widened by half its
 * width on each side, the rule of docs/fidelity-real.md), or outside.
 */

export const REAL_VS_SIM_METRICS = ['p50', 'p90', 'p99', 'p99_9'] as const
export type RealVsSimMetric = (typeof REAL_VS_SIM_METRICS)[number]

export type Verdict = 'inside' | 'near' | 'outside'

export interface RealVsSimRow {
  workload: string
  metric: RealVsSimMetric | 'timeSec'
  real: { lo: number; hi: number; n: number }
  sim: { value: number; lo: number; hi: number; n: number }
  verdict: Verdict
}

export function verdict(lo: number, hi: number, x: number): Verdict {
  if (x >= lo && x <= hi) return 'inside'
  const w = hi - lo
  return x >= lo - w / 2 && x <= hi + w / 2 ? 'near' : 'outside'
}

/** Whether a set of results was measured (on a kernel, or read from a trace) rather than simulated. */
export function isMeasured(results: readonly VariantResult[]): boolean {
  return results.length > 0 && results.every((r) => r.source === 'real' || r.source === 'trace' || r.source === 'vm')
}

function range(xs: number[]): { lo: number; hi: number; n: number } {
  return { lo: Math.min(...xs), hi: Math.max(...xs), n: xs.length }
}

/** Rows for every workload both sides have samples (or a hackbench time) for. */
export function realVsSim(real: readonly VariantResult[], sim: readonly VariantResult[]): RealVsSimRow[] {
  const rows: RealVsSimRow[] = []
  const names = [...new Set(real.flatMap((r) => r.workloads.map((w) => w.name)))]
  for (const name of names) {
    const rw = real.map((r) => r.workloads.find((w) => w.name === name)).filter((w) => !!w)
    const sw = sim.map((r) => r.workloads.find((w) => w.name === name)).filter((w) => !!w)
    if (rw.length === 0 || sw.length === 0) continue
    const metrics: (RealVsSimMetric | 'timeSec')[] = []
    if (rw.every((w) => w.latencyUs.count > 0) && sw.every((w) => w.latencyUs.count > 0)) metrics.push(...REAL_VS_SIM_METRICS)
    if (rw.every((w) => w.timeSec !== undefined) && sw.every((w) => w.timeSec !== undefined)) metrics.push('timeSec')
    for (const m of metrics) {
      const get = (w: (typeof rw)[number]): number => (m === 'timeSec' ? w.timeSec! : w.latencyUs[m])
      const r = range(rw.map(get))
      const sv = sw.map(get)
      const s = { ...range(sv), value: sv.reduce((a, x) => a + x, 0) / sv.length }
      rows.push({ workload: name, metric: m, real: r, sim: s, verdict: verdict(r.lo, r.hi, s.value) })
    }
  }
  return rows
}
