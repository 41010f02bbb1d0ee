import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../index'
import { quickScenario, scripted, testAttrs } from '../testing'
import type { Kernel } from '../kernel/sched'
import { avgVruntime, cfsRqMinSlice } from '../kernel/fair'
import { calcDeltaFair } from '../kernel/weights'
import { ENQUEUE_WAKEUP, ENQUEUE_DELAYED } from '../kernel/fair'
import type { KernelProfile } from '../kernel/features'

const MS = 1_000_000

/** Run `setup` on a fresh kernel and simulate `ms` milliseconds. */
function micro(opts: { cpus?: number; features?: Record<string, boolean>; profile?: KernelProfile; ms?: number }, setup: (k: Kernel) => void): Kernel {
  const s = quickScenario({
    topology: opts.cpus ?? 1,
    durationMs: opts.ms ?? 100,
    kernel: { hz: 250, profile: opts.profile ?? 'tip-2026', features: opts.features ?? {} },
    workloads: []
  })
  return simulateDetailed(s, 0, 1, { configure: setup }).kernel
}

/** Realised lag (V - v, in ns of virtual time) of `task` at its first enqueue matching `flag`. */
function lagAtWake(k: Kernel, task: number, flag: number, out: number[]): void {
  k.onFairEnqueue = (cpu, p, flags) => {
    if (p === task && flags & flag) out.push(avgVruntime(k, cpu) - k.vruntime[p])
  }
}

describe('short-slice-v1/4 and the decay alternatives: positive lag of a sleeping task', () => {
  // T sleeps 10 ms while a hog runs; we give it +12 ms of lag during the sleep
  function run(features: Record<string, boolean>): number {
    const lags: number[] = []
    micro({ features }, (k) => {
      k.createTask(testAttrs('hog'), scripted([{ run: 1e9 }]), 0)
      const t = k.createTask(testAttrs('T'), scripted([{ sleep: 10 * MS }, { run: 50_000 }]), 0)
      k.at(5 * MS, () => { k.vlag[t] = 12 * MS })
      lagAtWake(k, t, ENQUEUE_WAKEUP, lags)
    })
    return lags[0]
  }
  it('without a switch the lag survives the sleep', () => {
    expect(Math.abs(run({}) - 12 * MS)).toBeLessThan(0.02 * MS)
  })
  it('SS4_DECAY_POS_LAG: it shrinks by calc_delta_fair(sleep) (~10 ms)', () => {
    const lag = run({ SS4_DECAY_POS_LAG: true })
    expect(lag).toBeGreaterThan(1.5 * MS)
    expect(lag).toBeLessThan(2.5 * MS)
  })
  it('DECAY_LAG_WW: it shrinks at the (W + w) rate, half as fast with one equal competitor', () => {
    const lag = run({ DECAY_LAG_WW: true })
    expect(lag).toBeGreaterThan(6.5 * MS)
    expect(lag).toBeLessThan(7.5 * MS)
  })
})

describe('short-slice-v1/5: reset lag when waking up on an idle CPU', () => {
  // A and B sleep on idle CPU 0 and wake at the same instant; B has +5 ms of lag
  function run(on: boolean): number {
    const lags: number[] = []
    micro({ features: { SS5_RESET_LAG_IDLE: on } }, (k) => {
      const a = k.createTask(testAttrs('A'), scripted([{ sleepUntil: 20 * MS }, { run: 100_000 }, { block: true }]), 0)
      const b = k.createTask(testAttrs('B'), scripted([{ sleepUntil: 20 * MS }, { run: 100_000 }, { block: true }]), 0)
      void a
      k.at(10 * MS, () => { k.vlag[b] = 5 * MS })
      lagAtWake(k, b, ENQUEUE_WAKEUP, lags)
    })
    return lags[0]
  }
  it('off: B, enqueued second, keeps its lag and will be picked first', () => {
    expect(run(false)).toBeGreaterThan(4.9 * MS)
  })
  it('on: B cannot claim lag on the idle CPU', () => {
    expect(run(true)).toBe(0)
  })
})

describe('short-slice-v2/2 and idle_seq: lag is stale once the CPU went idle during the sleep', () => {
  // T sleeps 30 ms; a periodic task P makes the CPU go idle in between (or a hog keeps it busy)
  function run(features: Record<string, boolean>, busy: boolean): number {
    const lags: number[] = []
    micro({ features }, (k) => {
      if (busy) k.createTask(testAttrs('hog'), scripted([{ run: 1e9 }]), 0)
      k.createTask(testAttrs('P'), scripted([{ run: 1 * MS }, { sleep: 4 * MS }]), 0)
      const t = k.createTask(testAttrs('T'), scripted([{ sleep: 30 * MS }, { run: 50_000 }]), 0)
      k.at(15 * MS, () => { k.vlag[t] = 3 * MS })
      lagAtWake(k, t, ENQUEUE_WAKEUP, lags)
    })
    return lags[0]
  }
  for (const sw of ['SSV2_RESET_LAG_IDLE', 'IDLE_SEQ']) {
    it(`${sw}: cleared when the CPU idled, kept when it did not`, () => {
      expect(run({ [sw]: true }, false)).toBe(0)
      expect(run({ [sw]: true }, true)).toBeGreaterThan(2.9 * MS)
      expect(run({}, false)).toBeGreaterThan(2.9 * MS)
    })
  }
})

describe('dd-neglag (seed 002): negative lag of a delayed entity cannot grow', () => {
  // T runs 3 ms then blocks while ineligible (delayed); then tasks with positive lag join and
  // pull V backwards; T is woken 10 us later.
  function run(profile: KernelProfile, on: boolean): { atDelay: number; atWake: number } {
    const res = { atDelay: NaN, atWake: NaN }
    micro({ cpus: 2, profile, features: { DD_NEGLAG: on } }, (k) => {
      // T starts alone on CPU 0; the hog (same 3 ms slice, so no short preemption) joins at 1 ms
      k.createTask(testAttrs('hog', { sliceNs: 3 * MS, startNs: 1 * MS, cpus: [0] }), scripted([{ run: 1e9 }]), 0)
      const t = k.createTask(testAttrs('T', { sliceNs: 3 * MS, cpus: [0] }), scripted([{ run: 3 * MS }, { block: true }, { run: 100_000 }, { block: true }]), 0)
      // the joiners start and sleep on CPU 1, and are later allowed only on CPU 0
      const joiners: number[] = []
      for (let i = 0; i < 3; i++) joiners.push(k.createTask(testAttrs(`J${i}`, { sliceNs: 3 * MS, cpus: [1] }), scripted([{ block: true }, { run: 2 * MS }, { block: true }]), 1))
      k.onDelayed = (cpu, se) => {
        if (se !== t || !Number.isNaN(res.atDelay)) return
        res.atDelay = avgVruntime(k, cpu) - k.vruntime[se]
        // tasks with positive lag join and pull V backwards, then T is woken
        k.at(k.now + 1000, () => {
          for (const j of joiners) {
            k.setAffinity(j, [0])
            k.vlag[j] = 6 * MS
            k.tryToWakeUp(j, 0, k.now)
          }
          k.at(k.now + 10_000, () => {
            k.onFairEnqueue = (c, p) => {
              if (p === t && Number.isNaN(res.atWake)) res.atWake = avgVruntime(k, c) - k.vruntime[p]
            }
            k.tryToWakeUp(t, 0, k.now)
          })
        })
      }
    })
    return res
  }
  for (const profile of ['6.12', 'tip-2026'] as KernelProfile[]) {
    it(`${profile}: off, the joiners deepen T's negative lag; on, it stays where it was`, () => {
      const off = run(profile, false)
      const on = run(profile, true)
      expect(off.atDelay).toBeLessThan(0)
      expect(off.atWake).toBeLessThan(off.atDelay - 0.5 * MS)
      expect(on.atWake).toBeGreaterThanOrEqual(on.atDelay - 0.05 * MS)
    })
  }
  void ENQUEUE_DELAYED
})

describe('short-slice-v1/1: vprot never goes above a min slice', () => {
  // tasks of mixed slices and weights; at every pick, how far beyond v + min slice vprot lies
  function maxExcess(on: boolean): { excess: number; picks: number } {
    let excess = -Infinity
    let picks = 0
    micro({ features: { SS1_VPROT_MINSLICE: on }, ms: 2000 }, (k) => {
      k.createTask(testAttrs('A', { sliceNs: 3 * MS, nice: -5 }), scripted([{ run: 1e9 }]), 0)
      k.createTask(testAttrs('B', { sliceNs: 1 * MS }), scripted([{ run: 1e9 }]), 0)
      k.createTask(testAttrs('C', { sliceNs: 2 * MS, nice: 3 }), scripted([{ run: 1.5 * MS }, { sleep: 2.3 * MS }]), 0)
      k.onSetProtect = (cpu, se) => {
        const min = cfsRqMinSlice(k, cpu)
        if (min >= k.slice[se]) return
        picks++
        excess = Math.max(excess, k.vprot[se] - (k.vruntime[se] + calcDeltaFair(min, k.weight[se])))
      }
    })
    return { excess, picks }
  }
  it('off (tip-2026, PREEMPT_SHORT): ineligible_vruntime can lie beyond v + min slice', () => {
    const r = maxExcess(false)
    expect(r.picks).toBeGreaterThan(100)
    expect(r.excess).toBeGreaterThan(0)
  })
  it('on: vprot <= v + calc_delta_fair(min slice) at every pick', () => {
    const r = maxExcess(true)
    expect(r.picks).toBeGreaterThan(100)
    expect(r.excess).toBeLessThanOrEqual(0)
  })
})
