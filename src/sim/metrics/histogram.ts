import type { HistogramData, LatencySummary } from '../../shared/result'
import * as layout from '../../shared/histogram-layout'

// Bound once: record() runs per sample, and module namespaces compiled to CommonJS (tsx) resolve
// each access through a getter.
const bucketOf = layout.bucketOf
const bucketLow = layout.bucketLow
const HISTOGRAM_BUCKETS = layout.HISTOGRAM_BUCKETS

/**
 * Log-linear histogram of non-negative integer values (ns), HdrHistogram-style, over the bucket
 * layout of the result format (shared/histogram-layout.ts): percentiles within 1 % while memory
 * is O(buckets), never O(samples). count, min, max and the sum (for the average) are exact.
 */
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
