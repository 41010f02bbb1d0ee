import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { quickScenario } from '../testing'

function stable(r: ReturnType<typeof simulate>): string {
  return JSON.stringify({ ...r, stats: { ...r.stats, wallMs: 0 } })
}

describe('determinism', () => {
  const s = quickScenario({
    topology: 4, durationMs: 1500, kernel: { hz: 250 },
    workloads: [
      { type: 'hog', name: 'hog', count: 3, nice: 2 },
      { type: 'periodic', name: 'p', count: 6, runUs: 700, periodUs: 3777, sliceUs: 300, staggerUs: 123 },
      { type: 'periodic', name: 'rt', count: 1, runUs: 100, periodUs: 2000, policy: 'fifo', priority: 20 }
    ]
  })
  it('two runs with one seed are byte-identical', () => {
    for (const seed of [1, 42]) expect(stable(simulate(s, 0, seed))).toBe(stable(simulate(s, 0, seed)))
  })
})
