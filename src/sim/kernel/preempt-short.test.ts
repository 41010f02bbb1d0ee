import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { quickScenario } from '../testing'
import type { KernelProfile } from './features'

/**
 * A periodic task with a 0.1 ms slice wakes while 2.8 ms-slice hogs run. With PREEMPT_SHORT it
 * preempts at once (latency = the modeled costs, well within its slice); without, it waits for
 * the running hog's protection to end.
 */
function run(profile: KernelProfile, preemptShort: boolean, periodUs: number, delayUs: number, hz = 1000) {
  const s = quickScenario({
    topology: 1,
    durationMs: 4000,
    kernel: { hz, profile, timerSlackUs: 0, features: { PREEMPT_SHORT: preemptShort } },
    workloads: [
      { type: 'hog', name: 'hog', count: 2, sliceUs: 2800 },
      { type: 'periodic', name: 'short', runUs: 50, periodUs, sliceUs: 100, delayUs }
    ]
  })
  return simulate(s, 0, 1).workloads[1].latencyUs
}

const PHASES: [number, number][] = [[3777, 0], [2777, 333], [1733, 1200], [5111, 777]]

describe('PREEMPT_SHORT', () => {
  for (const profile of ['tip-2026'] as KernelProfile[]) {
    it(`${profile}: the short-slice task is picked within its slice when on`, () => {
      for (const [period, delay] of PHASES) {
        const l = run(profile, true, period, delay)
        expect(l.count).toBeGreaterThan(500)
        expect(l.max).toBeLessThan(100)
      }
    })
    it(`${profile}: without it the task waits for the hog's protection to end at a tick`, () => {
      for (const [period, delay] of PHASES) {
        const l = run(profile, false, period, delay)
        // update_protect_slice cuts the running hog's protection to a min slice from V, and
        // only a tick notices its end (a second tick when the other hog is picked first)
        expect(l.p90).toBeGreaterThan(100)
        expect(l.max).toBeLessThan(2 * 1000 + 20)
      }
    })
  }
  it('6.12: without it the task waits out the hog\'s whole protected slice', () => {
    let worst = 0
    for (const [period, delay] of PHASES) {
      const on = run('6.12', true, period, delay)
      const off = run('6.12', false, period, delay)
      expect(off.max).toBeGreaterThan(1400)
      expect(off.max).toBeLessThan(2800 + 1000 + 20)
      expect(off.p90).toBeGreaterThan(on.p90)
      expect(on.p50).toBeLessThan(100)
      worst = Math.max(worst, off.max)
    }
    // some wakeups land right after the hog was picked and wait its whole 2.8 ms slice
    expect(worst).toBeGreaterThan(2700)
  })
})
