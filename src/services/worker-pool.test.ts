import { describe, expect, it, afterEach } from 'vitest'
import { join } from 'node:path'
import { TSX_WORKER_ARGV } from './test-helpers'
import { WorkerPool, defaultPoolSize } from './worker-pool'

const fixture = join(__dirname, '__fixtures__', 'pool-worker.ts')
let pool: WorkerPool | null = null

function makePool(size: number, extra: Partial<ConstructorParameters<typeof WorkerPool>[0]> = {}): WorkerPool {
  pool = new WorkerPool({ workerPath: fixture, execArgv: TSX_WORKER_ARGV, size, progressIntervalMs: 20, ...extra })
  return pool
}

afterEach(async () => {
  await pool?.close()
  pool = null
})

describe('WorkerPool', () => {
  it('sizes itself from the CPU count, at least one', () => {
    expect(defaultPoolSize()).toBeGreaterThanOrEqual(1)
    expect(new WorkerPool({ workerPath: fixture, size: 0 }).size).toBe(1)
  })

  it('runs jobs in parallel and returns their results', async () => {
    const p = makePool(2)
    // Each job waits for the other to start: they meet only if they run at the same time.
    const flag = new SharedArrayBuffer(4)
    const a = p.submit({ kind: 'meet', flag, parties: 2 })
    const b = p.submit({ kind: 'meet', flag, parties: 2 })
    const c = p.submit({ kind: 'echo', value: 42 })
    const [ra, rb, rc] = await Promise.all([a.outcome, b.outcome, c.outcome])
    expect(ra).toMatchObject({ status: 'done', result: { met: true } })
    expect(rb).toMatchObject({ status: 'done', result: { met: true } })
    expect(rc).toMatchObject({ status: 'done', result: { echoed: 42 } })
    expect(p.stats().workers).toBe(2)
  })

  it('reports throttled progress', async () => {
    const p = makePool(1)
    const seen: number[] = []
    const h = p.submit({ kind: 'spin', ms: 300 }, { onProgress: (sim, dur) => seen.push(sim / dur) })
    expect((await h.outcome).status).toBe('done')
    expect(seen.length).toBeGreaterThan(3)
    expect(seen.length).toBeLessThan(30) // 300 ms at >= 20 ms apart
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1])
  })

  it('cancels a running job cooperatively and a queued one at once', async () => {
    const p = makePool(1)
    let started!: () => void
    const spinning = new Promise<void>((ok) => { started = ok })
    const running = p.submit({ kind: 'spin', ms: 10_000 }, { onProgress: () => started() })
    const queued = p.submit({ kind: 'echo', value: 1 })
    await spinning
    const t0 = Date.now()
    queued.cancel()
    running.cancel()
    expect(await queued.outcome).toEqual({ status: 'canceled' })
    // A job that stops cooperatively hands back what it computed (a simulation's partial result).
    expect(await running.outcome).toMatchObject({ status: 'canceled', partial: { stopped: true } })
    expect(Date.now() - t0).toBeLessThan(3000)
    // the same worker is still usable
    expect(await p.submit({ kind: 'echo', value: 2 }).outcome).toMatchObject({ status: 'done', result: { echoed: 2 } })
    expect(p.stats().workers).toBe(1)
  })

  it('terminates a job that ignores cancel after the grace period', async () => {
    const p = makePool(1, { cancelGraceMs: 200 })
    const h = p.submit({ kind: 'hang', ms: 20_000 })
    await new Promise((r) => setTimeout(r, 300))
    const t0 = Date.now()
    h.cancel()
    expect(await h.outcome).toEqual({ status: 'canceled' })
    expect(Date.now() - t0).toBeLessThan(5000)
    expect(await p.submit({ kind: 'echo', value: 3 }).outcome).toMatchObject({ status: 'done' })
  })

  it('fails only the job whose simulation throws', async () => {
    const p = makePool(1)
    const bad = p.submit({ kind: 'throw', message: 'invalid workload' })
    const good = p.submit({ kind: 'echo', value: 'ok' })
    expect(await bad.outcome).toEqual({ status: 'failed', kind: 'error', message: 'invalid workload' })
    expect(await good.outcome).toMatchObject({ status: 'done', result: { echoed: 'ok' } })
  })

  it('replaces a worker that exits or throws outside a job, failing only its job', async () => {
    const p = makePool(2)
    const exit = p.submit({ kind: 'exit', code: 7 })
    const uncaught = p.submit({ kind: 'uncaught' })
    const other = p.submit({ kind: 'spin', ms: 200 })
    const [e, u, o] = await Promise.all([exit.outcome, uncaught.outcome, other.outcome])
    expect(e).toMatchObject({ status: 'failed', kind: 'crash' })
    expect((e as { message: string }).message).toContain('code 7')
    expect(u).toMatchObject({ status: 'failed', kind: 'crash' })
    expect((u as { message: string }).message).toContain('boom outside the job')
    expect(o.status).toBe('done')
    expect(await p.submit({ kind: 'echo', value: 4 }).outcome).toMatchObject({ status: 'done' })
  })

  it('fails a job that runs out of memory and keeps going', async () => {
    const p = makePool(2, { resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 } })
    const oom = p.submit({ kind: 'oom' })
    const other = p.submit({ kind: 'spin', ms: 100 })
    const r = await oom.outcome
    expect(r).toMatchObject({ status: 'failed', kind: 'oom' })
    expect((r as { message: string }).message).toContain('out of memory')
    expect((await other.outcome).status).toBe('done')
    expect(await p.submit({ kind: 'echo', value: 5 }).outcome).toMatchObject({ status: 'done' })
  })

  it('cancels everything on close', async () => {
    const p = makePool(1)
    const a = p.submit({ kind: 'spin', ms: 5000 })
    const b = p.submit({ kind: 'echo', value: 1 })
    await p.close()
    expect(await a.outcome).toEqual({ status: 'canceled' })
    expect(await b.outcome).toEqual({ status: 'canceled' })
    expect(() => p.submit({ kind: 'echo', value: 1 })).toThrow(/closed/)
  })
})
