/**
 * Micro-scenarios for the divergences from kernel source closed in issue 11 (docs/model.md,
 * "Checked in kernel source"): each shows the kernel's behaviour, and most would fail with the
 * model's former behaviour.
 */
import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { gridProgram, quickScenario, scripted, testAttrs, type QuickScenario } from '../testing'
import type { Kernel } from './sched'
import type { FairSched } from './sched'
import { avgVruntime, entityEligible, lagLimit, pickEevdf, protectSlice, updateCurr, ENQUEUE_MIGRATED } from './fair'
import { SCHED_FIFO, type TaskContext, type TaskProgram } from './api'
import { resolveKernelConfig } from '../scenario/kernel-config'
import { rb5Spec } from './topologies'
import { schedBalanceDomains, schedBalanceNewidle } from './balance'
import { MIGRATE_LOAD } from './group-stats'
import { CPU_IDLE } from './domains'
import type { KernelProfile } from './features'
import type { TopologySpec } from './topology-types'

const US = 1000
const MS = 1_000_000

function sim(q: QuickScenario, setup: (k: Kernel, fs: FairSched) => void, seed = 1) {
  return simulateDetailed(quickScenario(q), 0, seed, { configure: (k) => setup(k, k.placement as FairSched) })
}

/** Two LLCs of two CPUs: MC and PKG levels. */
const twoLlcs: TopologySpec = {
  name: 'two-llcs', clusters: [{ name: 'a', cpus: 2, capacity: 1024, llc: 0 }, { name: 'b', cpus: 2, capacity: 1024, llc: 1 }]
}

describe('1. waking a delayed task: requeued in place (ttwu_runnable, ENQUEUE_DELAYED)', () => {
  // CPU 0 runs a pinned hog, CPU 1 a task busy 20 ms out of 40; bursty tasks allowed on both
  // CPUs run past their share and sleep ineligible, so they are often still queued
  // (sched_delayed) when their timer fires, sometimes while CPU 1 is idle.
  function run(profile: KernelProfile, features: Record<string, boolean>) {
    let woken = 0
    let moved = 0
    // SIS_UTIL off: the busy LLC's scan budget would hide the idle CPU from any selection
    sim({ topology: 2, durationMs: 1500, kernel: { profile, features: { SIS_UTIL: false, ...features } }, workloads: [
      { type: 'hog', name: 'h0', cpus: [0] },
      { type: 'periodic', name: 'p1', runUs: 20000, periodUs: 40000, cpus: [1] },
      { type: 'periodic', name: 'burst', count: 2, runUs: 2100, periodUs: 4300, staggerUs: 900 }
    ] }, (k) => {
      const ttwu = k.tryToWakeUp.bind(k)
      k.tryToWakeUp = (p, flags, from) => {
        const delayed = k.onRq[p] !== 0 && k.schedDelayed[p] !== 0
        const before = k.taskCpu[p]
        const r = ttwu(p, flags, from)
        if (delayed) {
          woken++
          if (k.taskCpu[p] !== before) moved++
        }
        return r
      }
    })
    return { woken, moved }
  }
  for (const profile of ['6.12', '6.17', '6.19', 'tip-2026'] as KernelProfile[]) {
    it(`${profile}: it stays on its CPU, no CPU selection`, () => {
      const r = run(profile, {})
      expect(r.woken).toBeGreaterThan(50)
      expect(r.moved).toBe(0)
    })
  }
  it('TTWU_DEQUEUE (RFC, off by default): dequeued and sent through CPU selection, it can move', () => {
    const r = run('tip-2026', { TTWU_DEQUEUE: true })
    expect(r.woken).toBeGreaterThan(50)
    expect(r.moved).toBeGreaterThan(0)
  })
})

describe('3. HRTICK', () => {
  it('is on by default in tip-2026 where the arch defers hrtimer rearming (x86_64), off on arm64 and in older profiles', () => {
    const cfg = (profile: KernelProfile, arch?: string) => resolveKernelConfig({ hz: 250, profile, features: {} }, undefined, 4, {}, arch).features.HRTICK
    expect(cfg('tip-2026', 'x86_64')).toBe(true)
    expect(cfg('tip-2026', 'arm64')).toBe(false)
    expect(cfg('tip-2026')).toBe(false)
    expect(cfg('6.19', 'x86_64')).toBe(false)
    expect(resolveKernelConfig({ hz: 250, profile: 'tip-2026', features: { HRTICK: false } }, undefined, 4, {}, 'x86_64').features.HRTICK).toBe(false)
  })
  it('is armed when a task is picked (__set_next_task_fair): two hogs switch at every 3 ms slice end, not at the 10 ms tick', () => {
    const switches = (hrtick: boolean) => sim({ topology: 1, durationMs: 1000, kernel: { hz: 100, features: { HRTICK: hrtick } }, workloads: [
      { type: 'hog', name: 'h', count: 2, sliceUs: 3000 }
    ] }, () => {}).result.stats.contextSwitches
    // no enqueue ever happens after the start: only the pick can arm the timer
    expect(switches(true)).toBeGreaterThan(300)
    expect(switches(false)).toBeLessThan(110)
  })
})

describe('4. lag clamp: max(2 * slice, TICK_NSEC) until 6.19, the queue\'s max slice + TICK_NSEC in tip-2026', () => {
  for (const [profile, expectUs] of [['6.17', 2 * 700 * 2], ['6.19', 2 * 700 * 2], ['tip-2026', 16000 + 4000]] as [KernelProfile, number][]) {
    it(profile, () => {
      let limit = -1
      sim({ topology: 1, durationMs: 20, kernel: { profile }, workloads: [
        { type: 'hog', name: 'long', sliceUs: 16000 },
        { type: 'hog', name: 'base' }
      ] }, (k) => {
        k.at(10 * MS, () => { limit = lagLimit(k, 0, 1) })
      })
      // smp-1 scales the 0.7 ms base slice by 1: 2 * 0.7 ms is below the 4 ms tick
      expect(limit).toBe(profile === 'tip-2026' ? expectUs * US : 4000 * US)
    })
  }
})

describe('5. RT CPU choice (find_lowest_rq, cpupri without an IDLE level, capacity fitness)', () => {
  it('an idle CPU and a CPU running fair tasks rank the same: the affine domain\'s next CPU by distribution wins', () => {
    // smp-4: a FIFO 80 task holds CPU 0; at 10 ms a FIFO 10 task whose prev is CPU 0 wakes on a
    // timer there; CPU 1 runs a fair hog, CPUs 2 and 3 are idle.
    let target = -1
    sim({ topology: 4, durationMs: 30, kernel: { timerSlackUs: 0 }, workloads: [] }, (k) => {
      k.createTask(testAttrs('hi', { policy: SCHED_FIFO, rtPriority: 80, cpus: [0] }), scripted([{ run: 1e9 }]), 0)
      k.createTask(testAttrs('fair', { cpus: [1] }), scripted([{ run: 1e9 }]), 1)
      const p = k.createTask(testAttrs('rt', { policy: SCHED_FIFO, rtPriority: 10, startNs: 1 * MS }), scripted([{ sleepUntil: 10 * MS }, { run: 100 * US }, { block: true }], false), 0)
      k.at(10 * MS + 50 * US, () => { target = k.taskCpu[p] })
    })
    // the lowest mask is {1, 2, 3}; task_cpu 0 and this_cpu 0 are not in it; the MC domain's
    // cpumask_any_and_distribute() starts after CPU 0: CPU 1, although it is not idle
    expect(target).toBe(1)
  })
  it('on an asymmetric system an RT task (uclamp_min 1024 by default) leaves a little CPU for a CPU that fits it', () => {
    let target = -1
    sim({ topology: rb5Spec(), durationMs: 30, kernel: { timerSlackUs: 0 }, workloads: [] }, (k) => {
      const p = k.createTask(testAttrs('rt', { policy: SCHED_FIFO, rtPriority: 10, uclampMin: 1024 }), scripted([{ sleepUntil: 10 * MS }, { run: 100 * US }, { block: true }], false), 1)
      k.at(10 * MS + 50 * US, () => { target = k.taskCpu[p] })
    })
    // CPU 1 is a little core (capacity 284) and idle: it does not fit; CPU 7 (1024) is the only fit
    expect(target).toBe(7)
  })
  it('with uclamp_min 0 the same task stays on its idle little CPU', () => {
    let target = -1
    sim({ topology: rb5Spec(), durationMs: 30, kernel: { timerSlackUs: 0 }, workloads: [] }, (k) => {
      const p = k.createTask(testAttrs('rt', { policy: SCHED_FIFO, rtPriority: 10, uclampMin: 0 }), scripted([{ sleepUntil: 10 * MS }, { run: 100 * US }, { block: true }], false), 1)
      k.at(10 * MS + 50 * US, () => { target = k.taskCpu[p] })
    })
    expect(target).toBe(1)
  })
})

describe('6. 6.12 PREEMPT_SHORT (do_preempt_short): only an eligible wakee with the earlier deadline (or an ineligible curr) cancels the protection', () => {
  // one CPU: hog H (2.8 ms slice) was just picked (protected until its deadline); at 1 ms the
  // short task S (0.1 ms slice) wakes with the given lag
  function protectedAfterWake(vlag: number): boolean {
    let prot = false
    // DELAY_DEQUEUE off: S is fully dequeued when it blocks, so its wakeup is placed with the lag
    sim({ topology: 1, durationMs: 3, kernel: { profile: '6.12', timerSlackUs: 0, features: { DELAY_DEQUEUE: false } }, workloads: [] }, (k) => {
      k.createTask(testAttrs('H', { sliceNs: 2.8 * MS }), scripted([{ run: 1e9 }]), 0)
      const s = k.createTask(testAttrs('S', { sliceNs: 100 * US }), scripted([{ block: true }, { run: 50 * US }, { block: true }], false), 0)
      k.at(1 * MS, () => {
        k.vlag[s] = vlag
        k.tryToWakeUp(s, 0, k.now)
        prot = protectSlice(k, 0)
      })
    })
    return prot
  }
  it('an ineligible wakee (negative lag) leaves it alone', () => {
    expect(protectedAfterWake(-2 * MS)).toBe(true)
  })
  it('an eligible wakee with an earlier deadline cancels it', () => {
    expect(protectedAfterWake(0)).toBe(false)
  })
})

describe('7. load balancing and delayed tasks (can_migrate_task)', () => {
  // CPU 0: two pinned hogs and bursty tasks allowed anywhere, CPU 1: bursty only; count the
  // balancer's moves of tasks that are still sched_delayed, by the pass's migration type
  function delayedMoves(profile: KernelProfile): { load: number; other: number } {
    const n = { load: 0, other: 0 }
    sim({ topology: 2, durationMs: 2000, kernel: { profile }, workloads: [
      { type: 'hog', name: 'h', count: 2, cpus: [0] },
      { type: 'periodic', name: 'burst', count: 4, runUs: 2500, periodUs: 5300, staggerUs: 700 }
    ] }, (k, fs) => {
      k.onFairEnqueue = (_cpu, p, flags) => {
        if (!(flags & ENQUEUE_MIGRATED) || k.schedDelayed[p] === 0) return
        if (fs.lbEnv.migrationType === MIGRATE_LOAD) n.load++
        else n.other++
      }
    })
    return n
  }
  it('6.12-6.13 move them like any task (they stay delayed on the destination)', () => {
    expect(delayedMoves('6.12').other).toBeGreaterThan(0)
  })
  it('6.14+ move them only when migrating load, never to balance task counts', () => {
    expect(delayedMoves('6.17').other).toBe(0)
  })
})

describe('8. NEXT_BUDDY rework: an ineligible curr is rescheduled only for a wakeup in task context (in_task())', () => {
  // one CPU: hogs H and T alternate; the sleeper S (negative lag, so never the buddy's pick)
  // is woken by a timer (an interrupt) at many instants; when curr is ineligible, the merged
  // rework's RESCHED must not fire, and T (the eligible earliest deadline) is not S
  it('a timer wakeup does not force the reschedule', () => {
    let samples = 0
    let resched = 0
    sim({ topology: 1, durationMs: 400, kernel: { profile: '6.19', timerSlackUs: 0 }, variants: [{ patches: ['next-buddy-merged'] }], workloads: [] }, (k) => {
      k.createTask(testAttrs('H'), scripted([{ run: 1e9 }]), 0)
      k.createTask(testAttrs('T'), scripted([{ run: 1e9 }]), 0)
      const s = k.createTask(testAttrs('S'), scripted([{ block: true }, { run: 10 * US }, { block: true }]), 0)
      for (let i = 1; i < 1500; i++) {
        k.at(i * 0.263 * MS, () => {
          const curr = k.curr[0]
          if (curr < 0 || k.state[s] !== 2 || k.onRq[s] !== 0) return
          // (update_curr may itself end curr's protection and reschedule: not a sample then)
          updateCurr(k, 0)
          if (k.needResched[0] || avgVruntime(k, 0) - k.vruntime[curr] > -100 * US) return
          // barely ineligible itself, S moves V too little to make curr eligible again
          k.vlag[s] = -20 * US
          k.tryToWakeUp(s, 0, k.now)
          if (entityEligible(k, 0, curr) || entityEligible(k, 0, s)) return
          samples++
          if (k.needResched[0]) resched++
        })
      }
    })
    expect(samples).toBeGreaterThan(20)
    expect(resched).toBe(0)
  })
})

describe('9. __pick_eevdf and the buddy: 6.19 returns an eligible buddy even for an unprotected pick; tip-2026 only with protect', () => {
  /** How often an unprotected pick returned the buddy, over the instants where one could be set. */
  function buddyPicked(profile: KernelProfile): { samples: number; picked: number } {
    const out = { samples: 0, picked: 0 }
    sim({ topology: 1, durationMs: 200, kernel: { profile }, workloads: [] }, (k) => {
      for (let i = 0; i < 4; i++) k.createTask(testAttrs(`h${i}`), scripted([{ run: 1e9 }]), 0)
      for (let i = 1; i < 150; i++) {
        k.at(i * 1.13 * MS, () => {
          updateCurr(k, 0)
          // the buddy: an eligible queued task that is not the EEVDF choice
          const best = pickEevdf(k, 0, false)
          let buddy = -1
          for (let t = 0; t < 4; t++) if (t !== best && t !== k.curr[0] && k.onRq[t] && entityEligible(k, 0, t)) buddy = t
          if (buddy < 0) return
          const old = k.cfsNext[0]
          k.cfsNext[0] = buddy
          out.samples++
          if (pickEevdf(k, 0, false) === buddy) out.picked++
          k.cfsNext[0] = old
        })
      }
    })
    return out
  }
  it('6.19: no protect gate', () => {
    const r = buddyPicked('6.19')
    expect(r.samples).toBeGreaterThan(10)
    expect(r.picked).toBe(r.samples)
  })
  it('tip-2026: gated by protect', () => {
    const r = buddyPicked('tip-2026')
    expect(r.samples).toBeGreaterThan(10)
    expect(r.picked).toBe(0)
  })
})

describe('10. sched_yield()', () => {
  // one CPU, two hogs; Y yields once at 5 ms (after running 1 ms of its slice)
  function yieldOnce(profile: KernelProfile) {
    const out = { v0: 0, d0: 0, v1: 0, d1: 0, slice: 0 }
    let done = false
    const program: TaskProgram = {
      step(t: number, k: TaskContext): void {
        const kk = k as Kernel
        if (!done && kk.now >= 5 * MS) {
          done = true
          updateCurr(kk, 0)
          out.v0 = kk.vruntime[t]
          out.d0 = kk.deadline[t]
          out.slice = kk.slice[t]
          kk.at(kk.now, () => { out.v1 = kk.vruntime[t]; out.d1 = kk.deadline[t] })
          return k.yieldTask(t)
        }
        k.run(t, 100 * US)
      }
    }
    sim({ topology: 1, durationMs: 8, kernel: { profile }, workloads: [] }, (k) => {
      k.createTask(testAttrs('other'), scripted([{ run: 1e9 }]), 0)
      k.createTask(testAttrs('Y', { startNs: 4 * MS }), program, 0)
    })
    return out
  }
  it('6.17: the task only gets its next slice (deadline += vslice)', () => {
    const r = yieldOnce('6.17')
    expect(r.d1 - r.d0).toBe(r.slice)
    expect(r.v1).toBe(r.v0)
  })
  it('6.19+: an eligible task also forfeits the rest of its request (vruntime = deadline)', () => {
    const r = yieldOnce('tip-2026')
    expect(r.v1).toBe(r.d0)
    expect(r.d1).toBe(r.d0 + r.slice)
  })
})

describe('smaller divergences', () => {
  it('migrate_task_rq_fair() keeps exec_start (6.4+): a task moved to another CPU stays cache-hot for task_hot()', () => {
    let execStart = -1
    let ranAt = -1
    let hot = false
    sim({ topology: 2, durationMs: 5, kernel: { profile: '6.17' }, workloads: [] }, (k) => {
      const t = k.createTask(testAttrs('t'), scripted([{ run: 100 * US }, { block: true }], false), 0)
      k.at(300 * US, () => {
        ranAt = k.execStart[t]
        k.setTaskCpu(t, 1)
        execStart = k.execStart[t]
        hot = k.now - k.execStart[t] < k.cfg.migrationCostNs
      })
    })
    expect(ranAt).toBeGreaterThan(0)
    expect(execStart).toBe(ranAt)
    expect(hot).toBe(true)
  })
  it('sched_balance_domains keeps the last domain\'s need_decay (assigned, not OR-ed)', () => {
    let before = -1
    let after = -1
    sim({ topology: twoLlcs, durationMs: 5000, workloads: [] }, (k, fs) => {
      k.at(4 * 1e9, () => {
        const base = fs.d.sd[0]!
        const top = base.parent!
        const j = fs.jiffies()
        // the lowest domain decays now, the top one decayed a moment ago
        base.lastDecayMaxLbCost = j - 2 * k.cfg.hz
        top.lastDecayMaxLbCost = j
        base.maxNewidleLbCost = 800_000
        fs.maxIdleBalanceCost[0] = 123_456
        before = fs.maxIdleBalanceCost[0]
        schedBalanceDomains(fs, 0, CPU_IDLE)
        after = fs.maxIdleBalanceCost[0]
      })
    })
    expect(before).toBe(123_456)
    expect(after).toBe(123_456)
  })
  it('newidle balance skipped (no overload): next_balance from the lowest domain only', () => {
    let got = -1
    let want = -1
    sim({ topology: twoLlcs, durationMs: 500, workloads: [] }, (k, fs) => {
      k.at(400 * MS, () => {
        const base = fs.d.sd[0]!
        const top = base.parent!
        const j = fs.jiffies()
        top.lastBalance = j - 1000
        base.lastBalance = j
        fs.nextBalance[0] = j + 10_000
        fs.d.rd.overloaded = false
        schedBalanceNewidle(fs, 0)
        got = fs.nextBalance[0]
        want = j
      })
    })
    // from the lowest domain, balanced just now (the top domain's would be long past)
    expect(want).toBeGreaterThan(0)
    expect(got).toBeGreaterThan(want)
    expect(got).toBeLessThan(want + 10_000)
  })
  it('select_idle_sibling: a per-CPU kthread waking a task of its own CPU stacks it there', () => {
    function wakeeCpu(kthread: boolean): number {
      let cpu = -1
      sim({ topology: 2, durationMs: 20, kernel: { timerSlackUs: 0 }, workloads: [] }, (k) => {
        const w = k.createTask(testAttrs('w'), scripted([{ block: true }, { run: 100 * US }, { block: true }], false), 0)
        k.createTask(testAttrs('kworker/0:1', { cpus: [0], kthread }), scripted([{ sleepUntil: 10 * MS }, { wake: () => w }, { call: (kk) => { cpu = (kk as Kernel).taskCpu[w] } }, { run: 50 * US }, { block: true }], false), 0)
      })
      return cpu
    }
    expect(wakeeCpu(true)).toBe(0)
    expect(wakeeCpu(false)).toBe(1)
  })
  it('wake_up_new_task(): recent_used_cpu starts as the forking CPU', () => {
    let recent = -2
    sim({ topology: 4, durationMs: 10, workloads: [] }, (k) => {
      k.createTask(testAttrs('parent', { cpus: [2] }), scripted([{ sleepUntil: 1 * MS }, {
        call: (kk, t) => {
          const child = kk.fork(testAttrs('child'), scripted([{ run: 10 * US }], false))
          recent = (kk as Kernel).recentUsedCpu[child]
          void t
        }
      }, { block: true }], false), 2)
    })
    expect(recent).toBe(2)
  })
  it('6.6 has no custom slices: sliceUs of a fair task is ignored, with a warning', () => {
    const r = sim({ topology: 1, durationMs: 10, kernel: { profile: '6.6' }, workloads: [{ type: 'hog', name: 'h', sliceUs: 8000 }] }, () => {})
    expect(r.kernel.slice[0]).toBe(r.kernel.cfg.baseSliceNs)
    expect(r.kernel.customSlice[0]).toBe(0)
    expect(r.result.warnings?.join(' ') ?? r.kernel.warnings.join(' ')).toMatch(/no custom slices/)
    const on = sim({ topology: 1, durationMs: 10, kernel: { profile: '6.12' }, workloads: [{ type: 'hog', name: 'h', sliceUs: 8000 }] }, () => {})
    expect(on.kernel.slice[0]).toBe(8 * MS)
  })
  it('lb-promote/9 also stops when a wakeup is pending on the destination\'s wake list (rq->ttwu_pending)', () => {
    // covered with the full scenario in src/sim/patches/lb-promote.test.ts; here: a wake-list
    // wakeup of an idle CPU makes it pending, not running
    let pending = -1
    let running = -1
    sim({ topology: 2, durationMs: 20, kernel: { features: { TTWU_QUEUE: true } }, workloads: [] }, (k) => {
      const w = k.createTask(testAttrs('w', { cpus: [0] }), scripted([{ block: true }, { run: 1e9 }]), 0)
      k.createTask(testAttrs('waker', { cpus: [1] }), scripted([{ sleepUntil: 5 * MS }, { wake: () => w }, {
        call: (kk) => { pending = (kk as Kernel).ttwuPending[0]; running = (kk as Kernel).nrRunning[0] }
      }, { block: true }], false), 1)
    })
    expect(pending).toBe(1)
    expect(running).toBe(0)
  })
})

describe('sched_balance_newidle(): a queued wakeup, and 6.18.5+ proportional newidle balance (issue 11, the host)', () => {
  // CPU 1 holds three runnable tasks that may run on CPU 0, which is empty: a newidle balance
  // on CPU 0 pulls one, unless a wakeup is queued to CPU 0 (ttwu_pending) or the NI_RANDOM dice
  // says the balance is not worth its cost
  function pulledBy(opts: { profile: KernelProfile; features?: Record<string, boolean>; ttwuPending?: boolean; ratio?: number }): { pulled: boolean; moved: number; calls: number } {
    let pulled = false
    let moved = -1
    let calls = -1
    sim({ topology: 2, durationMs: 2, kernel: { profile: opts.profile, features: opts.features ?? {} }, workloads: [] }, (k, fs) => {
      for (let i = 0; i < 3; i++) k.createTask(testAttrs(`t${i}`), scripted([{ run: 50 * MS }], false), 1)
      k.at(500 * US, () => {
        fs.d.rd.overloaded = true
        const sd = fs.d.sd[0]!
        if (opts.ratio !== undefined) sd.newidleRatio = opts.ratio
        const before = sd.newidleCall
        if (opts.ttwuPending) k.ttwuPending[0] = 1
        pulled = schedBalanceNewidle(fs, 0)
        k.ttwuPending[0] = 0
        moved = k.nrRunning[0]
        calls = sd.newidleCall - before
      })
    })
    return { pulled, moved, calls }
  }
  it('a wakeup queued to the CPU: no search (the wakee is enqueued once the CPU idles)', () => {
    expect(pulledBy({ profile: '6.17' })).toMatchObject({ pulled: true, moved: 1 })
    expect(pulledBy({ profile: '6.17', ttwuPending: true })).toMatchObject({ pulled: false, moved: 0 })
  })
  it('NI_RANDOM acts on any profile that has it: 6.18.5+ is profile 6.17 with NI_RANDOM', () => {
    // ratio 0: the 1k-sided dice lets one balance in 512 through
    expect(pulledBy({ profile: '6.17', ratio: 0 })).toMatchObject({ pulled: true, moved: 1, calls: 0 })
    expect(pulledBy({ profile: '6.17', features: { NI_RANDOM: true }, ratio: 0 })).toMatchObject({ pulled: false, moved: 0, calls: 1 })
    expect(pulledBy({ profile: '6.17', features: { NI_RANDOM: true }, ratio: 1024 })).toMatchObject({ pulled: true, moved: 1, calls: 1 })
  })
})

describe('gridProgram is still the periodic helper', () => {
  it('(sanity: the helper used above)', () => {
    expect(typeof gridProgram).toBe('function')
  })
})
