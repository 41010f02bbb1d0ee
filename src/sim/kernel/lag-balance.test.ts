import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { quickScenario } from '../testing'

/**
 * The lag balance of a periodic task against 2 hogs on one CPU (docs/model.md, "Cyclictest
 * waiting milliseconds behind hogs"): a wait of T behind the hogs gives the task T/3 of lag, a
 * run of d takes 2d/3, so it waits long (until a tick ends a hog's slice) about once per T/(2d)
 * periods. A task that runs longer per period waits long more often: a 2-vCPU TCG guest, which
 * charges its vCPU pauses to cyclictest, is such a task.
 */
function run(runUs: number) {
  const s = quickScenario({
    topology: 1,
    durationMs: 4000,
    kernel: { hz: 250, profile: '6.12', baseSliceUs: 700 },
    workloads: [
      { type: 'hog', name: 'hog', count: 2 },
      { type: 'periodic', name: 'ct', runUs, periodUs: 2777, delayUs: 300000 }
    ]
  })
  return simulate(s, 0, 1).workloads[1].latencyUs
}

describe('lag balance against hogs', () => {
  it('a task that runs briefly waits long rarely: beyond p90, and the waits are a tick long', () => {
    const l = run(20)
    expect(l.p90).toBeLessThan(200)
    expect(l.max).toBeGreaterThan(1000)
    expect(l.max).toBeLessThan(2 * 4000 + 700)
  })
  it('a task that runs d per period waits 2d per period on average: at 0.5 ms, long waits reach p90', () => {
    for (const d of [300, 500]) {
      const l = run(d)
      expect(l.avg).toBeGreaterThan(1.5 * d)
      expect(l.avg).toBeLessThan(3 * d)
      expect(l.p90).toBeGreaterThan(1000)
    }
  })
})
