import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import protobuf from 'protobufjs'
import { createBackend, type Backend } from './backend'
import { MemoryKv, TSX_WORKER_ARGV, tempDir } from './test-helpers'
import { API_ARGS } from '../../shared/ipc-schemas'
import { createDispatcher } from './dispatch'
import { explainSample } from '../../sim/explain'
import { parseScenario, expandRuns } from '../../sim/scenario'

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
    const root = protobuf.loadSync(join(__dirname, '../../trace/perfetto-protos/perfetto-subset.proto'))
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
})
