import { describe, expect, it } from 'vitest'
import { quickScenario } from '../testing'
import { smpSpec } from './topology'
import { niceToWeight } from './weights'
import { every, runPlacement } from './fair-sched-testing'
import type { WorkloadSpec } from '../scenario/workload-specs'

const MS = 1_000_000

const hog = (name: string, extra: Record<string, unknown> = {}): WorkloadSpec => ({ type: 'hog', name, ...extra }) as WorkloadSpec

describe('load balancing: spreading and steady state', () => {
  for (const hz of [100, 250, 1000]) {
    it(`8 hogs started on CPU 0 of smp-8 end one per CPU within 100 ms and stay (HZ ${hz})`, () => {
      const s = quickScenario({ topology: smpSpec(8), kernel: { hz }, durationMs: 2000, workloads: [hog('h', { count: 8, startCpu: 0 })] })
      let spreadAt = -1
      let migAt100 = 0
      const { k, result } = runPlacement(s, 1, (k) => {
        every(k, 0, 100_000, 100 * MS, () => {
          if (spreadAt >= 0) return
          for (let c = 0; c < 8; c++) if (k.nrRunning[c] !== 1) return
          spreadAt = k.now
        })
        k.at(100 * MS, () => { migAt100 = k.migrations })
      })
      expect(spreadAt).toBeGreaterThan(0)
      expect(spreadAt).toBeLessThanOrEqual(100 * MS)
      // No ping-pong afterwards: zero migrations over the remaining 1.9 s.
      expect(k.migrations - migAt100).toBe(0)
      expect(new Set(result.tasks.map((t) => t.lastCpu)).size).toBe(8)
      for (const c of result.cpus) expect(c.busyPct).toBeGreaterThan(90)
      expect(result.counters?.['migrations.balance.MC']).toBeGreaterThanOrEqual(7)
    })
  }

  it('16 hogs on 4 CPUs: 4 per CPU at steady state, whether forked or all started on CPU 0', () => {
    for (const startCpu of [undefined, 0]) {
      const s = quickScenario({ topology: smpSpec(4), durationMs: 2000, workloads: [hog('h', { count: 16, startCpu })] })
      const counts: number[][] = []
      runPlacement(s, 2, (k) => every(k, 500 * MS, 100 * MS, 2000 * MS, () => counts.push([0, 1, 2, 3].map((c) => k.nrRunning[c]))))
      for (const c of counts) expect(c).toEqual([4, 4, 4, 4])
    }
  })

  it('with mixed nice values the load, not the task count, balances', () => {
    const nices = [-5, -5, -5, -5, 0, 0, 0, 0, 5, 5, 5, 5, 10, 10, 10, 10]
    const s = quickScenario({ topology: smpSpec(4), durationMs: 3000, workloads: nices.map((nice, i) => hog(`h${i}`, { nice })) })
    const { k } = runPlacement(s, 1)
    const load = [0, 0, 0, 0]
    const count = [0, 0, 0, 0]
    for (let p = 0; p < k.ntasks; p++) {
      load[k.taskCpu[p]] += k.weight[p]
      count[k.taskCpu[p]]++
    }
    const mean = load.reduce((a, b) => a + b) / 4
    for (const l of load) expect(Math.abs(l - mean) / mean).toBeLessThan(0.12)
    expect(new Set(count).size).toBeGreaterThan(1)
  })

  it('a task heavier than the average gets a CPU to itself and the rest share the others', () => {
    const nices = [-10, 0, 0, 0, 0, 0, 0, 0, 5, 5, 5, 5, 5, 5, 5, 5]
    const s = quickScenario({ topology: smpSpec(4), durationMs: 3000, workloads: nices.map((nice, i) => hog(`h${i}`, { nice })) })
    const { k } = runPlacement(s, 1)
    const heavyCpu = k.taskCpu[0]
    let others = 0
    const load = [0, 0, 0, 0]
    for (let p = 0; p < k.ntasks; p++) {
      load[k.taskCpu[p]] += k.weight[p]
      if (k.taskCpu[p] === heavyCpu && p !== 0) others++
    }
    expect(others).toBe(0)
    const rest = load.filter((_, c) => c !== heavyCpu)
    const mean = rest.reduce((a, b) => a + b) / 3
    for (const l of rest) expect(Math.abs(l - mean) / mean).toBeLessThan(0.2)
    expect(load[heavyCpu]).toBe(niceToWeight(-10))
  })
})

describe('load balancing: affinity', () => {
  it('pinned tasks never move; a task pinned to two CPUs moves only between them', () => {
    const s = quickScenario({
      topology: smpSpec(4),
      durationMs: 2000,
      workloads: [
        hog('pin0', { count: 3, cpus: [0] }),
        hog('pin23', { count: 3, cpus: [2, 3] }),
        hog('free', { count: 4 })
      ]
    })
    const seen: Set<number>[] = []
    const { k, result } = runPlacement(s, 3, (k) => every(k, 1 * MS, 1 * MS, 2000 * MS, () => {
      for (let p = 0; p < k.ntasks; p++) (seen[p] ??= new Set()).add(k.taskCpu[p])
    }))
    for (let p = 0; p < 3; p++) {
      expect([...seen[p]]).toEqual([0])
      expect(result.tasks[p].migrations).toBe(0)
    }
    for (let p = 3; p < 6; p++) for (const c of seen[p]) expect([2, 3]).toContain(c)
    // The free tasks still get balanced around the pinned ones: no CPU sits idle.
    for (const c of result.cpus) expect(c.busyPct).toBeGreaterThan(95)
    // CPU 0 is overloaded by tasks nobody may take: pulls from it end all-pinned.
    expect(k.nrRunning[0]).toBeGreaterThanOrEqual(3)
  })
})

describe('newidle balance', () => {
  /** CPU 1 runs two movable hogs; CPU 0 runs a task that goes to sleep at 3 ms. */
  const scenario = () =>
    quickScenario({
      topology: smpSpec(2),
      kernel: { features: { NI_RANDOM: false } },
      durationMs: 40,
      workloads: [
        { type: 'periodic', name: 'p', count: 1, runUs: 3000, periodUs: 100_000, startCpu: 0, runMode: 'wall' } as WorkloadSpec,
        hog('h', { count: 2, startCpu: 1 })
      ]
    })

  /** Time a hog first appeared on CPU 0. */
  function pullTime(tune?: Parameters<typeof runPlacement>[2]) {
    let at = -1
    const { result } = runPlacement(scenario(), 1, (k, fs) => {
      tune?.(k, fs)
      every(k, 0, 10_000, 40 * MS, () => {
        if (at < 0 && (k.taskCpu[1] === 0 || k.taskCpu[2] === 0)) at = k.now
      })
    })
    return { at, pulls: result.counters?.newidlePulls ?? 0, skipped: result.counters?.newidleSkipped ?? 0, result }
  }

  it('a CPU going idle pulls a waiting task from a busier CPU at once', () => {
    const r = pullTime()
    expect(r.pulls).toBe(1)
    // Pulled when the sleeper left CPU 0 (3 ms + a switch), not a tick later.
    expect(r.at).toBeGreaterThanOrEqual(3 * MS)
    expect(r.at).toBeLessThanOrEqual(3 * MS + 20_000)
  })

  it('is skipped when avg_idle says the CPU will not stay idle long enough', () => {
    const r = pullTime((k, fs) => {
      k.at(2.9 * MS, () => {
        fs.d.sd[0]!.maxNewidleLbCost = 50_000
        k.avgIdle[0] = 10_000
      })
    })
    expect(r.pulls).toBe(0)
    expect(r.skipped).toBeGreaterThan(0)
    // The nohz idle balancer kicked from CPU 1's ticks takes the task later: at HZ 250 each
    // kick comes with the tick that rotates the two hogs, so the waiting one is cache hot
    // until nr_balance_failed exceeds cache_nice_tries.
    expect(r.at).toBeGreaterThan(8 * MS)
    expect(r.at).toBeLessThan(20 * MS)
  })
})

describe('seed 004: all-pinned redo clears rd->overloaded (mainline behaviour)', () => {
  it('after an all-pinned newidle balance, a later newidle CPU skips balancing although a task could move', () => {
    // Two clusters of two CPUs (MC per cluster under PKG). p1, p2 on CPU 0 may run on CPUs 0
    // and 2; p3, p4, p5 are pinned to CPUs 1, 2, 3. p5 sleeps at T1 = 10 ms, p4 at T2 = 11 ms,
    // before CPU 0's next tick (12 ms) has the idle balancer look at the whole root domain again.
    const s = quickScenario({
      topology: { name: 'two-clusters', clusters: [{ name: 'c0', cpus: 2, capacity: 1024, llc: 0 }, { name: 'c1', cpus: 2, capacity: 1024, llc: 1 }] },
      // The thread's kernel predates proportional newidle balancing.
      kernel: { features: { NI_RANDOM: false } },
      durationMs: 300,
      workloads: [
        hog('p12', { count: 2, cpus: [0, 2], startCpu: 0 }),
        hog('p3', { cpus: [1] }),
        { type: 'periodic', name: 'p4', runUs: 11_000, periodUs: 1_000_000, cpus: [2], runMode: 'wall' } as WorkloadSpec,
        { type: 'periodic', name: 'p5', runUs: 10_000, periodUs: 1_000_000, cpus: [3], runMode: 'wall' } as WorkloadSpec
      ]
    })
    let overloadedBeforeT2 = true
    let skippedBefore = 0
    let skippedAfter = 0
    let onCpu2AfterT2 = -1
    let firstOnCpu2 = -1
    const { k } = runPlacement(s, 1, (k, fs) => {
      k.at(10.9 * MS, () => {
        overloadedBeforeT2 = fs.d.rd.overloaded
        skippedBefore = k.counters.newidleSkipped ?? 0
      })
      k.at(11.1 * MS, () => {
        skippedAfter = k.counters.newidleSkipped ?? 0
        onCpu2AfterT2 = k.nrRunning[2]
      })
      every(k, 11 * MS, 100_000, 300 * MS, () => {
        if (firstOnCpu2 < 0 && (k.taskCpu[0] === 2 || k.taskCpu[1] === 2)) firstOnCpu2 = k.now
      })
    })
    expect(overloadedBeforeT2).toBe(false)
    expect(skippedAfter).toBe(skippedBefore + 1)
    expect(onCpu2AfterT2).toBe(0)
    // The periodic/idle balancers fix it later.
    expect(firstOnCpu2).toBeGreaterThan(11.1 * MS)
    expect(k.taskCpu[0] === 2 || k.taskCpu[1] === 2).toBe(true)
  })
})

describe('balancer limits and proportional newidle', () => {
  it('one idle balance moves at most sysctl_sched_nr_migrate (32) tasks', () => {
    const s = quickScenario({ topology: smpSpec(2), durationMs: 20, workloads: [hog('h', { count: 64, startCpu: 0 })] })
    const moved: number[] = []
    runPlacement(s, 1, (k) => every(k, 0, 10_000, 20 * MS, () => {
      if (moved.length === 0 || moved[moved.length - 1] !== k.nrRunning[1]) moved.push(k.nrRunning[1])
    }))
    // CPU 1 goes from 0 straight to 32 tasks in one balance, never beyond.
    expect(moved).toEqual([0, 32])
  })

  it('NI_RANDOM runs newidle balance less often where it never succeeds', () => {
    // CPU 1 is overloaded with tasks pinned to it; CPU 0 goes idle every millisecond.
    const s = quickScenario({
      topology: smpSpec(2),
      durationMs: 3000,
      workloads: [
        hog('pinned', { count: 2, cpus: [1] }),
        { type: 'periodic', name: 'tick', runUs: 100, periodUs: 1000, cpus: [0] } as WorkloadSpec
      ]
    })
    const { fs, result } = runPlacement(s, 1)
    const sd = fs.d.sd[0]!
    const entered = result.tasks[2].wakeups
    expect(entered).toBeGreaterThan(2500)
    // Every fruitless balance lowers the success ratio; balances become a minority of idle entries.
    expect(sd.newidleRatio).toBeLessThan(512)
    expect(sd.lbCount[2]).toBeLessThan(entered * 0.5)
    expect(sd.lbCount[2]).toBeGreaterThan(0)
    expect(result.counters?.newidlePulls ?? 0).toBe(0)
  })
})

describe('LBF_DST_PINNED', () => {
  it('a task that may not run on the balancing CPU goes to another CPU of its group instead', () => {
    // Clusters {0,1} and {2,3}. p1, p2 on CPU 0 may run on CPUs 0 and 3 only; CPUs 1 and 3 run
    // pinned tasks; CPU 2 is idle. CPU 2's idle balance finds p1/p2 pinned away from it and
    // retries with CPU 3 as destination.
    const s = quickScenario({
      topology: { name: 'two-clusters', clusters: [{ name: 'c0', cpus: 2, capacity: 1024, llc: 0 }, { name: 'c1', cpus: 2, capacity: 1024, llc: 1 }] },
      durationMs: 500,
      workloads: [
        hog('p12', { count: 2, cpus: [0, 3], startCpu: 0 }),
        hog('p3', { cpus: [1] }),
        hog('p4', { cpus: [3] })
      ]
    })
    const seen: Set<number>[] = [new Set(), new Set()]
    const { k, result } = runPlacement(s, 1, (k) => every(k, 1 * MS, 1 * MS, 500 * MS, () => {
      seen[0].add(k.taskCpu[0])
      seen[1].add(k.taskCpu[1])
    }))
    expect(k.taskCpu[0] === 3 || k.taskCpu[1] === 3).toBe(true)
    for (const s of seen) expect(s.has(2)).toBe(false)
    expect(k.nrRunning[0]).toBe(1)
    expect(k.nrRunning[2]).toBe(0)
    expect(result.counters?.['migrations.balance.PKG']).toBeGreaterThanOrEqual(1)
    expect(result.counters?.lbDstPinnedRetries).toBeGreaterThanOrEqual(1)
  })
})
