import { describe, expect, it } from 'vitest'
import { runCli } from './index'
import { memoryIo } from './io'

const scenario = JSON.stringify({
  name: 'explain cli', topology: 'smp-2', durationMs: 100, kernel: { hz: 250 },
  variants: [{ name: 'base' }, { name: 'short', features: { PREEMPT_SHORT: false } }],
  workloads: [
    { type: 'hog', name: 'hog', count: 3 },
    { type: 'cyclictest', name: 'ct', periodUs: 1000, sliceUs: 100 }
  ]
})

describe('schedlab explain', () => {
  it('prints the contract JSON for one sample', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['explain', 's.json', '--variant', 'short', '--workload', 'ct', '--sample', 'p99', '--json'], io)).toBe(0)
    const e = JSON.parse(io.stdout)
    expect(Object.keys(e.sample).sort()).toEqual(['cpu', 'index', 'latencyUs', 'ranNs', 'readyNs', 'task'])
    expect(e.timeline[0]).toHaveProperty('slices')
    expect(e.decisions[0]).toEqual(expect.objectContaining({ atNs: expect.any(Number), cpu: expect.any(Number), kind: expect.any(String), code: expect.any(String), text: expect.any(String) }))
  })

  it('prints a summary, a timeline strip and the decisions as text', async () => {
    const io = memoryIo({ 's.json': scenario })
    expect(await runCli(['explain', 's.json', '--variant', 'base', '--workload', 'ct'], io)).toBe(0)
    expect(io.stdout).toMatch(/became runnable at/)
    expect(io.stdout).toMatch(/\n {2}CPU \d +\|/)
    expect(io.stdout).toMatch(/decisions:\n/)
    expect(io.stdout).toMatch(/cause: [A-Z_]+\n$/)
  })

  it('explains an unreasonable-idle event with --idle BUCKET[:N]', async () => {
    const idle = JSON.stringify({
      name: 'idle', topology: 'smp-2', durationMs: 60, kernel: { hz: 250 },
      workloads: [{ type: 'hog', name: 'rt', policy: 'fifo', priority: 50, cpus: [1] }, { type: 'hog', name: 'fair', startCpu: 1 }]
    })
    const io = memoryIo({ 'i.json': idle })
    expect(await runCli(['explain', 'i.json', '--idle', '4ms+:0', '--json'], io), io.stderr).toBe(0)
    const e = JSON.parse(io.stdout)
    expect(e.idle.bucket).toBe('4ms+')
    expect(e.summary).toMatch(/was idle for/)
    const bad = memoryIo({ 'i.json': idle })
    expect(await runCli(['explain', 'i.json', '--idle', '5ms'], bad)).toBe(2)
    expect(bad.stderr).toMatch(/--idle: expected BUCKET/)
  })

  it('refuses bad input with exit 2 and a message naming it', async () => {
    const cases: [string[], RegExp][] = [
      [['--workload', 'ct'], /--variant is needed \(variants: base, short\)/],
      [['--variant', 'base', '--workload', 'nope'], /no workload "nope" \(workloads: hog, ct\)/],
      [['--variant', 'nope', '--workload', 'ct'], /unknown variant "nope"/],
      [['--variant', 'base', '--workload', 'ct', '--sample', 'p420'], /--sample/],
      [['--variant', 'base', '--workload', 'hog'], /recorded no latency samples|hog/],
      [['--variant', 'base', '--workload', 'ct', '--sample', '999999'], /has \d+ samples/]
    ]
    for (const [args, msg] of cases) {
      const io = memoryIo({ 's.json': scenario })
      expect(await runCli(['explain', 's.json', ...args], io), args.join(' ')).toBe(2)
      expect(io.stderr, args.join(' ')).toMatch(msg)
      expect(io.stderr).not.toMatch(/\n\s+at /)
    }
  })
})
