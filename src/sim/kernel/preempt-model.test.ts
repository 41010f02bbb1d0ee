import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { gridProgram, quickScenario, scripted, testAttrs } from '../testing'
import type { PreemptModelName } from './features'
import { SCHED_FIFO } from './api'

const US = 1000
const MS = 1_000_000

/**
 * One CPU. A "kthread" alternates 2 ms of kernel work without preemption points (or with a
 * might_resched() point every 100 us) and 1 ms of sleep; a FIFO task wakes on a timer every
 * 1.777 ms. A preemptible kernel (full, lazy) switches to it at once; preempt none waits for
 * the end of the section; voluntary for the next might_resched() point.
 */
function kernelSection(preempt: PreemptModelName, pointEvery = 0) {
  const r = simulateDetailed(quickScenario({ topology: 1, durationMs: 600, kernel: { preempt, timerSlackUs: 0 }, workloads: [] }), 0, 1, {
    configure(k) {
      // wakeups in the kthread's sleeps find the CPU idle: keep its idle exit short (PM QoS)
      k.cpuLatencyQosNs = 0
      k.createTask(testAttrs('kthread', { recordLatency: false }), scripted([{ runKernel: 2 * MS, pointEvery }, { sleep: 1 * MS }]), 0)
      k.createTask(testAttrs('rt', { policy: SCHED_FIFO, rtPriority: 50 }), gridProgram(1777 * US, 20 * US, 1777 * US), 0)
    }
  })
  return r.kernel.latency[1]
}

/**
 * One CPU, HZ 250: a fair task with a 0.1 ms slice wakes on a timer every 2.777 ms while a
 * 2.8 ms-slice fair task runs (user code, or kernel code for `kernel`). PREEMPT_SHORT makes
 * the wakeup preempt (resched_curr_lazy).
 */
function fairWakeup(preempt: PreemptModelName, kernel: boolean) {
  const hog = kernel ? { runKernel: 50 * MS } : { run: 50 * MS }
  const r = simulateDetailed(quickScenario({ topology: 1, durationMs: 600, kernel: { preempt, timerSlackUs: 0 }, workloads: [] }), 0, 1, {
    configure(k) {
      k.createTask(testAttrs('hog', { recordLatency: false, sliceNs: 2.8 * MS }), scripted([hog]), 0)
      k.createTask(testAttrs('short', { sliceNs: 100 * US }), gridProgram(2777 * US, 20 * US, 2777 * US), 0)
    }
  })
  return r.kernel.latency[1]
}

describe('kernel.preempt: none and voluntary wait out kernel sections', () => {
  it('full: an RT wakeup preempts kernel code at once', () => {
    const l = kernelSection('full')
    expect(l.count).toBeGreaterThan(300)
    expect(l.max / 1000).toBeLessThan(30)
  })
  it('none: it waits for the end of the 2 ms section', () => {
    const l = kernelSection('none')
    expect(l.count).toBeGreaterThan(300)
    expect(l.max / 1000).toBeGreaterThan(1500)
    expect(l.max / 1000).toBeLessThan(2050)
  })
  it('voluntary: it waits for the next might_resched() point (every 100 us)', () => {
    const none = kernelSection('voluntary')
    expect(none.max / 1000).toBeGreaterThan(1500) // no points: as none
    const l = kernelSection('voluntary', 100 * US)
    expect(l.max / 1000).toBeGreaterThan(50)
    expect(l.max / 1000).toBeLessThan(130)
  })
  it('none: user code is preempted at once', () => {
    const l = fairWakeup('none', false)
    expect(l.count).toBeGreaterThan(150)
    expect(l.max / 1000).toBeLessThan(30)
  })
})

describe('kernel.preempt: lazy (PREEMPT_LAZY)', () => {
  it('a lazy reschedule raised by an interrupt is acted on at its exit to user mode', () => {
    const l = fairWakeup('lazy', false)
    expect(l.count).toBeGreaterThan(150)
    expect(l.max / 1000).toBeLessThan(30)
  })
  it('kernel code is not preempted by it: the tick upgrades it', () => {
    const l = fairWakeup('lazy', true)
    // waits for the next tick (4 ms at HZ 250), never longer
    expect(l.percentile(50) / 1000).toBeGreaterThan(300)
    expect(l.max / 1000).toBeLessThan(4000 + 30)
    const none = fairWakeup('none', true)
    // none waits for the whole 50 ms kernel section, or its slice end, whichever is noticed
    expect(none.max / 1000).toBeGreaterThan(4100)
  })
  it('a remote CPU gets no IPI: the wakee waits for that CPU\'s tick or its next syscall', () => {
    function run(preempt: PreemptModelName) {
      const r = simulateDetailed(quickScenario({ topology: 2, durationMs: 400, kernel: { preempt, timerSlackUs: 0, features: { TTWU_QUEUE: false } }, workloads: [] }), 0, 1, {
        configure(k) {
          k.createTask(testAttrs('hog', { recordLatency: false, sliceNs: 2.8 * MS, cpus: [0] }), scripted([{ run: 50 * MS }]), 0)
          const wakee = k.createTask(testAttrs('wakee', { sliceNs: 100 * US, cpus: [0] }), scripted([{ block: true }, { run: 20 * US }]), 0)
          // the waker on CPU 1 wakes it every 2.777 ms
          k.createTask(testAttrs('waker', { recordLatency: false, cpus: [1] }), scripted([{ sleep: 2777 * US }, { wake: () => wakee }, { run: 10 * US }]), 1)
        }
      })
      return r.kernel.latency[1]
    }
    const full = run('full')
    const lazy = run('lazy')
    expect(full.count).toBeGreaterThan(100)
    expect(full.max / 1000).toBeLessThan(30)
    expect(lazy.count).toBeGreaterThan(100)
    expect(lazy.percentile(50) / 1000).toBeGreaterThan(300)
    expect(lazy.max / 1000).toBeLessThan(4000 + 30)
  })
})
