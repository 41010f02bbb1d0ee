import { afterEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import type { VariantResult } from '../shared/result'
import { quickScenario } from '../sim/testing'
import { simulate } from '../sim/index'
import { WorkerPool } from './worker-pool'
import { TSX_WORKER_ARGV } from './test-helpers'

let pool: WorkerPool<VariantResult> | null = null
afterEach(async () => {
  await pool?.close()
})

const scenario = quickScenario({
  name: 'worker', topology: 2, durationMs: 300,
  variants: [{ name: 'base' }, { name: 'no RUN_TO_PARITY', features: { RUN_TO_PARITY: false } }],
  workloads: [
    { type: 'periodic', name: 'p', count: 3, runUs: 1000, periodUs: 7777, sliceUs: 700 },
    { type: 'hog', name: 'hog', count: 2 }
  ]
})

const withoutWall = (r: VariantResult) => ({ ...r, stats: { ...r.stats, wallMs: 0 } })

describe('simulation worker (the source entry `schedlab serve` uses)', () => {
  it('returns what simulate() returns in-process, for every variant, in parallel', async () => {
    pool = new WorkerPool<VariantResult>({ workerPath: join(__dirname, 'sim-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 2 })
    const jobs = [0, 1].map((variantIndex) => pool!.submit({ scenario, variantIndex, seed: 7 }))
    const outcomes = await Promise.all(jobs.map((j) => j.outcome))
    outcomes.forEach((o, variantIndex) => {
      if (o.status !== 'done') throw new Error(JSON.stringify(o))
      expect(o.result.name).toBe(scenario.variants[variantIndex].name)
      expect(o.result.workloads[0].latencyUs.count).toBeGreaterThan(0)
      expect(JSON.stringify(withoutWall(o.result))).toBe(JSON.stringify(withoutWall(simulate(scenario, variantIndex, 7))))
    })
  })

  it('stops a long simulation on cancel', async () => {
    pool = new WorkerPool<VariantResult>({ workerPath: join(__dirname, 'sim-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 1, cancelGraceMs: 60_000 })
    const long = { ...scenario, durationMs: 3_600_000 }
    let progressed = 0
    const job = pool.submit({ scenario: long, variantIndex: 0, seed: 1 }, { onProgress: (sim) => (progressed = sim) })
    while (progressed === 0) await new Promise((r) => setTimeout(r, 20))
    const t0 = Date.now()
    job.cancel()
    const out = await job.outcome
    // stopped by the simulator's own shouldStop poll, not by terminating the worker: it hands
    // back its figures up to where it stopped
    if (out.status !== 'canceled' || !out.partial) throw new Error(JSON.stringify(out))
    expect(out.partial.stats.simulatedMs).toBeGreaterThan(0)
    expect(out.partial.stats.simulatedMs).toBeLessThan(long.durationMs)
    expect(Date.now() - t0).toBeLessThan(5000)
    expect(pool.stats().workers).toBe(1)
  })
})

describe('the patch watchdog', () => {
  it('stops a run whose patch hook never returns, names the hook, and the pool goes on', async () => {
    const { patchModuleFromText } = await import('./patch-loader')
    const loop = patchModuleFromText(`export default { name: 'loop', hooks: { pickEevdf(s: any, orig: any, cpu: number, protect: boolean) {
  if (s.now > 10e6) for (;;) {}
  return orig(cpu, protect)
} } }\n`, 'loop.ts')
    const patched = { ...scenario, variants: [{ ...scenario.variants[0], userPatches: [loop] }, scenario.variants[1]] }
    pool = new WorkerPool<VariantResult>({ workerPath: join(__dirname, 'sim-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 1, hookTimeoutMs: 1500 })
    const stuck = pool.submit({ scenario: patched, variantIndex: 0, seed: 1 })
    const next = pool.submit({ scenario: patched, variantIndex: 1, seed: 1 })
    const o = await stuck.outcome
    expect(o).toMatchObject({ status: 'failed', kind: 'patch', message: 'patch loop.ts did not return from pickEevdf within 1.5 s: the run was stopped and its worker replaced' })
    expect((await next.outcome).status).toBe('done')
  })

  it('reports a patch that throws as the problem of the patch, located', async () => {
    const { patchModuleFromText } = await import('./patch-loader')
    const bad = patchModuleFromText(`export default {\n  name: 'bad',\n  hooks: {\n    updateCurr(s: any, orig: any, cpu: number) {\n      if (s.now > 5e6) throw new Error('oops')\n      orig(cpu)\n    }\n  }\n}\n`, 'bad.ts')
    pool = new WorkerPool<VariantResult>({ workerPath: join(__dirname, 'sim-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 1 })
    const o = await pool.submit({ scenario: { ...scenario, variants: [{ ...scenario.variants[0], userPatches: [bad] }] }, variantIndex: 0, seed: 1 }).outcome
    expect(o).toMatchObject({ status: 'failed', kind: 'patch' })
    expect(o.status === 'failed' && o.message).toMatch(/patch bad \(bad\.ts:5:\d+\) threw in updateCurr at \d+\.\d{3} ms simulated: oops/)
  })
})

describe('warm workers', () => {
  it('start with the pool, warm up before their first job, and give the same results', async () => {
    pool = new WorkerPool<VariantResult>({ workerPath: join(__dirname, 'sim-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 2, warm: true })
    expect(pool.stats().workers).toBe(2)
    const o = await pool.submit({ scenario, variantIndex: 0, seed: 7 }).outcome
    if (o.status !== 'done') throw new Error(JSON.stringify(o))
    expect(JSON.stringify(withoutWall(o.result))).toBe(JSON.stringify(withoutWall(simulate(scenario, 0, 7))))
  })
})
