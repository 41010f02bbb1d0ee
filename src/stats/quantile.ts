/**
 * Percentiles of pooled latency histograms with 95 % intervals by replicated batch means and
 * Woodruff's inversion (docs/statistics.md):
 *
 * - the estimate is the pooled percentile (all seeds' samples, nearest rank, bucket midpoint),
 *   as every table has always shown it;
 * - the samples of a run are not independent (a long stall delays many wakeups), so the
 *   uncertainty comes from sections that are: the batches of simulated time of each run, and
 *   the runs of different seeds (independent replicas). F(q) at the estimate, the fraction of
 *   samples at or below it, is a ratio of section sums; its standard error is the ratio
 *   estimator's over the sections, never below the independent-samples (binomial) one;
 * - the interval is the pooled distribution read at p -/+ t(S-1) x se(F): ranks of the pooled
 *   order statistics, so it is asymmetric like a tail is and needs no density estimate; it
 *   always covers the estimate's histogram bucket.
 * - A percentile with fewer than MIN_BEYOND samples beyond it gets no estimate at all.
 */
import type { HistogramData, LatencyBatches } from '../shared/result'
import { BATCH_SHIFT, bucketLow, bucketOf, COARSE_BUCKETS, HISTOGRAM_BUCKETS } from '../shared/histogram-layout'
import { tQuantile } from './tdist'

/** Samples needed beyond a percentile before it is reported. */
export const MIN_BEYOND = 10

export interface Insufficient {
  samples: number
  need: number
}

/** One estimate with its 95 % interval; `seLog` is the standard error of its logarithm. */
export interface Estimate {
  value: number
  ci95: [number, number] | null
  /** Degrees of freedom of the interval (sections - 1). */
  df: number
  seLog: number | null
  /** Set when there are too few samples for the percentile: nothing else is meaningful. */
  insufficient?: Insufficient
}

/** One run's (seed's) latency data for one workload. */
export interface LatencyReplica {
  count: number
  minUs: number
  maxUs: number
  hist?: HistogramData
  batches?: LatencyBatches
}

/** Samples beyond percentile P (0..100) among n, by the nearest-rank rule the histograms use. */
export function samplesBeyond(n: number, pct: number): number {
  if (n <= 0) return 0
  // the rank of an exact product (99.9 % of 10000 = 9990) must not round up
  return n - Math.max(1, Math.ceil((pct / 100) * n - 1e-9))
}

/** The smallest sample count with MIN_BEYOND samples beyond percentile P. */
export function samplesNeeded(pct: number): number {
  let n = Math.max(1, Math.floor(MIN_BEYOND / (1 - pct / 100)) - 2)
  while (samplesBeyond(n, pct) < MIN_BEYOND) n++
  return n
}

/** "n/a (264 samples; need 10000)". */
export function formatInsufficient(i: Insufficient): string {
  return `n/a (${i.samples} samples; need ${i.need})`
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000

/**
 * The pooled fine histogram (by bucket index) and the sections (coarse counts) of a set of
 * replicas. A replica without batches (a result from before batches existed) is one section.
 */
export class PooledLatency {
  readonly fine = new Float64Array(HISTOGRAM_BUCKETS)
  readonly sections: Float64Array[] = []
  readonly count: number
  readonly minUs: number
  readonly maxUs: number
  /** False when some replica has samples but no histogram: no percentile can be pooled. */
  readonly complete: boolean

  constructor(replicas: readonly LatencyReplica[]) {
    let count = 0
    let min = Infinity
    let max = 0
    let complete = true
    for (const r of replicas) {
      if (r.count === 0) continue
      count += r.count
      min = Math.min(min, r.minUs)
      max = Math.max(max, r.maxUs)
      if (!r.hist) {
        complete = false
        continue
      }
      const own = new Float64Array(COARSE_BUCKETS)
      for (let i = 0; i < r.hist.counts.length; i++) {
        const b = bucketOf(Math.round(r.hist.lowUs[i] * 1000))
        this.fine[b] += r.hist.counts[i]
        own[b >> BATCH_SHIFT] += r.hist.counts[i]
      }
      const batches = r.batches && r.batches.shift === BATCH_SHIFT ? r.batches : undefined
      if (!batches) {
        this.sections.push(own)
        continue
      }
      for (const row of batches.counts) {
        if (row.length === 0) continue
        const s = new Float64Array(COARSE_BUCKETS)
        for (let i = 0; i < row.length; i++) s[batches.lo + i] = row[i]
        this.sections.push(s)
      }
    }
    this.count = count
    this.minUs = count > 0 ? min : 0
    this.maxUs = max
    this.complete = complete
  }

  /** Fine bucket holding the sample of rank `rank` (1-based). */
  private bucketAtRank(rank: number): number {
    let seen = 0
    for (let b = 0; b < this.fine.length; b++) {
      seen += this.fine[b]
      if (seen >= rank) return b
    }
    return this.fine.length - 1
  }

  private rankOf(fraction: number): number {
    return Math.min(this.count, Math.max(1, Math.ceil(fraction * this.count)))
  }

  /** Percentile P (0..100) with its interval. */
  percentile(pct: number): Estimate {
    const n = this.count
    const beyond = samplesBeyond(n, pct)
    if (beyond < MIN_BEYOND) {
      return { value: NaN, ci95: null, df: 0, seLog: null, insufficient: { samples: n, need: samplesNeeded(pct) } }
    }
    if (!this.complete) return { value: NaN, ci95: null, df: 0, seLog: null }
    const p = pct / 100
    const k = this.bucketAtRank(this.rankOf(p))
    const value = r3(this.clamp(midUs(k)))
    // F at the estimate, per section: whole coarse buckets below, and the share of the coarse
    // bucket holding k that the pooled fine histogram puts at or below k.
    const c = k >> BATCH_SHIFT
    let inCoarse = 0
    let below = 0
    for (let b = c << BATCH_SHIFT; b < Math.min(this.fine.length, (c + 1) << BATCH_SHIFT); b++) {
      inCoarse += this.fine[b]
      if (b <= k) below += this.fine[b]
    }
    const frac = inCoarse > 0 ? below / inCoarse : 1
    let S = 0
    let sumLe = 0
    const le: number[] = []
    const ns: number[] = []
    for (const s of this.sections) {
      let total = 0
      let l = 0
      for (let i = 0; i < s.length; i++) {
        total += s[i]
        if (i < c) l += s[i]
      }
      if (total === 0) continue
      l += s[c] * frac
      le.push(l)
      ns.push(total)
      sumLe += l
      S++
    }
    if (S < 2) return { value, ci95: null, df: 0, seLog: null }
    const F = sumLe / n
    let ss = 0
    for (let i = 0; i < S; i++) ss += (le[i] - F * ns[i]) ** 2
    const varF = Math.max((S / (S - 1)) * ss / (n * n), (p * (1 - p)) / n)
    const se = Math.sqrt(varF)
    const df = S - 1
    const t = tQuantile(0.975, df)
    const pLo = p - t * se
    const pHi = p + t * se
    // Ends read at bucket midpoints like the estimate; an end in the estimate's own bucket is
    // that bucket's edge, so the interval always covers the bucket's width.
    const kLo = this.bucketAtRank(this.rankOf(pLo))
    const kHi = this.bucketAtRank(this.rankOf(pHi))
    const lo = pLo <= 0 ? this.minUs : this.clamp(kLo === k ? bucketLow(k) / 1000 : midUs(kLo))
    const hi = pHi >= 1 ? this.maxUs : this.clamp(kHi === k ? bucketLow(k + 1) / 1000 : midUs(kHi))
    const ci: [number, number] = [r3(Math.min(lo, value)), r3(Math.max(hi, value))]
    const seLog = ci[0] > 0 ? (Math.log(ci[1]) - Math.log(ci[0])) / (2 * t) : null
    return { value, ci95: ci, df, seLog }
  }

  private clamp(us: number): number {
    return Math.min(this.maxUs, Math.max(this.minUs, us))
  }
}

/** Midpoint of fine bucket b in us, as the histograms report it. */
function midUs(b: number): number {
  const lo = bucketLow(b)
  const hi = bucketLow(b + 1)
  return (hi - lo <= 1 ? lo : (lo + hi - 1) / 2) / 1000
}

/**
 * Mean of per-round figures (hackbench time) over sections of rounds, with its interval by the
 * ratio estimator over the sections (batches of rounds, or runs).
 */
export function meanEstimate(sections: readonly { sum: number; count: number }[]): Estimate | null {
  const used = sections.filter((s) => s.count > 0)
  if (used.length === 0) return null
  const N = used.reduce((a, s) => a + s.count, 0)
  const mean = used.reduce((a, s) => a + s.sum, 0) / N
  const S = used.length
  if (S < 2) return { value: mean, ci95: null, df: 0, seLog: null }
  let ss = 0
  for (const s of used) ss += (s.sum - mean * s.count) ** 2
  const se = Math.sqrt((S / (S - 1)) * ss) / N
  const df = S - 1
  const h = tQuantile(0.975, df) * se
  return { value: mean, ci95: [mean - h, mean + h], df, seLog: mean > 0 ? se / mean : null }
}
