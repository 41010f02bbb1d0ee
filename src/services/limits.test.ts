/**
 * Limits on what one submission may cost: events per run (which the scenario's own maxEvents
 * cannot raise past the host's), total events over its variants x seeds, and memory per run
 * (typed arrays live outside the worker heap limit), in the desktop/web backend and its pool.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { estimateMemoryBytes } from '../sim/scenario/estimate'
import { parseScenario } from '../sim/scenario'
import { createBackend, type Backend } from './backend'
import { DEFAULT_HOST_LIMITS, memoryBudgetBytes } from './limits'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker, tempDir } from './test-helpers'
import { WorkerPool } from './worker-pool'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function backend(limits = {}): Promise<Backend> {
  const t = tempDir()
  const b = await createBackend({
    dataDir: t.dir, kv: new MemoryKv(), workerPath: fixtureWorker('result-worker.ts'), execArgv: TSX_WORKER_ARGV,
    poolSize: 1, version: '0.0.0-test', platform: 'web', limits
  })
  cleanups.push(() => t.cleanup(), () => b.close())
  return b
}

/** About 5 million events per run: 5000 hogs on 8 CPUs for 2 s at HZ 250. */
const heavy = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ topology: 'smp-8', durationMs: 2000, workloads: [{ type: 'hog', count: 5000 }], ...extra })

describe('events per run', () => {
  it('the scenario\'s maxEvents cannot raise the host\'s limit; the host\'s setting can', async () => {
    const b = await backend()
    await b.service.updateSettings({ limits: { maxEventsPerRun: 1_000_000 } })
    const text = heavy({ maxEvents: 1e11 })
    const refused = await b.service.startRun({ text, file: 'h.json' })
    expect(refused.ok).toBe(false)
    if (refused.ok) return
    expect(refused.problem.issues[0].message).toMatch(/above the limit of 1 million/)
    expect(refused.problem.issues[0].message).toMatch(/--max-events|maxEventsPerRun/)
    const v = await b.service.validateScenario(text, 'h.json')
    expect(v.ok).toBe(false)
    await b.service.updateSettings({ limits: { maxEventsPerRun: 1e10 } })
    expect((await b.service.getSettings()).limits?.maxEventsPerRun).toBe(1e10)
    const started = await b.service.startRun({ text, file: 'h.json' })
    expect(started.ok).toBe(true)
    await b.runs.whenIdle()
  })

  it('a limit given on the command line (schedlab serve --max-events) wins over the setting', async () => {
    const b = await backend({ maxEventsPerRun: 1_000_000 })
    await b.service.updateSettings({ limits: { maxEventsPerRun: 1e10 } })
    expect((await b.service.getSettings()).limits?.maxEventsPerRun).toBe(1_000_000)
    expect((await b.service.startRun({ text: heavy(), file: 'h.json' })).ok).toBe(false)
  })

  it('a scenario may lower the limit for itself', () => {
    expect(() => parseScenario(heavy({ maxEvents: 10_000 }), 'h.json', { maxEvents: 1e12 })).toThrow(/above the limit of 10 thousand/)
    expect(parseScenario(heavy(), 'h.json', { maxEvents: 1e12 }).maxEvents).toBe(1e12)
    const capped = parseScenario(heavy({ maxEvents: 1e11 }), 'h.json', { maxEvents: 1e9 })
    expect(capped.maxEvents).toBe(1e9)
    expect(capped.warnings?.join('\n')).toMatch(/maxEvents 100000000000 is above this host's limit of 1 billion/)
  })
})

describe('total work of a submission', () => {
  it('variants x seeds x estimated events has a ceiling with a clear refusal, which a setting raises', async () => {
    const b = await backend()
    await b.service.updateSettings({ limits: { maxTotalEvents: 30_000_000 } })
    const text = heavy({ seeds: 5, variants: [{ name: 'a' }, { name: 'b' }] })
    const r = await b.service.startRun({ text, file: 'w.json' })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problem.message).toMatch(/w\.json/)
    expect(r.problem.issues[0].message).toMatch(/^refused: 10 runs \(2 variants x 5 seeds\) of about [\d.]+ million events = [\d.]+ million events, above the limit of 30 million per submission/)
    expect(await b.service.startRun({ text, file: 'w.json', variants: ['a'] })).toMatchObject({ ok: true })
    await b.service.updateSettings({ limits: { maxTotalEvents: 1e9 } })
    expect(await b.service.startRun({ text, file: 'w.json' })).toMatchObject({ ok: true })
    await b.runs.whenIdle()
  })
})

describe('precision runs from the workbench', () => {
  it('are refused when their worst case (every variant to the most seeds) is over the ceiling', async () => {
    const b = await backend()
    await b.service.updateSettings({ limits: { maxTotalEvents: 30_000_000 } })
    const text = JSON.stringify({ topology: 'smp-8', durationMs: 2000, workloads: [{ type: 'cyclictest', name: 'ct' }, { type: 'hog', count: 5000 }] })
    const r = await b.service.startRun({ text, file: 'p.json', precision: 'ct.p99:5', maxSeeds: 100 })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problem.issues[0].message).toMatch(/^refused: 100 runs .* above the limit of 30 million per submission.*or lower the most seeds a precision run may add \(100\)/)
  })
})

describe('memory per run', () => {
  it('estimates 20,000 hogs at about 500 MB and refuses a run over the share of memory', async () => {
    const s = parseScenario(JSON.stringify({ topology: 'smp-2', durationMs: 10, workloads: [{ type: 'hog', count: 20_000 }] }), 'm.json')
    const mb = estimateMemoryBytes(s) / 1048576
    expect(mb).toBeGreaterThan(400)
    expect(mb).toBeLessThan(650)
    const share = (300 * 1048576) / memoryBudgetBytes({ ...DEFAULT_HOST_LIMITS, memoryShare: 1 })
    const b = await backend({ memoryShare: share })
    const r = await b.service.startRun({ text: JSON.stringify({ topology: 'smp-2', durationMs: 10, workloads: [{ type: 'hog', count: 20_000 }] }), file: 'm.json' })
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.problem.issues[0].message).toMatch(/refused: one run would need about \d+ MB \(20000 tasks on 2 CPUs\), above the limit of 300 MB/)
  })

  it('the pool queues jobs whose memory would not fit beside the running ones, and refuses one that never fits', async () => {
    const pool = new WorkerPool<unknown>({
      workerPath: join(__dirname, '__fixtures__', 'pool-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 2,
      memoryBudgetBytes: 1000, memoryOf: (p: unknown) => (p as { mem: number }).mem
    })
    cleanups.push(() => pool.close())
    const a = pool.submit({ kind: 'spin', ms: 60_000, mem: 600 })
    const b = pool.submit({ kind: 'echo', value: 1, mem: 600 })
    const c = pool.submit({ kind: 'echo', value: 2, mem: 2000 })
    expect(await c.outcome).toMatchObject({ status: 'failed', kind: 'error', message: expect.stringMatching(/would need .* above the memory limit/) })
    await expect.poll(() => pool.stats()).toMatchObject({ running: 1, queued: 1 })
    a.cancel()
    expect(await b.outcome).toMatchObject({ status: 'done', result: { echoed: 1 } })
  })

  it('a pool built without memory options still applies the default budget to run specs', async () => {
    const pool = new WorkerPool<unknown>({ workerPath: join(__dirname, '__fixtures__', 'pool-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 1 })
    cleanups.push(() => pool.close())
    // A hand-made spec nobody parsed: two million tasks, about 46 GB.
    const spec = { scenario: { topology: { clusters: [{ cpus: 2 }] }, workloads: [{ type: 'hog', count: 2_000_000 }] } }
    expect(await pool.submit(spec).outcome).toMatchObject({ status: 'failed', message: expect.stringMatching(/^refused: this run would need about \d+ MB/) })
    expect(pool.stats()).toMatchObject({ workers: 0, queued: 0 })
  })

  it('the estimate is within a factor of real RSS (a worker-less child process, 20,000 and 2,000 tasks)', () => {
    const probe = join(__dirname, '__fixtures__', 'memory-probe.ts')
    for (const [count, cpus] of [[20_000, 2], [2_000, 256]]) {
      const out = JSON.parse(execFileSync(process.execPath, [...TSX_WORKER_ARGV, probe, String(count), String(cpus)], { encoding: 'utf8', timeout: 120_000 })) as { estimateMb: number; usedMb: number }
      // An upper estimate, not wildly so: at least what the run used, at most 1.6 times that.
      expect(out.estimateMb, JSON.stringify(out)).toBeGreaterThanOrEqual(out.usedMb)
      expect(out.estimateMb, JSON.stringify(out)).toBeLessThanOrEqual(out.usedMb * 1.6)
    }
  }, 180_000)
})
