import { describe, expect, it } from 'vitest'
import type { LatencySummary, VariantResult } from '../shared/result'
import { parseArgs } from './args'
import { UsageError } from './errors'
import { compareResults, renderCompareMarkdown, renderCompareText } from './format'
import { formatChange } from '../shared/tables'
import { runCli } from './index'
import { memoryIo } from './io'

const lat = (p99: number, p99_9: number, max: number): LatencySummary => ({ count: 100000, min: 1, avg: 10, p50: 5, p90: 8, p99, p99_9, max })

function result(name: string, seed: number, l: LatencySummary, timeSec?: number): VariantResult {
  return {
    name,
    seed,
    stats: { events: 1, wallMs: 1, simulatedMs: 1, contextSwitches: 0, migrations: 0, wakeups: 0, sysPct: 0 },
    workloads: [{ name: 'cyclictest', type: 'cyclictest', latencyUs: l }, ...(timeSec !== undefined ? [{ name: 'hackbench', type: 'hackbench', latencyUs: { ...l, count: 0 }, timeSec }] : [])],
    tasks: [],
    cpus: [],
    unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
  }
}

describe('argument parsing', () => {
  it('parses run options', () => {
    expect(parseArgs(['run', 's.json', '--variant', 'a', '--variant', 'b', '--seed', '3', '--seeds', '2', '--duration-ms', '500', '--topology', 'smp-2', '--json', '--out', 'o', '--trace'])).toEqual({
      cmd: 'run', file: 's.json', sets: [], variants: ['a', 'b'], seed: 3, seeds: 2, durationMs: 500, topology: 'smp-2', maxEvents: undefined, published: false, json: true, out: 'o', trace: true, perSeed: false, precision: undefined, maxSeeds: undefined, traceFormat: 'ftrace', patches: []
    })
  })

  it('parses compare percentiles and output forms', () => {
    const c = parseArgs(['compare', 's.json', '--percentile', '50', '--percentile', '99.99', '--md'])
    expect(c).toMatchObject({ cmd: 'compare', percentiles: [50, 99.99], md: true, json: false })
  })

  it('rejects bad usage with a UsageError', () => {
    for (const argv of [['run'], ['run', 'a', 'b'], ['run', 'a', '--seed', 'x'], ['run', 'a', '--seeds', '0'], ['run', 'a', '--bogus'], ['compare', 'a', '--percentile', '100'], ['frobnicate'], ['compare', 'a', '--md', '--json']]) {
      expect(() => parseArgs(argv), argv.join(' ')).toThrow(UsageError)
    }
  })
})

describe('seed-thread table form', () => {
  it('writes the change as the threads do: positive = lower than the first column', () => {
    expect(formatChange((2273 - 1018) / 2273 * 100)).toBe('(+55 %)')
    expect(formatChange(0)).toBe('(0 %)')
    expect(formatChange(-1.2)).toBe('(-1 %)')
    expect(formatChange(14.3)).toBe('(+14 %)')
  })

  it('builds the 99th / 99.9th / Maximum table with one column per variant', () => {
    const runs = [result('tip/sched/core', 1, lat(91, 126, 2273)), result('this patchset', 1, lat(90, 108, 1018))]
    const c = compareResults('cyclictest alone', runs, ['tip/sched/core', 'this patchset'])
    const text = renderCompareText(c)
    expect(text).toContain('scheduling latency (us) for cyclictest')
    expect(text).toMatch(/99th Percentile \(us\)\s+91 \|\s+90 \(\+1 %\)/)
    expect(text).toMatch(/99\.9th Percentile \(us\)\s+126 \|\s+108 \(\+14 %\)/)
    expect(text).toMatch(/Maximum \(us\)\s+2273 \|\s+1018 \(\+55 %\)/)
    expect(renderCompareMarkdown(c)).toContain('| Maximum (us) | 2273 | 1018 (+55 %) |')
  })

  it('gives hackbench time as mean ±half-width over seeds, marked when significant', () => {
    const runs = [0.85, 0.87, 0.869].map((t, i) => result('base', i + 1, lat(1, 1, 1), t)).concat([0.76, 0.77, 0.762].map((t, i) => result('patched', i + 1, lat(1, 1, 1), t)))
    const c = compareResults('hb', runs, ['base', 'patched'])
    const t = c.tables.find((x) => x.title.startsWith('hackbench'))
    expect(t?.rows[0].values[0]).toBeCloseTo(0.863, 3)
    const text = renderCompareText(c)
    // t(2) x sd / sqrt(3): 4.303 x 0.01124 / 1.732 = 0.028; 4.303 x 0.00529 / 1.732 = 0.013
    expect(text).toMatch(/0\.863 ±0\.028 \|\s+0\.764 ±0\.013 \(\+11 %\)\*/)
    expect(text).toContain('*: significant')
  })

  it('shows a workload that only some columns run, with "-" elsewhere', () => {
    const a = result('alone', 1, lat(10, 20, 30))
    const b = result('with stress', 1, lat(50, 60, 70))
    b.workloads.push({ name: 'stress', type: 'hog', latencyUs: lat(1, 2, 3) })
    const text = renderCompareText(compareResults('x', [a, b], ['alone', 'with stress']))
    expect(text).toMatch(/scheduling latency \(us\) for stress\n(.*\n)+99th Percentile \(us\)\s+-\s+\|\s+1\.0\n/)
  })

  it('gives a CPU-bound workload its CPU time, where higher is better', () => {
    const mk = (name: string, ms: number) => {
      const r = result(name, 1, lat(1, 2, 3))
      r.workloads.push({ name: 'stress', type: 'hog', latencyUs: { ...lat(0, 0, 0), count: 0 } })
      r.tasks = [{ name: 'stress-0', workload: 'stress', cpuTimeMs: ms, latencyUs: lat(0, 0, 0), migrations: 0, contextSwitches: 0, wakeups: 0, lastCpu: 0 }]
      return r
    }
    const text = renderCompareText(compareResults('x', [mk('a', 1000), mk('b', 360)], ['a', 'b']))
    expect(text).toMatch(/CPU time \(ms\) for stress \(throughput: higher is better\)\n.*\nCPU time \(ms\)\s+1000 \|\s+360 \(-64 %\)/)
  })

  it('says when a further percentile cannot be computed (no histogram data)', () => {
    expect(() => compareResults('x', [result('a', 1, lat(1, 2, 3))], ['a'], [95])).toThrow(/percentile 95 .*histogram/)
  })
})

describe('schedlab commands (on the simulator)', () => {
  const topology = { name: 'one-state', clusters: [{ name: 'c', cpus: 2, capacity: 1024, idleStates: [{ name: 'deep', exitLatencyUs: 20, targetResidencyUs: 10 }] }] }
  // Wakeup cost on an idle CPU: 20 us exit + 4 us timer irq + 3 us switch = 27 us; 34 us with a 10 us switch.
  const scenario = JSON.stringify({
    name: 'cli test',
    topology,
    kernel: { timerSlackUs: 0, costs: { timerIrqUs: 4, contextSwitchUs: 3 } },
    durationMs: 20,
    variants: [{ name: 'base' }, { name: 'other', kernel: { timerSlackUs: 0, costs: { timerIrqUs: 4, contextSwitchUs: 10 } } }],
    workloads: [{ type: 'cyclictest', periodUs: 1000 }]
  })

  it('run --json prints one RunOutput object with the contract fields', async () => {
    const io = memoryIo({ 's.json': scenario })
    const code = await runCli(['run', 's.json', '--json', '--seeds', '2'], io)
    expect(code, io.stderr).toBe(0)
    const out = JSON.parse(io.stdout)
    expect(out.scenario).toBe('cli test')
    expect(out.variants.map((v: VariantResult) => [v.name, v.seed])).toEqual([['base', 1], ['base', 2], ['other', 1], ['other', 2]])
    const w = out.variants[0].workloads[0]
    expect(Object.keys(w.latencyUs)).toEqual(expect.arrayContaining(['count', 'avg', 'p50', 'p90', 'p99', 'p99_9', 'max']))
    expect(w.latencyUs.count).toBe(19)
    for (const k of ['stats', 'tasks', 'cpus', 'unreasonableIdle']) expect(out.variants[0]).toHaveProperty(k)
  })

  it('run --json carries summary and comparisons as the contract says', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--json', '--seeds', '2', '--duration-ms', '200'], io)).toBe(0)
    const out = JSON.parse(io.stdout)
    expect(out.summary.map((s: { name: string; seeds: number }) => [s.name, s.seeds])).toEqual([['base', 2], ['other', 2]])
    const l = out.summary[0].workloads[0].latencyUs
    for (const k of ['count', 'p50', 'p90', 'p99', 'p99_9', 'max', 'ci95']) expect(l).toHaveProperty(k)
    // nothing in this scenario draws on the seed: its two seeds are one sample, and say so
    expect(out.summary[0].identicalSeeds).toEqual([[1, 2]])
    expect(l.count).toBe(199)
    expect(l.ci95.p50[0]).toBeLessThanOrEqual(l.p50)
    expect(l.ci95.p50[1]).toBeGreaterThanOrEqual(l.p50)
    expect(l.p99_9).toBeNull()
    expect(l.insufficient.p99_9).toEqual({ samples: 199, need: 10000 })
    const metrics = out.comparisons.map((c: { metric: string }) => c.metric)
    expect(metrics).toEqual(['p50', 'p90', 'p99', 'p99_9'])
    for (const c of out.comparisons) expect(Object.keys(c)).toEqual(expect.arrayContaining(['baseline', 'variant', 'workload', 'metric', 'change', 'pValue', 'significant']))
    // 27 vs 34 us on every wakeup: a large, certain change
    const p50 = out.comparisons[0]
    expect(p50).toMatchObject({ baseline: 'base', variant: 'other', workload: 'cyclictest', significant: true })
    expect(p50.change).toBeCloseTo((34 / 27 - 1) * 100, 0)
  })

  it('run pools seeds in one table per variant; --per-seed adds each seed\'s', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--seeds', '2', '--variant', 'base'], io)).toBe(0)
    expect(io.stdout).toMatch(/== base, 2 seeds \(1, 2\)/)
    // identical seeds count once, and the table says so
    expect(io.stdout).toMatch(/cyclictest\s+cyclictest\s+19\s+n\/a \(19 samples; need 20\)/)
    expect(io.stdout).toContain('n/a (19 samples; need 100)')
    expect(io.stdout).toContain('warning: seeds 1 and 2 gave identical results: they count as one sample')
    expect(io.stdout).not.toMatch(/-- base, seed/)
    const per = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--seeds', '2', '--variant', 'base', '--per-seed'], per)).toBe(0)
    expect(per.stdout).toMatch(/-- base, seed 1:[^]*-- base, seed 2:/)
  })

  it('--precision adds seeds until the interval is within PCT %, and says how many', async () => {
    const io = memoryIo({ 's.json': scenario })
    const sim = (await import('../sim/index')).simulate
    const code = await runCli(['run', 's.json', '--json', '--variant', 'base', '--set', 'workloads[0].periodUs=2777', '--precision', 'ct.p50:40', '--max-seeds', '5'], io, sim)
    expect(code, io.stderr).toBe(0)
    const out = JSON.parse(io.stdout)
    expect(out.precision).toMatchObject({ workload: 'cyclictest', metric: 'p50', pct: 40 })
    const v = out.precision.variants[0]
    expect(v.seeds).toBe(out.summary[0].seeds)
    expect(v.seeds).toBeGreaterThanOrEqual(2)
    if (v.reached) expect(v.halfWidthPct).toBeLessThanOrEqual(40)
    // this scenario draws nothing on the seed: its second seed is a copy of the first, and
    // more copies would not narrow the interval, so it stops there
    else expect(v.seeds).toBe(out.summary[0].identicalSeeds ? 2 : 5)
    expect(io.stderr).toMatch(/precision cyclictest\.p50 within 40 %/)
    const bad = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--precision', 'nope.p99:5'], bad, sim)).toBe(2)
    expect(bad.stderr).toMatch(/"nope" names no workload \(workloads: cyclictest\)/)
  })

  it('run prints a latency table; --out writes result.json and the normalized scenario', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--variant', 'other', '--out', 'outdir'], io)).toBe(0)
    expect(io.stdout).toMatch(/== other, seed 1:/)
    expect(io.stdout).toMatch(/cyclictest\s+cyclictest\s+19/)
    expect(JSON.parse(io.files['outdir/result.json']).variants).toHaveLength(1)
    expect(JSON.parse(io.files['outdir/scenario.json']).workloads[0].periodUs).toBe(1000)
  })

  it('compare shows one column per variant with the change against the first', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['compare', 's.json'], io)).toBe(0)
    expect(io.stdout).toMatch(/Maximum \(us\)\s+27 \|\s+34 \(-26 %\)/)
    const json = await (async () => {
      const j = memoryIo({ 's.json': scenario })
      await runCli(['compare', 's.json', '--json'], j)
      return JSON.parse(j.stdout)
    })()
    expect(json.variants).toEqual(['base', 'other'])
    expect(json.tables[0].rows.map((r: { key: string }) => r.key)).toEqual(['count', 'avg', 'p50', 'p90', 'p99', 'p99_9', 'max'])
  })

  it('prints progress on stderr only for runs longer than a second', async () => {
    let t = 0
    const io = memoryIo({ 's.json': scenario })
    io.now = () => (t += 1500)
    await runCli(['run', 's.json', '--variant', 'base', '--set', 'workloads[0].periodUs=50', '--duration-ms', '200'], io)
    expect(io.stderr).toMatch(/\[1\/1\] base, seed 1: \d+% \(\d+ of 200 ms simulated, [\d.]+ s\)\n/)
    expect(io.stderr).toMatch(/\[1\/1\] base, seed 1: done\n$/)
    const quick = memoryIo({ 's.json': scenario })
    await runCli(['run', 's.json', '--variant', 'base'], quick)
    expect(quick.stderr).toBe('')
  })

  it('--set changes a field before parsing', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--json', '--variant', 'base', '--set', 'workloads[0].periodUs=2000'], io)).toBe(0)
    expect(JSON.parse(io.stdout).variants[0].workloads[0].latencyUs.count).toBe(9)
    const bad = memoryIo({ 's.json': scenario })
    expect(await runCli(['validate', 's.json', '--set', 'workloads[0].periodUs="x"'], bad)).toBe(2)
    expect(bad.stderr).toMatch(/workloads\[0\]\.periodUs: expected a number, got "x"/)
  })

  it('--trace writes an ftrace-text trace per run that agrees with the run\'s counters', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--variant', 'base', '--trace', '--out', 'o', '--json'], io)).toBe(0)
    const r = JSON.parse(io.stdout).variants[0] as VariantResult
    const trace = io.files['o/cli_test-base-seed1.trace.txt'].trim().split('\n')
    expect(trace[0]).toBe('# tracer: nop')
    const switches = trace.filter((l) => l.includes('sched_switch:'))
    expect(switches.filter((l) => !l.includes('next_pid=0 ')).length).toBe(r.stats.contextSwitches)
    expect(trace.filter((l) => l.includes('sched_waking:')).length).toBe(r.stats.wakeups)
    expect(switches[0]).toMatch(/^\s+<idle>-0 \[00\d\] +0\.\d{9}: sched_switch: prev_comm=swapper\/\d prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=cyclictest-0 next_pid=1 next_prio=120$/)
  })

  it('--published runs the published duration; without one it is a usage error', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--published'], io)).toBe(2)
    expect(io.stderr).toMatch(/gives no publishedDurationMs/)
    const pub = memoryIo({ 'p.json': JSON.stringify({ ...JSON.parse(scenario), publishedDurationMs: 40 }) })
    expect(await runCli(['run', 'p.json', '--published', '--json', '--variant', 'base'], pub)).toBe(0)
    expect(JSON.parse(pub.stdout).variants[0].workloads[0].latencyUs.count).toBe(39)
  })

  it('validate summarises a valid scenario; lists work as text and JSON', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['validate', 's.json'], io)).toBe(0)
    expect(io.stdout).toMatch(/OK: "cli test" on one-state \(2 CPUs\), 1 workload\(s\), 2 variant\(s\) x 1 seed\(s\) = 2 run\(s\)/)
    for (const cmd of ['patches', 'topologies', 'presets']) {
      const j = memoryIo()
      expect(await runCli([cmd, '--json'], j)).toBe(0)
      expect(() => JSON.parse(j.stdout)).not.toThrow()
    }
    const p = memoryIo()
    await runCli(['patches'], p)
    expect(p.stdout).toMatch(/short-slice-v1/)
    expect(p.stdout).toMatch(/RUN_TO_PARITY/)
  })

  it('an internal error exits 1 without a stack trace', async () => {
    const io = memoryIo({ 's.json': scenario })
    const code = await runCli(['run', 's.json'], io, () => {
      throw new Error('boom')
    })
    expect(code).toBe(1)
    expect(io.stderr).toBe('schedlab: internal error: boom\n')
  })

  it('serve is dispatched to the web host: --help exits 0, bad usage exits 2', async () => {
    // The web host writes its usage to the process streams, not to the CLI's io.
    expect(await runCli(['serve', '--help'], memoryIo())).toBe(0)
    expect(await runCli(['serve', '--port', 'http'], memoryIo())).toBe(2)
  })
})

describe('command line manners', () => {
  it('every subcommand answers --help with its own usage, on stdout, exit 0', async () => {
    // (serve prints its own usage, with its defaults, from its process: see serve-host tests.)
    for (const cmd of ['run', 'compare', 'validate', 'explain', 'sweep', 'merge', 'patches', 'topologies', 'presets', 'real', 'analyze', 'calibrate']) {
      const io = memoryIo()
      expect(await runCli([cmd, '--help'], io), cmd).toBe(0)
      expect(io.stdout, cmd).toMatch(new RegExp(`usage: schedlab ${cmd}`))
      expect(io.stderr, cmd).toBe('')
    }
    const io = memoryIo()
    expect(await runCli(['compare', 'x.json', '-h'], io)).toBe(0)
    expect(io.stdout).toContain('--noise')
  })

  it('validate --json prints JSON for a valid and for an invalid scenario', async () => {
    const good = memoryIo({ 'ok.json': JSON.stringify({ topology: 'smp-2', workloads: [{ type: 'hog' }] }) })
    expect(await runCli(['validate', 'ok.json', '--json'], good)).toBe(0)
    expect(JSON.parse(good.stdout)).toMatchObject({ ok: true, scenario: { topology: { name: 'smp-2' } } })
    const bad = memoryIo({ 'bad.json': JSON.stringify({ topology: 'smp-2', kernel: { hz: 251 }, durationMs: -5, workloads: [{ type: 'hog' }] }) })
    expect(await runCli(['validate', 'bad.json', '--json'], bad)).toBe(2)
    const v = JSON.parse(bad.stdout)
    expect(v).toMatchObject({ ok: false, file: 'bad.json' })
    expect(v.issues.map((i: { path: string }) => i.path)).toEqual(['kernel.hz', 'durationMs'])
    expect(v.issues[0].message).toBe('expected one of 100, 250, 300, 1000, got 251')
    const missing = memoryIo()
    expect(await runCli(['validate', 'nope.json', '--json'], missing)).toBe(2)
    expect(JSON.parse(missing.stdout).ok).toBe(false)
  })

  it('ends the event-limit refusal with a newline', async () => {
    const io = memoryIo({ 'long.json': JSON.stringify({ topology: 'smp-2', durationMs: 86_400_000, workloads: [{ type: 'cyclictest', periodUs: 100 }] }) })
    expect(await runCli(['run', 'long.json'], io)).toBe(2)
    expect(io.stderr).toMatch(/refused: this run would simulate about [^\n]*--max-events \d+[^\n]*\n$/)
    expect(io.stderr.endsWith('\n\n')).toBe(false)
  })

  it('leaves background noise out of comparison tables unless asked, and never calls its CPU time better', () => {
    const noisy = (name: string, cpu: number): VariantResult => ({
      ...result(name, 1, lat(90, 100, 200)),
      workloads: [{ name: 'cyclictest', type: 'cyclictest', latencyUs: lat(90, 100, 200) }, { name: 'system', type: 'noise', latencyUs: { ...lat(0, 0, 0), count: 0 } }],
      tasks: [{ name: 'kworker/0:0', workload: 'system', cpuTimeMs: cpu, latencyUs: { ...lat(0, 0, 0), count: 0 }, migrations: 0, contextSwitches: 1, wakeups: 1, lastCpu: 0 }]
    })
    const runs = [noisy('a', 90), noisy('b', 80)]
    const plain = renderCompareText(compareResults('s', runs, ['a', 'b']))
    expect(plain).not.toMatch(/system/)
    const asked = renderCompareText(compareResults('s', runs, ['a', 'b'], [], { noise: true }))
    expect(asked).toMatch(/CPU time \(ms\) of system \(background noise, for reference\)/)
    const noiseTable = asked.slice(asked.indexOf('CPU time (ms) of system')).split('\n\n')[0]
    expect(noiseTable).not.toMatch(/better|%/)
    expect(noiseTable).toMatch(/90 .*\| +80/)
  })
})
