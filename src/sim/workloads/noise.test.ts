import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { parseScenario } from '../scenario'
import type { NOISE_DEFAULTS } from '../scenario/workload-specs'

const noise = (over: Partial<Record<keyof typeof NOISE_DEFAULTS, number>>): object => ({ type: 'noise', name: 'bg', perCpu: 0, daemons: 0, ...over })

const rt = { type: 'cyclictest', name: 'ct', periodUs: 1000, policy: 'fifo', priority: 90 }

function scenario(obj: object) {
  return parseScenario(JSON.stringify({ topology: 'smp-1', ...obj }), 'micro.json', {})
}

describe('background noise: vCPU stalls', () => {
  it('a stalled CPU runs nothing: an RT wakeup waits for the end of the stall, a hog loses the time', () => {
    const run = (stall: boolean) => simulate(scenario({ durationMs: 2000, workloads: [
      rt, { type: 'hog', name: 'hog' },
      ...(stall ? [noise({ stallPeriodUs: 10_000, stallUs: 400, sigma: 0 })] : [])
    ] }), 0, 1)
    const off = run(false)
    const on = run(true)
    expect(off.workloads[0].latencyUs.max).toBeLessThan(30)
    // a timer that expires during a 400 us stall is handled at its end (stalls closer than
    // 400 us chain, so the maximum can be longer)
    expect(on.workloads[0].latencyUs.max).toBeGreaterThan(300)
    expect(on.workloads[0].latencyUs.p99).toBeGreaterThan(250)
    expect(on.workloads[0].latencyUs.p99).toBeLessThan(430)
    expect(on.counters?.vcpuStalls).toBeGreaterThan(150)
    // about 4 % of the CPU is stolen: the hog gets that much less
    const hog = (r: typeof on) => r.tasks.find((t) => t.name === 'hog-0')!.cpuTimeMs
    expect(hog(off) - hog(on)).toBeGreaterThan(60)
  })
})

describe('background noise: kernel threads with unpreemptible sections', () => {
  // one CPU, preempt none: an RT cyclictest waits whenever a section is running
  const run = (preempt: 'none' | 'full') => simulate(scenario({ durationMs: 4000, kernel: { preempt }, workloads: [
    rt, noise({ kthreads: 1, kthreadPeriodUs: 20_000, kthreadRunUs: 1000, sigma: 0.5 })
  ] }), 0, 1).workloads[0].latencyUs
  it('under preempt none the wakeup waits for the end of the section', () => {
    expect(run('none').max).toBeGreaterThan(800)
    expect(run('none').p99).toBeGreaterThan(300)
  })
  it('a preemptible kernel preempts the section at once', () => {
    expect(run('full').max).toBeLessThan(40)
  })
})

describe('background noise of a topology', () => {
  const topo = { name: 'noisy', clusters: [{ name: 'c', cpus: 2, capacity: 1024 }], noise: { perCpu: 1, daemons: 0, stallPeriodUs: 50_000, stallUs: 100 } }
  const text = (extra: object) => JSON.stringify({ topology: topo, workloads: [{ type: 'hog', name: 'h' }], ...extra })
  it('is added as the workload "background"', () => {
    const s = parseScenario(text({}), 't.json', {})
    const bg = s.workloads.find((w) => w.name === 'background')
    expect(bg).toMatchObject({ type: 'noise', perCpu: 1, daemons: 0, stallPeriodUs: 50_000, stallUs: 100, kthreads: 0 })
  })
  it('not when the scenario has its own noise workload or turns it off', () => {
    expect(parseScenario(text({ backgroundNoise: false }), 't.json', {}).workloads.map((w) => w.name)).toEqual(['h'])
    const own = parseScenario(JSON.stringify({ topology: topo, workloads: [{ type: 'hog', name: 'h' }, { type: 'noise', name: 'mine' }] }), 't.json', {})
    expect(own.workloads.map((w) => w.name)).toEqual(['h', 'mine'])
  })
})

describe('background noise: timer delivery delay of a virtual machine', () => {
  // one idle CPU, an RT cyclictest: without a delay every wakeup costs the same (a flat line);
  // with one, latency - that line is the delay itself, lognormal of the given mean and spread
  const run = (over: Partial<Record<keyof typeof NOISE_DEFAULTS, number>>, seed = 1) =>
    simulate(scenario({ durationMs: 20_000, workloads: [rt, noise(over)] }), 0, seed).workloads[0].latencyUs
  const flat = run({})
  it('without it the timer path is a constant', () => {
    expect(flat.p99_9).toBeCloseTo(flat.p50, 1)
  })
  it('every expiry is delivered a lognormal time late: median mean*exp(-s^2/2), p90 and p99 its quantiles', () => {
    const mean = 20
    const sigma = 0.5
    const l = run({ timerDelayUs: mean, timerDelaySigma: sigma })
    const median = mean * Math.exp(-(sigma * sigma) / 2)
    const q = (z: number): number => median * Math.exp(z * sigma)
    const near = (x: number, want: number): void => expect(Math.abs(x / want - 1)).toBeLessThan(0.08)
    near(l.p50 - flat.p50, median)
    near(l.p90 - flat.p50, q(1.2816))
    near(l.p99 - flat.p50, q(2.3263))
    near(l.avg - flat.avg, mean)
    expect(l.min - flat.min).toBeLessThan(l.p50 - flat.p50)
  })
  it('spread 0 delays every expiry by the mean; other seeds draw other delays', () => {
    const l = run({ timerDelayUs: 15, timerDelaySigma: 0 })
    expect(l.p50 - flat.p50).toBeCloseTo(15, 0)
    expect(l.p99 - flat.p50).toBeCloseTo(15, 0)
    // the rarer longer ones: the delayed interrupt also ran the main thread's expired sleep,
    // woken after the measuring thread and before the interrupt's exit (one more timer's work)
    expect(l.max - flat.p50).toBeLessThan(15 + 5)
    const a = run({ timerDelayUs: 20, timerDelaySigma: 0.8 }, 1)
    const b = run({ timerDelayUs: 20, timerDelaySigma: 0.8 }, 2)
    expect(a.max).not.toBe(b.max)
    expect(run({ timerDelayUs: 20, timerDelaySigma: 0.8 }, 1)).toEqual(a)
  })
})
