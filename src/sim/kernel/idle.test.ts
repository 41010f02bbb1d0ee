import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { quickScenario } from '../testing'
import { DEFAULT_COSTS } from './config'

describe('idle states and modeled wakeup costs', () => {
  it('a periodic task alone on an idle CPU sees timer slack + idle exit + timer interrupt + context switch', () => {
    const states = [
      { name: 'WFI', exitLatencyUs: 2, targetResidencyUs: 1 },
      { name: 'core-off', exitLatencyUs: 80, targetResidencyUs: 800 },
      { name: 'cluster-off', exitLatencyUs: 300, targetResidencyUs: 5000 }
    ]
    for (const [capacity, periodUs, expectState, slackUs] of [[1024, 3777, 1, 0], [512, 3777, 1, 0], [1024, 20000, 2, 0], [1024, 600, 0, 0], [1024, 3777, 1, 50], [512, 3777, 1, 50]] as const) {
      const s = quickScenario({
        topology: { name: 'one', clusters: [{ name: 'c', cpus: 1, capacity, idleStates: states }] },
        durationMs: 2000,
        kernel: { timerSlackUs: slackUs },
        workloads: [{ type: 'periodic', name: 'p', runUs: 20, periodUs }]
      })
      const l = simulate(s, 0, 1).workloads[0].latencyUs
      const cpuCost = (DEFAULT_COSTS.timerIrqWorkNs + DEFAULT_COSTS.contextSwitchWorkNs) / 1000 * (1024 / capacity)
      // after the governor has learnt the idle duration, every wakeup pays the same
      // a fair task's hrtimer fires its timer slack late; latency counts from the requested time
      const expected = slackUs + states[expectState].exitLatencyUs + cpuCost
      expect(Math.abs(l.p50 - expected)).toBeLessThanOrEqual(expected * 0.01)
      expect(l.p90).toBe(l.p50)
    }
  })
})
