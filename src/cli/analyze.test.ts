import { describe, expect, it } from 'vitest'
import type { RunOutput } from '../shared/result'
import { runCli } from './index'
import { memoryIo } from './io'

const scenario = JSON.stringify({
  name: 'analyze test', topology: 'smp-2', durationMs: 200, variants: [{ name: 'base' }],
  workloads: [
    { type: 'cyclictest', name: 'ct', threads: 1, periodUs: 1000 },
    { type: 'hog', name: 'hog', count: 2, cpus: [0] }
  ]
})

describe('schedlab analyze', () => {
  it('reads a run --trace file back into the run\'s own result', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['run', 's.json', '--trace', '--out', 'o', '--json'], io)).toBe(0)
    const sim = (JSON.parse(io.stdout) as RunOutput).variants[0]
    const file = 'o/analyze_test-base-seed1.trace.txt'
    const a = memoryIo({ [file]: io.files[file] })
    expect(await runCli(['analyze', file, '--json'], a)).toBe(0)
    const out = JSON.parse(a.stdout) as RunOutput
    expect(out).toMatchObject({ scenario: 'analyze_test-base-seed1.trace.txt', source: 'trace' })
    const v = out.variants[0]
    expect(v.name).toBe('analyze_test-base-seed1.trace.txt')
    expect(v.workloads.find((w) => w.name === 'ct')?.latencyUs).toEqual(sim.workloads[0].latencyUs)
    expect(v.tasks.find((t) => t.comm === 'ct-0')).toMatchObject({ name: 'ct-0-1', tid: 1, workload: 'ct' })

    const text = memoryIo({ [file]: io.files[file] })
    expect(await runCli(['analyze', file, '--workload', 'timer=^ct'], text)).toBe(0)
    expect(text.stdout).toMatch(/ms traced, read in/)
    expect(text.stdout).toMatch(/latency from requested hrtimer expiries/)
  })

  it('refuses what is not a trace, a missing file and a bad --workload with exit 2', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['analyze', 's.json'], io)).toBe(2)
    expect(io.stderr).toMatch(/s\.json: no sched events in 1 line\(s\) \(line 1: not an ftrace event line\)/)
    const missing = memoryIo()
    expect(await runCli(['analyze', 'nope.txt'], missing)).toBe(2)
    expect(missing.stderr).toMatch(/nope\.txt: no such file/)
    const bad = memoryIo({ 't.txt': '   a-1 [000] 1.000000: sched_waking: comm=b pid=2 prio=120 target_cpu=000\n' })
    expect(await runCli(['analyze', 't.txt', '--workload', 'x=('], bad)).toBe(2)
    expect(bad.stderr).toMatch(/--workload: x: invalid regular expression/)
    expect(await runCli(['analyze'], bad)).toBe(2)
    expect(bad.stderr).toMatch(/analyze: expected one TRACE argument/)
  })
})
