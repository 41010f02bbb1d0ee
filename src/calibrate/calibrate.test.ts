import { describe, expect, it } from 'vitest'
import { fit, lossOf } from './fit'
import { noiseClass, noiseFromReal } from './noise'
import { applyParams } from './suites'
import type { VariantResult } from '../shared/result'

describe('calibrate: the fit', () => {
  it('recovers the parameters of a known linear model within the rounding', () => {
    // two figures made of two costs: a = 2x + y, b = x + 3y, measured with x = 1.7, y = 0.45
    const targets = [{ name: 'a', real: 2 * 1.7 + 0.45 }, { name: 'b', real: 1.7 + 3 * 0.45 }]
    const r = fit([{ name: 'x', init: 1, min: 0.01, max: 100 }, { name: 'y', init: 1, min: 0.01, max: 100 }], targets, (p) => [2 * p.x + p.y, p.x + 3 * p.y])
    expect(Math.abs(r.params.x / 1.7 - 1)).toBeLessThan(0.06)
    expect(Math.abs(r.params.y / 0.45 - 1)).toBeLessThan(0.06)
    for (const x of r.residuals) expect(Math.abs(x.error)).toBeLessThan(0.05)
    expect(r.loss).toBeLessThan(lossOf(targets, [3, 4]))
  })
  it('keeps parameters in their bounds', () => {
    const r = fit([{ name: 'x', init: 5, min: 1, max: 10 }], [{ name: 'a', real: 0.1 }], (p) => [p.x])
    expect(r.params.x).toBe(1)
    expect(r.residuals[0].error).toBeCloseTo(9, 5)
  })
})

describe('calibrate: the background noise of a real trace', () => {
  it('classes tasks by comm: per-CPU kernel threads, unbound kernel threads, daemons', () => {
    expect(noiseClass('kworker/1:2')).toBe('perCpu')
    expect(noiseClass('ksoftirqd/0')).toBe('perCpu')
    expect(noiseClass('kworker/u8:3')).toBe('kthread')
    expect(noiseClass('kdamond.0')).toBe('kthread')
    expect(noiseClass('systemd-journal')).toBe('daemon')
  })
  it('turns their activations and CPU time into noise parameters', () => {
    const task = (name: string, comm: string, workload: string, cpuTimeMs: number, contextSwitches: number) =>
      ({ name, comm, workload, cpuTimeMs, contextSwitches, latencyUs: {} as never, migrations: 0, wakeups: 0, lastCpu: 0 })
    const run = {
      name: 'cyclictest alone', seed: 0, stats: { simulatedMs: 10_000 } as never, cpus: [], workloads: [], unreasonableIdle: {} as never,
      tasks: [
        task('cyclictest-10', 'cyclictest', 'cyclictest', 20, 3600),
        task('kworker/0:1-20', 'kworker/0:1', 'kworker', 10, 1000),
        task('kdamond.0-30', 'kdamond.0', 'kdamond', 50, 100),
        task('sshd-40', 'sshd', 'sshd', 8, 10),
        // someone else's benchmark on a shared machine: a load, not background
        task('node-50', 'node', 'node', 6000, 900)
      ],
      // the real runner keeps the machine's own tasks out of tasks, in host.foreignTasks
      host: { foreignTasks: [{ name: 'kworker/1:1-21', comm: 'kworker/1:1', contextSwitches: 1000, cpuTimeMs: 10 }, { name: 'ksoftirqd/0-15', comm: 'ksoftirqd/0', contextSwitches: 0, cpuTimeMs: 0 }] }
    } as unknown as VariantResult
    const r = noiseFromReal([run], ['cyclictest'], 2)
    // 2000 activations in 10 s on 2 CPUs: 100/s per CPU, 10 us each
    expect(r.noise).toMatchObject({ perCpu: 1, perCpuPeriodUs: 10_000, perCpuRunUs: 10, kthreads: 1, kthreadPeriodUs: 100_000, kthreadRunUs: 500, daemons: 1, daemonPeriodUs: 1e6, daemonRunUs: 800 })
    expect(r.notes.join('\n')).toMatch(/left out as loads.*node 6\.0 CPU-s/)
  })
})

describe('calibrate: applying a fit to a topology', () => {
  it('sets the costs and noise it fitted, hackbench read as write, and keeps the rest', () => {
    const t = applyParams({ name: 't', clusters: [{ name: 'c', cpus: 2, capacity: 1024 }], costs: { ipiUs: 3 }, noise: { perCpu: 1 } },
      { contextSwitchUs: 1.5, hackbenchUs: 0.7, stallUs: 90 })
    expect(t.costs).toEqual({ ipiUs: 3, contextSwitchUs: 1.5, hackbenchWriteUs: 0.7, hackbenchReadUs: 0.7 })
    expect(t.noise).toEqual({ perCpu: 1, stallUs: 90 })
  })
})

describe('topology files (what calibrate writes)', () => {
  it('a scenario may name a topology file, read relative to it', async () => {
    const { parseScenario } = await import('../sim/scenario')
    const files: Record<string, string> = { 'dir/host-cal.json': JSON.stringify({ name: 'host', clusters: [{ name: 'c', cpus: 2, capacity: 1024 }], costs: { contextSwitchUs: 1.1 } }) }
    const readFile = (path: string, from: string) => {
      const full = `${from.split('/').slice(0, -1).join('/')}/${path}`
      if (!(full in files)) throw new Error('no such file')
      return { text: files[full], file: path }
    }
    const s = parseScenario(JSON.stringify({ topology: 'host-cal.json', workloads: [{ type: 'hog' }] }), 'dir/s.json', { readFile })
    expect(s.topology.costs).toEqual({ contextSwitchUs: 1.1 })
    expect(() => parseScenario(JSON.stringify({ topology: 'nope.json', workloads: [{ type: 'hog' }] }), 'dir/s.json', { readFile })).toThrow(/topology.*cannot read topology file "nope.json"/s)
  })
})

describe('schedlab calibrate: arguments', () => {
  it('needs a topology and exactly one source', async () => {
    const { parseArgs } = await import('../cli/args')
    expect(() => parseArgs(['calibrate', '--published'])).toThrow(/--topology/)
    expect(() => parseArgs(['calibrate', '--topology', 'rb5'])).toThrow(/exactly one of/)
    expect(() => parseArgs(['calibrate', '--topology', 'rb5', '--real', '--published'])).toThrow(/exactly one of/)
    expect(parseArgs(['calibrate', '--topology', 'host', '--from', 'r.json', '--out', 'h.json'])).toMatchObject({ cmd: 'calibrate', topology: 'host', source: 'from', from: 'r.json', out: 'h.json' })
  })
})

describe('calibrate: evaluating a suite', () => {
  it('runs each variant with its own workload list ("cyclictest alone" has no hackbench)', async () => {
    const { evaluateSuite } = await import('../cli/calibrate')
    const { memoryIo } = await import('../cli/io')
    const tasksOf = (name: string) => (r: VariantResult) => r.tasks.filter((t) => t.workload === name).length
    const suite = {
      name: 't', description: 't', seeds: 1, params: [], apply: applyParams,
      scenarios: () => [{
        scenario: {
          durationMs: 200,
          variants: [{ name: 'ct alone', workloads: { hb: { disabled: true } } }, { name: 'hb alone', workloads: { ct: { disabled: true } } }],
          workloads: [{ type: 'cyclictest', name: 'ct', periodUs: 1000 }, { type: 'hackbench', name: 'hb', groups: 1, loops: 10, repeat: true }]
        },
        metrics: [
          { name: 'ct tasks', variant: 'ct alone', read: tasksOf('ct') }, { name: 'hb tasks in ct alone', variant: 'ct alone', read: tasksOf('hb') },
          { name: 'ct tasks in hb alone', variant: 'hb alone', read: tasksOf('ct') }, { name: 'hb tasks', variant: 'hb alone', read: tasksOf('hb') }
        ]
      }]
    }
    const topo = { name: 't', clusters: [{ name: 'c', cpus: 2, capacity: 1024 }] }
    // cyclictest: its measurement thread and its main thread
    expect(evaluateSuite(suite, topo, memoryIo({}))).toEqual([2, 0, 0, 40])
  })
})

describe('calibrate: the saved measurement', () => {
  it('keeps what a refit reads (per-workload switch sums, the machine\'s own tasks) and drops the rest', async () => {
    const { slimMeasurement } = await import('../cli/calibrate')
    const t = (name: string, workload: string, contextSwitches: number) => ({ name, workload, contextSwitches, cpuTimeMs: 1, wakeups: 1, migrations: 0, lastCpu: 0, latencyUs: { count: 5 } })
    const v = {
      name: 'hb', workloads: [{ name: 'hackbench', latencyUs: {}, latencyHist: [[1, 2]], timeSec: 0.5 }],
      tasks: [t('hb-1', 'hackbench', 10), t('hb-2', 'hackbench', 32)], host: { foreignTasks: [{ name: 'kworker/0:1-5', contextSwitches: 3 }] }
    }
    const slim = slimMeasurement({ scenario: 's', variants: [v] } as never)
    const s = slim.variants[0]
    expect(s.tasks).toHaveLength(1)
    expect(s.tasks[0]).toMatchObject({ workload: 'hackbench', contextSwitches: 42, cpuTimeMs: 2 })
    expect(s.workloads[0]).toEqual({ name: 'hackbench', latencyUs: {}, timeSec: 0.5 })
    expect((s.host as unknown as { foreignTasks: unknown[] }).foreignTasks).toHaveLength(1)
  })
})

describe('calibrate --from a fidelity:real cache', () => {
  it('reads the clean ct-alone and fifo-hogs runs of the latest definition as the suite\'s variants', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { readFidelityCache } = await import('../cli/calibrate')
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-cache-'))
    const run = (id: string, hash: string, n: number, contaminated: boolean, when: string, p50: number) =>
      writeFileSync(join(dir, `${id}--${hash}--${n}.json`), JSON.stringify({ case: id, hash, attempt: n, contaminated, when, metrics: { p50, p90: p50 + 20, p99: p50 + 80, p99_9: p50 + 1900 }, host: { durationSec: 27 } }))
    run('ct-alone', 'new', 1, false, '2026-12-01T12:00:00Z', 70)
    run('ct-alone', 'new', 2, true, '2026-12-01T12:05:00Z', 90)
    run('ct-alone', 'new', 3, false, '2026-12-01T12:10:00Z', 74)
    run('ct-alone', 'old', 1, false, '2026-11-30T12:00:00Z', 50)
    run('fifo-hogs', 'f', 1, false, '2026-12-01T12:00:00Z', 18)
    run('ct-hogs', 'h', 1, false, '2026-12-01T12:00:00Z', 68)
    const notes: string[] = []
    const out = readFidelityCache(dir, notes)
    const p50 = (v: string) => out.variants.filter((r) => r.name === v).map((r) => r.workloads[0].latencyUs.p50)
    expect(p50('cyclictest alone')).toEqual([70, 74])
    expect(p50('fifo against hogs')).toEqual([18])
    expect(out.variants).toHaveLength(3)
    expect(out.variants[0].stats.simulatedMs).toBe(27_000)
    expect(notes.join('\n')).toMatch(/ct-alone \(cyclictest alone\): 2 clean run\(s\) of definition new/)
    expect(() => readFidelityCache(mkdtempSync(join(tmpdir(), 'schedlab-cache-')), [])).toThrow(/no fidelity:real runs of ct-alone or fifo-hogs/)
  })
  it('--params fits only the parameters named, and names the suite\'s when one is unknown', async () => {
    const { parseArgs } = await import('../cli/args')
    expect(parseArgs(['calibrate', '--topology', 'host', '--from', 'cache', '--params', 'timerDelayUs, stallUs'])).toMatchObject({ params: ['timerDelayUs', 'stallUs'] })
    const { calibrateCommand } = await import('../cli/calibrate')
    const { memoryIo } = await import('../cli/io')
    const io = memoryIo({ 'r.json': JSON.stringify({ variants: [] }) })
    await expect(calibrateCommand({ topology: 'smp-2', source: 'from', from: 'r.json', json: false, check: false, params: ['nope'] }, io)).rejects.toThrow(/"nope" is not a parameter of the suite "real" \(contextSwitchUs, .*timerDelayUs/)
  })
  it('the timer delivery delay is a noise parameter of the fit', () => {
    const t = applyParams({ name: 't', clusters: [{ name: 'c', cpus: 2, capacity: 1024 }], noise: { perCpu: 1 } }, { timerDelayUs: 11, timerDelaySigma: 0.8, sigma: 1.6 })
    expect(t.noise).toEqual({ perCpu: 1, timerDelayUs: 11, timerDelaySigma: 0.8, sigma: 1.6 })
  })
  it('a measurement with no other tasks fits timer delivery without the noise workload\'s default kworkers and daemons', async () => {
    const { withoutBackgroundTasks } = await import('../cli/calibrate')
    const { parseScenario } = await import('../sim/scenario')
    const topology = applyParams(withoutBackgroundTasks({ name: 'guest', clusters: [{ name: 'c', cpus: 1, capacity: 1024 }] }), { timerDelayUs: 3 })
    const s = parseScenario(JSON.stringify({ name: 'g', topology, durationMs: 100, workloads: [{ type: 'cyclictest', name: 'ct', threads: 1, periodUs: 1000 }], variants: [{ name: 'base' }] }), 'guest.json')
    const bg = s.workloads.find((w) => w.type === 'noise') as unknown as Record<string, number>
    expect(bg).toMatchObject({ perCpu: 0, daemons: 0, kthreads: 0, timerDelayUs: 3 })
  })
  it('--published fits a board preset to its thread\'s baseline rows only, and refuses a topology without tables', async () => {
    const { publishedSuiteFor } = await import('./suites')
    const x86 = publishedSuiteFor('x86-2s')!
    const plan = x86.scenarios({ name: 'x86-2s', clusters: [] })
    expect(plan.map((p) => p.metrics.map((m) => m.variant))).toEqual([['vanilla'], ['vanilla'], ['vanilla']])
    expect(plan.map((p) => p.metrics[0].published)).toEqual([0.2657, 1.15, 3.5023])
    expect(publishedSuiteFor('rb5')?.description).toMatch(/seed 000 hackbench/)
    const { calibrateCommand } = await import('../cli/calibrate')
    const { memoryIo } = await import('../cli/io')
    await expect(calibrateCommand({ topology: 'smp-2', source: 'published', json: false, check: true }, memoryIo({}))).rejects.toThrow(/no published tables for the topology "smp-2"/)
  })
})

