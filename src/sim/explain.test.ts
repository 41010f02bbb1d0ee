import { describe, expect, it } from 'vitest'
import { explainIdleEvent, explainSample, ExplainError, type ExplainResult } from './explain'
import { parseScenario } from './scenario'
import { quickScenario } from './testing'
import type { Scenario } from './scenario/types'

function scenario(obj: object): Scenario {
  return parseScenario(JSON.stringify(obj), 'micro.json', {})
}

function codes(e: ExplainResult): string[] {
  return e.decisions.map((d) => d.code)
}

/**
 * Three micro-scenarios whose cause is known by construction; the explanation of their worst
 * sample must name it with the documented reason codes.
 */
describe('explain: reason codes of known causes', () => {
  it('a protected slice without PREEMPT_SHORT: the short-slice task waits out the running hog', () => {
    // the PREEMPT_SHORT test's setup (src/sim/kernel/preempt-short.test.ts) with the feature off
    const s = quickScenario({
      topology: 1, durationMs: 400,
      kernel: { hz: 1000, timerSlackUs: 0, features: { PREEMPT_SHORT: false } },
      workloads: [
        { type: 'hog', name: 'hog', count: 2, sliceUs: 2800 },
        { type: 'periodic', name: 'short', runUs: 50, periodUs: 3777, sliceUs: 100 }
      ]
    })
    const e = explainSample({ scenario: s, variantIndex: 0, seed: 1, workload: 'short', sample: 'max' })
    expect(e.sample.task).toBe('short-0')
    expect(e.sample.latencyUs).toBeGreaterThan(100)
    expect(codes(e)).toContain('WAKEUP_PROTECTED_NO_SHORT')
    expect(e.cause).toBe('WAKEUP_PROTECTED_NO_SHORT')
    expect(e.summary).toMatch(/PREEMPT_SHORT is off/)
    expect(e.summary).toMatch(/protected until/)
    // with PREEMPT_SHORT the same wakeups preempt at once, and say so
    const on = explainSample({ scenario: { ...s, kernel: { ...s.kernel, features: { PREEMPT_SHORT: true } } }, variantIndex: 0, seed: 1, workload: 'short', sample: 'max' })
    expect(on.sample.latencyUs).toBeLessThan(100)
    expect(codes(on).some((c) => c === 'WAKEUP_PREEMPT_SHORT' || c === 'WAKEUP_IDLE_CPU')).toBe(true)
  })

  it('an RT task running on the CPU: the fair wakee cannot preempt it', () => {
    const s = quickScenario({
      topology: 1, durationMs: 300,
      kernel: { hz: 250, timerSlackUs: 0 },
      workloads: [
        { type: 'hog', name: 'hog', count: 1 },
        { type: 'periodic', name: 'rt', policy: 'fifo', priority: 50, runUs: 2000, periodUs: 10_000 },
        { type: 'periodic', name: 'fair', runUs: 50, periodUs: 3333, delayUs: 500, sliceUs: 100 }
      ]
    })
    const e = explainSample({ scenario: s, variantIndex: 0, seed: 1, workload: 'fair', sample: 'max' })
    expect(e.sample.latencyUs).toBeGreaterThan(500)
    expect(codes(e)).toContain('WAKEUP_FAIR_UNDER_RT')
    expect(e.cause).toBe('WAKEUP_FAIR_UNDER_RT')
    expect(e.summary).toMatch(/SCHED_FIFO 50/)
    // and the RT task's own wakeups preempt the fair one (RT before fair)
    const r = explainSample({ scenario: s, variantIndex: 0, seed: 1, workload: 'rt', sample: 'max' })
    expect(r.sample.latencyUs).toBeLessThan(50)
    expect(codes(r)).toContain('WAKEUP_RT_PREEMPTS_FAIR')
  })

  it('a wakeup placed on a busy CPU by wake_affine', () => {
    // wakers pinned to CPU 0 and CPU 1 (RT, beside a hog each) take turns waking one fair task:
    // its previous CPU is always the other one, and both CPUs are busy. DELAY_DEQUEUE off: a
    // task woken while still queued as sched_delayed is requeued in place, without selection
    const s = scenario({
      name: 'wake_affine onto a busy CPU', topology: 'smp-2', durationMs: 200, kernel: { hz: 250, timerSlackUs: 0, features: { DELAY_DEQUEUE: false } },
      workloads: [
        { type: 'hog', name: 'hog0', count: 1, cpus: [0] },
        { type: 'hog', name: 'hog1', count: 1, cpus: [1] },
        { type: 'rt-app', name: 'app', tasks: {
          waker0: { cpus: [0], policy: 'SCHED_FIFO', priority: 50, loop: -1, run: 100, resume: 'wakee', timer: { ref: 't0', period: 5000 } },
          waker1: { cpus: [1], policy: 'SCHED_FIFO', priority: 50, loop: -1, delay: 2500, run: 100, resume: 'wakee', timer: { ref: 't1', period: 5000 } },
          wakee: { loop: -1, suspend: 'wakee', run: 50 }
        } }
      ]
    })
    const e = explainSample({ scenario: s, variantIndex: 0, seed: 1, workload: 'app', sample: 'max' })
    expect(e.sample.task).toMatch(/wakee/)
    expect(codes(e)).toContain('SIS_WAKE_AFFINE_BUSY')
    expect(codes(e)).toContain('MIGRATE_WAKEUP')
    expect(e.summary).toMatch(/wake_affine chose the waker.s CPU/)
  })
})

describe('explain: preemption models', () => {
  const s = (preempt: string): Scenario => scenario({
    name: 'rt under hackbench syscalls', topology: 'smp-1', durationMs: 60, kernel: { hz: 250, preempt },
    workloads: [
      { type: 'hackbench', name: 'hb', groups: 1, mode: 'thread', ipc: 'pipe', loops: 100, repeat: true },
      { type: 'periodic', name: 'rt', policy: 'fifo', priority: 50, runUs: 100, periodUs: 1000 }
    ]
  })
  it('preempt=none: the RT wakee waits out the kernel section of a hackbench syscall', () => {
    const e = explainSample({ scenario: s('none'), variantIndex: 0, seed: 1, workload: 'rt', sample: 'max' })
    const c = codes(e)
    expect(c).toContain('WAKEUP_RT_PREEMPTS_FAIR')
    expect(c).toContain('RESCHED_KERNEL_SECTION')
    expect(c.indexOf('PREEMPT_POINT')).toBeGreaterThan(c.indexOf('RESCHED_KERNEL_SECTION'))
    expect(e.causes.map((x) => x.code)).toContain('RESCHED_KERNEL_SECTION')
  })
  it('preempt=full: the same wakeups preempt the kernel code at once', () => {
    const e = explainSample({ scenario: s('full'), variantIndex: 0, seed: 1, workload: 'rt', sample: 'max' })
    expect(codes(e)).not.toContain('RESCHED_KERNEL_SECTION')
  })
})

describe('explain: unreasonable idle', () => {
  it('explains an idle CPU beside a waiting task: the period, the task, the balance attempts', () => {
    const s = scenario({
      // a fair task behind an RT hog on CPU 1 waits until CPU 1's balance notices the RT
      // pressure, while CPU 0 idles (unreasonable-idle.test.ts)
      name: 'idle', topology: 'smp-2', durationMs: 60, kernel: { hz: 250 },
      workloads: [
        { type: 'hog', name: 'rt', policy: 'fifo', priority: 50, cpus: [1] },
        { type: 'hog', name: 'fair', startCpu: 1 }
      ]
    })
    const e = explainIdleEvent({ scenario: s, variantIndex: 0, seed: 1, bucket: '4ms+', index: 0 })
    expect(e.idle).toBeDefined()
    const idle = e.idle!
    expect(idle.endNs - idle.startNs).toBeGreaterThan(4_000_000)
    expect(e.sample.cpu).toBe(idle.cpu)
    expect(e.sample.task).toBe(idle.task)
    expect(idle.waitingSinceNs).toBeLessThanOrEqual(idle.startNs)
    expect(e.summary).toMatch(new RegExp(`CPU ${idle.cpu} was idle for`))
    expect(e.timeline.map((l) => l.cpu)).toContain(idle.cpu)
    expect(e.timeline.find((l) => l.cpu === idle.cpu)!.idle.length).toBeGreaterThan(0)
    expect(['IDLE_NO_BALANCE', 'LB_BALANCED', 'LB_NOTHING_MOVED', 'LB_ALL_PINNED', 'LB_ONE_PINNED', 'LB_MOVED']).toContain(e.cause)
    expect(() => explainIdleEvent({ scenario: s, variantIndex: 0, seed: 1, bucket: '4ms+', index: 99 })).toThrow(/unreasonable-idle event/)
  })
})

describe('explain', () => {
  const s = quickScenario({
    topology: 2, durationMs: 200, kernel: { hz: 250 },
    workloads: [
      { type: 'hog', name: 'hog', count: 3 },
      { type: 'periodic', name: 'p', count: 2, runUs: 300, periodUs: 2000 }
    ]
  })

  it('gives the contract JSON: sample, timeline of the CPUs involved, decisions with codes and text', () => {
    const e = explainSample({ scenario: s, variantIndex: 0, seed: 3, workload: 'p', sample: 'p99', allCpus: true })
    expect(Object.keys(e.sample).sort()).toEqual(['cpu', 'index', 'latencyUs', 'ranNs', 'readyNs', 'task'])
    expect(e.sample.ranNs - e.sample.readyNs).toBeCloseTo(e.sample.latencyUs * 1000, 0)
    expect(e.timeline.map((l) => l.cpu)).toEqual(e.cpus)
    expect(e.timeline.map((l) => l.cpu)).toContain(e.sample.cpu)
    for (const lane of e.lanes!) {
      for (const sl of lane.slices) expect(sl.endNs).toBeGreaterThan(sl.startNs)
      // slices on one CPU never overlap
      for (let i = 1; i < lane.slices.length; i++) expect(lane.slices[i].startNs).toBeGreaterThanOrEqual(lane.slices[i - 1].endNs)
    }
    // the task runs on its CPU's lane from the sample's switch on
    const lane = e.timeline.find((l) => l.cpu === e.sample.cpu)!
    expect(lane.slices.some((sl) => sl.task === e.sample.task && sl.startNs <= e.sample.ranNs && sl.endNs > e.sample.ranNs)).toBe(true)
    expect(e.decisions.length).toBeGreaterThan(0)
    for (const d of e.decisions) {
      expect(d.atNs).toBeGreaterThanOrEqual(e.window.startNs)
      expect(d.text.length).toBeGreaterThan(10)
      expect(d.code).toMatch(/^[A-Z][A-Z0-9_]+$/)
    }
    expect(e.decisions[e.decisions.length - 1].code).toBe('LATENCY')
    expect(e.causes.reduce((a, c) => a + c.ns, 0)).toBeCloseTo(e.sample.ranNs - e.sample.readyNs, 0)
    // each cause says when it first held the task up: the first at its readiness, all inside the wait
    const starts = e.causes.map((c) => c.fromNs!).sort((a, b) => a - b)
    expect(starts[0]).toBe(e.sample.readyNs)
    for (const f of starts) expect(f).toBeLessThan(e.sample.ranNs)
  })

  it('finds the same sample by index as by max, and refuses what does not exist', () => {
    const max = explainSample({ scenario: s, variantIndex: 0, seed: 3, workload: 'p', sample: 'max' })
    const byIndex = explainSample({ scenario: s, variantIndex: 0, seed: 3, workload: 'p', sample: max.sample.index })
    expect(byIndex.sample).toEqual(max.sample)
    expect(() => explainSample({ scenario: s, variantIndex: 0, seed: 3, workload: 'nope', sample: 'max' })).toThrow(ExplainError)
    expect(() => explainSample({ scenario: s, variantIndex: 0, seed: 3, workload: 'p', sample: 1e9 })).toThrow(/samples/)
  })
})
