import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import protobuf from 'protobufjs'
import { createBackend, type Backend } from './backend'
import { MemoryKv, TSX_WORKER_ARGV, tempDir } from './test-helpers'
import { API_ARGS } from '../shared/ipc-schemas'
import { createDispatcher } from './dispatch'
import { ExplainService } from './explain-service'
import { WorkerPool } from './worker-pool'
import type { StoredRun } from '../shared/ipc'
import type { VariantResult } from '../shared/result'
import { explainSample } from '../sim/explain'
import { parseScenario, expandRuns } from '../sim/scenario'

const TEXT = JSON.stringify({
  name: 'explain service', topology: 'smp-2', durationMs: 150, kernel: { hz: 250 },
  variants: [{ name: 'base' }, { name: 'no short', features: { PREEMPT_SHORT: false } }],
  workloads: [
    { type: 'hog', name: 'hog', count: 3 },
    { type: 'cyclictest', name: 'ct', periodUs: 1000, sliceUs: 100 }
  ]
})

let backend: Backend
let cleanup: () => void

beforeEach(async () => {
  const t = tempDir()
  cleanup = t.cleanup
  backend = await createBackend({
    dataDir: t.dir, kv: new MemoryKv(), workerPath: join(__dirname, 'sim-worker.ts'), execArgv: TSX_WORKER_ARGV,
    poolSize: 2, version: 'test', platform: 'web'
  })
})

afterEach(async () => {
  await backend.close()
  cleanup()
})

async function savedRun(): Promise<string> {
  const finished = new Promise<string>((resolve) => {
    backend.onEvent((event, payload) => {
      if (event === 'run-finished') resolve((payload as { runId: string }).runId)
    })
  })
  const r = await backend.service.startRun({ text: TEXT, file: 'explain.json' })
  if (!r.ok) throw new Error(r.problem.message)
  return finished
}

describe('explain service (worker pool)', () => {
  it('explains a saved run\'s maximum exactly as the CLI\'s explain does, and exports its trace', async () => {
    const runId = await savedRun()
    const run = await backend.service.getRun(runId)
    const saved = run.results.find((r) => r.name === 'no short')!.workloads.find((w) => w.name === 'ct')!
    const e = await backend.service.explain({ runId, variant: 'no short', seed: run.seeds[0], workload: 'ct', sample: 'max' })
    expect(e.sample.latencyUs).toBe(saved.latencyUs.max)
    expect(e.warning).toBeUndefined()
    expect(e.lanes!.length).toBe(2)
    const spec = expandRuns(parseScenario(TEXT, 'explain.json'), { variants: ['no short'] })[0]
    const local = explainSample({ scenario: spec.scenario, variantIndex: spec.variantIndex, seed: spec.seed, workload: 'ct', sample: 'max', allCpus: true })
    expect(e).toEqual(local)
    // the trace of the explanation's window decodes, and covers it
    const t = await backend.service.perfettoTrace({ runId, variant: 'no short', seed: run.seeds[0], startNs: e.window.startNs, endNs: e.window.endNs })
    expect(t.fileName).toMatch(/\.perfetto-trace$/)
    const root = protobuf.loadSync(join(__dirname, '../trace/perfetto-protos/perfetto-subset.proto'))
    const trace = root.lookupType('perfetto.protos.Trace').toObject(root.lookupType('perfetto.protos.Trace').decode(Buffer.from(t.base64, 'base64')), { longs: Number }) as { packet: { ftraceEvents?: { event: { timestamp: number }[] } }[] }
    const ts = trace.packet.flatMap((p) => p.ftraceEvents?.event.map((x) => x.timestamp) ?? [])
    expect(ts.length).toBeGreaterThan(0)
    expect(Math.min(...ts)).toBeGreaterThanOrEqual(e.window.startNs)
    expect(Math.max(...ts)).toBeLessThanOrEqual(e.window.endNs + 1)
  })

  it('validates the requests at the dispatcher and names what is wrong', async () => {
    const runId = await savedRun()
    const call = createDispatcher(API_ARGS, backend.service)
    const bad = [
      [{ runId, variant: 'base', seed: 1 }, /workload .*idle event/],
      [{ runId, variant: 'base', seed: 1, workload: 'ct', sample: 'p101' }, /invalid call to explain/],
      [{ runId, variant: 'base', seed: 1, workload: 'ct', idle: { bucket: '4ms+', index: 0 } }, /not both/],
      [{ runId, variant: 'base', seed: 1, workload: 'ct', extra: 1 }, /invalid call to explain/]
    ] as const
    for (const [req, msg] of bad) {
      const r = await call('explain', [req])
      expect(r.ok, JSON.stringify(req)).toBe(false)
      expect(r.ok ? '' : r.error).toMatch(msg)
    }
    const missing = await call('explain', [{ runId, variant: 'base', seed: 99, workload: 'ct' }])
    expect(missing.ok ? '' : missing.error).toMatch(/no seed 99/)
    const noWl = await call('explain', [{ runId, variant: 'base', seed: 1, workload: 'nope' }])
    expect(noWl.ok ? '' : noWl.error).toMatch(/no workload "nope"/)
    const trace = await call('perfettoTrace', [{ runId, variant: 'base', seed: 1, startNs: 5, endNs: 1 }])
    expect(trace.ok ? '' : trace.error).toMatch(/startNs must be before endNs/)
  })

  it('shows an imported trace\'s maximum with the CPUs\' timeline around it, and refuses what a trace cannot explain', async () => {
    const file = join(__dirname, '../trace/fixtures/real-6.18.44.trace.txt.gz')
    const imported = await backend.service.importTrace(gunzipSync(readFileSync(file)).toString('utf8'), 'real-6.18.44.trace.txt')
    if (!imported.ok) throw new Error(imported.problem.message)
    const run = await backend.service.getRun(imported.run.id)
    const v = run.results[0]
    const saved = v.workloads.find((w) => w.name === 'cyclictest')!
    const e = await backend.service.explain({ runId: run.id, variant: v.name, seed: v.seed, workload: 'cyclictest', sample: 'max' })
    expect(e.measured).toBe('trace')
    expect(e.sample.latencyUs).toBeCloseTo(saved.latencyUs.max, 2)
    expect(e.decisions).toEqual([])
    expect(e.summary).toMatch(/records no scheduler decisions/)
    // what ran on its CPU while it waited, the longest first
    const lane0 = e.lanes!.find((l) => l.cpu === e.sample.cpu)!
    const during = new Map<string, number>()
    for (const x of lane0.slices) {
      const ns = Math.min(x.endNs, e.sample.ranNs) - Math.max(x.startNs, e.sample.readyNs)
      if (ns > 0) during.set(x.task, (during.get(x.task) ?? 0) + ns)
    }
    const longest = [...during.entries()].sort((a, b) => b[1] - a[1])[0][0]
    expect(e.summary).toContain(`Meanwhile CPU ${e.sample.cpu} ran ${longest} (`)
    expect(e.lanes!.length).toBe(v.cpus.length)
    const lane = e.lanes!.find((l) => l.cpu === e.sample.cpu)!
    expect(lane.slices.some((x) => x.task === e.sample.task && x.startNs === e.sample.ranNs)).toBe(true)
    await expect(backend.service.explain({ runId: run.id, variant: v.name, seed: v.seed, workload: 'cyclictest', sample: 'p99' }))
      .rejects.toThrow(/is an imported trace: a real kernel records no scheduler decisions.*maximum only/)
    await expect(backend.service.perfettoTrace({ runId: run.id, variant: v.name, seed: v.seed, startNs: e.window.startNs, endNs: e.window.endNs }))
      .rejects.toThrow(/only simulated runs/)
  })

  it('reports a re-run\'s progress under its request id, and stops it when asked', async () => {
    // a long run (a minute simulated): its explanation takes long enough to be stopped midway
    const text = JSON.stringify({ ...JSON.parse(TEXT), durationMs: 60_000 })
    const run = { id: 'long', source: 'sim', scenarioText: text, scenarioFile: 'long.json', seeds: [1], results: [], version: 'test' } as unknown as StoredRun
    const pool = new WorkerPool<VariantResult>({ workerPath: join(__dirname, 'sim-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 1, progressIntervalMs: 10 })
    try {
      const progress: number[] = []
      let canceled: Promise<boolean> | null = null
      const requestId = 'test-long'
      const explainer: ExplainService = new ExplainService(pool, async () => run, (event, payload) => {
        if (event !== 'explain-progress') return
        const p = payload as { requestId: string; simNs: number; durationNs: number }
        expect(p.requestId).toBe(requestId)
        progress.push(p.simNs / p.durationNs)
        canceled ??= Promise.resolve(explainer.cancel(requestId))
      })
      // the workbench's Close: the explanation fails as canceled, and the request is gone
      await expect(explainer.explain({ runId: 'long', variant: 'base', seed: 1, workload: 'ct', sample: 'max', requestId })).rejects.toThrow(/canceled/)
      expect(await canceled, "cancel").toBe(true)
      expect(progress.length).toBeGreaterThan(0)
      expect(progress.filter((f) => !(f >= 0 && f <= 1))).toEqual([])
      expect(explainer.cancel(requestId)).toBe(false)
    } finally {
      await pool.close()
    }
  })
})
