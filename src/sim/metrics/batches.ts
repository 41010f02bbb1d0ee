import type { LatencyBatches as LatencyBatchData, TimeBatches } from '../../shared/result'
import { BATCH_SHIFT, COARSE_BUCKETS } from '../../shared/histogram-layout'

/**
 * Latency counts per batch of simulated time, per workload: what the statistics need to put an
 * interval on a percentile of one run (batch means, docs/statistics.md) and to pool the batches
 * of several seeds (replicated batch means).
 *
 * A batch keeps counts in coarse buckets of 2^BATCH_SHIFT histogram buckets (the result format's
 * layout, shared/histogram-layout.ts), so a run's batches stay small in the result; the statistics split a coarse bucket
 * at a percentile in the proportions of the run's fine histogram. Storage is allocated once per
 * workload before the run; recording is one division and one increment.
 */
export const BATCH_COUNT = 20

export class LatencyBatches {
  readonly batchNs: number
  private readonly counts: (Float64Array | null)[]

  /**
   * `recording[w]`: whether workload w has tasks that record latency (others get no storage).
   * The batches cover [originNs, originNs + durationNs) (origin: the end of a discarded warm-up).
   */
  constructor(recording: readonly boolean[], durationNs: number, readonly originNs = 0) {
    this.batchNs = Math.max(1, Math.ceil(durationNs / BATCH_COUNT))
    this.counts = recording.map((r) => (r ? new Float64Array(BATCH_COUNT * COARSE_BUCKETS) : null))
  }

  /** One sample of workload `w` in histogram bucket `bucket`, taken at `nowNs`. */
  record(w: number, bucket: number, nowNs: number): void {
    const c = w >= 0 && w < this.counts.length ? this.counts[w] : null
    if (c === null) return
    let b = Math.floor((nowNs - this.originNs) / this.batchNs)
    if (b >= BATCH_COUNT) b = BATCH_COUNT - 1
    c[b * COARSE_BUCKETS + (bucket >> BATCH_SHIFT)]++
  }

  /** The batches of workload w for the result: coarse counts from the first non-empty coarse bucket. */
  dataOf(w: number): LatencyBatchData | undefined {
    const c = this.counts[w]
    if (!c) return undefined
    let lo = COARSE_BUCKETS
    let hi = -1
    for (let b = 0; b < BATCH_COUNT; b++) {
      for (let i = 0; i < COARSE_BUCKETS; i++) {
        if (c[b * COARSE_BUCKETS + i] === 0) continue
        if (i < lo) lo = i
        if (i > hi) hi = i
      }
    }
    if (hi < 0) return undefined
    const counts: number[][] = []
    for (let b = 0; b < BATCH_COUNT; b++) {
      const row = Array.from(c.subarray(b * COARSE_BUCKETS + lo, b * COARSE_BUCKETS + hi + 1))
      let n = row.length
      while (n > 0 && row[n - 1] === 0) n--
      row.length = n
      counts.push(row)
    }
    return { batchMs: this.batchNs / 1e6, shift: BATCH_SHIFT, lo, counts }
  }
}

/** Round times (ns) in at most BATCH_COUNT batches of consecutive rounds, sums in seconds. */
export function timeBatches(timesNs: readonly number[]): TimeBatches {
  const n = Math.min(BATCH_COUNT, timesNs.length)
  const sumSec: number[] = []
  const count: number[] = []
  for (let b = 0; b < n; b++) {
    const from = Math.floor((b * timesNs.length) / n)
    const to = Math.floor(((b + 1) * timesNs.length) / n)
    let s = 0
    for (let i = from; i < to; i++) s += timesNs[i]
    sumSec.push(Math.round(s) / 1e9)
    count.push(to - from)
  }
  return { sumSec, count }
}
