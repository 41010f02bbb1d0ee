/**
 * Test support (tests of the statistics, the tables and the charts): results drawn from a known
 * distribution, samples recorded exactly as the simulator records them, in its histograms and
 * batches, so intervals can be checked against the true quantiles.
 */
import type { VariantResult } from '../shared/result'
import { Prng } from '../sim/engine/prng'
import { LogHistogram } from '../sim/metrics/histogram'
import { LatencyBatches } from '../sim/metrics/batches'

/** A run of `n` latencies (ns) from `draw`, spread evenly over `durationNs`. */
export function syntheticResult(name: string, seed: number, n: number, draw: (rng: Prng) => number, durationNs = 1e9): VariantResult {
  const rng = new Prng(seed)
  const h = new LogHistogram()
  const batches = new LatencyBatches([true], durationNs)
  for (let i = 0; i < n; i++) {
    const b = h.record(Math.round(draw(rng)))
    batches.record(0, b, (i * durationNs) / n)
  }
  return {
    name, seed,
    stats: { events: n, wallMs: 0, simulatedMs: durationNs / 1e6, contextSwitches: 0, migrations: 0, wakeups: n, sysPct: 0 },
    workloads: [{ name: 'ct', type: 'cyclictest', latencyUs: h.summaryUs(), latencyHist: h.dataUs(), latencyBatches: batches.dataOf(0) }],
    tasks: [], cpus: [], unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
  }
}

/** Exponential with the given mean (ns). */
export const exponential = (meanNs: number) => (rng: Prng): number => -Math.log(1 - rng.next()) * meanNs
