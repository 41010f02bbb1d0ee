/**
 * `--set` paths, sweep paths and a shard's sweep.json fields are checked like the scenario: a
 * path that cannot apply, or a field merge cannot use, is exit 2 naming it (these were exit 1,
 * "Can not add index to parent of type array", or a V8 fatal error for "total": 1e12), and
 * `validate` sees what `sweep` will do.
 */
import { describe, expect, it } from 'vitest'
import { runCli } from './index'
import { memoryIo } from './io'

const scenario = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ name: 's', topology: 'smp-2', durationMs: 20, workloads: [{ type: 'hog', name: 'h' }], ...extra })

async function cli(args: string[], files: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo(files)
  const code = await runCli(args, io, () => {
    throw new Error('must not simulate')
  })
  return { code, out: io.stdout, err: io.stderr }
}

describe('--set paths that cannot apply', () => {
  const cases: [string, string][] = [
    ['workloads.x=1', 'workloads is a list, not an object: "x" names no field of it (index it: workloads[0])'],
    ['durationMs.x=1', 'durationMs is a number, not an object'],
    ['name[0]=1', 'name is a string, not a list: [0] cannot index it'],
    ['workloads.__proto__.length=5', 'workloads is a list, not an object: "__proto__"'],
    ['workloads[5].count=2', 'workloads has 1 item(s): [5] is past its end (the next one is [1])']
  ]
  for (const [set, message] of cases) {
    it(`--set ${set}: exit 2 naming the path`, async () => {
      for (const cmd of ['validate', 'run', 'sweep']) {
        const r = await cli([cmd, 's.json', '--set', set], { 's.json': scenario() })
        expect(r.code, r.err).toBe(2)
        expect(r.err).toContain(`--set ${set}: ${message}`)
        expect(r.err).not.toContain('internal error')
      }
    })
  }

  it('validate --json reports it as an issue', async () => {
    const r = await cli(['validate', 's.json', '--json', '--set', 'workloads.x=1'], { 's.json': scenario() })
    expect(r.code).toBe(2)
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, issues: [{ message: expect.stringContaining('--set workloads.x=1: workloads is a list') }] })
  })

  it('paths that can apply still do (a new field of an object, the next list item)', async () => {
    const r = await cli(['validate', 's.json', '--json', '--set', 'workloads[1]={"type":"hog","name":"g"}', '--set', 'kernel.hz=250'], { 's.json': scenario() })
    expect(r.code, r.out).toBe(0)
    expect(JSON.parse(r.out).scenario.workloads.map((w: { name: string }) => w.name)).toEqual(['h', 'g'])
  })
})

describe('sweep paths', () => {
  it('"sweep": {"workloads.x": [1]} fails validate as it would fail sweep: exit 2 at the sweep path', async () => {
    const files = { 's.json': scenario({ sweep: { 'workloads.x': [1] } }) }
    for (const cmd of ['validate', 'sweep']) {
      const r = await cli([cmd, 's.json'], files)
      expect(r.code, r.err).toBe(2)
      expect(r.err).toMatch(/s\.json:\d+:\d+: sweep\["workloads\.x"\]: workloads is a list, not an object/)
    }
  })
})

describe('validate sees every sweep cell', () => {
  it('a value one cell refuses: exit 2 naming the cell, in validate as in sweep', async () => {
    const files = { 's.json': scenario({ sweep: { 'workloads[0].count': [1, -5] } }) }
    for (const cmd of ['validate', 'sweep']) {
      const r = await cli([cmd, 's.json'], files)
      expect(r.code, r.err).toBe(2)
      expect(r.err).toMatch(/s\.json \(sweep cell 1: workloads\[0\]\.count=-5\):\d+:\d+: workloads\[0\]\.count: /)
    }
  })

  it('the cells together over the total limit: refused by validate', async () => {
    const files = { 's.json': scenario({ durationMs: 2000, workloads: [{ type: 'hog', count: 500 }], sweep: { 'workloads[0].name': ['a', 'b', 'c', 'd'] } }) }
    expect((await cli(['validate', 's.json', '--max-total-events', '10000000'], files)).code).toBe(0)
    const r = await cli(['validate', 's.json', '--max-total-events', '1500000'], files)
    expect(r.code, r.err).toBe(2)
    expect(r.err).toContain('or run it in shards')
  })
})

describe('merge checks sweep.json', () => {
  const shard = (sweep: Record<string, unknown>): string =>
    JSON.stringify({ sweep: { scenario: 's', axes: [{ path: 'kernel.hz', values: [250, 1000] }], total: 2, cells: [], ...sweep } })
  const cases: [Record<string, unknown>, string][] = [
    [{ total: 1e12 }, 'sweep.total: expected a whole number of cells in 1..10000, got 1000000000000'],
    [{ total: -1 }, 'sweep.total: expected a whole number of cells in 1..10000, got -1'],
    [{ total: 'abc' }, 'sweep.total: expected a whole number of cells in 1..10000, got "abc"'],
    [{ total: 3 }, "sweep.total: 3 is not the grid's 2 cells (2)"],
    [{ axes: [{ path: 'kernel.hz' }] }, 'sweep.axes[0]: expected { "path": string, "values": [a value at least] }'],
    [{ cells: [{ index: 7, values: [250], result: {} }] }, 'sweep.cells[0].index: expected a cell index in 0..1, got 7'],
    [{ cells: [{ index: 0, values: 5, result: {} }] }, 'sweep.cells[0].values: expected 1 value(s), one per axis']
  ]
  for (const [sweep, message] of cases) {
    it(`${JSON.stringify(sweep)}: exit 2`, async () => {
      const r = await cli(['merge', 'a/sweep.json'], { 'a/sweep.json': shard(sweep) })
      expect(r.code, r.err).toBe(2)
      expect(r.err).toContain(`merge: a/sweep.json: ${message}`)
    })
  }
})
