import { describe, expect, it } from 'vitest'
import {
  accumulatePeltSegments, decayLoad, DO_ATTACH, DO_DETACH, LOAD_AVG_MAX, Pelt, RUNNABLE_AVG_YN_INV, updateLoadAvg, updateLoadSum,
  UTIL_AVG_UNCHANGED
} from './pelt'

const MS = 1_000_000
const W = 1024

/** Drives one task on one CPU through the kernel's update points (wakeup, pick, ticks, sleep). */
class Driver {
  now = 0
  constructor(readonly pelt: Pelt, readonly cpu: number, readonly p: number) {}

  wake(): void {
    const { pelt, cpu, p } = this
    pelt.updateRqClock(cpu, this.now, true)
    pelt.updateLoadAvg(cpu, p, DO_ATTACH, false, false, false, W, 0, 0, false) // enqueue_entity
    pelt.utilEstEnqueue(cpu, p)
    pelt.updateLoadAvg(cpu, p, 0, true, true, false, W, W, 1, false) // set_next_entity
  }

  run(ns: number): void {
    const { pelt, cpu, p } = this
    const end = this.now + ns
    while (this.now < end) {
      this.now = Math.min(end, this.now + MS)
      pelt.updateRqClock(cpu, this.now, false)
      pelt.updateLoadAvg(cpu, p, 0, true, true, true, W, W, 1, true)
    }
  }

  sleep(): void {
    const { pelt, cpu, p } = this
    pelt.updateRqClock(cpu, this.now, false)
    pelt.updateLoadAvg(cpu, p, 0, true, true, true, W, W, 1, true) // dequeue_entity
    pelt.utilEstDequeue(cpu, p)
    pelt.utilEstUpdate(cpu, p, true)
    pelt.enterIdle(cpu, this.now)
  }

  idle(ns: number): void {
    this.now += ns
  }

  /** The task's util as seen now (sync to the current clock without running). */
  utilNow(): number {
    this.pelt.updateRqClock(this.cpu, this.now, true)
    this.pelt.updateCfsRqLoadAvg(this.cpu, this.pelt.rqClockPelt(this.cpu), 0, 0, false)
    this.pelt.syncEntityLoadAvg(this.cpu, this.p)
    return this.pelt.se.utilAvg[this.p]
  }
}

function driver(caps: number[] = [1024], cpu = 0): Driver {
  const pelt = new Pelt({ tasks: 4, capacityOrig: caps })
  pelt.initEntityRunnableAverage(0, W)
  return new Driver(pelt, cpu, 0)
}

const y = Math.pow(0.5, 1 / 32)

/** Run 5 ms / sleep 5 ms for a second; mean util at the ends of the last 10 runs and sleeps. */
function dutyMean(d: Driver): number {
  const s: number[] = []
  for (let k = 0; k < 100; k++) {
    d.wake()
    d.run(5 * MS)
    d.sleep()
    s.push(d.pelt.se.utilAvg[0])
    d.idle(5 * MS)
    s.push(d.utilNow())
  }
  return s.slice(-20).reduce((a, b) => a + b, 0) / 20
}

describe('PELT arithmetic', () => {
  it('y^n table is (2^32-1)*y^n truncated, and LOAD_AVG_MAX is the fixed point of s = s*y + 1024', () => {
    for (let i = 0; i < 32; i++) expect(RUNNABLE_AVG_YN_INV[i]).toBe(Math.floor(4294967295 * Math.pow(y, i)))
    let s = 0
    for (let k = 0; k < 1000; k++) s = Math.floor((s * RUNNABLE_AVG_YN_INV[1]) / 2 ** 32) + 1024
    expect(s).toBe(LOAD_AVG_MAX)
  })

  it('decay_load halves every 32 periods, exact for 64-bit sums, 0 after 2016 periods', () => {
    expect(decayLoad(LOAD_AVG_MAX, 32)).toBe(23870)
    expect(decayLoad(1 << 20, 64)).toBe((1 << 18) - 1)
    expect(decayLoad(2 ** 40, 5)).toBe(256 * RUNNABLE_AVG_YN_INV[5])
    expect(decayLoad(2 ** 40, 32 * 39)).toBe(1)
    expect(decayLoad(2 ** 40, 2017)).toBe(0)
  })

  it('segments: a full span of periods contributes LOAD_AVG_MAX minus its decayed tail', () => {
    // Crossing one boundary with d1 = 1024, d3 = 0: just the decayed first period.
    expect(accumulatePeltSegments(1, 1024, 0)).toBe(decayLoad(1024, 1) + LOAD_AVG_MAX - decayLoad(LOAD_AVG_MAX, 1) - 1024)
    expect(accumulatePeltSegments(3000, 1024, 0)).toBe(LOAD_AVG_MAX - 1024)
  })
})

describe('PELT signals', () => {
  it('a task running continuously reaches 1024 * (1 - y^n) after n ms', () => {
    const d = driver()
    d.wake()
    for (const n of [8, 32, 100]) {
      d.run(n * MS - d.now)
      // Periods are 1.024 ms: n ms is n/1.024 periods.
      const expected = 1024 * (1 - Math.pow(y, (n * MS) / 1024 / 1024))
      expect(Math.abs(d.pelt.se.utilAvg[0] - expected)).toBeLessThan(expected * 0.03 + 3)
      expect(d.pelt.cfs.utilAvg[0]).toBe(d.pelt.se.utilAvg[0])
    }
    d.run(400 * MS)
    expect(d.pelt.se.utilAvg[0]).toBeGreaterThanOrEqual(1020)
    expect(d.pelt.se.loadAvg[0]).toBeGreaterThanOrEqual(1020)
  })

  it('50% duty cycle settles around 512, and idle time halves util every 32 ms', () => {
    const mean = dutyMean(driver())
    expect(mean).toBeGreaterThan(490)
    expect(mean).toBeLessThan(535)

    const e = driver()
    e.wake()
    e.run(500 * MS)
    e.sleep()
    const u0 = e.pelt.se.utilAvg[0]
    e.idle(32 * 1024 * 1024) // exactly 32 periods
    const u32 = e.utilNow()
    e.idle(32 * 1024 * 1024)
    const u64 = e.utilNow()
    expect(Math.abs(u32 - u0 / 2)).toBeLessThanOrEqual(8)
    expect(Math.abs(u64 - u0 / 4)).toBeLessThanOrEqual(8)
  })

  it('capacity and frequency invariance: the same duty cycle counts less on a smaller or slower CPU', () => {
    const little = dutyMean(driver([1024, 512], 1))
    expect(little).toBeGreaterThan(235)
    expect(little).toBeLessThan(280)
    const slow = driver()
    slow.pelt.freqScale[0] = 512
    const halfFreq = dutyMean(slow)
    expect(Math.abs(halfFreq - little)).toBeLessThan(10)
  })

  it('an always-running task on a small CPU still reaches 1024, and its lag is lost idle time', () => {
    const d = driver([1024, 512], 1)
    d.wake()
    d.run(1500 * MS)
    expect(d.pelt.se.utilAvg[0]).toBeGreaterThanOrEqual(1019)
    d.sleep()
    expect(d.pelt.lostIdleTime[1]).toBeGreaterThan(700 * MS)
  })

  it('attach adds the task to the cfs_rq; a wakeup migration removes it lazily at the next update', () => {
    const pelt = new Pelt({ tasks: 2, capacityOrig: [1024, 1024] })
    pelt.initEntityRunnableAverage(0, W)
    pelt.se.utilAvg[0] = 300
    pelt.se.runnableAvg[0] = 300
    pelt.updateRqClock(0, 10 * MS, true)
    pelt.updateLoadAvg(0, 0, DO_ATTACH, false, false, false, W, 0, 0, false)
    expect(pelt.cfs.utilAvg[0]).toBe(300)
    expect(pelt.cfs.loadAvg[0]).toBe(W)
    pelt.removeEntityLoadAvg(0, 0, true, 10 * MS)
    expect(pelt.cfs.utilAvg[0]).toBe(300)
    pelt.updateCfsRqLoadAvg(0, 10 * MS, 0, 0, false)
    expect(pelt.cfs.utilAvg[0]).toBe(0)
    pelt.updateRqClock(1, 10 * MS, true)
    pelt.updateLoadAvg(1, 0, DO_ATTACH, false, false, false, W, 0, 0, false)
    expect(pelt.cfs.utilAvg[1]).toBe(300)
    pelt.updateLoadAvg(1, 0, DO_DETACH, true, true, false, W, W, 1, false)
    expect(pelt.cfs.utilAvg[1]).toBe(0)
    expect(pelt.se.attached[0]).toBe(0)
  })

  it('a new task gets half the spare capacity, or its weight share of the CPU util if smaller', () => {
    const pelt = new Pelt({ tasks: 2, capacityOrig: [1024, 512] })
    pelt.initEntityRunnableAverage(0, W)
    pelt.postInitEntityUtilAvg(0, 0, W)
    expect(pelt.se.utilAvg[0]).toBe(512)
    expect(pelt.se.runnableAvg[0]).toBe(512)
    pelt.cfs.utilAvg[1] = 400
    pelt.cfs.loadAvg[1] = 2048
    pelt.initEntityRunnableAverage(1, W)
    pelt.postInitEntityUtilAvg(1, 1, W)
    expect(pelt.se.utilAvg[1]).toBe(56) // min(400*1024/2049 = 199, (512-400)/2 = 56)
    expect(pelt.se.loadAvg[1]).toBe(W)
  })
})

describe('util_est', () => {
  const setup = (legacy = false): Pelt => {
    const pelt = new Pelt({ tasks: 1, capacityOrig: [1024], utilEstLegacy: legacy })
    pelt.initEntityRunnableAverage(0, W)
    return pelt
  }
  const sleepWith = (pelt: Pelt, util: number, runnable = util): void => {
    // util_avg changed since the last update: the flag is clear.
    pelt.se.utilEst[0] = pelt.taskUtilEstRaw(0)
    pelt.se.utilAvg[0] = util
    pelt.se.runnableAvg[0] = runnable
    pelt.utilEstUpdate(0, 0, true)
  }

  it('jumps up at once and decays by a quarter of the gap', () => {
    const pelt = setup()
    sleepWith(pelt, 800)
    expect(pelt.taskUtilEstRaw(0)).toBe(800)
    sleepWith(pelt, 400)
    expect(pelt.taskUtilEstRaw(0)).toBe(700)
    sleepWith(pelt, 400)
    expect(pelt.taskUtilEstRaw(0)).toBe(625)
    expect(pelt.taskUtilEst(0)).toBe(625)
    // Within 1%: unchanged.
    sleepWith(pelt, 620)
    expect(pelt.taskUtilEstRaw(0)).toBe(625)
  })

  it('skips untrustworthy samples and repeated updates without new PELT data', () => {
    const pelt = setup()
    sleepWith(pelt, 800)
    sleepWith(pelt, 400, 500) // runnable well above util: the task waited, keep the estimate
    expect(pelt.taskUtilEstRaw(0)).toBe(800)
    expect(pelt.se.utilEst[0]).toBeGreaterThanOrEqual(UTIL_AVG_UNCHANGED)
    pelt.se.utilAvg[0] = 100
    pelt.utilEstUpdate(0, 0, true) // flag still set: util_avg not updated since
    expect(pelt.taskUtilEstRaw(0)).toBe(800)
    pelt.utilEstUpdate(0, 0, false) // not a sleep: nothing
    expect(pelt.taskUtilEstRaw(0)).toBe(800)
  })

  it('cfs_rq util_est sums the queued tasks; cpu_util is the max with util_avg', () => {
    const pelt = setup()
    sleepWith(pelt, 600)
    pelt.utilEstEnqueue(0, 0)
    pelt.cfs.utilAvg[0] = 300
    expect(pelt.cpuUtilCfs(0)).toBe(600)
    // Moving p (util 600) elsewhere takes its util and its estimate out.
    pelt.cfs.utilAvg[0] = 700
    expect(pelt.cpuUtil(0, 0, 0, true, 1, false)).toBe(100)
    pelt.utilEstDequeue(0, 0)
    expect(pelt.cpuUtilCfs(0)).toBe(700)
  })

  it('legacy (6.6) form: the last sample counts in the estimate', () => {
    const pelt = setup(true)
    sleepWith(pelt, 800)
    sleepWith(pelt, 400)
    expect(pelt.se.utilEstEnqueued[0]).toBe(400)
    expect(pelt.taskUtilEstRaw(0)).toBe(700)
    sleepWith(pelt, 900)
    expect(pelt.taskUtilEstRaw(0)).toBe(900)
  })
})

describe('avg_rt on CPUs that run no RT task', () => {
  it('updates skipped while avg_rt is zero and no RT task runs leave it as updating at every clock sync does', () => {
    // reference: update_rt_rq_load_avg() at every sync, as the kernel calls it
    const reference = (pelt: Pelt, cpu: number, running: boolean): void => {
      const r = running ? 1 : 0
      if (updateLoadSum(pelt.rt, cpu, pelt.rqClockPelt(cpu), r, r, r)) updateLoadAvg(pelt.rt, cpu, 1)
    }
    const caps = [1024, 512]
    const lazy = new Pelt({ tasks: 1, capacityOrig: caps })
    const every = new Pelt({ tasks: 1, capacityOrig: caps })
    let x = 777
    const rnd = (n: number): number => {
      x = (x * 1103515245 + 12345) % 2147483648
      return x % n
    }
    let now = 0
    let quietAgain = 0
    // RT bursts separated by long quiet stretches (avg_rt decays back to zero), syncs at random
    // instants, idle entries and exits among them
    for (let step = 0; step < 20000; step++) {
      now += 1 + rnd(step % 5000 < 300 ? 3000 : 2_000_000)
      const cpu = rnd(2)
      const idle = rnd(4) === 0
      const rt = step % 5000 < 300 && !idle && rnd(2) === 0
      for (const p of [lazy, every]) {
        if (idle && rnd(8) === 0) p.enterIdle(cpu, now)
        p.updateRqClock(cpu, now, idle)
      }
      const wasQuiet = lazy.rtQuiet[cpu]
      lazy.updateRtRqLoadAvg(cpu, rt)
      reference(every, cpu, rt)
      if (wasQuiet === 0 && lazy.rtQuiet[cpu] === 1) quietAgain++
      const a = lazy.rt
      const b = every.rt
      // the skipped updates are made, as one, before the next one that may change the signal
      if (rt || lazy.rtQuiet[cpu] === 0) {
        expect([a.lastUpdateTime[cpu], a.periodContrib[cpu], a.loadSum[cpu], a.utilSum[cpu], a.runnableSum[cpu], a.utilAvg[cpu]])
          .toEqual([b.lastUpdateTime[cpu], b.periodContrib[cpu], b.loadSum[cpu], b.utilSum[cpu], b.runnableSum[cpu], b.utilAvg[cpu]])
      }
      expect(lazy.cpuUtilRt(cpu)).toBe(every.cpuUtilRt(cpu))
    }
    // avg_rt decayed to zero after the bursts: the CPUs became quiet again
    expect(quietAgain).toBeGreaterThanOrEqual(2)
  })
})
