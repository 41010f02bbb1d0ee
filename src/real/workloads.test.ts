import { describe, expect, it } from 'vitest'
import { parseScenario } from '../sim/scenario'
import { RealRefusal } from './errors'
import { attrsArg } from './helper'
import { histPercentile, parseCyclictestHistogram, parseHackbenchTimes, planWorkloads, rtappJson, type PlanContext } from './workloads'
import type { RtAppWorkload } from '../sim/scenario/workload-specs'

const ctx = (over: Partial<PlanContext> = {}): PlanContext => ({
  helper: '/cache/schedlab-helper', durationMs: 3000, ncpus: 2, runDir: '/tmp/run', kernelConfig: new Map([['CONFIG_UCLAMP_TASK', 'n']]),
  which: (p) => `/usr/bin/${p}`, rtappPLoadNs: () => 51, ...over
})

const workloads = (w: unknown[]) => parseScenario(JSON.stringify({ name: 't', topology: 'smp-2', durationMs: 3000, workloads: w }), 't.json').workloads

describe('real workloads', () => {
  it('runs cyclictest with the scenario\'s interval, threads, policy and priority; the slice and nice go to the helper', () => {
    const [fair, rt] = planWorkloads(workloads([
      { type: 'cyclictest', name: 'ct', threads: 2, periodUs: 2777, sliceUs: 1000, nice: -5 },
      { type: 'cyclictest', name: 'rt', threads: 1, periodUs: 1000, policy: 'fifo', priority: 80, cpus: [1], pin: true }
    ]), ctx())
    expect(fair.processes[0].argv).toEqual(['/usr/bin/cyclictest', '-q', '-t', '2', '-i', '2777', '-d', '500', '-h', '100000', '-D', '8', '--policy=other'])
    expect(fair.processes[0]).toMatchObject({ attrs: { sliceNs: 1_000_000, nice: -5 }, stopSignal: 'SIGINT' })
    expect(rt.processes[0].argv).toEqual(expect.arrayContaining(['--policy=fifo', '-p', '80', '-a1']))
    expect(rt.processes[0].attrs).toEqual({ cpus: [1] })
  })

  it('runs hackbench with groups, mode, IPC and loops, and restarts it with repeat', () => {
    const [hb] = planWorkloads(workloads([{ type: 'hackbench', name: 'hb', groups: 2, mode: 'thread', ipc: 'pipe', loops: 1000, repeat: true, sliceUs: 20000 }]), ctx())
    expect(hb.processes[0].argv).toEqual(['/usr/bin/hackbench', '-g', '2', '-f', '20', '-l', '1000', '-s', '100', '-T', '-p'])
    expect(hb.processes[0]).toMatchObject({ repeat: true, attrs: { sliceNs: 20_000_000 } })
  })

  it('runs periodic tasks and hogs as the helper\'s load, with their attributes', () => {
    const [p, h] = planWorkloads(workloads([
      { type: 'periodic', name: 'per', count: 3, runUs: 300, periodUs: 2000, staggerUs: 100, policy: 'rr', priority: 10 },
      { type: 'hog', name: 'hog', count: 2, cpus: [0] }
    ]), ctx())
    expect(p.processes[0].argv).toEqual(['/cache/schedlab-helper', 'load', 'per', '3', '300', '2000', '100', 'work'])
    expect(p.processes[0].attrs).toEqual({ policy: 'rr', priority: 10 })
    expect(h.processes[0].argv.slice(1)).toEqual(['load', 'hog', '2', '0', '0', '0', 'work'])
    expect(attrsArg(h.processes[0].attrs)).toBe('policy=other,nice=0,cpus=0')
    expect(attrsArg({ policy: 'other', nice: 3, sliceNs: 1e6, cpus: [0, 1] })).toBe('policy=other,nice=3,slice_ns=1000000,cpus=0:1')
  })

  it('refuses, in one line, a missing tool (naming its Debian package), schbench, uclamp without UCLAMP_TASK, startCpu', () => {
    const refuse = (w: unknown[], c = ctx()): string => {
      try {
        planWorkloads(workloads(w), c)
      } catch (e) {
        expect(e).toBeInstanceOf(RealRefusal)
        return (e as Error).message
      }
      throw new Error('not refused')
    }
    expect(refuse([{ type: 'cyclictest', name: 'ct' }], ctx({ which: () => null }))).toBe("cyclictest is not installed: it comes with Debian's rt-tests package (apt-get install rt-tests)")
    expect(refuse([{ type: 'rt-app', name: 'ra', tasks: { t: { run: 100 } } }], ctx({ which: () => null }))).toMatch(/rt-app package/)
    expect(refuse([{ type: 'schbench', name: 'sb' }], ctx({ which: (p) => (p === 'schbench' ? null : p) }))).toMatch(/schbench has no Debian package/)
    expect(refuse([{ type: 'periodic', name: 'p', runUs: 100, periodUs: 1000, uclampMin: 512 }])).toBe('p: uclamp needs a kernel built with CONFIG_UCLAMP_TASK=y (this one is not); run it there and `schedlab analyze` its trace')
    expect(refuse([{ type: 'hog', name: 'h', startCpu: 1 }])).toMatch(/startCpu/)
    expect(planWorkloads(workloads([{ type: 'noise', name: 'n' }]), ctx())[0].skipped).toMatch(/own/)
  })

  it('writes rt-app 1.0\'s JSON from the tasks and refuses what rt-app 1.0 lacks', () => {
    const [ra] = workloads([{ type: 'rt-app', name: 'ra', tasks: { t: { instance: 2, loop: -1, run: 500, timer: { ref: 'unique', period: 5000 } }, u: { priority: 5, run: 100, sleep: 1000 } } }]) as RtAppWorkload[]
    const j = JSON.parse(rtappJson(ra, 3000, '/tmp/x', 51))
    expect(j.global).toMatchObject({ calibration: 51, duration: 8, log_size: 'disable' })
    expect(j.tasks.t).toMatchObject({ instance: 2, phases: { phase0: { loop: -1, run: 500, timer: { ref: 'unique', period: 5000, mode: 'relative' } } } })
    expect(j.tasks.u.priority).toBe(5)
    const [fork] = workloads([{ type: 'rt-app', name: 'f', tasks: { a: { fork: 'b' }, b: { instance: 0, run: 10 } } }]) as RtAppWorkload[]
    expect(() => rtappJson(fork, 1000, '/tmp')).toThrow(/rt-app 1.0 does not support fork events/)
    const [slices] = workloads([{ type: 'rt-app', name: 's', tasks: { a: { 'dl-runtime': 1000, run: 10, sleep: 10 }, b: { 'dl-runtime': 2000, run: 10, sleep: 10 } } }]) as RtAppWorkload[]
    expect(() => rtappJson(slices, 1000, '/tmp')).toThrow(/a custom slice per task/)
  })

  it('reads cyclictest\'s histogram and hackbench\'s times', () => {
    const out = ['# /dev/cpu_dma_latency set to 0us', '# Histogram', '000000\t000000\t000000', '000064\t000002\t000001', '000065\t000005\t000001', '000090\t000001\t000000', '# Total: 000000008 000000002', '# Min Latencies: 00064 00064', '# Max Latencies: 00120 00065', '# Histogram Overflows: 00001 00000'].join('\n')
    const h = parseCyclictestHistogram(out)!
    expect(h.total).toBe(11)
    expect(h.overflows).toBe(1)
    expect(h.maxUs).toBe(120)
    expect([histPercentile(h, 50), histPercentile(h, 90), histPercentile(h, 99.9)]).toEqual([65, 90, null])
    expect(parseCyclictestHistogram('nothing')).toBeNull()
    expect(parseHackbenchTimes('Running in threaded mode with 2 groups\nTime: 0.343\nTime: 0.401\n')).toEqual([0.343, 0.401])
  })
})
