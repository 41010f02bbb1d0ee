import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { quickScenario, scripted, testAttrs } from '../testing'
import { DEFAULT_COSTS } from './config'
import { SCHED_FIFO } from './api'

const MS = 1_000_000

describe('TTWU_QUEUE: remote wakeups through the target CPU\'s wake list', () => {
  // A on CPU 0 wakes B, which sleeps on idle CPU 1, at 10 ms
  function run(on: boolean) {
    const seen: { onRqAtWake?: number; pending?: number; idle?: boolean; onRqAfterIpi?: number; bCpu?: number } = {}
    simulateDetailed(quickScenario({ topology: 2, durationMs: 30, kernel: { features: { TTWU_QUEUE: on } }, workloads: [] }), 0, 1, {
      configure(k) {
        const b = k.createTask(testAttrs('B', { cpus: [1] }), scripted([{ block: true }, { run: 100_000 }, { block: true }], false), 1)
        k.createTask(testAttrs('A', { cpus: [0] }), scripted([{ sleepUntil: 10 * MS }, {
          call: (kk) => {
            kk.wake(b, 0)
            seen.onRqAtWake = k.onRq[b]
            seen.pending = k.ttwuPending[1]
            seen.idle = k.idleCpu(1)
            // after the IPI and CPU 1's idle exit (at most 50 us with the default states)
            k.at(k.now + DEFAULT_COSTS.ipiNs + 60_000, () => { seen.onRqAfterIpi = k.onRq[b]; seen.bCpu = k.taskCpu[b] })
          }
        }, { run: 50_000 }, { block: true }], false), 0)
      }
    })
    return seen
  }
  it('on: the wakee is activated by the target\'s IPI and the target is not idle meanwhile', () => {
    const s = run(true)
    expect(s.onRqAtWake).toBe(0)
    expect(s.pending).toBe(1)
    expect(s.idle).toBe(false)
    expect(s.onRqAfterIpi).toBe(1)
    expect(s.bCpu).toBe(1)
  })
  it('off: the waker enqueues it at once', () => {
    const s = run(false)
    expect(s.onRqAtWake).toBe(1)
    expect(s.pending).toBe(0)
    expect(s.onRqAfterIpi).toBe(1)
  })
})

describe('RT_PUSH_IPI', () => {
  // CPU 1 runs a FIFO 20 task and has FIFO 10 waiting; the FIFO 30 task on CPU 0 blocks at 5 ms,
  // so CPU 0's priority drops and the waiting FIFO 10 task should come over
  function run(on: boolean) {
    const r = simulateDetailed(quickScenario({ topology: 2, durationMs: 20, kernel: { features: { RT_PUSH_IPI: on } }, workloads: [] }), 0, 1, {
      configure(k) {
        k.createTask(testAttrs('hi', { policy: SCHED_FIFO, rtPriority: 30, cpus: [0] }), scripted([{ run: 5 * MS }, { block: true }], false), 0)
        k.createTask(testAttrs('mid', { policy: SCHED_FIFO, rtPriority: 20, cpus: [1] }), scripted([{ run: 1e9 }]), 1)
        k.createTask(testAttrs('low', { policy: SCHED_FIFO, rtPriority: 10, startNs: 1 * MS }), scripted([{ run: 1e9 }]), 1)
      }
    })
    return r
  }
  for (const on of [true, false]) {
    it(`${on ? 'on: the overloaded CPU pushes after an IPI' : 'off: the CPU pulls'}; the waiting task moves either way`, () => {
      const r = run(on)
      const low = r.result.tasks.find((t) => t.name === 'low')!
      expect(low.lastCpu).toBe(0)
      expect(low.cpuTimeMs).toBeGreaterThan(14)
      expect(r.result.counters?.[on ? 'rtPushIpi' : 'rtPull']).toBeGreaterThanOrEqual(1)
    })
  }
})
