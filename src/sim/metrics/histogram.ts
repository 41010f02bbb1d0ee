import type { HistogramData, LatencySummary } from '../../shared/result'

/**
 * Log-linear histogram of non-negative integer values (ns), HdrHistogram-style: values below
 * 2^SUB_BITS are exact, above they fall in 2^(SUB_BITS-1) sub-buckets per power of two. Reporting
 * a bucket's midpoint bounds the relative error by 1/2^SUB_BITS (0.8% with 7 bits), so
 * percentiles are within 1% while memory is O(buckets), never O(samples).
 * count, min, max and the sum (for the average) are exact.
 */
const SUB_BITS = 7
const SUB = 1 << SUB_BITS
/** Largest power of two covered: 2^44 ns is about 4.9 hours. */
const MAX_EXP = 44
export const HISTOGRAM_BUCKETS = SUB + (MAX_EXP - SUB_BITS) * (SUB >> 1)

export class LogHistogram {
  readonly counts = new Float64Array(HISTOGRAM_BUCKETS)
  count = 0
  sum = 0
  min = Infinity
  max = 0

  /** Record one value; returns its bucket (the batch recorder files the sample there too). */
  record(v: number): number {
    if (v < 0) v = 0
    const b = bucketOf(v)
    this.counts[b]++
    this.count++
    this.sum += v
    if (v < this.min) this.min = v
    if (v > this.max) this.max = v
    return b
  }

  /** The histogram a result reports (its data and summary, in microseconds), to merge results. */
  static fromUs(data: HistogramData | undefined, summary: LatencySummary): LogHistogram {
    const h = new LogHistogram()
    if (!data || summary.count === 0) return h
    for (let i = 0; i < data.lowUs.length; i++) h.counts[bucketOf(Math.round(data.lowUs[i] * 1000))] += data.counts[i]
    h.count = summary.count
    h.sum = summary.avg * 1000 * summary.count
    h.min = Math.round(summary.min * 1000)
    h.max = Math.round(summary.max * 1000)
    return h
  }

  /** Forget every sample (the end of a discarded warm-up). */
  reset(): void {
    this.counts.fill(0)
    this.count = 0
    this.sum = 0
    this.min = Infinity
    this.max = 0
  }

  merge(o: LogHistogram): void {
    if (o.count === 0) return
    const c = this.counts
    const oc = o.counts
    for (let i = 0; i < c.length; i++) c[i] += oc[i]
    this.count += o.count
    this.sum += o.sum
    if (o.min < this.min) this.min = o.min
    if (o.max > this.max) this.max = o.max
  }

  /** Nearest-rank percentile (p in 0..100): the smallest recorded value v with rank >= p% of count. */
  percentile(p: number): number {
    if (this.count === 0) return 0
    const rank = Math.max(1, Math.ceil((p / 100) * this.count))
    let seen = 0
    const c = this.counts
    for (let i = 0; i < c.length; i++) {
      seen += c[i]
      if (seen >= rank) {
        const lo = bucketLow(i)
        const hi = bucketLow(i + 1)
        const mid = hi - lo <= 1 ? lo : (lo + hi - 1) / 2
        return Math.min(this.max, Math.max(this.min, mid))
      }
    }
    return this.max
  }

  /** Summary in microseconds, rounded to 0.001 us for stable JSON. */
  summaryUs(): LatencySummary {
    if (this.count === 0) return { count: 0, min: 0, avg: 0, p50: 0, p90: 0, p99: 0, p99_9: 0, max: 0 }
    return {
      count: this.count,
      min: us(this.min),
      avg: us(this.sum / this.count),
      p50: us(this.percentile(50)),
      p90: us(this.percentile(90)),
      p99: us(this.percentile(99)),
      p99_9: us(this.percentile(99.9)),
      max: us(this.max)
    }
  }

  /** Non-empty buckets with their bounds in microseconds (for charts). */
  dataUs(): HistogramData {
    const lowUs: number[] = []
    const highUs: number[] = []
    const counts: number[] = []
    const c = this.counts
    for (let i = 0; i < c.length; i++) {
      if (c[i] === 0) continue
      lowUs.push(us(bucketLow(i)))
      highUs.push(us(bucketLow(i + 1)))
      counts.push(c[i])
    }
    return { lowUs, highUs, counts }
  }
}

function us(ns: number): number {
  return Math.round(ns) / 1000
}

export function bucketOf(v: number): number {
  if (v < SUB) return Math.floor(v)
  // exponent e such that 2^e <= v < 2^(e+1), e >= SUB_BITS
  if (v < 4294967296) {
    // the common case (under 4.3 s): floor(v / 2^shift) as a shift, no division
    const e32 = 31 - Math.clz32(v)
    return SUB + (e32 - SUB_BITS) * (SUB >> 1) + (v >>> (e32 - (SUB_BITS - 1))) - (SUB >> 1)
  }
  let e = Math.floor(Math.log2(v))
  // guard against floating rounding at exact powers of two
  if (2 ** e > v) e--
  else if (2 ** (e + 1) <= v) e++
  if (e >= MAX_EXP) return HISTOGRAM_BUCKETS - 1
  const shift = e - (SUB_BITS - 1)
  const sub = Math.floor(v / 2 ** shift) - (SUB >> 1) // 0 .. SUB/2-1
  return SUB + (e - SUB_BITS) * (SUB >> 1) + sub
}

export function bucketLow(b: number): number {
  if (b < SUB) return b
  const k = b - SUB
  const e = SUB_BITS + Math.floor(k / (SUB >> 1))
  const sub = k % (SUB >> 1)
  const shift = e - (SUB_BITS - 1)
  return ((SUB >> 1) + sub) * 2 ** shift
}
