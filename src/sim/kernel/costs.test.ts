import { describe, expect, it } from 'vitest'
import { simulate, simulateDetailed } from '../index'
import { quickScenario, scripted, testAttrs } from '../testing'
import { DEFAULT_COSTS, resolveCosts } from './config'
import { embedded18Spec } from './topologies'
import { parseScenario } from '../scenario'
import type { CostsSpec } from '../scenario/types'
import type { WorkloadSpec } from '../scenario/workload-specs'

const MS = 1_000_000

describe('modeled scheduler costs (kernel.costs)', () => {
  it('microsecond fields override the documented defaults one by one', () => {
    const c = resolveCosts({ pushUs: 3, balancePerTaskUs: 0.25 })
    expect(c.pushWorkNs).toBe(3000)
    expect(c.balancePerTaskWorkNs).toBe(250)
    expect({ ...c, pushWorkNs: DEFAULT_COSTS.pushWorkNs, balancePerTaskWorkNs: DEFAULT_COSTS.balancePerTaskWorkNs }).toEqual(DEFAULT_COSTS)
  })

  it('balancing is charged to the balancing CPU, per pass, per runqueue read and per task examined', () => {
    // CPU 0 goes newly idle every millisecond and looks at CPU 1's two pinned hogs in vain.
    const sysUs = (costs: CostsSpec): { cpu0: number; cpu1: number; passes: number } => {
      const s = quickScenario({
        topology: 2, durationMs: 500, kernel: { features: { NI_RANDOM: false }, costs },
        workloads: [
          { type: 'hog', name: 'pinned', count: 2, cpus: [1] },
          { type: 'periodic', name: 'tick', runUs: 100, periodUs: 1000, cpus: [0] }
        ] as WorkloadSpec[]
      })
      const r = simulateDetailed(s, 0, 1)
      return { cpu0: r.kernel.sysNs[0] / 1000, cpu1: r.kernel.sysNs[1] / 1000, passes: r.result.counters?.['lb.MC.newidle.attempts'] ?? 0 }
    }
    const base = sysUs({})
    const dear = sysUs({ balanceUs: 11.5 })
    expect(base.passes).toBeGreaterThan(400)
    expect(dear.passes).toBe(base.passes)
    // 10 us more per newidle pass on CPU 0 (plus its few periodic passes)
    const extra = (dear.cpu0 - base.cpu0) / base.passes
    expect(extra).toBeGreaterThan(10)
    expect(extra).toBeLessThan(10.5)
    // CPU 1 only pays for its own periodic balancing
    expect(dear.cpu1 - base.cpu1).toBeLessThan((dear.cpu0 - base.cpu0) / 20)
    const perTask = sysUs({ balancePerTaskUs: 1.1 })
    // both tasks are pinned away; detach_tasks looks at each once (loop_max = nr_running = 2,
    // since the revert of the LBF_ALL_PINNED clause): 2 tasks examined per pass, 1 us more each
    expect((perTask.cpu0 - base.cpu0) / base.passes).toBeGreaterThan(2)
    expect((perTask.cpu0 - base.cpu0) / base.passes).toBeLessThan(2.5)
  })

  it('a wakeup\'s CPU selection is charged to the waking CPU per CPU it scans', () => {
    // smp-8, CPUs 1-7 busy; the waker on CPU 0 wakes W every millisecond; without SIS_UTIL the
    // idle scan visits the whole LLC.
    const cpu0Us = (costs: CostsSpec): { us: number; wakeups: number } => {
      const s = quickScenario({ topology: 8, durationMs: 200, kernel: { features: { SIS_UTIL: false }, costs }, workloads: [] })
      const r = simulateDetailed(s, 0, 1, {
        configure: (k) => {
          for (let c = 1; c < 8; c++) k.createTask(testAttrs(`h${c}`, { cpus: [c] }), scripted([{ run: 1e9 }]), c)
          let w = -1
          k.createTask(testAttrs('waker', { cpus: [0] }), scripted([{ run: 50_000 }, { wake: () => w }, { sleep: 1 * MS }]), 0)
          w = k.createTask(testAttrs('W', { cpus: [0, 1, 2, 3, 4, 5, 6, 7] }), scripted([{ run: 20_000 }, { block: true }]), 0)
        }
      })
      return { us: r.kernel.sysNs[0] / 1000, wakeups: r.result.tasks[8].wakeups }
    }
    const none = cpu0Us({ selectUs: 0, selectPerCpuUs: 0 })
    const perCpu = cpu0Us({ selectUs: 0, selectPerCpuUs: 1 })
    expect(none.wakeups).toBeGreaterThan(150)
    const scanned = (perCpu.us - none.us) / none.wakeups
    // target, then the 7 other CPUs of the LLC
    expect(scanned).toBeGreaterThan(7)
    expect(scanned).toBeLessThan(9.5)
  })

  it('work charged while a task is between two actions (a wakeup it makes) delays its next run once', () => {
    const doneAt = (selectUs: number): number => {
      let at = -1
      const s = quickScenario({ topology: 2, durationMs: 5, kernel: { costs: { selectUs, selectPerCpuUs: 0 } }, workloads: [] })
      simulateDetailed(s, 0, 1, {
        configure: (k) => {
          let w = -1
          k.createTask(testAttrs('waker', { cpus: [0] }), scripted([
            { sleepUntil: 1 * MS }, { wake: () => w }, { run: 1 * MS }, { call: () => { at = k.now } }, { block: true }
          ], false), 0)
          w = k.createTask(testAttrs('W'), scripted([{ block: true }, { run: 10_000 }, { block: true }], false), 1)
        }
      })
      return at
    }
    expect(doneAt(10) - doneAt(0)).toBe(10_000)
  })

  it('a timer interrupt\'s tail (timerIrqTailUs) lies between the wakeup and the switch, on an idle or a busy CPU', () => {
    const run = (timerIrqTailUs: number, withHog: boolean) => {
      const workloads: object[] = [{ type: 'cyclictest', name: 'ct', periodUs: 1000, policy: 'fifo', priority: 80 }]
      if (withHog) workloads.push({ type: 'hog', name: 'hog', count: 1 })
      const topology = { name: 't', clusters: [{ name: 'c', cpus: 1, capacity: 1024 }], costs: { timerIrqTailUs } }
      const s = parseScenario(JSON.stringify({ topology, durationMs: 300, workloads }), 'micro.json', {})
      const w = simulate(s, 0, 1).workloads[0]
      return { lat: w.latencyUs, wake: w.wakeupLatencyUs! }
    }
    for (const withHog of [false, true]) {
      const base = run(0, withHog)
      const dear = run(5, withHog)
      expect(base.lat.count).toBeGreaterThan(250)
      // every sample is 5 us later (the mean: min and max are read from histogram buckets),
      // and all of it after sched_waking
      expect(dear.lat.avg - base.lat.avg).toBeGreaterThan(4.9)
      expect(dear.lat.avg - base.lat.avg).toBeLessThan(5.1)
      expect(dear.wake.avg - base.wake.avg).toBeGreaterThan(4.9)
      expect(dear.wake.avg - base.wake.avg).toBeLessThan(5.1)
    }
  })

  it('lb-promote costs system time on embedded-18 and removes unreasonable idle', () => {
    const s = quickScenario({
      topology: embedded18Spec(),
      durationMs: 600,
      variants: [{ name: 'base' }, { name: 'lb-promote', patches: ['lb-promote'] }],
      workloads: [
        { type: 'periodic', name: 'consumers', count: 24, runUs: 1800, periodUs: 4000, staggerUs: 137, startCpu: 2 },
        { type: 'periodic', name: 'bound', count: 4, runUs: 3000, periodUs: 5000, cpus: [1, 2, 5, 6] },
        { type: 'periodic', name: 'rt', count: 6, runUs: 500, periodUs: 3000, policy: 'fifo', priority: 50, staggerUs: 500 }
      ] as WorkloadSpec[]
    })
    const base = simulate(s, 0, 1)
    const lbp = simulate(s, 1, 1)
    expect(lbp.stats.sysPct).toBeGreaterThan(base.stats.sysPct * 1.05)
    // unreasonable-idle events are rare (0-3 per 600 ms run): compare their sum over three seeds
    const events = (v: number) => [1, 2, 3].reduce((n, seed) => n + Object.values(simulate(s, v, seed).unreasonableIdle.events).reduce((a, b) => a + b, 0), 0)
    expect(events(1)).toBeLessThan(events(0))
    expect(lbp.workloads[0].latencyUs.p99).toBeLessThan(base.workloads[0].latencyUs.p99)
  })
})

describe('workload calibration in the topology (costs.hackbenchWriteUs / hackbenchReadUs)', () => {
  const topo = (costs: CostsSpec) => ({ name: 't', clusters: [{ name: 'c', cpus: 2, capacity: 1024 }], costs })
  const time = (costs: CostsSpec, own?: object): number => {
    const s = parseScenario(JSON.stringify({ topology: topo(costs), durationMs: 5000, workloads: [{ type: 'hackbench', name: 'hb', groups: 1, loops: 100, ...own }] }), 'micro.json', {})
    return simulate(s, 0, 1).workloads[0].timeSec as number
  }
  it('a hackbench without its own writeUs/readUs uses the topology calibration', () => {
    const cheap = time({ hackbenchWriteUs: 0.5, hackbenchReadUs: 0.5 })
    const dear = time({ hackbenchWriteUs: 5, hackbenchReadUs: 5 })
    expect(dear).toBeGreaterThan(cheap * 2)
  })
  it('the workload\'s own writeUs/readUs win over the topology', () => {
    expect(time({ hackbenchWriteUs: 5, hackbenchReadUs: 5 }, { writeUs: 0.5, readUs: 0.5 })).toBe(time({}, { writeUs: 0.5, readUs: 0.5 }))
  })
  it('sockets take hackbenchSocketWriteUs/ReadUs where the topology gives them, pipes never', () => {
    const pipe = { ipc: 'pipe' }
    const socket = { ipc: 'socket' }
    const both = { hackbenchWriteUs: 0.5, hackbenchReadUs: 0.5 }
    // without socket costs a socket costs what a pipe does (as before)
    expect(time({ ...both, hackbenchSocketWriteUs: 0.5, hackbenchSocketReadUs: 0.5 }, socket)).toBe(time(both, socket))
    // the socket costs change sockets only
    expect(time({ ...both, hackbenchSocketWriteUs: 5, hackbenchSocketReadUs: 5 }, pipe)).toBe(time(both, pipe))
    expect(time({ ...both, hackbenchSocketWriteUs: 5, hackbenchSocketReadUs: 5 }, socket)).toBeGreaterThan(time(both, socket) * 2)
    // the workload's own costs still win
    expect(time({ ...both, hackbenchSocketWriteUs: 5, hackbenchSocketReadUs: 5 }, { ...socket, writeUs: 0.5, readUs: 0.5 })).toBe(time({}, { ...socket, writeUs: 0.5, readUs: 0.5 }))
  })
})
