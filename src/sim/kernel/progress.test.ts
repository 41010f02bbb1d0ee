import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { quickScenario, scripted, testAttrs } from '../testing'
import { SCHED_FIFO, SCHED_IDLE } from './api'

const US = 1000

describe('progress of a running action', () => {
  it('a stall charged to a running task keeps the work it has done (preempted later, it resumes where it was)', () => {
    // A runs 2 ms of work on one CPU. At 0.5 ms a timer interrupt (1 us) wakes an idle-policy
    // task that does not preempt; at 1 ms an RT task preempts A for 100 us. A is done at
    // 2 ms + 2 interrupts + 100 us: none of the work before the first stall is lost.
    let doneAt = -1
    const s = quickScenario({
      topology: 1, durationMs: 5,
      kernel: { costs: { contextSwitchUs: 0, timerIrqUs: 1, coldSwitchUs: 0, ipiUs: 0, selectUs: 0, selectPerCpuUs: 0 } },
      workloads: []
    })
    simulateDetailed(s, 0, 1, {
      configure: (k) => {
        k.createTask(testAttrs('A'), scripted([{ run: 2000 * US }, { call: (kk) => { doneAt = kk.now } }, { block: true }], false), 0)
        k.createTask(testAttrs('C', { policy: SCHED_IDLE, timerSlackNs: 0 }), scripted([{ sleepUntil: 500 * US }, { block: true }], false), 0)
        k.createTask(testAttrs('B', { policy: SCHED_FIFO, rtPriority: 50 }), scripted([{ sleepUntil: 1000 * US }, { run: 100 * US }, { block: true }], false), 0)
      }
    })
    expect(doneAt).toBe(2102 * US)
  })
})
