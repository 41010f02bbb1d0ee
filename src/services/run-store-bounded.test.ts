/**
 * Runs that outlive a failed save, and runs of another host: a full disk keeps a finished run's
 * results in memory (getRun answers) and saves them again later, where they used to be
 * discarded; renaming or deleting a run another host saved works without refreshing the list
 * first (it failed with "no saved run").
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { copyFileSync, existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { ApiEventName, ApiEvents } from '../shared/ipc'
import type { VariantResult } from '../shared/result'
import { WorkerPool } from './worker-pool'
import { RunStore } from './run-store'
import { RunService } from './run-service'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker, tempDir } from './test-helpers'
import { sampleRun } from './__fixtures__/sample-run'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  vi.restoreAllMocks()
  for (const c of cleanups.splice(0).reverse()) await c()
})

const scenario = JSON.stringify({ name: 'disk', topology: 'smp-2', durationMs: 50, workloads: [{ type: 'hog', name: 'w', count: 1 }] })

describe('a full disk', () => {
  it('keeps a finished run in memory and saves it on the retry', async () => {
    const t = tempDir()
    const pool = new WorkerPool<VariantResult>({ workerPath: fixtureWorker('result-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 1 })
    const store = await RunStore.open(t.dir, new MemoryKv())
    const events: { event: ApiEventName; payload: ApiEvents[ApiEventName] }[] = []
    const runs = new RunService({ pool, store, version: '1', emit: (event, payload) => events.push({ event, payload }) })
    cleanups.push(() => t.cleanup(), () => pool.close())
    const save = store.save.bind(store)
    const spy = vi.spyOn(store, 'save').mockRejectedValueOnce(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
    const res = runs.start({ text: scenario, file: 'disk.json' })
    if (!res.ok) throw new Error(res.problem.message)
    await runs.whenIdle()
    const fin = events.find((e) => e.event === 'run-finished')!.payload as ApiEvents['run-finished']
    expect(fin.status).toBe('failed')
    expect(fin.errors.at(-1)?.message).toMatch(/^the run could not be saved: ENOSPC: no space left on device, write; its results are kept in memory and saved again/)
    expect(runs.unsavedRun(res.runId)?.results).toHaveLength(1)
    expect(store.has(res.runId)).toBe(false)
    // the disk has room again
    spy.mockImplementation(save)
    expect(await runs.retryUnsaved()).toBe(1)
    expect((await store.get(res.runId)).results).toHaveLength(1)
    expect(runs.unsavedRun(res.runId)).toBeUndefined()
    expect(events.filter((e) => e.event === 'runs-changed')).toHaveLength(1)
  })
})

describe('two hosts on one folder', () => {
  it('a run the other host saved can be read, renamed and deleted before any listing', async () => {
    const t = tempDir()
    cleanups.push(() => t.cleanup())
    const a = await RunStore.open(t.dir, new MemoryKv())
    const b = await RunStore.open(t.dir, new MemoryKv())
    await a.save(sampleRun('run-20260101-000000-aaaaaa', '2026-01-01T00:00:00.000Z'))
    await a.save(sampleRun('run-20260101-000001-bbbbbb', '2026-01-01T00:00:01.000Z'))
    expect((await b.rename('run-20260101-000000-aaaaaa', 'renamed by b')).name).toBe('renamed by b')
    await b.delete('run-20260101-000001-bbbbbb')
    expect((await a.get('run-20260101-000000-aaaaaa')).name).toBe('renamed by b')
    await a.refresh()
    expect(a.list().map((r) => r.id)).toEqual(['run-20260101-000000-aaaaaa'])
    await expect(b.get('run-20260101-000009-cccccc')).rejects.toThrow('no saved run with id run-20260101-000009-cccccc')
  })
})

describe('a host killed with runs in flight', () => {
  it('keeps their finished seeds: the checkpoint becomes a partial run at the next start', async () => {
    const t = tempDir()
    const pool = new WorkerPool<VariantResult>({ workerPath: fixtureWorker('result-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 2 })
    const store = await RunStore.open(t.dir, new MemoryKv())
    const runs = new RunService({ pool, store, version: '1', emit: () => undefined })
    cleanups.push(() => t.cleanup(), () => pool.close())
    const text = JSON.stringify({ name: 'long', topology: 'smp-2', durationMs: 50, variants: [{ name: 'base' }, { name: 'slow' }], workloads: [{ type: 'hog', name: 'w', count: 1 }] })
    const res = runs.start({ text, file: 'long.json' })
    if (!res.ok) throw new Error(res.problem.message)
    // base finishes, slow runs on: the checkpoint holds base
    const mine = join(store.runsDir, `${res.runId}.${process.pid}.checkpoint`)
    while (!existsSync(mine)) await new Promise((r) => setTimeout(r, 10))
    // as if its host had been killed: the same checkpoint under a pid that is gone
    copyFileSync(mine, join(store.runsDir, `${res.runId}.999999999.checkpoint`))
    runs.cancel(res.runId)
    await runs.whenIdle()
    expect(existsSync(mine)).toBe(false)
    // the canceled run itself was saved: the recovery must not overwrite a run file, so drop it
    rmSync(store.fileOf(res.runId))
    const next = await RunStore.open(t.dir, new MemoryKv())
    const kept = await next.get(res.runId)
    expect(kept.status).toBe('partial')
    expect(kept.results.map((r) => r.name)).toEqual(['base'])
    expect(kept.errors.at(-1)?.message).toBe('the host stopped before the run finished: the 1 finished run(s) were kept from its checkpoint; resume it for the rest')
    expect(kept.interrupted).toBe(true)
    expect(next.interrupted().map((r) => r.id)).toEqual([res.runId])
    expect(next.getProblems().map((p) => p.message)).toContain(`run "${kept.name}" was interrupted when its host stopped; its 1 finished run(s) are kept as a partial run (Resume in History runs the rest)`)
    expect(readdirSync(store.runsDir).filter((n) => n.endsWith('.checkpoint'))).toEqual([])
  })
})
