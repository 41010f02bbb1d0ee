import { describe, expect, it } from 'vitest'
import { simulate, simulateDetailed } from '../index'
import { quickScenario } from '../testing'
import { DEFAULT_COSTS } from './config'

describe('RT class', () => {
  it('an RT task that wakes preempts a running fair task at once', () => {
    for (const [hz, period, seed] of [[250, 1000, 1], [1000, 3777, 2], [100, 2500, 3]]) {
      const s = quickScenario({
        topology: 1, durationMs: 2000, kernel: { hz },
        workloads: [
          { type: 'hog', name: 'hog', count: 2, sliceUs: 8000 },
          { type: 'periodic', name: 'rt', runUs: 200, periodUs: period, policy: 'fifo', priority: 50 }
        ]
      })
      const r = simulate(s, 0, seed)
      const l = r.workloads[1].latencyUs
      const expected = (DEFAULT_COSTS.timerIrqWorkNs + DEFAULT_COSTS.contextSwitchWorkNs) / 1000
      expect(l.count).toBeGreaterThan(400)
      expect(l.max).toBeCloseTo(expected, 1)
      expect(r.tasks.find((t) => t.name === 'rt-0')!.cpuTimeMs).toBeGreaterThan(l.count * 0.2)
    }
  })

  it('SCHED_RR tasks of equal priority alternate every 100 ms', () => {
    for (const hz of [100, 250, 1000]) {
      const s = quickScenario({
        topology: 1, durationMs: 1000, kernel: { hz },
        workloads: [{ type: 'hog', name: 'rr', count: 2, policy: 'rr', priority: 10 }, { type: 'hog', name: 'fair' }]
      })
      const slices: [number, number][] = []
      simulateDetailed(s, 0, 1, {
        configure(k) {
          // sample who runs every ms: runs of one task must last 100 ms
          let last = -1
          let since = 0
          // sample until 900 ms: at 950 ms the fair server lets the fair hog run (tested below)
          for (let t = 1; t <= 900; t++) {
            k.at(t * 1_000_000 - 1, () => {
              const c = k.curr[0]
              if (c !== last) {
                if (last >= 0) slices.push([last, k.now - since])
                last = c
                since = k.now
              }
            })
          }
        }
      })
      expect(slices.length).toBeGreaterThanOrEqual(7)
      for (const [, len] of slices.slice(1)) expect(Math.abs(len - 100_000_000)).toBeLessThanOrEqual(1_000_000)
      const who = slices.map(([t]) => t)
      for (let i = 1; i < who.length; i++) expect(who[i]).not.toBe(who[i - 1])
    }
  })

  it('the fair server gives a starved fair task 50 ms per second (6.12+), nothing without it', () => {
    for (const [profile, fairMs] of [['tip-2026', 50], ['6.12', 50], ['6.6', 0]] as const) {
      const s = quickScenario({
        topology: 1, durationMs: 3000, kernel: { hz: 250, profile },
        workloads: [{ type: 'hog', name: 'rt', policy: 'fifo', priority: 50 }, { type: 'hog', name: 'fair' }]
      })
      const r = simulate(s, 0, 1)
      const fair = r.tasks.find((t) => t.name === 'fair-0')!
      expect(Math.abs(fair.cpuTimeMs - 3 * fairMs)).toBeLessThanOrEqual(3 * 4 + 1)
    }
  })

  it('RT tasks queued behind each other are pushed to a CPU running lower-priority work', () => {
    const s = quickScenario({
      topology: 2, durationMs: 500,
      workloads: [
        { type: 'hog', name: 'ff', count: 2, policy: 'fifo', priority: 10, startCpu: 0 },
        { type: 'hog', name: 'fair', count: 1, startCpu: 1 }
      ]
    })
    const r = simulate(s, 0, 1)
    const ff = r.tasks.filter((t) => t.name.startsWith('ff'))
    expect(new Set(ff.map((t) => t.lastCpu)).size).toBe(2)
    for (const t of ff) expect(t.cpuTimeMs).toBeGreaterThan(495)
  })
})
