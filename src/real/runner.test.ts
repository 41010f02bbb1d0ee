import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { release, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../cli/index'
import { memoryIo } from '../cli/io'
import { parseScenario } from '../sim/scenario'
import { analyzeFile } from '../trace'
import { RealCancelled } from './errors'
import { linuxOrReason } from './host'
import { parseProcStat } from './procfs'
import { runRealScenario } from './runner'
import { findTracefs } from './tracefs'
import { realTestSkipReason } from './testing'

/**
 * A real run on this machine's kernel, where the machine allows it (Linux, root, tracefs,
 * rt-tests, a C compiler); elsewhere the tests skip and say why. They assert plumbing and
 * self-consistency, never latency values.
 */
const reason = realTestSkipReason()
const named = (t: string): string => (reason ? `${t} (skipped: ${reason})` : t)

const scenario = (durationMs: number) =>
  parseScenario(JSON.stringify({
    name: 'real test', topology: 'smp-2', durationMs,
    variants: [{ name: 'base' }, { name: 'patched', patches: ['short-slice-v1'] }],
    workloads: [
      { type: 'cyclictest', name: 'cyclictest', threads: 1, periodUs: 2777 },
      { type: 'hog', name: 'hog', count: 1, cpus: [0], sliceUs: 3000 }
    ]
  }), 'real-test.json')

/** Our children still alive, and trace instances of this process left behind. */
function leftovers(): { children: number[]; instances: string[] } {
  const children: number[] = []
  for (const n of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const p = parseProcStat(readFileSync(`/proc/${n}/stat`, 'utf8'))
      if (p && p.ppid === process.pid) children.push(p.pid)
    } catch {
      // gone
    }
  }
  const root = findTracefs()
  const instances = root ? readdirSync(join(root, 'instances')).filter((i) => i.startsWith(`schedlab-${process.pid}-`)) : []
  return { children, instances }
}

describe('schedlab real on this machine', () => {
  it.skipIf(!!reason)(named('runs a 3-second scenario: source "real", the host record, cyclictest beside its own histogram, nothing left behind'), async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-real-test-'))
    try {
      const out = await runRealScenario(scenario(3000), { variants: ['base'], quiet: false, traceDir: dir })
      expect(out.source).toBe('real')
      expect(out.host).toMatchObject({ kernel: release(), cpus: expect.any(Number), foreignCpuSec: expect.any(Number), contaminated: expect.any(Boolean), loadavg: { before: expect.any(Array), after: expect.any(Array) } })
      const v = out.variants[0]
      expect(v).toMatchObject({ name: 'base', source: 'real' })
      expect(v.host?.tracing).toMatchObject({ clock: 'mono', globalStateUnchanged: true })
      const ct = v.workloads.find((w) => w.name === 'cyclictest')!
      expect(ct.latencyUs.count).toBeGreaterThan(100)
      expect(ct.crossCheck?.tool).toBe('cyclictest')
      // the same cycles, counted by cyclictest and by the trace
      expect(Math.abs(ct.crossCheck!.samples - ct.latencyUs.count)).toBeLessThanOrEqual(Math.max(3, ct.latencyUs.count * 0.02))
      // the helper's process and its one hog thread, named after the workload
      const hog = v.tasks.filter((t) => t.workload === 'hog')
      expect(hog.map((t) => t.comm).sort()).toEqual(['hog-0', 'schedlab-helper'])
      expect(hog.find((t) => t.comm === 'hog-0')!.cpuTimeMs).toBeGreaterThan(0)
      // the trace as text reads back into the same figures
      const file = readdirSync(dir).find((f) => f.endsWith('.trace.txt'))!
      const again = await analyzeFile(join(dir, file), { onlyAssigned: true })
      expect(again.workloads.find((w) => w.name === 'cyclictest')?.latencyUs).toEqual(ct.latencyUs)
      expect(leftovers()).toEqual({ children: [], instances: [] })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(!!reason)(named('a cancel mid-run ends the workloads and removes the trace instance'), async () => {
    const ac = new AbortController()
    const run = runRealScenario(scenario(60_000), { variants: ['base'], quiet: false, signal: ac.signal, log: (l) => l.startsWith('running ') && ac.abort() })
    await expect(run).rejects.toBeInstanceOf(RealCancelled)
    expect(leftovers()).toEqual({ children: [], instances: [] })
    expect(readdirSync(tmpdir()).filter((d) => d.startsWith(`schedlab-real-${process.pid}-`))).toEqual([])
  })

  it('topologies --host prints this machine as topology and kernel profile (exit 2 off Linux)', async () => {
    const io = memoryIo()
    const code = await runCli(['topologies', '--host', '--json'], io)
    if (linuxOrReason()) {
      expect(code).toBe(2)
      expect(io.stderr).toMatch(/not Linux/)
      return
    }
    expect(code).toBe(0)
    const info = JSON.parse(io.stdout)
    expect(info.topology.name).toBe('host')
    expect(info.topology.clusters.reduce((n: number, c: { cpus: number }) => n + c.cpus, 0)).toBe(info.host.cpus.length)
    expect(info.kernel).toMatchObject({ profile: expect.any(String), hz: expect.any(Number) })
  })

  it('refuses a variant that needs another kernel, with exit 2 and one line', async () => {
    const io = memoryIo({ 's.json': JSON.stringify({ name: 'r', topology: 'smp-2', durationMs: 1000, variants: [{ name: 'base' }, { name: 'patched', patches: ['short-slice-v1'] }], workloads: [{ type: 'hog', name: 'h' }] }) })
    expect(await runCli(['real', 's.json', '--variant', 'patched'], io)).toBe(2)
    const line = linuxOrReason() ?? 'variant "patched" needs a kernel built with the patch series short-slice-v1; run it there and `schedlab analyze` its trace'
    expect(io.stderr).toBe(`schedlab: real: ${line}\n`)
    expect(existsSync('s.json')).toBe(false)
  })
})
