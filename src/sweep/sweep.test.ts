import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../cli/index'
import { memoryIo } from '../cli/io'
import { simulate } from '../sim/index'
import { cells, parseShard, shardCells } from './grid'
import { strip } from './merge'
import { k8sManifest, slurmScript } from './cluster'

const FIXTURE = join(__dirname, 'fixtures', 'sweep-2x3.json')
const text = readFileSync(FIXTURE, 'utf8')

describe('sweep grid', () => {
  const axes = [{ path: 'a', values: [1, 2] }, { path: 'b', values: ['x', 'y', 'z'] }]

  it('is the product of the axes, the last varying fastest', () => {
    expect(cells(axes).map((c) => c.values)).toEqual([[1, 'x'], [1, 'y'], [1, 'z'], [2, 'x'], [2, 'y'], [2, 'z']])
  })

  it('shards I/N take every Nth cell from I, numbered from 0, each cell once', () => {
    const all = cells(axes)
    const seen = [0, 1, 2, 3].flatMap((i) => shardCells(all, { index: i, count: 4 }).map((c) => c.index))
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4, 5])
    expect(shardCells(all, { index: 1, count: 4 }).map((c) => c.index)).toEqual([1, 5])
    expect(parseShard('0/3')).toEqual({ index: 0, count: 3 })
    expect(parseShard('3/3')).toMatch(/numbered from 0/)
    expect(parseShard('x')).toMatch(/expected I\/N/)
  })
})

describe('schedlab sweep and merge', () => {
  const run = async (argv: string[], files: Record<string, string> = {}) => {
    const io = memoryIo({ 's.json': text, ...files })
    const code = await runCli(argv, io, simulate)
    return { code, io }
  }

  it('a 2x3 sweep, run whole and in three shards, merges to the identical object', async () => {
    const whole = await run(['sweep', 's.json', '--json'])
    expect(whole.code, whole.io.stderr).toBe(0)
    const full = JSON.parse(whole.io.stdout)
    expect(full.sweep.axes).toEqual([{ path: 'workloads[0].sliceUs', values: [3000, 8000] }, { path: 'workloads[1].groups', values: [1, 2, 3] }])
    expect(full.sweep.cells.map((c: { values: unknown[] }) => c.values)).toEqual([[3000, 1], [3000, 2], [3000, 3], [8000, 1], [8000, 2], [8000, 3]])
    // each cell's result is the run --json object of the scenario with the cell's values set
    const cell = full.sweep.cells[5].result
    expect(cell.variants.map((v: { name: string }) => v.name)).toEqual(['tip', 'no RUN_TO_PARITY'])
    expect(cell.summary).toHaveLength(2)
    expect(cell.comparisons.length).toBeGreaterThan(0)
    const one = await run(['run', 's.json', '--json', '--set', 'workloads[0].sliceUs=8000', '--set', 'workloads[1].groups=3'])
    expect(strip(cell)).toEqual(strip(JSON.parse(one.io.stdout)))

    const files: Record<string, string> = {}
    for (const i of [0, 1, 2]) {
      const s = await run(['sweep', 's.json', '--shard', `${i}/3`, '--out', `o/shard-${i}`])
      expect(s.code, s.io.stderr).toBe(0)
      files[`o/shard-${i}/sweep.json`] = s.io.files[`o/shard-${i}/sweep.json`]
      expect(JSON.parse(files[`o/shard-${i}/sweep.json`]).sweep.cells.map((c: { index: number }) => c.index)).toEqual([i, i + 3])
    }
    const merged = await run(['merge', 'o/shard-2', 'o/shard-0', 'o/shard-1', '--json'], files)
    expect(merged.code, merged.io.stderr).toBe(0)
    expect(strip(JSON.parse(merged.io.stdout))).toEqual(strip(full))

    const missing = await run(['merge', 'o/shard-0', 'o/shard-2'], files)
    expect(missing.code).toBe(2)
    expect(missing.io.stderr).toMatch(/2 of 6 cells missing \(1, 4\)/)
  })

  it('a cell value the scenario refuses names the cell and the JSON path, before anything runs', async () => {
    const bad = text.replace('"workloads[1].groups": [1, 2, 3]', '"workloads[1].groups": [1, "many"]')
    const r = await run(['sweep', 'b.json'], { 'b.json': bad })
    expect(r.code).toBe(2)
    expect(r.io.stderr).toMatch(/sweep cell 1: workloads\[0\]\.sliceUs=3000, workloads\[1\]\.groups="many"/)
    expect(r.io.stderr).toMatch(/workloads\[1\]\.groups/)
    const path = await run(['validate', 'p.json'], { 'p.json': text.replace('"workloads[0].sliceUs"', '"workloads[0]..x"') })
    expect(path.code).toBe(2)
    expect(path.io.stderr).toMatch(/sweep/)
    const none = await run(['sweep', 'n.json'], { 'n.json': text.replace(/"sweep": \{[^}]*\}/, '"seeds": 1') })
    expect(none.code).toBe(2)
    expect(none.io.stderr).toMatch(/has no "sweep"/)
  })

  it('--slurm --dry-run prints a job array with one task per shard', async () => {
    const r = await run(['sweep', 's.json', '--slurm', '--dry-run', '--partition', 'short', '--shards', '3', '--out', '/shared/sw', '--seeds', '2'])
    expect(r.code, r.io.stderr).toBe(0)
    const script = r.io.stdout
    expect(script).toMatch(/^#!\/bin\/bash\n/)
    expect(script).toContain('#SBATCH --array=0-2\n')
    expect(script).toContain('#SBATCH --partition=short\n')
    expect(script).toContain('sweep /shared/sw/scenario.json --shard "$SLURM_ARRAY_TASK_ID/3" --out /shared/sw/"shard-$SLURM_ARRAY_TASK_ID" --seeds 2')
    expect(script).toMatch(/merge \/shared\/sw\/shard-\* --json/)
    expect(Object.keys(r.io.files).filter((f) => f.startsWith('/shared'))).toEqual([])
  })

  it('writes a Kubernetes Indexed Job manifest (not run against a cluster here)', () => {
    const y = k8sManifest({ name: 'x', cells: 6, shards: 3, outDir: '/data/sw', scenarioFile: '/data/sw/scenario.json', schedlab: 'schedlab', args: [], image: 'reg/schedlab:1', claim: 'sweeps', mountPath: '/data/sw' })
    expect(y).toContain('completionMode: Indexed')
    expect(y).toContain('completions: 3')
    expect(y).toContain('--shard \\"$JOB_COMPLETION_INDEX/3\\"')
    expect(slurmScript({ name: "it's", cells: 1, shards: 1, outDir: '/a b', scenarioFile: '/a b/s.json', schedlab: 'schedlab', args: [] })).toContain("sweep '/a b/s.json' --shard")
  })
})
