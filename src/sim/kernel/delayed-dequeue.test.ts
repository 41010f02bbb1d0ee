import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { quickScenario } from '../testing'
import { TASK_SLEEPING } from './sched'
import { entityEligible } from './fair'

/**
 * One CPU: hogs and bursty tasks that run past their fair share and then sleep, so they are
 * ineligible when they block.
 */
function scenario(delay: boolean, seed: number) {
  return quickScenario({
    topology: 1, durationMs: 2000, seed,
    kernel: { hz: 250, features: { DELAY_DEQUEUE: delay } },
    workloads: [
      { type: 'hog', name: 'hog', count: 2 },
      { type: 'periodic', name: 'burst', count: 2, runUs: 1500 + 300 * seed, periodUs: 4000 + 500 * seed, staggerUs: 700 }
    ]
  })
}

describe('DELAY_DEQUEUE', () => {
  for (const seed of [1, 2, 3]) {
    it(`on: an ineligible task that sleeps stays queued until its lag is zero or it is picked (seed ${seed})`, () => {
      let sampledDelayed = 0
      const lagsAtPick: number[] = []
      const { kernel: k } = simulateDetailed(scenario(true, seed), 0, seed, {
        configure(k) {
          k.onDelayedPick = (_cpu, _se, lag) => lagsAtPick.push(lag)
          for (let t = 1; t < 2000; t++) {
            k.at(t * 997_000, () => {
              for (let p = 0; p < k.ntasks; p++) {
                if (k.state[p] !== TASK_SLEEPING || k.onRq[p] === 0) continue
                // a sleeping task still queued must be a delayed one
                expect(k.schedDelayed[p]).toBe(1)
                sampledDelayed++
              }
            })
          }
        }
      })
      expect(k.nrDelayed).toBeGreaterThan(50)
      expect(sampledDelayed).toBeGreaterThan(0)
      // it left the queue only once eligible (a pick returns eligible entities only)
      expect(k.nrDelayedPicked).toBeGreaterThan(0)
      for (const lag of lagsAtPick) expect(lag).toBeGreaterThanOrEqual(0)
      expect(k.nrDelayedPicked + k.nrDelayedWoken).toBeGreaterThanOrEqual(k.nrDelayed - k.ntasks)
    })

    it(`off: a task that sleeps leaves the queue at once (seed ${seed})`, () => {
      let ineligibleSleeps = 0
      const { kernel: k } = simulateDetailed(scenario(false, seed), 0, seed, {
        configure(k) {
          for (let t = 1; t < 2000; t++) {
            k.at(t * 997_000, () => {
              for (let p = 0; p < k.ntasks; p++) if (k.state[p] === TASK_SLEEPING) expect(k.onRq[p]).toBe(0)
              const c = k.curr[0]
              if (c >= 0 && !entityEligible(k, 0, c)) ineligibleSleeps++
            })
          }
        }
      })
      expect(k.nrDelayed).toBe(0)
      expect(ineligibleSleeps).toBeGreaterThan(0)
    })
  }
})
