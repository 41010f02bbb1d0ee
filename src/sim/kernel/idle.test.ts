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

describe('the idle loop exit (idleExitUs)', () => {
  const run = (idleExitUs: number, hog: boolean, policy: 'other' | 'fifo') => {
    const s = quickScenario({
      topology: { name: 'one', clusters: [{ name: 'c', cpus: 1, capacity: 1024, idleStates: [{ name: 'HLT', exitLatencyUs: 1, targetResidencyUs: 1 }] }], costs: { idleExitUs, timerIrqTailUs: 3 } },
      durationMs: 1000,
      kernel: { timerSlackUs: 0 },
      workloads: [
        { type: 'periodic', name: 'p', runUs: 20, periodUs: 1000, policy, ...(policy === 'fifo' ? { priority: 50 } : {}) },
        ...(hog ? [{ type: 'hog', name: 'hog', count: 1, nice: 19 }] : [])
      ]
    })
    const r = simulate(s, 0, 1)
    return { p50: r.workloads[0].latencyUs.p50, wake: r.workloads[0].wakeupLatencyUs!.p50 }
  }
  it('delays a task woken on an idle CPU between sched_waking and its switch-in, and nothing on a busy CPU', () => {
    for (const policy of ['other', 'fifo'] as const) {
      const idle0 = run(0, false, policy)
      const idle5 = run(5, false, policy)
      const busy0 = run(0, true, policy)
      const busy5 = run(5, true, policy)
      // sched_waking -> running: the interrupt's tail, the idle exit, the switch
      expect(idle5.wake - idle0.wake).toBeCloseTo(5, 1)
      expect(idle5.p50 - idle0.p50).toBeCloseTo(5, 1)
      // a CPU running a task when the timer fires leaves no idle loop
      expect(busy5.wake).toBe(busy0.wake)
      expect(busy5.p50).toBe(busy0.p50)
    }
  })
})

describe('the timer interrupt tail under lazy preemption', () => {
  it('delays the switch the interrupt exit makes for a lazy reschedule as for a full one', () => {
    // a fair task woken by its timer on a CPU running a user-mode nice-19 hog preempts it at the
    // interrupt's exit to user mode (TIF_NEED_RESCHED_LAZY is acted on there too), after the tail
    const wake = (preempt: 'voluntary' | 'lazy') => {
      const s = quickScenario({
        topology: { name: 'one', clusters: [{ name: 'c', cpus: 1, capacity: 1024 }], costs: { timerIrqTailUs: 6, contextSwitchUs: 4 } },
        durationMs: 500,
        kernel: { timerSlackUs: 0, preempt },
        workloads: [{ type: 'periodic', name: 'p', runUs: 20, periodUs: 1000 }, { type: 'hog', name: 'hog', count: 1, nice: 19 }]
      })
      return simulate(s, 0, 1).workloads[0].wakeupLatencyUs!.p50
    }
    expect(wake('lazy')).toBeCloseTo(10, 0)
    expect(wake('lazy')).toBe(wake('voluntary'))
  })
})
