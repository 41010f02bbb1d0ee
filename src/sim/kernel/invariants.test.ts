import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { quickScenario } from '../testing'
import type { KernelProfile } from './features'
import type { WorkloadSpec } from '../scenario/workload-specs'

/**
 * Debug mode checks at every event that every queued entity's lag is within the kernel's
 * clamp and that V is the weighted average of the queued vruntimes (checkInvariants, invariants.ts).
 */
const MIX: WorkloadSpec[] = [
  { type: 'hog', name: 'hog', count: 2, nice: 0 },
  { type: 'hog', name: 'nice', count: 1, nice: 7 },
  { type: 'hog', name: 'batch', count: 1, policy: 'batch' },
  { type: 'periodic', name: 'short', count: 2, runUs: 300, periodUs: 3777, sliceUs: 100, staggerUs: 1100 },
  { type: 'periodic', name: 'long', count: 2, runUs: 2500, periodUs: 9000, sliceUs: 8000 },
  { type: 'periodic', name: 'heavy', count: 1, runUs: 5000, periodUs: 7000, nice: -5 }
]

describe('EEVDF invariants at every event (debug mode)', () => {
  const cases: [KernelProfile, number, number][] = [
    ['tip-2026', 1, 1], ['tip-2026', 2, 2], ['6.19', 1, 3], ['6.17', 2, 4], ['6.12', 1, 5], ['6.6', 2, 6]
  ]
  for (const [profile, ncpus, seed] of cases) {
    it(`holds for a mixed workload (${profile}, ${ncpus} CPU, seed ${seed})`, () => {
      const s = quickScenario({
        topology: ncpus,
        durationMs: 1500,
        kernel: { hz: 250, profile, debug: true },
        workloads: MIX
      })
      const r = simulate(s, 0, seed)
      expect(r.stats.events).toBeGreaterThan(1000)
      expect(r.tasks.every((t) => t.cpuTimeMs > 0)).toBe(true)
    })
  }

  it('holds with DELAY_DEQUEUE and PLACE_LAG off, and with HRTICK on', () => {
    const sets: Record<string, boolean>[] = [{ DELAY_DEQUEUE: false }, { PLACE_LAG: false }, { HRTICK: true, RUN_TO_PARITY: false }]
    for (const features of sets) {
      const s = quickScenario({ topology: 1, durationMs: 800, kernel: { hz: 1000, debug: true, features }, workloads: MIX })
      expect(simulate(s, 0, 7).stats.events).toBeGreaterThan(500)
    }
  })

  it('detects a corrupted avg_vruntime sum (the check can fail)', () => {
    const s = quickScenario({ topology: 1, durationMs: 200, kernel: { debug: true }, workloads: MIX })
    expect(() =>
      simulate(s, 0, 1, {
        configure(k) {
          k.at(100_000_000, () => { k.sumWVruntime[0] += 12345 })
        }
      })
    ).toThrow(/drifted/)
  })
})
