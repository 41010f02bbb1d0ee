import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { gridProgram as grid, quickScenario, scripted, testAttrs } from '../testing'
import type { Kernel } from '../kernel/sched'
import type { FairSched } from '../kernel/sched'
import { SCHED_FIFO, WF_TTWU } from '../kernel/api'
import { embedded18Spec } from '../kernel/topologies'
import { selectIdleSibling, selectTaskRqFair } from '../kernel/select'
import { requestActiveBalance, schedBalanceRq, SIS_SMALL_LLC_CPUS } from '../kernel/balance'
import { CPU_NEWLY_IDLE } from '../kernel/domains'
import { findPatch } from './index'
import type { TopologySpec } from '../kernel/topology-types'
import type { VariantResult } from '../../shared/result'

const MS = 1_000_000

interface Run {
  k: Kernel
  fs: FairSched
  result: VariantResult
}

/** `patches` are patch names (their switches apply), `features` extra switches. */
function run(topology: TopologySpec | number, patches: string[], features: Record<string, boolean>, ms: number, setup: (k: Kernel, fs: FairSched) => void, nrMigrate?: number): Run {
  const sw: Record<string, boolean> = {}
  for (const p of patches) Object.assign(sw, findPatch(p)!.switches)
  // no timer slack: the scenarios rely on same-instant wakeups of fair and RT tasks
  const s = quickScenario({ topology, durationMs: ms, kernel: { timerSlackUs: 0, nrMigrate, features: { ...sw, ...features } }, workloads: [] })
  const r = simulateDetailed(s, 0, 1, { configure: (k) => setup(k, k.placement as FairSched) })
  return { k: r.kernel, fs: r.kernel.placement as FairSched, result: r.result }
}

/** Record when and where `task` is first switched in after `afterNs`. */
function firstRunAfter(k: Kernel, task: number, afterNs: number, out: { at: number; cpu: number }): void {
  const sched = k.schedule.bind(k)
  k.schedule = (cpu: number) => {
    sched(cpu)
    if (out.at < 0 && k.now > afterNs && k.curr[cpu] === task) {
      out.at = k.now
      out.cpu = cpu
    }
  }
}

const twoClusters: TopologySpec = {
  name: 'two-clusters',
  clusters: [{ name: 'c0', cpus: 2, capacity: 1024, llc: 0 }, { name: 'c1', cpus: 2, capacity: 1024, llc: 1 }]
}

describe('lb-promote/1 and alt-all-pinned: rd->overloaded after an all-pinned redo', () => {
  // The thread's example: p1, p2 on CPU 0 may run on CPUs 0 and 2; p3-p5 pinned to CPUs 1-3.
  // p5 sleeps at T1 = 10 ms (CPU 3's newidle finds CPU 0 all pinned, redoes without it and,
  // at the root, clears rd->overloaded); p4 sleeps at T2 = 11 ms: can CPU 2 take p1 or p2?
  function setup(extraEnqueueOnCpu0: boolean) {
    return (k: Kernel): void => {
      for (let i = 1; i <= 2; i++) k.createTask(testAttrs(`p${i}`, { cpus: [0, 2] }), scripted([{ run: 1e9 }]), 0)
      k.createTask(testAttrs('p3', { cpus: [1] }), scripted([{ run: 1e9 }]), 1)
      k.createTask(testAttrs('p4', { cpus: [2] }), grid(1000 * MS, 11 * MS, 0, true), 2)
      k.createTask(testAttrs('p5', { cpus: [3] }), grid(1000 * MS, 10 * MS, 0, true), 3)
      // a short task pinned to CPU 0 waking between T1 and T2 (an enqueue on the all-pinned rq)
      if (extraEnqueueOnCpu0) k.createTask(testAttrs('p0', { cpus: [0] }), grid(1000 * MS, 20_000, 10.5 * MS), 0)
    }
  }
  function at11(patches: string[], extra: boolean): { overloaded: boolean; pulled: boolean } {
    const out = { overloaded: false, pulled: false }
    run(twoClusters, patches, { NI_RANDOM: false }, 12, (k, fs) => {
      setup(extra)(k)
      k.at(10.9 * MS, () => { out.overloaded = fs.d.rd.overloaded })
      k.at(11.1 * MS, () => { out.pulled = k.nrRunning[2] > 0 })
    })
    return out
  }
  it('mainline: the redo at the root clears rd->overloaded and CPU 2\'s newidle balance is skipped', () => {
    expect(at11([], false)).toEqual({ overloaded: false, pulled: false })
  })
  it('patch 1: env.cpus no longer spans the root domain, rd->overloaded stays set and CPU 2 pulls at once', () => {
    expect(at11(['lb-promote/1'], false)).toEqual({ overloaded: true, pulled: true })
  })
  it('the per-rq all_pinned flag: only an enqueue on the all-pinned rq sets it again', () => {
    // no enqueue on CPU 0 between T1 and T2: the reviewer's flag does not help (the thread's objection)
    expect(at11(['alt-all-pinned'], false)).toEqual({ overloaded: false, pulled: false })
    // a task enqueued on CPU 0 at 10.5 ms (3 tasks: no crossing of 2) re-sets it; mainline does not
    expect(at11(['alt-all-pinned'], true).pulled).toBe(true)
    expect(at11([], true).pulled).toBe(false)
  })
})

describe('lb-promote/2, /3, /6: the active balance stopper', () => {
  // smp-3. CPU 1 runs an RT task half of the time and one fair hog F allowed everywhere; CPU 2
  // is idle: the idle balance finds CPU 1's capacity reduced and asks its stopper to push F.
  const setup = (k: Kernel): void => {
    k.createTask(testAttrs('F', { cpus: [1, 2] }), scripted([{ run: 1e9 }]), 1)
    k.createTask(testAttrs('R', { policy: SCHED_FIFO, rtPriority: 50, cpus: [1] }), grid(4 * MS, 2 * MS, 0, true), 1)
    k.createTask(testAttrs('h0', { cpus: [0] }), scripted([{ run: 1e9 }]), 0)
  }
  it('2/10 and 6/10 alone change nothing (mainline queues the stopper on the source CPU itself)', () => {
    const base = run(3, [], {}, 200, setup).result
    expect(base.counters?.stopperRuns).toBeGreaterThan(0)
    for (const p of ['lb-promote/2', 'lb-promote/6']) {
      expect(JSON.stringify(run(3, [p], {}, 200, setup).result.tasks)).toBe(JSON.stringify(base.tasks))
    }
  })
  it('3/10: active_balance stays set until the moved task is attached, refusing a second stopper meanwhile', () => {
    function window(patches: string[]): { flag: number; second: boolean; attached: boolean } {
      const out = { flag: -1, second: false, attached: false }
      run(3, patches, {}, 30, (k, fs) => {
        k.createTask(testAttrs('A', { cpus: [1] }), scripted([{ run: 1e9 }]), 1)
        const b = k.createTask(testAttrs('B'), scripted([{ run: 1e9 }]), 1)
        k.createTask(testAttrs('h0', { cpus: [0] }), scripted([{ run: 1e9 }]), 0)
        k.createTask(testAttrs('h2', { cpus: [2] }), scripted([{ run: 1e9 }]), 2)
        k.at(20 * MS, () => {
          // CPU 1's stopper moves one task of CPU 1 to CPU 0 (queued remotely: it runs after the IPI)
          expect(requestActiveBalance(fs, 1, 1, 0)).toBe(true)
          // 1 us after the stopper ran (IPI 2 us), within its 2 us run: the task is detached, not attached
          k.at(20 * MS + 3000, () => {
            out.flag = fs.activeBalance[1]
            out.second = requestActiveBalance(fs, 1, 1, 2)
          })
          k.at(21 * MS, () => { out.attached = k.taskCpu[b] === 0 && k.onRq[b] === 1 })
        })
      })
      return out
    }
    expect(window([])).toEqual({ flag: 0, second: true, attached: true })
    expect(window(['lb-promote/3'])).toEqual({ flag: 1, second: false, attached: true })
  })
})

describe('lb-promote/5: select_task_rq_fair_thin', () => {
  // embedded-18: LLCs 0-1, 2-5, 6-9, 10-13, 14-17. Busy CPUs run pinned hogs; probe the
  // selection for a task whose previous CPU (and waker CPU) is 7.
  const probe = (busy: number[], patches: string[]) => probeWith(busy, {}, patches)
  function probeWith(busy: number[], features: Record<string, boolean>, patches: string[] = []): { picked: number; llcScan: number } {
    const out = { picked: -1, llcScan: -1 }
    run(embedded18Spec(), patches, features, 250, (k, fs) => {
      for (const c of busy) k.createTask(testAttrs(`h${c}`, { cpus: [c] }), scripted([{ run: 1e9 }]), c)
      const p = k.createTask(testAttrs('p', { startNs: 1e9 }), scripted([{ block: true }]), 7)
      k.at(200 * MS, () => {
        out.llcScan = fs.d.sdLlcShared[7]!.nrIdleScan
        k.taskCpu[p] = 7
        k.recentUsedCpu[p] = -1
        fs.selectScanned = 0
        out.picked = selectTaskRqFair(fs, p, 7, WF_TTWU, 7)
      })
    })
    return out
  }
  it('scans from the first CPU of prev\'s LLC (CPU 6), where select_idle_cpu starts after target (CPU 8)', () => {
    const busy = [0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17]
    expect(probe(busy, []).picked).toBe(8)
    expect(probe(busy, ['lb-promote/5']).picked).toBe(6)
  })
  it('goes on across LLCs when prev\'s LLC has no idle CPU; the fast path stays in the LLC', () => {
    const busy = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17]
    expect(probe(busy, []).picked).toBe(7)
    expect(probe(busy, ['lb-promote/5']).picked).toBe(11)
  })
  it('nr_idle_scan is no longer refreshed by the periodic balance', () => {
    const busy = [6, 7, 8]
    expect(probe(busy, []).llcScan).toBeLessThan(4)
    expect(probe(busy, ['lb-promote/5']).llcScan).toBe(4)
  })
  it('needs LB_PROMOTE', () => {
    const busy = [0, 1, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15, 16, 17]
    expect(probeWith(busy, { LBP5_THIN_SELECT: true }).picked).toBe(8)
  })
})

describe('lb-promote/7: active balance of a preempted fair task', () => {
  // smp-3: F (fair, allowed everywhere) runs on CPU 0; CPU 1 runs a pinned hog; CPU 2 is idle.
  // At 10 ms an RT task pinned to CPU 0 wakes and runs 3 ms.
  function resume(patches: string[], features: Record<string, boolean> = {}): { at: number; cpu: number } {
    const out = { at: -1, cpu: -1 }
    run(3, patches, features, 20, (k) => {
      // R first: it goes to sleep at once, before F starts on CPU 0
      k.createTask(testAttrs('R', { policy: SCHED_FIFO, rtPriority: 50, cpus: [0] }), grid(100 * MS, 3 * MS, 10 * MS, true), 0)
      const f = k.createTask(testAttrs('F'), scripted([{ run: 1e9 }]), 0)
      k.createTask(testAttrs('h1', { cpus: [1] }), scripted([{ run: 1e9 }]), 1)
      firstRunAfter(k, f, 10 * MS, out)
    })
    return out
  }
  it('the RT-preempted task is pulled by the idle CPU\'s stopper at once; without the patch it waits for the RT task', () => {
    const on = resume(['lb-promote/7'])
    expect(on.cpu).toBe(2)
    expect(on.at - 10 * MS).toBeLessThan(150_000)
    const off = resume([])
    expect(off.at - 10 * MS).toBeGreaterThan(1.9 * MS)
  })
  it('without patch 2 the stopper refuses a source other than its own CPU: nothing moves', () => {
    const r = resume([], { LB_PROMOTE: true, LBP7_PREEMPT_ALB: true, LBP6_STOP_GENERALISED: true })
    expect(r.at - 10 * MS).toBeGreaterThan(1.9 * MS)
  })
})

describe('lb-promote/8: newidle balance ignores avg_idle', () => {
  // smp-2: CPU 1 runs two movable hogs; CPU 0 runs a task that sleeps at 3 ms, after avg_idle
  // was made smaller than the domain's max newidle cost.
  function pull(patches: string[]): { at: number; skipped: number } {
    const out = { at: -1, skipped: 0 }
    const r = run(2, patches, { NI_RANDOM: false }, 30, (k, fs) => {
      k.createTask(testAttrs('p', { cpus: [0] }), grid(100 * MS, 3 * MS, 0, true), 0)
      for (let i = 0; i < 2; i++) k.createTask(testAttrs(`h${i}`), scripted([{ run: 1e9 }]), 1)
      k.at(2.9 * MS, () => {
        fs.d.sd[0]!.maxNewidleLbCost = 50_000
        k.avgIdle[0] = 10_000
      })
      const check = (): void => {
        if (out.at < 0 && (k.taskCpu[1] === 0 || k.taskCpu[2] === 0)) out.at = k.now
        if (k.now < 30 * MS) k.at(k.now + 10_000, check)
      }
      k.at(0, check)
    })
    out.skipped = r.result.counters?.newidleSkipped ?? 0
    return out
  }
  it('pulls when the CPU goes idle although avg_idle is small; mainline skips and waits for the idle balancer', () => {
    const on = pull(['lb-promote/8'])
    expect(on.at).toBeGreaterThanOrEqual(3 * MS)
    expect(on.at).toBeLessThan(3 * MS + 20_000)
    const off = pull([])
    expect(off.skipped).toBeGreaterThan(0)
    expect(off.at).toBeGreaterThan(4 * MS)
  })
})

describe('lb-promote/9: no more_balance when newly idle with work pending', () => {
  // smp-2: 64 hogs pinned to CPU 1; a CPU_NEWLY_IDLE pass for idle CPU 0 with sched_nr_migrate
  // raised to 128. Every task is pinned away: detach_tasks breaks with LBF_NEED_BREAK after 32
  // of them. The model's balance pass is instantaneous, so the wakeup that lands on CPU 0
  // meanwhile is injected by the test (at the 10th task examined), as a concurrent
  // try_to_wake_up would do in the kernel. With the default nr_migrate of 32, loop_max stops the
  // pass first (since the 6.10 revert of the LBF_ALL_PINNED clause), so the patch changes nothing.
  function examined(patches: string[], nrMigrate = 128): number {
    let n = -1
    run(2, patches, {}, 10, (k, fs) => {
      const w = k.createTask(testAttrs('w', { cpus: [0] }), scripted([{ block: true }, { run: 1e9 }]), 0)
      for (let i = 0; i < 64; i++) k.createTask(testAttrs(`p${i}`, { cpus: [1] }), scripted([{ run: 1e9 }]), 1)
      k.at(5 * MS, () => {
        const allowed = k.cpuAllowed.bind(k)
        let calls = 0
        k.cpuAllowed = (t: number, c: number) => {
          if (++calls === 10) k.tryToWakeUp(w, 0, k.now)
          return allowed(t, c)
        }
        schedBalanceRq(fs, 0, fs.d.sd[0]!, CPU_NEWLY_IDLE, { value: true })
        k.cpuAllowed = allowed
        n = fs.lbEnv.tasksVisited
      })
    }, nrMigrate)
    return n
  }
  it('stops after the first break instead of looking at every task', () => {
    expect(examined(['lb-promote/9'])).toBe(32)
    expect(examined([])).toBeGreaterThan(60)
  })
  it('changes nothing with the default sched_nr_migrate: loop_max ends the pass before any break', () => {
    expect(examined(['lb-promote/9'], 32)).toBe(32)
    expect(examined([], 32)).toBe(32)
  })
})

describe('lb-promote/10: simple_find', () => {
  // Two clusters {0,1} {2,3}. A (pinned to 2) runs on CPU 2; B (allowed on 1 and 2) wakes on
  // CPU 2 at 10 ms and waits; CPU 3 is idle; CPU 0 runs a pinned hog; CPU 1's task sleeps at
  // 10.5 ms. Seen from CPU 1 the groups are balanced (sibling imbalance 1, and the busy group
  // has as many idle CPUs as the local one): no busiest group.
  function bAt(patches: string[]): { cpu: number; at: number } {
    const out = { cpu: -1, at: -1 }
    const r = run(twoClusters, patches, { NI_RANDOM: false }, 16, (k) => {
      k.createTask(testAttrs('A', { cpus: [2] }), scripted([{ run: 1e9 }]), 2)
      k.createTask(testAttrs('h0', { cpus: [0] }), scripted([{ run: 1e9 }]), 0)
      const b = k.createTask(testAttrs('B', { cpus: [1, 2] }), grid(100 * MS, 300_000, 10 * MS), 2)
      k.createTask(testAttrs('C', { cpus: [1] }), grid(100 * MS, 10.5 * MS, 0, true), 1)
      // B wakes with negative lag: it waits behind A instead of preempting it
      k.at(9.9 * MS, () => { k.vlag[b] = -2 * MS })
      firstRunAfter(k, b, 10 * MS, out)
    })
    expect(r.result.counters?.lbSimpleFind ?? 0).toBe(patches.length ? 1 : 0)
    return out
  }
  it('takes the waiting task from the first CPU outside the local group with two tasks', () => {
    const on = bAt(['lb-promote/10'])
    expect(on.cpu).toBe(1)
    expect(on.at).toBeLessThan(10.6 * MS)
    const off = bAt([])
    expect(off.at).toBeGreaterThan(12 * MS)
  })
})

describe('reviewer alternatives of seed 004: slow wakeup path, small-LLC scan budget', () => {
  it('alt-lbp-slow-wake: under LB_PROMOTE a wakeup whose LLC is busy finds an idle CPU in another LLC', () => {
    function probe(patches: string[], features: Record<string, boolean> = {}): number {
      let picked = -1
      run(embedded18Spec(), patches, features, 60, (k, fs) => {
        for (let c = 2; c <= 5; c++) k.createTask(testAttrs(`h${c}`, { cpus: [c] }), scripted([{ run: 1e9 }]), c)
        const p = k.createTask(testAttrs('p', { startNs: 1e9 }), scripted([{ block: true }]), 3)
        k.at(50 * MS, () => {
          k.taskCpu[p] = 3
          k.recentUsedCpu[p] = -1
          picked = selectTaskRqFair(fs, p, 3, WF_TTWU, 3)
        })
      })
      return picked
    }
    expect(probe([])).toBe(3)
    const slow = probe(['alt-lbp-slow-wake'])
    expect(slow < 2 || slow > 5).toBe(true)
    expect(probe(['alt-lbp-slow-wake'], { LB_PROMOTE: false })).toBe(3)
  })
  it('alt-sis-small-llc: a 4-CPU LLC 75% busy keeps a full scan budget and finds its idle CPU', () => {
    function probe(patches: string[]): { scan: number; picked: number } {
      const out = { scan: -1, picked: -1 }
      run(embedded18Spec(), patches, {}, 250, (k, fs) => {
        for (const c of [2, 3, 4]) k.createTask(testAttrs(`h${c}`, { cpus: [c] }), scripted([{ run: 1e9 }]), c)
        const p = k.createTask(testAttrs('p', { startNs: 1e9 }), scripted([{ block: true }]), 3)
        k.at(200 * MS, () => {
          out.scan = fs.d.sdLlcShared[3]!.nrIdleScan
          k.recentUsedCpu[p] = -1
          out.picked = selectIdleSibling(fs, p, 3, 3)
        })
      })
      return out
    }
    expect(probe([])).toEqual({ scan: 0, picked: 3 })
    expect(probe(['alt-sis-small-llc'])).toEqual({ scan: 4, picked: 5 })
  })
  it("alt-sis-small-llc: its description states the model's SIS_SMALL_LLC_CPUS", () => {
    expect(findPatch('alt-sis-small-llc')!.effect).toContain(`at most ${SIS_SMALL_LLC_CPUS} CPUs keep`)
  })
})
