import { describe, expect, it } from 'vitest'
import { simulate, simulateDetailed } from '../index'
import { quickScenario, scripted, testAttrs } from '../testing'
import type { Kernel } from '../kernel/sched'
import { cfsRqMinSlice, ENQUEUE_WAKEUP } from '../kernel/fair'
import { rb5Spec } from '../kernel/topologies'
import type { TopologySpec } from '../kernel/topology-types'
import type { VariantResult } from '../../shared/result'
import type { FairSched } from '../kernel/sched'
import { selectSliceCpu } from '../kernel/select'

const MS = 1_000_000

/** Run `setup` on a fresh kernel; returns the CPU each wakeup of task `w()` was enqueued on, with its previous CPU. */
function wakeups(
  topology: TopologySpec | number, features: Record<string, boolean>, ms: number,
  setup: (k: Kernel) => number
): { prev: number; cpu: number }[] {
  const out: { prev: number; cpu: number }[] = []
  const s = quickScenario({ topology, durationMs: ms, kernel: { features }, workloads: [] })
  simulateDetailed(s, 0, 1, {
    configure: (k) => {
      const w = setup(k)
      let prev = -1
      const inner = k.onFairEnqueue
      k.onFairEnqueue = (cpu, p, flags) => {
        inner?.(cpu, p, flags)
        if (p === w && flags & ENQUEUE_WAKEUP) out.push({ prev, cpu })
      }
      const wake = k.tryToWakeUp.bind(k)
      k.tryToWakeUp = (p, f, from) => {
        if (p === w) prev = k.taskCpu[w]
        return wake(p, f, from)
      }
    }
  })
  return out
}

/** The most frequent value. */
function mode(xs: number[]): number {
  const n = new Map<number, number>()
  for (const x of xs) n.set(x, (n.get(x) ?? 0) + 1)
  return [...n.entries()].sort((a, b) => b[1] - a[1])[0][0]
}

function withoutWall(r: VariantResult): string {
  return JSON.stringify({ ...r, stats: { ...r.stats, wallMs: 0 } })
}

describe('short-slice-v1/6: the per-CPU cached min slice', () => {
  it('equals cfs_rq_min_slice (curr included) after every enqueue and dequeue, Infinity when empty, and changes nothing alone', () => {
    const s = quickScenario({
      topology: 2,
      durationMs: 200,
      variants: [{ name: 'base' }, { name: '6/8', patches: ['short-slice-v1/6'] }],
      workloads: [
        { type: 'periodic', name: 'a', count: 3, runUs: 700, periodUs: 3100, sliceUs: 400 },
        { type: 'periodic', name: 'b', count: 2, runUs: 2500, periodUs: 6100, sliceUs: 9000 },
        { type: 'hog', name: 'h', count: 1, sliceUs: 3000 }
      ]
    })
    let checks = 0
    let emptySeen = false
    const r = simulateDetailed(s, 1, 1, {
      configure: (k) => {
        const check = (): void => {
          for (let c = 0; c < k.ncpus; c++) {
            expect(k.rqMinSlice[c]).toBe(cfsRqMinSlice(k, c))
            if (k.cfsNrQueued[c] === 0) {
              expect(k.rqMinSlice[c]).toBe(Infinity)
              emptySeen = true
            }
            checks++
          }
        }
        k.onFairEnqueue = check
        const deact = k.deactivateTask.bind(k)
        k.deactivateTask = (cpu, p, flags) => {
          const done = deact(cpu, p, flags)
          check()
          return done
        }
      }
    })
    expect(checks).toBeGreaterThan(500)
    expect(emptySeen).toBe(true)
    expect(withoutWall(r.result)).toBe(withoutWall(simulate(s, 0, 1)).replace('"name":"base"', '"name":"6/8"'))
  })
})

describe('short-slice-v1/7: wake_affine_slice', () => {
  // CPU 1 runs three 16 ms-slice hogs; the waker on CPU 0 wakes W (1 ms slice) whose previous
  // CPU is 1. WA_WEIGHT prefers the lightly loaded waker CPU; W's slice would preempt on prev.
  const setup = (k: Kernel): number => {
    for (let i = 0; i < 3; i++) k.createTask(testAttrs(`long${i}`, { cpus: [1], sliceNs: 16 * MS }), scripted([{ run: 1e9 }]), 1)
    let w = -1
    k.createTask(testAttrs('waker', { cpus: [0] }), scripted([{ run: 200_000 }, { wake: () => w }, { sleep: 5 * MS }]), 0)
    w = k.createTask(testAttrs('W', { sliceNs: 1 * MS }), scripted([{ run: 100_000 }, { block: true }]), 1)
    return w
  }
  it('picks the previous CPU when its running slice is longer than the wakee\'s; WA_WEIGHT picks the waker\'s CPU without it', () => {
    const off = wakeups(2, {}, 60, setup).filter((e) => e.prev === 1)
    const on = wakeups(2, { SS7_WAKE_AFFINE_SLICE: true }, 60, setup).filter((e) => e.prev === 1)
    expect(off.length).toBeGreaterThanOrEqual(1)
    expect(on.length).toBeGreaterThanOrEqual(3)
    for (const e of off) expect(e.cpu).toBe(0)
    for (const e of on) expect(e.cpu).toBe(1)
  })
  it('needs PREEMPT_SHORT', () => {
    const on = wakeups(2, { SS7_WAKE_AFFINE_SLICE: true, PREEMPT_SHORT: false }, 60, setup).filter((e) => e.prev === 1)
    for (const e of on) expect(e.cpu).toBe(0)
  })
})

describe('short-slice-v1/8, alt-slice-track, short-slice-v2/5: a CPU where the wakee runs first when none is idle', () => {
  // smp-4, every CPU busy: CPU 0 the waker (0.5 ms slice), CPU 1 a 0.5 ms-slice hog, CPU 2 a
  // 16 ms-slice hog, CPU 3 a 32 ms-slice hog. W has a 2 ms slice. SIS_UTIL is off (as in the
  // v2 cover letter's test): with it, the busy LLC has no scan budget and nothing is scanned.
  const setup = (k: Kernel): number => {
    k.createTask(testAttrs('short', { cpus: [1], sliceNs: 500_000 }), scripted([{ run: 1e9 }]), 1)
    k.createTask(testAttrs('long16', { cpus: [2], sliceNs: 16 * MS }), scripted([{ run: 1e9 }]), 2)
    k.createTask(testAttrs('long32', { cpus: [3], sliceNs: 32 * MS }), scripted([{ run: 1e9 }]), 3)
    let w = -1
    k.createTask(testAttrs('waker', { cpus: [0], sliceNs: 500_000 }), scripted([{ run: 300_000 }, { wake: () => w }, { run: 300_000 }, { sleep: 3 * MS }]), 0)
    w = k.createTask(testAttrs('W', { sliceNs: 2 * MS }), scripted([{ run: 100_000 }, { block: true }]), 0)
    return w
  }
  const cpus = (f: Record<string, boolean>): number[] => wakeups(4, { SIS_UTIL: false, ...f }, 80, setup).map((e) => e.cpu)
  it('off: the wakee stays on target, behind the waker', () => {
    expect(mode(cpus({}))).toBe(0)
  })
  it('v1/8 select_slice_cpu: the first CPU from target with longer slices (CPU 2)', () => {
    const c = cpus({ SS8_SELECT_SLICE_CPU: true })
    expect(c.length).toBeGreaterThan(15)
    expect(c.every((x) => x === 2)).toBe(true)
  })
  it('the reviewer\'s tracking during the idle scan: the first such CPU the scan visited (2 or 3, by where it starts)', () => {
    const c = cpus({ SLICE_TRACK_SCAN: true })
    expect(c.length).toBeGreaterThan(15)
    expect(c.every((x) => x === 2 || x === 3)).toBe(true)
    expect(new Set(c).size).toBe(2)
  })
  it('v2/5 merged into the idle scan: the visited CPU with the longest shortest-slice (CPU 3)', () => {
    expect(cpus({ SSV2_SLICE_SCAN: true }).every((x) => x === 3)).toBe(true)
  })
  it('with SIS_UTIL and a fully busy LLC select_slice_cpu scans nothing', () => {
    // a waker that never sleeps keeps the LLC 100% busy: nr_idle_scan drops to 0
    const probe = (features: Record<string, boolean>): { scan: number; picked: number } => {
      const out = { scan: -1, picked: -2 }
      const s = quickScenario({ topology: 4, durationMs: 110, kernel: { features }, workloads: [] })
      simulateDetailed(s, 0, 1, {
        configure: (k) => {
          k.createTask(testAttrs('short', { cpus: [1], sliceNs: 500_000 }), scripted([{ run: 1e9 }]), 1)
          k.createTask(testAttrs('long16', { cpus: [2], sliceNs: 16 * MS }), scripted([{ run: 1e9 }]), 2)
          k.createTask(testAttrs('long32', { cpus: [3], sliceNs: 32 * MS }), scripted([{ run: 1e9 }]), 3)
          k.createTask(testAttrs('waker', { cpus: [0], sliceNs: 500_000 }), scripted([{ run: 1e9 }]), 0)
          const w = k.createTask(testAttrs('W', { sliceNs: 2 * MS, startNs: 200 * MS }), scripted([{ block: true }]), 0)
          k.at(100 * MS, () => {
            const fs = k.placement as FairSched
            out.scan = fs.d.sdLlcShared[0]!.nrIdleScan
            out.picked = selectSliceCpu(fs, w, fs.d.sdLlc[0]!, 0)
          })
        }
      })
      return out
    }
    expect(probe({})).toEqual({ scan: 0, picked: -1 })
    expect(probe({ SIS_UTIL: false }).picked).toBe(2)
  })

  it('v1/8 on an asymmetric system: the CPU must also fit the task (uclamp_min 800 skips the little CPUs)', () => {
    // rb5: CPUs 0-3 capacity 284, 4-6 871, 7 1024. Every CPU runs a 16 ms-slice hog except CPU 0.
    const asymSetup = (k: Kernel): number => {
      for (let c = 1; c < 8; c++) k.createTask(testAttrs(`long${c}`, { cpus: [c], sliceNs: 16 * MS }), scripted([{ run: 1e9 }]), c)
      let w = -1
      k.createTask(testAttrs('waker', { cpus: [0], sliceNs: 500_000 }), scripted([{ run: 300_000 }, { wake: () => w }, { run: 300_000 }, { sleep: 3 * MS }]), 0)
      w = k.createTask(testAttrs('W', { sliceNs: 2 * MS, uclampMin: 800 }), scripted([{ run: 50_000 }, { block: true }]), 0)
      return w
    }
    const off = wakeups(rb5Spec(), { SIS_UTIL: false }, 60, asymSetup).map((e) => e.cpu)
    const on = wakeups(rb5Spec(), { SIS_UTIL: false, SS8_SELECT_SLICE_CPU: true }, 60, asymSetup).map((e) => e.cpu)
    expect(mode(off)).toBe(0)
    expect(on.length).toBeGreaterThan(10)
    expect(on.every((c) => c === 4)).toBe(true)
  })
})
