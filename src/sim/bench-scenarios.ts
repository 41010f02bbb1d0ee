/**
 * The throughput scenarios of `npm run bench` (scripts/bench.mts), shared with the golden
 * digests (src/golden) so that the hot paths the bench measures are also pinned.
 */
import type { QuickScenario } from './testing'
import type { TopologySpec } from './kernel/topology-types'
import { power11Spec, rb5Spec } from './kernel/topologies'

export interface BenchScenario {
  name: string
  scenario: QuickScenario
}

export const BENCH_SCENARIOS: BenchScenario[] = [
  {
    name: '1cpu-4hogs-1periodic',
    scenario: {
      topology: 1, durationMs: 10_000, kernel: { hz: 250 },
      workloads: [
        { type: 'hog', name: 'hog', count: 4 },
        { type: 'periodic', name: 'p', count: 1, runUs: 300, periodUs: 1000, sliceUs: 100 }
      ]
    }
  },
  {
    name: '8cpu-16periodic-8hogs',
    scenario: {
      topology: 8, durationMs: 10_000, kernel: { hz: 250 },
      workloads: [
        { type: 'hog', name: 'hog', count: 8 },
        { type: 'periodic', name: 'p', count: 16, runUs: 400, periodUs: 2000, sliceUs: 300, staggerUs: 97 }
      ]
    }
  },
  // Placement and balancing (issue 3): EAS + schedutil on rb5, and the 160-CPU POWER topology
  // at 16 and 320 tasks (per-event cost must grow no faster than log(tasks)).
  periodicOn('rb5-16periodic-eas', rb5Spec(), 16, 10_000, { SCHEDUTIL: true }),
  periodicOn('power11-160-320tasks', power11Spec(), 320, 2_000),
  periodicOn('power11-160-16tasks', power11Spec(), 16, 20_000)
]

/** `count` tasks running 1 ms every 10 ms, their wakeups spread over the period. */
function periodicOn(name: string, topology: TopologySpec, count: number, durationMs: number, features: Record<string, boolean> = {}): BenchScenario {
  return {
    name,
    scenario: {
      topology, durationMs, kernel: { hz: 250, features },
      workloads: [{ type: 'periodic', name: 'p', count, runUs: 1000, periodUs: 10_000, staggerUs: Math.floor(10_000 / count) }]
    }
  }
}
