import { afterEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { RunStore } from './run-store'
import { RealService } from './real-service'
import { MemoryKv, tempDir } from './test-helpers'
import { linuxOrReason } from '../real/host'

const cleanups: (() => void)[] = []
afterEach(() => cleanups.splice(0).forEach((c) => c()))

async function service(simulating = false): Promise<{ real: RealService; store: RunStore; events: string[] }> {
  const t = tempDir()
  cleanups.push(t.cleanup)
  const store = await RunStore.open(t.dir, new MemoryKv())
  const events: string[] = []
  return { real: new RealService({ store, emit: (e) => events.push(e), version: 'test', simulating: () => simulating }), store, events }
}

const fixture = join(__dirname, '../trace/fixtures/real-6.18.44.trace.txt.gz')

describe('real runs and trace imports in the workbench backend', () => {
  it('imports a trace as a saved run with source "trace"', async () => {
    const { real, store, events } = await service()
    const { openTraceFile } = await import('../trace/reader')
    const r = await real.importTrace(openTraceFile(fixture), fixture)
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.run).toMatchObject({ name: 'real-6.18.44.trace.txt.gz', source: 'trace', status: 'done' })
    const stored = await store.get(r.run.id)
    expect(stored.results[0].source).toBe('trace')
    expect(stored.results[0].workloads.find((w) => w.name === 'cyclictest')!.latencyUs.count).toBeGreaterThan(50)
    expect(store.list()[0].source).toBe('trace')
    expect(events).toContain('runs-changed')
  })

  it('refuses text that is no trace, naming the line', async () => {
    const { real } = await service()
    const r = await real.importTrace(Readable.from(['{ "name": "a scenario" }\n']), 'x.json')
    expect(r).toMatchObject({ ok: false, problem: { file: 'x.json', message: expect.stringMatching(/no sched events in 1 line\(s\) \(line 1: not an ftrace event line\)/) } })
  })

  it('refuses a real run where the machine cannot, beside simulations, and for a variant needing another kernel', async () => {
    const text = JSON.stringify({ name: 'r', topology: 'smp-2', durationMs: 1000, variants: [{ name: 'patched', patches: ['short-slice-v1'] }], workloads: [{ type: 'hog', name: 'h' }] })
    const { real } = await service()
    const avail = await real.available()
    const r = await real.start({ text, file: 'r.json' })
    expect(r.ok).toBe(false)
    if (r.ok) return
    if (!avail.available) expect(r.problem.message).toBe(`r.json: cannot run on this machine: ${avail.reason}`)
    else expect(r.problem.message).toBe('r.json: variant "patched" needs a kernel built with the patch series short-slice-v1; run it there and `schedlab analyze` its trace')
    const busy = await service(true)
    const b = await busy.real.start({ text, file: 'r.json' })
    expect(b.ok).toBe(false)
    if (!b.ok) expect(b.problem.message).toMatch(avail.available ? /simulations are running/ : /cannot run on this machine/)
    expect(linuxOrReason() === null || !avail.available).toBe(true)
  })
})
