/**
 * Operations on the compact histograms of result files (HistogramData: non-empty buckets
 * with bounds in microseconds). Used to pool the seeds of a variant and to draw CDFs.
 */
import type { HistogramData } from './result'

/** Sum bucket counts of histograms with the same bucket layout (every run uses the same one). */
export function mergeHistograms(list: readonly HistogramData[]): HistogramData {
  const byLow = new Map<number, { high: number; count: number }>()
  for (const h of list) {
    for (let i = 0; i < h.counts.length; i++) {
      const b = byLow.get(h.lowUs[i])
      if (b) b.count += h.counts[i]
      else byLow.set(h.lowUs[i], { high: h.highUs[i], count: h.counts[i] })
    }
  }
  const lows = [...byLow.keys()].sort((a, b) => a - b)
  return {
    lowUs: lows,
    highUs: lows.map((l) => byLow.get(l)!.high),
    counts: lows.map((l) => byLow.get(l)!.count)
  }
}

export function histogramTotal(h: HistogramData): number {
  let n = 0
  for (const c of h.counts) n += c
  return n
}

/**
 * Nearest-rank percentile (p in 0..100) read from buckets, reported at the bucket midpoint and
 * clamped to the exact [min, max], the same rule the simulator's own summaries use.
 */
export function histogramPercentile(h: HistogramData, p: number, minUs: number, maxUs: number): number {
  const total = histogramTotal(h)
  if (total === 0) return 0
  const rank = Math.max(1, Math.ceil((p / 100) * total))
  let seen = 0
  for (let i = 0; i < h.counts.length; i++) {
    seen += h.counts[i]
    if (seen >= rank) {
      const lo = h.lowUs[i]
      const hi = h.highUs[i]
      // One-nanosecond buckets are exact values; wider ones report their midpoint.
      const mid = hi - lo <= 0.001 + 1e-9 ? lo : (lo + hi - 0.001) / 2
      return Math.min(maxUs, Math.max(minUs, mid))
    }
  }
  return maxUs
}

export interface CdfPoint {
  x: number
  y: number
}

/**
 * Cumulative distribution as (latency upper bound in us, fraction of samples <= it) points,
 * starting at (first bucket low, 0). Points with x <= 0 are dropped for log axes.
 */
export function cdfPoints(h: HistogramData): CdfPoint[] {
  const total = histogramTotal(h)
  if (total === 0) return []
  const pts: CdfPoint[] = []
  const first = h.lowUs[0] > 0 ? h.lowUs[0] : h.highUs[0]
  pts.push({ x: first, y: 0 })
  let seen = 0
  for (let i = 0; i < h.counts.length; i++) {
    seen += h.counts[i]
    const x = h.highUs[i]
    if (x > 0) pts.push({ x, y: seen / total })
  }
  return pts
}

/**
 * Complementary cumulative distribution (the tail): (latency in us, fraction of samples
 * greater than it) from (first bucket low, 1) down to the last non-zero fraction, 1/N at
 * best; the final zero cannot sit on a log axis and is left out.
 */
export function ccdfPoints(h: HistogramData): CdfPoint[] {
  return cdfPoints(h).map((p) => ({ x: p.x, y: 1 - p.y })).filter((p) => p.y > 1e-12)
}

/**
 * Re-bin a histogram onto `edges` (ascending, in us) for an overlay of several variants on
 * a common x axis. A bucket is credited to the bin holding its midpoint.
 */
export function rebin(h: HistogramData, edges: readonly number[]): number[] {
  const out = new Array<number>(Math.max(0, edges.length - 1)).fill(0)
  for (let i = 0; i < h.counts.length; i++) {
    const mid = (h.lowUs[i] + h.highUs[i]) / 2
    let lo = 0
    let hi = edges.length - 1
    if (mid < edges[0] || mid >= edges[hi]) {
      // Values outside the edges land in the first or last bin so no sample disappears.
      out[mid < edges[0] ? 0 : out.length - 1] += h.counts[i]
      continue
    }
    while (hi - lo > 1) {
      const m = (lo + hi) >> 1
      if (edges[m] <= mid) lo = m
      else hi = m
    }
    out[lo] += h.counts[i]
  }
  return out
}

/** Log-spaced bin edges covering [minUs, maxUs], `perDecade` bins per factor of ten. */
export function logEdges(minUs: number, maxUs: number, perDecade = 10): number[] {
  const lo = Math.floor(Math.log10(Math.max(minUs, 0.01)) * perDecade)
  const hi = Math.ceil(Math.log10(Math.max(maxUs, minUs * 1.0001, 0.011)) * perDecade)
  const edges: number[] = []
  for (let k = lo; k <= Math.max(hi, lo + 1); k++) edges.push(10 ** (k / perDecade))
  return edges
}
