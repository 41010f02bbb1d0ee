/**
 * Resuming an interrupted run: a host killed with a run in flight leaves its checkpoint; the next
 * host lists the run as interrupted and resume() continues it from the finished seeds and sweep
 * cells (not from zero), ending with the same results as a run that was never interrupted.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ApiEventName, ApiEvents, StoredRun } from '../shared/ipc'
import type { VariantResult } from '../shared/result'
import { WorkerPool } from './worker-pool'
import { RunStore, runFileText } from './run-store'
import { RunService } from './run-service'
import { MemoryKv, TSX_WORKER_ARGV, runResultDigest, tempDir } from './test-helpers'
import { sampleRun } from './__fixtures__/sample-run'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const c of cleanups.splice(0).reverse()) await c()
})

const pool = (): WorkerPool<VariantResult> => {
  const p = new WorkerPool<VariantResult>({ workerPath: join(__dirname, 'sim-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 2 })
  cleanups.push(() => p.close())
  return p
}

async function host(p: WorkerPool<VariantResult>, dir?: string) {
  const t = dir ? { dir, cleanup: () => undefined } : tempDir()
  cleanups.push(() => t.cleanup())
  const store = await RunStore.open(t.dir, new MemoryKv())
  const events: { event: ApiEventName; payload: ApiEvents[ApiEventName] }[] = []
  const runs = new RunService({ pool: p, store, version: '1', emit: (event, payload) => events.push({ event, payload }) })
  return { dir: t.dir, store, runs, events }
}

/**
 * Run `text` to its end on one host, and on another capture its first checkpoint (a job done,
 * others not) as a killed host leaves it: a third host opens a folder holding only that
 * checkpoint, under a pid that is gone, and resumes the run.
 */
async function killAndResume(text: string, file: string): Promise<{ whole: StoredRun; partial: StoredRun; resumed: StoredRun; kept: number }> {
  const p = pool()
  const a = await host(p)
  const ra = a.runs.start({ text, file })
  if (!ra.ok) throw new Error(ra.problem.message)
  await a.runs.whenIdle()
  const whole = await a.store.get(ra.runId)

  const b = await host(p)
  let first: StoredRun | null = null
  const save = b.store.saveCheckpoint.bind(b.store)
  vi.spyOn(b.store, 'saveCheckpoint').mockImplementation(async (run) => {
    first ??= structuredClone(run)
    return save(run)
  })
  const rb = b.runs.start({ text, file })
  if (!rb.ok) throw new Error(rb.problem.message)
  await b.runs.whenIdle()
  expect(first).not.toBeNull()

  const c = tempDir()
  cleanups.push(() => c.cleanup())
  mkdirSync(join(c.dir, 'runs'))
  writeFileSync(join(c.dir, 'runs', `${rb.runId}.999999999.checkpoint`), runFileText(first!))
  const next = await host(p, c.dir)
  expect(next.store.interrupted().map((r) => r.id)).toEqual([rb.runId])
  const partial = await next.store.get(rb.runId)
  expect(partial).toMatchObject({ status: 'partial', interrupted: true })
  const res = next.runs.resume(partial)
  if (!res.ok) throw new Error(res.problem.message)
  const kept = res.jobs.filter((j) => j.resumed).length
  await next.runs.whenIdle()
  const resumed = await next.store.get(rb.runId)
  expect(next.store.interrupted()).toEqual([])
  expect(readdirSync(join(c.dir, 'runs')).filter((n) => n.endsWith('.checkpoint'))).toEqual([])
  return { whole, partial, resumed, kept }
}

describe('resuming an interrupted run', () => {
  it('a multi-seed run continues from its finished seeds and ends byte-identical to an uninterrupted one', async () => {
    const text = JSON.stringify({
      name: 'resume seeds', topology: 'smp-2', durationMs: 40, seeds: 3,
      variants: [{ name: 'a' }, { name: 'b', kernel: { costs: { contextSwitchUs: 9 } } }],
      workloads: [{ type: 'cyclictest', periodUs: 1000 }, { type: 'hog', count: 2 }]
    })
    const { whole, partial, resumed, kept } = await killAndResume(text, 'seeds.json')
    const done = partial.results.filter((r) => !r.partial).length
    expect(done).toBeGreaterThan(0)
    expect(done).toBeLessThan(6)
    // the finished seeds were not run again
    expect(kept).toBe(done)
    expect(resumed).toMatchObject({ status: 'done', errors: [], seeds: [1, 2, 3], variants: ['a', 'b'] })
    expect(resumed.interrupted).toBeUndefined()
    expect(resumed.results).toHaveLength(6)
    expect(runResultDigest(resumed)).toBe(runResultDigest(whole))
  })

  it('a sweep continues from its finished cells and ends byte-identical to an uninterrupted one', async () => {
    const text = readFileSync(join(__dirname, '../sweep/fixtures/sweep-2x3.json'), 'utf8')
    const { whole, partial, resumed, kept } = await killAndResume(text, 'sweep-2x3.json')
    const done = partial.sweep!.cells.reduce((n, c) => n + c.results.length, 0)
    expect(done).toBeGreaterThan(0)
    expect(done).toBeLessThan(12)
    expect(kept).toBe(done)
    expect(resumed).toMatchObject({ status: 'done', errors: [], kind: 'sweep' })
    expect(resumed.sweep!.cells.map((c) => c.results.length)).toEqual([2, 2, 2, 2, 2, 2])
    expect(runResultDigest(resumed)).toBe(runResultDigest(whole))
  })

  it('a host that stops gracefully saves its runs in flight as interrupted, and they resume', async () => {
    const p = pool()
    const a = await host(p)
    const text = JSON.stringify({ name: 'stop', topology: 'smp-2', durationMs: 40, seeds: 6, workloads: [{ type: 'hog', count: 2 }] })
    // the host stops as the first seed finishes (the others are still queued or running)
    let stopping: Promise<void> | null = null
    let stopped!: () => void
    const stoppedNow = new Promise<void>((ok) => (stopped = ok))
    const save = a.store.saveCheckpoint.bind(a.store)
    vi.spyOn(a.store, 'saveCheckpoint').mockImplementation(async (run) => {
      if (!stopping) {
        stopping = a.runs.shutdown()
        void stopping.then(stopped)
      }
      return save(run)
    })
    const res = a.runs.start({ text, file: 'stop.json' })
    if (!res.ok) throw new Error(res.problem.message)
    await stoppedNow
    const saved = await a.store.get(res.runId)
    expect(saved).toMatchObject({ status: 'partial', interrupted: true })
    expect(a.store.interrupted().map((r) => r.id)).toEqual([res.runId])
    const b = await host(p, a.dir)
    const again = b.runs.resume(await b.store.get(res.runId))
    if (!again.ok) throw new Error(again.problem.message)
    expect(again.jobs.some((j) => j.resumed)).toBe(true)
    // once only
    expect(b.runs.resume(await b.store.get(res.runId))).toMatchObject({ ok: false, problem: { message: 'stop.json: run "stop" is already running' } })
    await b.runs.whenIdle()
    const done = await b.store.get(res.runId)
    expect(done).toMatchObject({ status: 'done', errors: [], seeds: [1, 2, 3, 4, 5, 6] })
    expect(done.results.map((r) => r.partial ?? false)).toEqual([false, false, false, false, false, false])
    expect(b.runs.resume(done)).toMatchObject({ ok: false, problem: { message: 'stop.json: run "stop" was not interrupted: there is nothing to resume' } })
  })
})

describe('a resumed run killed again', () => {
  it('its newer checkpoint replaces the interrupted run at the next start', async () => {
    const t = tempDir()
    cleanups.push(() => t.cleanup())
    const store = await RunStore.open(t.dir, new MemoryKv())
    const id = 'run-20260101-000000-aaaaaa'
    await store.save({ ...sampleRun(id, '2026-01-01T00:00:00.000Z'), status: 'partial', interrupted: true, request: {} })
    const newer = { ...sampleRun(id, '2026-01-01T00:00:00.000Z'), name: 'two seeds finished', request: {} }
    writeFileSync(join(store.runsDir, `${id}.999999999.checkpoint`), runFileText(newer))
    const next = await RunStore.open(t.dir, new MemoryKv())
    expect(await next.get(id)).toMatchObject({ name: 'two seeds finished', status: 'partial', interrupted: true })
    // a run file that is not an interrupted run is never overwritten by a checkpoint
    await next.save({ ...sampleRun(id, '2026-01-01T00:00:00.000Z'), name: 'finished' })
    writeFileSync(join(store.runsDir, `${id}.999999999.checkpoint`), runFileText(newer))
    const last = await RunStore.open(t.dir, new MemoryKv())
    expect(await last.get(id)).toMatchObject({ name: 'finished', status: 'done' })
    expect(readdirSync(store.runsDir).filter((n) => n.endsWith('.checkpoint'))).toEqual([])
  })
})
