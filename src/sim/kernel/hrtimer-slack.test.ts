import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { quickScenario, scripted, testAttrs } from '../testing'

const US = 1000
const MS = 1_000_000

/**
 * hrtimer slack (kernel/time/hrtimer.c, __hrtimer_run_queues): a sleep armed with a slack is
 * queued at its hard expiry (soft + slack), but every hrtimer interrupt of its CPU runs the
 * queued timers whose soft expiry has passed, in hard-expiry order, up to the first one that
 * has not. A tick that comes inside the slack wakes the sleeper with the tick.
 */
describe('hrtimer soft expiry', () => {
  const wakeAt = (sleepUntil: number, busy: boolean, slackUs = 50): number => {
    let ttwu = -1
    const s = quickScenario({ topology: 1, durationMs: 20, kernel: { hz: 250, timerSlackUs: slackUs }, workloads: [] })
    simulateDetailed(s, 0, 1, {
      configure: (k) => {
        // a hog keeps the CPU busy, so its tick (every 4 ms) runs
        if (busy) k.createTask(testAttrs('hog'), scripted([{ run: 1e9 }]), 0)
        const t = k.createTask(testAttrs('sleeper'), scripted([{ sleepUntil }, { call: () => { ttwu = k.ttwuAt[t] } }, { block: true }], false), 0)
      }
    })
    return ttwu
  }

  it('a tick inside the slack runs the timer: the sleeper wakes at the tick', () => {
    // soft expiry 20 us before the tick at 8 ms, hard expiry 30 us after it
    expect(wakeAt(8 * MS - 20 * US, true)).toBe(8 * MS)
  })

  it('without an interrupt inside the slack, the timer fires at its hard expiry', () => {
    // on an idle CPU the tick is stopped (NOHZ): nothing runs the timer before soft + slack
    const at = wakeAt(8 * MS - 20 * US, false)
    expect(at).toBeGreaterThanOrEqual(8 * MS + 30 * US)
    // between two ticks of a busy CPU as well
    const mid = wakeAt(6 * MS, true)
    expect(mid).toBeGreaterThanOrEqual(6 * MS + 50 * US)
  })

  it('a timer whose soft expiry is after the tick is left for later', () => {
    expect(wakeAt(8 * MS + 10 * US, true)).toBeGreaterThanOrEqual(8 * MS + 60 * US)
  })

  it('the queue is walked in hard-expiry order and stops at the first timer not yet soft-expired', () => {
    const s = quickScenario({ topology: 1, durationMs: 20, kernel: { hz: 250, timerSlackUs: 50 }, workloads: [] })
    const at: Record<string, number> = {}
    simulateDetailed(s, 0, 1, {
      configure: (k) => {
        k.createTask(testAttrs('hog'), scripted([{ run: 1e9 }]), 0)
        const sleeper = (name: string, until: number, slackNs: number): void => {
          const t = k.createTask(testAttrs(name, { timerSlackNs: slackNs }), scripted([{ sleepUntil: until }, { call: () => { at[name] = k.ttwuAt[t] } }, { block: true }], false), 0)
        }
        // A: soft 8 ms - 20 us, hard 8 ms + 30 us; B: soft 8 ms + 10 us, hard 8 ms + 25 us.
        // B is ahead of A in hard order and not soft-expired at the tick: the walk stops
        // there, and A goes with B's interrupt at B's hard expiry.
        sleeper('A', 8 * MS - 20 * US, 50 * US)
        sleeper('B', 8 * MS + 10 * US, 15 * US)
      }
    })
    expect(at.B).toBeGreaterThanOrEqual(8 * MS + 25 * US)
    expect(at.A).toBeGreaterThanOrEqual(8 * MS + 25 * US)
    expect(at.A).toBeLessThan(8 * MS + 30 * US)
  })

  it('no slack, no coalescing', () => {
    expect(wakeAt(8 * MS - 20 * US, true, 0)).toBeGreaterThanOrEqual(8 * MS - 20 * US)
    expect(wakeAt(8 * MS - 20 * US, true, 0)).toBeLessThan(8 * MS)
  })
})
