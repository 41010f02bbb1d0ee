/**
 * Seeds whose results are byte-identical count as one sample (the pooling of parallel replicas'
 * batches is in src/sim/replicas.ts, where their results are merged).
 */
import { groupBy } from '../shared/group'

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
