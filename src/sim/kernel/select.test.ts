import { describe, expect, it } from 'vitest'
import { quickScenario } from '../testing'
import { smpSpec } from './topology'
import { runPlacement } from './fair-sched-testing'
import { selectIdleSibling, selectTaskRqFair, wakeWide } from './select'
import { embedded18Spec } from './topologies'
import { WF_TTWU } from './api'
import type { WorkloadSpec } from '../scenario/workload-specs'

const MS = 1_000_000

/**
 * smp-8 with hogs pinned to CPUs 1..busy (the periodic and idle balancers keep the LLC's
 * nr_idle_scan up to date), and a not-yet-started task to place. Returns what
 * select_idle_sibling picks for it with prev = target = `target`.
 */
function probe(busy: number, target: number, features: Record<string, boolean> = {}) {
  const workloads: WorkloadSpec[] = []
  for (let c = 1; c <= busy; c++) workloads.push({ type: 'hog', name: `h${c}`, cpus: [c] } as WorkloadSpec)
  workloads.push({ type: 'periodic', name: 'wakee', runUs: 100, periodUs: 10_000, delayUs: 10_000_000 } as WorkloadSpec)
  const s = quickScenario({ topology: smpSpec(8), kernel: { features }, durationMs: 300, workloads })
  let picked = -1
  let nrIdleScan = -1
  runPlacement(s, 1, (k, fs) => {
    k.at(250 * MS, () => {
      const p = busy
      k.recentUsedCpu[p] = -1
      nrIdleScan = fs.d.sdLlcShared[target]!.nrIdleScan
      picked = selectIdleSibling(fs, p, target, target)
    })
  })
  return { picked, nrIdleScan }
}

describe('select_idle_sibling and SIS_UTIL', () => {
  it('finds an idle CPU of the LLC when the scan budget reaches it', () => {
    const r = probe(2, 1)
    expect(r.nrIdleScan).toBe(7)
    // Scan from target+1: CPU 2 is busy, CPU 3 idle.
    expect(r.picked).toBe(3)
  })

  it('misses idle CPUs when the budget runs out before reaching them', () => {
    // 5 of 8 CPUs busy: ~62% LLC utilization leaves a budget of 3 CPUs. Scanning from CPU 2
    // looks at 2, 3, 4 (all busy) and gives up although 6, 7 and 0 are idle.
    const r = probe(5, 1)
    expect(r.nrIdleScan).toBe(3)
    expect(r.picked).toBe(1)
    // Starting next to the idle CPUs, the same budget finds one.
    expect(probe(5, 5).picked).toBe(6)
    // Without SIS_UTIL the whole LLC is scanned.
    expect(probe(5, 1, { SIS_UTIL: false }).picked).toBe(6)
  })

  it('does not scan at all when the LLC is ~85% busy', () => {
    const r = probe(7, 1)
    expect(r.nrIdleScan).toBe(0)
    expect(r.picked).toBe(1)
    expect(probe(7, 1, { SIS_UTIL: false }).picked).toBe(0)
  })
})

describe('wake_wide', () => {
  it('goes wide only when both flip counts reach the LLC size, the larger one by a factor of it', () => {
    const s = quickScenario({ topology: smpSpec(4), durationMs: 1, workloads: [{ type: 'hog', name: 'h', count: 2 } as WorkloadSpec] })
    runPlacement(s, 1, (k, fs) => {
      k.at(0.5 * MS, () => {
        const waker = k.curr[k.taskCpu[0]]
        const wakee = waker === 0 ? 1 : 0
        const cpu = k.taskCpu[waker]
        k.wakeeFlips[waker] = 16
        k.wakeeFlips[wakee] = 4
        expect(wakeWide(fs, wakee, cpu)).toBe(true)
        k.wakeeFlips[waker] = 15
        expect(wakeWide(fs, wakee, cpu)).toBe(false)
        k.wakeeFlips[waker] = 100
        k.wakeeFlips[wakee] = 3
        expect(wakeWide(fs, wakee, cpu)).toBe(false)
      })
    })
  })
})

describe('wakeup slow path (seed 004)', () => {
  for (const balanceWake of [false, true]) {
    it(`embedded-18, a wide wakeup whose LLC is busy: ${balanceWake ? 'SD_BALANCE_WAKE finds an idle CPU elsewhere' : 'the fast path stays in the busy LLC'}`, () => {
      const s = quickScenario({
        topology: embedded18Spec(),
        kernel: { features: { SD_BALANCE_WAKE: balanceWake } },
        durationMs: 60,
        workloads: [
          { type: 'hog', name: 'h0', cpus: [0] } as WorkloadSpec,
          { type: 'hog', name: 'h1', cpus: [1] } as WorkloadSpec,
          { type: 'periodic', name: 'wakee', runUs: 100, periodUs: 10_000, delayUs: 10_000_000 } as WorkloadSpec
        ]
      })
      let picked = -1
      runPlacement(s, 1, (k, fs) => {
        k.at(50 * MS, () => {
          const waker = k.curr[0]
          k.wakeeFlips[waker] = 64
          k.wakeeFlips[2] = 8
          k.recentUsedCpu[2] = -1
          picked = selectTaskRqFair(fs, 2, 0, WF_TTWU, 0)
        })
      })
      if (balanceWake) expect(picked).toBeGreaterThanOrEqual(2)
      else expect(picked).toBe(0)
    })
  }
})
