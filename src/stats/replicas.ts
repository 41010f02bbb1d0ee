/**
 * Pooling the batches of parallel replicas of one run (K replicas of D/K returned as one variant
 * result with `replicas: K`): the pooled result carries every replica's batches, so its
 * intervals rest on all 20 K of them (replicated batch means, docs/statistics.md). Whoever
 * merges replica results into one calls these for each workload.
 */
import type { LatencyBatches, TimeBatches } from '../shared/result'

/** All replicas' latency batches in one (a replica without batches: undefined for all). */
export function concatLatencyBatches(list: readonly (LatencyBatches | undefined)[]): LatencyBatches | undefined {
  const present = list.filter((b): b is LatencyBatches => !!b && b.counts.some((row) => row.length > 0))
  if (present.length === 0 || present.length !== list.filter((b) => b !== undefined).length) return undefined
  const shift = present[0].shift
  if (present.some((b) => b.shift !== shift)) return undefined
  const lo = Math.min(...present.map((b) => b.lo))
  const counts = present.flatMap((b) => b.counts.map((row) => (row.length === 0 ? [] : [...new Array<number>(b.lo - lo).fill(0), ...row])))
  return { batchMs: present[0].batchMs, shift, lo, counts }
}

export function concatTimeBatches(list: readonly (TimeBatches | undefined)[]): TimeBatches | undefined {
  const present = list.filter((b): b is TimeBatches => !!b)
  if (present.length === 0) return undefined
  return { sumSec: present.flatMap((b) => b.sumSec), count: present.flatMap((b) => b.count) }
}
