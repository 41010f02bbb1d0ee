/**
 * Pooling the batches of parallel replicas of one run (K replicas of D/K returned as one variant
 * result with `replicas: K`): the pooled result carries every replica's batches, so its
 * intervals rest on all 20 K of them (replicated batch means, docs/statistics.md). Whoever
 * merges replica results into one calls these for each workload.
 */
import type { LatencyBatches, TimeBatches } from '../shared/result'
import { groupBy } from '../shared/group'

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

/**
 * Seeds that gave byte-identical results (a scenario with no random source on its topology: the
 * seed changes nothing) are one sample, not several: pooled as independent they would narrow
 * every interval and make percentiles up out of copies. `distinctResults` keeps the first of
 * each group of identical results; `identical` lists the groups (seeds) it folded.
 */
export interface DistinctResults<R> {
  distinct: R[]
  /** Seeds of each group of two or more identical results, in order. */
  identical: number[][]
}

interface Replica {
  seed: number
  stats: { events: number; contextSwitches: number; migrations: number; simulatedMs: number }
  workloads: unknown
  tasks: unknown
}

const fingerprints = new WeakMap<object, string>()

/** What identifies a result's figures: everything but its seed and wall-clock time. */
export function resultFingerprint(r: Replica): string {
  let f = fingerprints.get(r)
  if (f === undefined) {
    const { events, contextSwitches, migrations, simulatedMs } = r.stats
    f = JSON.stringify([events, contextSwitches, migrations, simulatedMs, r.workloads, r.tasks])
    fingerprints.set(r, f)
  }
  return f
}

export function distinctResults<R extends Replica>(results: readonly R[]): DistinctResults<R> {
  const groups = groupBy(results, resultFingerprint)
  return {
    distinct: [...groups.values()].map((g) => g[0]),
    identical: [...groups.values()].filter((g) => g.length > 1).map((g) => g.map((r) => r.seed))
  }
}

/** "seeds 1, 2 and 3 gave identical results: they count as one sample (...)", one line per group. */
export function identicalNote(groups: readonly number[][], whose = ''): string[] {
  return groups.map((seeds) => {
    const list = seeds.length === 2 ? `${seeds[0]} and ${seeds[1]}` : `${seeds.slice(0, -1).join(', ')} and ${seeds[seeds.length - 1]}`
    return `${whose ? `${whose}: ` : ''}seeds ${list} gave identical results: they count as one sample (nothing in this scenario draws on the seed; one seed is the answer)`
  })
}
