/**
 * The CLI's limits on a submission: events per run (a scenario's maxEvents cannot raise the
 * flag's limit), total events over variants x seeds (also the worst case of --precision), and
 * memory per run; each a clear refusal with exit 2, each raised by a flag only.
 */
import { describe, expect, it } from 'vitest'
import type { VariantResult } from '../shared/result'
import { runCli } from './index'
import { memoryIo } from './io'
import type { SimulateFn } from './simulator'

const fake: SimulateFn = (s, vi, seed) => ({
  name: s.variants[vi].name, seed,
  stats: { events: 1, wallMs: 1, simulatedMs: s.durationMs, contextSwitches: 0, migrations: 0, wakeups: 0, sysPct: 0 },
  workloads: [], tasks: [], cpus: [], unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
}) as VariantResult

async function cli(args: string[], files: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo(files)
  const code = await runCli(args, io, fake)
  return { code, out: io.stdout, err: io.stderr }
}

/** 5000 hogs on 8 CPUs for 2 s: about 5 million events per run. */
const heavy = (extra: Record<string, unknown> = {}): Record<string, string> => ({
  'h.json': JSON.stringify({ topology: 'smp-8', durationMs: 2000, workloads: [{ type: 'hog', count: 5000 }], ...extra })
})

describe('CLI limits', () => {
  it('"maxEvents" in the scenario cannot raise the per-run limit; --max-events can', async () => {
    const files = heavy({ maxEvents: 1e11 })
    const low = await cli(['run', 'h.json', '--max-events', '1000000'], files)
    expect(low.code).toBe(2)
    expect(low.err).toMatch(/h\.json:\d+:\d+: workloads\[0\]: refused: this run would simulate about 5(\.\d+)? million events .* above the limit of 1 million/)
    expect(low.err).toMatch(/"maxEvents": 100000000000 does not raise this host's limit/)
    const raised = await cli(['run', 'h.json', '--max-events', '10000000'], files)
    expect(raised.code, raised.err).toBe(0)
    // Without a flag the default limit holds: a scenario asking for 1e11 over 30 min is refused.
    const long = await cli(['validate', 'h.json'], heavy({ maxEvents: 1e11, durationMs: 1_800_000 }))
    expect(long.code).toBe(2)
    expect(long.err).toMatch(/above the limit of 200 million/)
  })

  it('total work over variants x seeds has a ceiling; --max-total-events raises it', async () => {
    const files = heavy({ seeds: 20, variants: [{ name: 'a' }, { name: 'b' }] })
    const refused = await cli(['run', 'h.json', '--max-total-events', '50000000'], files)
    expect(refused.code).toBe(2)
    expect(refused.err).toMatch(/^h\.json: \(submission\): refused: 40 runs \(2 variants x 20 seeds\) of about 5(\.\d+)? million events = 2\d\d million events, above the limit of 50 million per submission/m)
    expect(refused.out).toBe('')
    expect((await cli(['validate', 'h.json', '--max-total-events', '50000000'], files)).code).toBe(2)
    expect((await cli(['run', 'h.json', '--max-total-events', '50000000', '--seeds', '2'], files)).code).toBe(0)
    expect((await cli(['run', 'h.json', '--max-total-events', '1000000000'], files)).code).toBe(0)
    // The default ceiling: 1000 seeds of 2 variants of 5 million events.
    const huge = await cli(['validate', 'h.json'], heavy({ seeds: 1000, variants: [{ name: 'a' }, { name: 'b' }] }))
    expect(huge.code).toBe(2)
    expect(huge.err).toMatch(/above the limit of 4 billion per submission/)
  })

  it('--precision is refused when its worst case (up to --max-seeds) is over the ceiling', async () => {
    const files = heavy({ workloads: [{ type: 'cyclictest', name: 'ct' }, { type: 'hog', count: 5000 }] })
    const r = await cli(['run', 'h.json', '--precision', 'ct.p99:5', '--max-seeds', '100', '--max-total-events', '100000000'], files)
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/refused: 100 runs .* above the limit of 100 million per submission/)
  })

  it('a run whose memory estimate is over the share of the machine is refused; --memory-share sets the share', async () => {
    const files = { 'm.json': JSON.stringify({ topology: 'smp-2', durationMs: 10, workloads: [{ type: 'hog', count: 20_000 }] }) }
    const refused = await cli(['run', 'm.json', '--memory-share', '0.01'], files)
    if (require('node:os').totalmem() * 0.01 < 400 * 1048576) {
      expect(refused.code).toBe(2)
      expect(refused.err).toMatch(/refused: one run would need about \d+ MB \(20000 tasks on 2 CPUs\)/)
    }
    expect((await cli(['run', 'm.json', '--memory-share', '0.5'], files)).code).toBe(0)
    const bad = await cli(['run', 'm.json', '--memory-share', '2'], files)
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/--memory-share: must be a number in 0\.01\.\.0\.95/)
  })
})
