import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { quickScenario, scripted, testAttrs } from '../testing'
import { SCHED_FIFO, SCHED_IDLE } from './api'
import type { Scenario } from '../scenario'

const US = 1000

/** `cpus` CPUs for `ms`, no switch, IPI or selection costs; a timer interrupt takes `irqUs`. */
function bare(cpus: number, ms: number, irqUs: number): Scenario {
  return quickScenario({
    topology: cpus, durationMs: ms,
    kernel: { costs: { contextSwitchUs: 0, timerIrqUs: irqUs, coldSwitchUs: 0, ipiUs: 0, selectUs: 0, selectPerCpuUs: 0 } },
    workloads: []
  })
}

describe('progress of a running action', () => {
  it('a stall charged to a running task keeps the work it has done (preempted later, it resumes where it was)', () => {
    // A runs 2 ms of work on one CPU. At 0.5 ms a timer interrupt (1 us) wakes an idle-policy
    // task that does not preempt; at 1 ms an RT task preempts A for 100 us. A is done at
    // 2 ms + 2 interrupts + 100 us: none of the work before the first stall is lost.
    let doneAt = -1
    simulateDetailed(bare(1, 5, 1), 0, 1, {
      configure: (k) => {
        k.createTask(testAttrs('A'), scripted([{ run: 2000 * US }, { call: (kk) => { doneAt = kk.now } }, { block: true }], false), 0)
        k.createTask(testAttrs('C', { policy: SCHED_IDLE, timerSlackNs: 0 }), scripted([{ sleepUntil: 500 * US }, { block: true }], false), 0)
        k.createTask(testAttrs('B', { policy: SCHED_FIFO, rtPriority: 50 }), scripted([{ sleepUntil: 1000 * US }, { run: 100 * US }, { block: true }], false), 0)
      }
    })
    expect(doneAt).toBe(2102 * US)
  })
})

describe('a coalesced batch that goes on longer (extendRun)', () => {
  it('ends where the same batch planned whole would: the work done before the extension is kept', () => {
    // A runs 100 operations of 1 us as one batch (runOps) on CPU 0; B, on CPU 1, adds 2 more
    // while one of them is in flight. A's next step comes 102 us after its first.
    let startAt = -1
    let doneAt = -1
    let left = -1
    let a = -1
    simulateDetailed(bare(2, 1, 0), 0, 1, {
      configure: (k) => {
        let steps = 0
        a = k.createTask(testAttrs('A', { cpus: [0] }), {
          step: (t, kk) => {
            if (steps++ === 0) {
              startAt = kk.now
              return kk.runOps(t, 100, 1 * US)
            }
            doneAt = kk.now
            kk.block(t)
          }
        }, 0)
        k.createTask(testAttrs('B', { cpus: [1], policy: SCHED_FIFO, rtPriority: 50 }), scripted([{ sleepUntil: 2500 }, { call: (kk) => { left = kk.runLeft(a); kk.extendRun(a, 2 * US) } }, { block: true }], false), 1)
      }
    })
    expect(left).toBeGreaterThan(0)
    expect(left % US).not.toBe(0)
    expect(doneAt - startAt).toBe(102 * US)
  })
})
