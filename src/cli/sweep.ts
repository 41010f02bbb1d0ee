import { spawnSync } from 'node:child_process'
import { isAbsolute, join, resolve } from 'node:path'
import { ScenarioError, type Scenario } from '../sim/scenario'
import type { RunOutput } from '../shared/result'
import { cellCount, cells, parseShard, planCells, shardCells, type Cell } from '../sweep/grid'
import { MergeError, mergeSweeps, type SweepObject } from '../sweep/merge'
import { k8sManifest, mergeCommandLine, slurmScript, slug, type ClusterJob } from '../sweep/cluster'
import { type SweepArgs } from './args'
import { InputError } from './errors'
import { submissionRefusals } from '../sim/scenario/estimate'
import { cliLimits, submissionLimits } from '../services/limits'
import { expandFor, runOutput } from './commands'
import { parseScenarioText, readScenarioText, setsApplied } from './scenario-input'
import { makeExecutor, runAll } from './executor'
import { openCheckpoint } from './checkpoint'
import { buildTables, formatCell } from '../shared/tables'
import type { CliIo } from './io'
import { MAX_RESULT_FILE_BYTES } from '../services/bounded-read'
import type { SimulateFn } from './simulator'

/**
 * `schedlab sweep`: the scenario's "sweep" grid, every cell a whole run (variants x seeds) with
 * the cell's values set as by `--set`, all runs of all cells on the worker pool at once;
 * `--shard I/N` for one shard, `--slurm` / `--k8s` for a cluster; `schedlab merge` joins shards.
 */

export type SweepOutput = SweepObject<ReturnType<typeof runOutput>>

const PROJECT_ROOT = resolve(__dirname, '../..')
const SCHEDLAB_BIN = join(PROJECT_ROOT, 'bin', 'schedlab.mjs')

interface Planned {
  file: string
  text: string
  base: Scenario
  chosen: Cell[]
  total: number
}

function plan(a: SweepArgs, io: CliIo): Planned {
  const { file, text: raw } = readScenarioText(a.file, io)
  const text = a.sets.length > 0 ? setsApplied(raw, a.sets) : raw
  const opts = { topology: a.topology, durationMs: a.durationMs, maxEvents: a.maxEvents }
  const base = parseScenarioText(text, file, io, opts)
  if (!base.sweep || base.sweep.length === 0) {
    throw new InputError(`${file}: the scenario has no "sweep" (e.g. "sweep": { "workloads[0].sliceUs": [3000, 8000], "kernel.hz": [250, 1000] })`)
  }
  let shard
  if (a.shard !== undefined) {
    const s = parseShard(a.shard)
    if (typeof s === 'string') throw new InputError(`--shard: ${s}`)
    shard = s
  }
  const all = cells(base.sweep)
  return { file, text, base, chosen: shardCells(all, shard), total: all.length }
}

/** The runs of each chosen cell; a value the scenario refuses names the cell and the JSON path. */
function cellRuns(p: Planned, chosen: readonly Cell[], a: SweepArgs, io: CliIo) {
  return planCells(p.base.sweep!, p.text, chosen, p.file,
    (t) => expandFor(parseScenarioText(t, p.file, io, { topology: a.topology, durationMs: a.durationMs, maxEvents: a.maxEvents }), a),
    (e, where) => (e instanceof ScenarioError ? new ScenarioError(where, e.issues) : e))
    .map((x) => ({ cell: x.cell, ...x.scenario }))
}

export async function sweepCommand(a: SweepArgs, io: CliIo, simulate?: SimulateFn): Promise<number> {
  const p = plan(a, io)
  if (a.slurm || a.k8s) return clusterCommand(a, p, io)
  // every cell is checked before anything runs
  const planned = cellRuns(p, p.chosen, a, io)
  const specs = planned.flatMap((x) => x.runs)
  // The cells together are one submission (one per shard): checked as a whole too.
  const refusals = submissionRefusals(specs, submissionLimits(cliLimits(a)))
  if (refusals.length > 0) throw new ScenarioError(p.file, refusals.map((message) => ({ path: '(sweep)', message: `${message}; or run it in shards (--shard I/N, --slurm)` })))
  const shardText = a.shard ? `shard ${a.shard}: ` : ''
  io.err(`sweep: ${shardText}${p.chosen.length} of ${p.total} cells, ${specs.length} runs\n`)
  if (a.out) io.mkdirp(a.out)
  // with --out, finished runs are kept as they end; --resume continues from them
  const checkpoint = a.out ? openCheckpoint(a.out, specs, a.resume, io, 'sweep') : undefined
  const ex = makeExecutor(simulate, cliLimits(a))
  let results
  try {
    results = await runAll(ex, specs, io, 'runs', undefined, checkpoint)
  } finally {
    await ex.close()
  }
  let k = 0
  const out: SweepOutput = {
    sweep: {
      scenario: p.base.name,
      axes: p.base.sweep!,
      total: p.total,
      ...(a.shard ? { shard: parseShard(a.shard) as { index: number; count: number } } : {}),
      cells: planned.map((x) => ({ index: x.cell.index, values: x.cell.values, result: runOutput(x.scenario.name, results.slice(k, (k += x.runs.length))) }))
    }
  }
  if (a.out) {
    io.mkdirp(a.out)
    io.writeFile(join(a.out, 'sweep.json'), JSON.stringify(out, null, 2) + '\n')
    io.writeFile(join(a.out, 'scenario.json'), p.text)
    io.err(`wrote ${join(a.out, 'sweep.json')}\n`)
    checkpoint?.remove()
  }
  io.out(a.json ? JSON.stringify(out, null, 2) + '\n' : renderSweepText(out))
  return 0
}

function clusterCommand(a: SweepArgs, p: Planned, io: CliIo): number {
  const outDir = resolve(a.out ?? `${slug(p.base.name)}-sweep`)
  const shards = Math.min(a.shards ?? p.total, p.total)
  const passOn: string[] = []
  for (const v of a.variants) passOn.push('--variant', v)
  if (a.seed !== undefined) passOn.push('--seed', String(a.seed))
  if (a.seeds !== undefined) passOn.push('--seeds', String(a.seeds))
  if (a.durationMs !== undefined) passOn.push('--duration-ms', String(a.durationMs))
  if (a.published) passOn.push('--published')
  if (a.topology !== undefined) passOn.push('--topology', a.topology)
  if (a.maxEvents !== undefined) passOn.push('--max-events', String(a.maxEvents))
  if (a.maxTotalEvents !== undefined) passOn.push('--max-total-events', String(a.maxTotalEvents))
  if (a.memoryShare !== undefined) passOn.push('--memory-share', String(a.memoryShare))
  // every cell is checked here, not on the cluster
  cellRuns(p, cells(p.base.sweep!), a, io)
  const job: ClusterJob = {
    name: p.base.name, cells: p.total, shards, outDir,
    scenarioFile: join(outDir, 'scenario.json'),
    schedlab: `node ${SCHEDLAB_BIN}`,
    args: passOn, partition: a.partition, cpusPerTask: a.cpusPerTask, timeLimit: a.time
  }
  if (a.k8s) {
    io.out(k8sManifest({ ...job, image: a.image!, claim: a.claim!, mountPath: outDir, schedlab: 'schedlab' }))
    io.err(`copy the scenario to ${job.scenarioFile} on the volume first (schedlab validate it there), then kubectl apply -f the manifest\n`)
    return 0
  }
  const script = slurmScript(job)
  if (a.dryRun) {
    io.out(script)
    return 0
  }
  io.mkdirp(outDir)
  io.writeFile(job.scenarioFile, p.text)
  const scriptFile = join(outDir, 'sweep.sbatch')
  io.writeFile(scriptFile, script)
  const r = spawnSync('sbatch', ['--parsable', scriptFile], { encoding: 'utf8' })
  if (r.error) {
    const why = (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'sbatch not found (is Slurm installed here?)' : r.error.message
    throw new InputError(`--slurm: ${why}; the script is ${scriptFile} (--dry-run prints it)`)
  }
  if (r.status !== 0) throw new InputError(`--slurm: sbatch failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`)
  const jobId = r.stdout.trim().split(';')[0]
  io.out(`${jobId}\n`)
  io.err(`submitted job ${jobId}: ${shards} array tasks for ${p.total} cells, output in ${outDir}\nwhen it is done: ${mergeCommandLine({ outDir, schedlab: 'schedlab' })}\n`)
  return 0
}

export async function mergeCommand(dirs: string[], json: boolean, out: string | undefined, io: CliIo): Promise<number> {
  const parts = dirs.map((d) => {
    const file = d.endsWith('.json') ? d : join(d, 'sweep.json')
    let text: string
    try {
      text = io.readFile(file, MAX_RESULT_FILE_BYTES)
    } catch (e) {
      throw new InputError(`merge: ${file}: cannot read: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (has this shard finished?)' : (e as Error).message}`)
    }
    try {
      return { source: file, object: JSON.parse(text) as SweepOutput }
    } catch (e) {
      throw new InputError(`merge: ${file}: not JSON: ${(e as Error).message}`)
    }
  })
  let merged: SweepOutput
  try {
    merged = mergeSweeps(parts)
  } catch (e) {
    if (e instanceof MergeError) throw new InputError(`merge: ${e.message}`)
    throw e
  }
  const text = JSON.stringify(merged, null, 2) + '\n'
  if (out) {
    io.writeFile(isAbsolute(out) ? out : resolve(out), text)
    io.err(`wrote ${out}\n`)
  }
  io.out(json ? text : renderSweepText(merged))
  return 0
}

/** Per workload, one row per cell and one column per variant: p50, p99 and p99.9 with intervals and marks. */
export function renderSweepText(o: SweepOutput): string {
  const s = o.sweep
  const out: string[] = [`sweep of ${s.scenario}: ${s.axes.map((a) => `${a.path} (${a.values.length})`).join(' x ')} = ${cellCount(s.axes)} cells${s.shard ? `, shard ${s.shard.index}/${s.shard.count}: ${s.cells.length} of them` : ''}`]
  if (s.cells.length === 0) return out.join('\n') + '\n'
  const variants = [...new Set(s.cells.flatMap((c) => (c.result as RunOutput).variants.map((v) => v.name)))]
  const workloads = [...new Set(s.cells.flatMap((c) => (c.result as RunOutput).variants.flatMap((v) => v.workloads.filter((w) => w.latencyUs.count > 0).map((w) => w.name))))]
  for (const wl of workloads) {
    for (const [key, label] of [['p50', 'median'], ['p99', '99th percentile'], ['p99_9', '99.9th percentile']] as const) {
      const rows: string[][] = [[s.axes.map((a) => a.path).join(', '), ...variants]]
      for (const c of s.cells) {
        const r = c.result as RunOutput
        const table = buildTables(variants.map((v) => ({ label: v, results: r.variants.filter((x) => x.name === v) }))).find((t) => t.workload === wl)
        const row = table?.rows.find((x) => x.key === key)
        rows.push([c.values.map((v) => JSON.stringify(v)).join(', '), ...variants.map((_, i) => (row ? formatCell(row, i) : '-'))])
      }
      const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)))
      out.push('', `${label} of ${wl} latency (us)`, ...rows.map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[i]))).join(' | ')))
    }
  }
  return out.join('\n') + '\n'
}
