import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ApiEventName, ApiEvents } from '../shared/ipc'
import type { VariantResult } from '../shared/result'
import { WorkerPool } from './worker-pool'
import { RunStore } from './run-store'
import { RunService } from './run-service'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker, tempDir } from './test-helpers'
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { runCli } from '../cli/index'
import { memoryIo } from '../cli/io'
import { simulate } from '../sim/index'
import { strip } from '../sweep/merge'
import { relativeHalfWidth, targetEstimate } from '../stats/precision'

type Ev = { event: ApiEventName; payload: ApiEvents[ApiEventName]; at: number }

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function setup(workerPath = fixtureWorker('result-worker.ts')) {
  const t = tempDir()
  const pool = new WorkerPool<VariantResult>({ workerPath, execArgv: TSX_WORKER_ARGV, size: 2, progressIntervalMs: 10 })
  const store = await RunStore.open(t.dir, new MemoryKv())
  const events: Ev[] = []
  const runs = new RunService({ pool, store, version: '9.9.9', progressIntervalMs: 20, emit: (event, payload) => events.push({ event, payload, at: performance.now() }) })
  cleanups.push(async () => {
    await pool.close()
    t.cleanup()
  })
  return { pool, store, runs, events }
}

const scenario = (variants: string[], seeds = 1) => JSON.stringify({
  name: 'svc test', topology: 'smp-2', durationMs: 100, seed: 1, seeds,
  variants: variants.map((name) => ({ name })),
  workloads: [{ type: 'hog', name: 'w', count: 1 }]
})

const of = <E extends ApiEventName>(events: Ev[], e: E) => events.filter((x) => x.event === e).map((x) => x.payload as ApiEvents[E])

describe('RunService', () => {
  it('runs variants x seeds and saves one run with everything needed to reproduce it', async () => {
    const { runs, store, events } = await setup()
    const text = scenario(['base', 'patched'], 2)
    const res = runs.start({ text, file: 'svc.json' })
    if (!res.ok) throw new Error(res.problem.message)
    expect(res.jobs.map((j) => `${j.variant}/${j.seed}`)).toEqual(['base/1', 'base/2', 'patched/1', 'patched/2'])
    await runs.whenIdle()
    const [fin] = of(events, 'run-finished')
    expect(fin.status).toBe('done')
    expect(of(events, 'run-job')).toHaveLength(4)
    const saved = await store.get(res.runId)
    expect(saved.scenarioText).toBe(text)
    expect(saved.version).toBe('9.9.9')
    expect(saved.seeds).toEqual([1, 2])
    expect(saved.variants).toEqual(['base', 'patched'])
    expect(saved.results.map((r) => `${r.name}/${r.seed}`)).toEqual(['base/1', 'base/2', 'patched/1', 'patched/2'])
    expect(store.list()[0].id).toBe(res.runId)
    expect(of(events, 'runs-changed')).toHaveLength(1)
  })

  it('fails only the jobs of a crashing or throwing variant and saves the rest', async () => {
    const { runs, store, events } = await setup()
    const res = runs.start({ text: scenario(['base', 'crash', 'fail']), file: 'svc.json' })
    if (!res.ok) throw new Error(res.problem.message)
    await runs.whenIdle()
    const [fin] = of(events, 'run-finished')
    expect(fin.status).toBe('partial')
    expect(fin.errors.map((e) => [e.variant, e.kind])).toEqual([['crash', 'crash'], ['fail', 'error']])
    expect(fin.errors[1].message).toBe('workloads[0]: unsupported by the model')
    const saved = await store.get(res.runId)
    expect(saved.results.map((r) => r.name)).toEqual(['base'])
    expect(saved.errors).toHaveLength(2)
  })

  it('cancels a long run quickly, keeping results that finished', async () => {
    const { runs, store, events } = await setup()
    const res = runs.start({ text: scenario(['base', 'slow']), file: 'svc.json' })
    if (!res.ok) throw new Error(res.problem.message)
    // Cancel once the base job has finished and the slow one is demonstrably running, however
    // long the workers took to start.
    await vi.waitFor(() => {
      expect(of(events, 'run-job').map((j) => j.state)).toEqual(['done'])
      expect(of(events, 'run-progress').length).toBeGreaterThan(0)
    }, { timeout: 30_000, interval: 20 })
    const t0 = Date.now()
    expect(runs.cancel(res.runId)).toBe(true)
    await runs.whenIdle()
    expect(Date.now() - t0).toBeLessThan(5000)
    const [fin] = of(events, 'run-finished')
    expect(fin.status).toBe('canceled')
    // the finished job's result, and the canceled one's figures up to where it stopped, marked partial
    const saved = await store.get(res.runId)
    expect(saved.status).toBe('canceled')
    expect(saved.results.map((r) => [r.name, r.partial ?? false])).toEqual([['base', false], ['slow', true]])
    expect(fin.errors).toEqual([{ variant: 'slow', seed: 1, kind: 'canceled', message: expect.stringMatching(/^canceled after [\d.]+ ms simulated; its figures are kept, marked partial$/) }])
    expect(runs.cancel(res.runId)).toBe(false)
  })

  it('applies the run bar\'s seeds and duration, and --published', async () => {
    const { runs, store } = await setup()
    const text = JSON.stringify({ ...JSON.parse(scenario(['base'])), publishedDurationMs: 250 })
    const a = runs.start({ text, file: 's.json', seeds: 3, durationMs: 40 })
    if (!a.ok) throw new Error(a.problem.message)
    expect(a.jobs.map((j) => j.seed)).toEqual([1, 2, 3])
    await runs.whenIdle()
    expect(await store.get(a.runId)).toMatchObject({ durationMs: 40, seeds: [1, 2, 3] })
    const b = runs.start({ text, file: 's.json', published: true })
    if (!b.ok) throw new Error(b.problem.message)
    await runs.whenIdle()
    expect((await store.get(b.runId)).durationMs).toBe(250)
    const c = runs.start({ text: scenario(['base']), file: 's.json', published: true })
    expect(!c.ok && c.problem.issues[0]).toMatchObject({ path: 'publishedDurationMs', message: expect.stringMatching(/no publishedDurationMs/) })
  })

  it('names a run after what differs from the last run of its scenario; a given name stays', async () => {
    const { runs, store } = await setup()
    const first = runs.start({ text: scenario(['base']), file: 's.json' })
    await runs.whenIdle()
    const edited = JSON.stringify({ ...JSON.parse(scenario(['base'])), workloads: [{ type: 'hog', name: 'w', count: 2 }] })
    const second = runs.start({ text: edited, file: 's.json', seeds: 2 })
    await runs.whenIdle()
    const named = runs.start({ text: edited, file: 's.json', name: 'my name' })
    await runs.whenIdle()
    if (!first.ok || !second.ok || !named.ok) throw new Error('not started')
    expect((await store.get(first.runId)).name).toBe('svc test')
    expect((await store.get(second.runId)).name).toBe('svc test · w count=2, 2 seeds')
    expect((await store.get(named.runId)).name).toBe('my name')
  })

  it('throttles progress events per run', async () => {
    const { runs, events } = await setup()
    const res = runs.start({ text: scenario(['slow']), file: 'svc.json' })
    if (!res.ok) throw new Error(res.problem.message)
    // The worker reports every 10 ms; the run forwards at most one event per 20 ms.
    await vi.waitFor(() => expect(of(events, 'run-progress').length).toBeGreaterThan(5), { timeout: 30_000, interval: 20 })
    runs.cancel(res.runId)
    await runs.whenIdle()
    const at = events.filter((e) => e.event === 'run-progress').map((e) => e.at)
    const gaps = at.slice(1).map((t, i) => t - at[i])
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(15)
  })

  it('rejects an invalid scenario with a problem naming the file, saving nothing', async () => {
    const { runs, store } = await setup()
    const res = runs.start({ text: '{ "name": "x", "workloads": [ }', file: 'bad.json' })
    expect(res.ok).toBe(false)
    if (res.ok) return
    expect(res.problem.file).toBe('bad.json')
    expect(res.problem.issues[0].line).toBe(1)
    expect(store.list()).toEqual([])
  })

  it('runs only the selected variants, and names unknown ones', async () => {
    const { runs } = await setup()
    const ok = runs.start({ text: scenario(['base', 'patched']), file: 's.json', variants: ['patched'] })
    expect(ok.ok && ok.jobs.map((j) => j.variant)).toEqual(['patched'])
    const bad = runs.start({ text: scenario(['base']), file: 's.json', variants: ['nope'] })
    expect(!bad.ok && bad.problem.message).toMatch(/no variant named "nope" \(variants: base\)/)
    await runs.whenIdle()
  })
})

describe('RunService precision runs', () => {
  it('adds seeds on the pool until the interval is within PCT %, and saves what it reached', async () => {
    const { runs, store, events } = await setup(join(__dirname, 'sim-worker.ts'))
    const text = JSON.stringify({
      name: 'precise', topology: 'smp-2', durationMs: 150,
      variants: [{ name: 'a' }, { name: 'b', kernel: { costs: { contextSwitchUs: 9 } } }],
      workloads: [{ type: 'cyclictest', periodUs: 1000 }, { type: 'hog', count: 3 }]
    })
    const bad = runs.start({ text, file: 'p.json', precision: 'nope.p50:5' })
    expect(!bad.ok && bad.problem.issues[0]).toMatchObject({ path: 'precision', message: expect.stringMatching(/"nope" names no workload/) })
    const res = runs.start({ text, file: 'p.json', precision: 'ct.p90:8', maxSeeds: 8 })
    if (!res.ok) throw new Error(res.problem.message)
    expect(res.jobs.length).toBeGreaterThanOrEqual(2)
    await runs.whenIdle()
    const saved = await store.get(res.runId)
    expect(saved.precision?.target).toBe('ct.p90:8')
    for (const v of saved.precision!.variants) {
      const mine = saved.results.filter((r) => r.name === v.name)
      expect(mine.map((r) => r.seed)).toEqual(Array.from({ length: v.seeds }, (_, i) => i + 1))
      const hw = relativeHalfWidth(targetEstimate(mine, { workload: 'cyclictest', metric: 'p90' }))
      if (v.reached) expect(hw!).toBeLessThanOrEqual(8)
      else expect(v.seeds).toBe(8)
      if (v.seeds > 2 && v.reached) expect(relativeHalfWidth(targetEstimate(mine.slice(0, -1), { workload: 'cyclictest', metric: 'p90' })) ?? Infinity).toBeGreaterThan(8)
    }
    const all = res.jobs.length + of(events, 'run-jobs').reduce((n, e) => n + e.jobs.length, 0)
    expect(all).toBeGreaterThanOrEqual(saved.results.length)
    expect(saved.errors).toEqual([])
    expect(saved.status).toBe('done')
  })
})

describe('RunService sweeps', () => {
  it('runs every cell of a scenario\'s sweep and saves it as one history entry, cell by cell', async () => {
    const { runs, store } = await setup(join(__dirname, 'sim-worker.ts'))
    const text = readFileSync(join(__dirname, '../sweep/fixtures/sweep-2x3.json'), 'utf8')
    const res = runs.start({ text, file: 'sweep-2x3.json' })
    if (!res.ok) throw new Error(res.problem.message)
    expect(res.jobs).toHaveLength(12)
    expect(res.jobs[11].cell).toEqual({ index: 5, label: 'workloads[0].sliceUs=8000, workloads[1].groups=3' })
    await runs.whenIdle()
    const saved = await store.get(res.runId)
    expect(saved.kind).toBe('sweep')
    expect(store.list()[0].kind).toBe('sweep')
    expect(saved.results).toEqual([])
    expect(saved.sweep!.cells.map((c) => [c.values, c.results.map((r) => r.name)])).toEqual(
      [[3000, 1], [3000, 2], [3000, 3], [8000, 1], [8000, 2], [8000, 3]].map((v) => [v, ['tip', 'no RUN_TO_PARITY']]))
    // the same cell as the command line computes it
    const io = memoryIo({ 's.json': text })
    expect(await runCli(['run', 's.json', '--json', '--set', 'workloads[0].sliceUs=8000', '--set', 'workloads[1].groups=2'], io, simulate)).toBe(0)
    expect(strip(saved.sweep!.cells[4].results)).toEqual(strip(JSON.parse(io.stdout).variants))
    const bad = runs.start({ text: text.replace('[1, 2, 3]', '[1, "x"]'), file: 'bad.json' })
    expect(!bad.ok && bad.problem.file).toMatch(/^bad\.json \(sweep cell 1: workloads\[0\]\.sliceUs=3000, workloads\[1\]\.groups="x"\)$/)
  })
})
