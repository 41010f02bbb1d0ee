import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { gridProgram as grid, quickScenario, scripted, testAttrs } from '../testing'
import type { Kernel } from '../kernel/sched'
import { ENQUEUE_WAKEUP } from '../kernel/fair'
import { SCHED_FIFO } from '../kernel/api'
import { rb5Spec } from '../kernel/topologies'
import type { FairSched } from '../kernel/sched'
import type { TopologySpec } from '../kernel/topology-types'
import type { VariantResult } from '../../shared/result'

const MS = 1_000_000

interface Run {
  k: Kernel
  result: VariantResult
}

function run(topology: TopologySpec | number, features: Record<string, boolean>, ms: number, setup: (k: Kernel) => void): Run {
  // no timer slack: the scenarios rely on same-instant wakeups of fair and RT tasks
  const s = quickScenario({ topology, durationMs: ms, kernel: { timerSlackUs: 0, features }, workloads: [] })
  const r = simulateDetailed(s, 0, 1, { configure: setup })
  return { k: r.kernel, result: r.result }
}

const latency = (r: Run, name: string) => r.result.tasks.find((t) => t.name === name)!.latencyUs

describe('short-slice-v2/13: push short-slice tasks that were not picked', () => {
  // smp-3: CPU 1 runs a pinned hog, CPU 2 is idle. At 10 ms B (0.5 ms slice) wakes on idle
  // CPU 0 and is enqueued there; an RT task pinned to CPU 0 wakes at the same instant and gets
  // the CPU, so B is not picked.
  const setup = (k: Kernel): void => {
    k.createTask(testAttrs('hog', { cpus: [1] }), scripted([{ run: 1e9 }]), 1)
    k.createTask(testAttrs('B', { sliceNs: 500_000 }), grid(10 * MS, 300_000), 0)
    // created after B's first sleep, so that B's timer fires first
    k.createTask(testAttrs('R', { policy: SCHED_FIFO, rtPriority: 50, cpus: [0], startNs: 1 * MS }), grid(10 * MS, 2 * MS), 0)
  }
  const with13 = { FAIR_PUSH: true, PUSH_SHORT_UNPICKED: true }
  it('is pushed at once to the idle CPU; without the patch it waits behind the RT task (or the next tick)', () => {
    const on = run(3, with13, 15, setup)
    const off = run(3, { FAIR_PUSH: true }, 15, setup)
    expect(on.result.counters?.fairPush).toBe(1)
    expect(on.k.taskCpu[1]).toBe(2)
    expect(latency(on, 'B').max).toBeLessThan(100)
    expect(latency(off, 'B').max).toBeGreaterThan(1500)
  })
  it('FAIR_PUSH alone marks nothing: the run is the baseline\'s', () => {
    const base = run(3, {}, 40, setup).result
    const mech = run(3, { FAIR_PUSH: true }, 40, setup).result
    expect(mech.counters?.fairPush ?? 0).toBe(0)
    expect(JSON.stringify(mech.tasks)).toBe(JSON.stringify(base.tasks))
  })
})

describe('short-slice-v2/12 and /14: push a short-slice wakee that will not run where it landed', () => {
  // smp-8, CPUs 1-5 busy with pinned hogs: the SIS_UTIL budget (3 CPUs) makes B's wakeup scan
  // from CPU 2 give up before the idle CPUs 6, 7, 0, so B (1 ms slice) lands on its CPU 1.
  // B wakes ineligible (negative lag), so it cannot preempt X whatever the slices.
  function setup(xSliceNs: number, negativeLag: boolean) {
    return (k: Kernel): void => {
      k.createTask(testAttrs('X', { cpus: [1], sliceNs: xSliceNs }), scripted([{ run: 1e9 }]), 1)
      for (let c = 2; c <= 5; c++) k.createTask(testAttrs(`h${c}`, { cpus: [c] }), scripted([{ run: 1e9 }]), c)
      const b = k.createTask(testAttrs('B', { sliceNs: 1 * MS }), grid(250 * MS, 300_000, 250 * MS), 1)
      if (negativeLag) k.at(249 * MS, () => { k.vlag[b] = -3 * MS })
    }
  }
  it('12: its slice does not beat the running task\'s (equal slices): pushed to an idle CPU found without the scan budget; 14 does not cover this case', () => {
    const on = run(8, { FAIR_PUSH: true, PUSH_SHORT_WAKEUP: true }, 260, setup(1 * MS, true))
    const off = run(8, { FAIR_PUSH: true, PUSH_SHORT_PREEMPT: true }, 260, setup(1 * MS, true))
    expect(on.result.counters?.fairPush).toBe(1)
    expect([6, 7, 0]).toContain(on.k.taskCpu[6])
    expect(latency(on, 'B').max).toBeLessThan(100)
    expect(off.result.counters?.fairPush ?? 0).toBe(0)
    expect(latency(off, 'B').max).toBeGreaterThan(500)
  })
  it('14: PREEMPT_SHORT applies (1 ms < 2.8 ms) but B is not eligible: pushed; 12 does not cover this case', () => {
    const on = run(8, { FAIR_PUSH: true, PUSH_SHORT_PREEMPT: true }, 260, setup(0, true))
    const off = run(8, { FAIR_PUSH: true, PUSH_SHORT_WAKEUP: true }, 260, setup(0, true))
    expect(on.result.counters?.fairPush).toBe(1)
    expect(latency(on, 'B').max).toBeLessThan(100)
    expect(off.result.counters?.fairPush ?? 0).toBe(0)
    expect(latency(off, 'B').max).toBeGreaterThan(500)
  })
})

describe('short-slice-v2/6-11: the forced push from the tick', () => {
  // smp-2. CPU 0 runs an RT task from 9.5 to 14.5 ms; B (0.5 ms slice) wakes there at 10 ms.
  // CPU 1 runs S (0.3 ms slice) until ~11 ms and a 16 ms-slice hog L: at B's wakeup CPU 1 is no
  // better for B (S's slice is shorter), from 11 ms on it is (only L's 16 ms slice).
  const setup = (k: Kernel): void => {
    k.createTask(testAttrs('L', { cpus: [1], sliceNs: 16 * MS }), scripted([{ run: 1e9 }]), 1)
    k.createTask(testAttrs('S', { cpus: [1], sliceNs: 300_000 }), scripted([{ sleepUntil: 9.5 * MS }, { run: 800_000 }, { block: true }], false), 1)
    k.createTask(testAttrs('B', { sliceNs: 500_000 }), grid(100 * MS, 300_000, 10 * MS), 0)
    k.createTask(testAttrs('R', { policy: SCHED_FIFO, rtPriority: 50, cpus: [0] }), grid(100 * MS, 5 * MS, 9.5 * MS), 0)
  }
  it('a task marked at its wakeup, with no better CPU then, is pushed at the next tick of its CPU', () => {
    const on = run(2, { FAIR_PUSH: true, PUSH_SHORT_WAKEUP: true }, 30, setup)
    const off = run(2, {}, 30, setup)
    expect(on.result.counters?.fairPush).toBe(1)
    // pushed at the 12 ms tick, not when S left (~11 ms) and not after R (14.5 ms)
    expect(latency(on, 'B').max).toBeGreaterThan(1900)
    expect(latency(on, 'B').max).toBeLessThan(2100)
    expect(latency(off, 'B').max).toBeGreaterThan(4400)
  })
})

describe('short-slice-v2/15-18: EAS by OPP cost, and the slice', () => {
  // rb5 with schedutil (EAS on). The little CPUs 0-3 each run a 0.3 ms-slice task 200 us every
  // 5 ms on the same grid as W (1 ms slice, 100 us every 5 ms), woken just before W.
  function placements(features: Record<string, boolean>) {
    const cpus: number[] = []
    let runsFirst = 0
    // TTWU_QUEUE off: the check below reads the target at the activation, which the wake-list
    // IPI would delay past the little tasks' own wakeups
    run(rb5Spec(), { SCHEDUTIL: true, TTWU_QUEUE: false, ...features }, 200, (k) => {
      for (let c = 0; c < 4; c++) k.createTask(testAttrs(`l${c}`, { cpus: [c], sliceNs: 300_000 }), grid(5 * MS, 200_000), c)
      const w = k.createTask(testAttrs('W', { sliceNs: 1 * MS }), grid(5 * MS, 100_000), 0)
      k.onFairEnqueue = (cpu, p, flags) => {
        if (p !== w || !(flags & ENQUEUE_WAKEUP) || k.now < 50 * MS) return
        cpus.push(cpu)
        const fs = k.placement as FairSched
        if (fs.idleCpu(cpu) || k.slice[w] < k.rqMinSlice[cpu]) runsFirst++
      }
    })
    return { cpus, runsFirst }
  }
  it('EAS_COST: the little cluster\'s low OPP is the cheapest per capacity; classic feec keeps W on its mid prev CPU', () => {
    const classic = placements({})
    const cost = placements({ EAS_COST: true })
    expect(classic.cpus.filter((c) => c >= 4).length).toBeGreaterThan(classic.cpus.length * 0.8)
    expect(cost.cpus.length).toBeGreaterThan(20)
    expect(cost.cpus.every((c) => c < 4)).toBe(true)
  })
  it('EAS_SLICE: only CPUs where W runs first, while the cost ranking alone often puts it behind a shorter slice', () => {
    const cost = placements({ EAS_COST: true })
    const slice = placements({ EAS_COST: true, EAS_SLICE: true })
    expect(cost.runsFirst).toBeLessThan(cost.cpus.length * 0.8)
    expect(slice.cpus.length).toBeGreaterThan(20)
    expect(slice.runsFirst).toBe(slice.cpus.length)
  })
})
