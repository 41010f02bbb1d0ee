import { join } from 'node:path'
import { listPresets } from '../services/presets'
import { SCHED_FEATURES } from '../sim/kernel/features'
import { estimateEvents, expandRuns, formatCount, knownFeatureNames, listPatches, ScenarioError, topologyPresets, type RunSpec, type Scenario } from '../sim/scenario'
import type { RunOutput, VariantResult } from '../shared/result'
import type { CompareArgs, RunArgs } from './args'
import { InputError } from './errors'
import { compareResults, renderCompareMarkdown, renderCompareText, renderRunText } from './format'
import type { CliIo, LineWriter } from './io'
import { attachPerfetto, DEFAULT_PERFETTO_EVENTS, type PerfettoWriter } from '../sim/metrics/perfetto'
import { attachTracer, DEFAULT_TRACE_LINES, type Tracer } from '../sim/metrics/trace'
import type { Kernel } from '../sim/kernel/sched'
import { runFileStem, traceFileName } from '../trace/line-writer'
import type { SetArg } from '../sim/scenario/set'
import { defaultSimulate, type SimulateFn } from './simulator'
import { cliLimits, submissionLimits, type HostLimits } from '../services/limits'
import { inProcessExecutor, poolExecutor, runAll, workerCount } from './executor'
import { plansFor } from '../services/replica-runner'
import { summarize } from '../stats/summary'
import { precisionText, runPrecision, type PrecisionReport } from './precision'
import { libraryListing } from './patch'
import { loadScenario, parseScenarioText, readScenarioText, setsApplied } from './scenario-input'
import { cells, planCells } from '../sweep/grid'
import { submissionRefusals } from '../sim/scenario/estimate'

function printWarnings(s: Scenario, io: CliIo): void {
  for (const w of s.warnings ?? []) io.err(`warning: ${w}\n`)
}

/** Parse, apply the run options and expand to runs (exit 2 on any invalid input). */
export function planRuns(a: RunArgs, io: CliIo): { scenario: Scenario; runs: RunSpec[] } {
  const s = loadScenario(a.file, io, { topology: a.topology, durationMs: a.durationMs, maxEvents: a.maxEvents, sets: a.sets, patches: a.patches })
  printWarnings(s, io)
  return expandFor(s, a)
}

/** The runs of a parsed scenario under the run options (--variant, --seed, --seeds, --published). */
export function expandFor(s: Scenario, a: RunArgs): { scenario: Scenario; runs: RunSpec[] } {
  let durationMs = a.durationMs
  if (a.published) {
    if (s.publishedDurationMs === undefined) throw new InputError(`--published: ${s.name} gives no publishedDurationMs`)
    durationMs = s.publishedDurationMs
  }
  const runs = expandRuns(s, { variants: a.variants, seed: a.seed, seeds: a.seeds, durationMs, limits: submissionLimits(cliLimits(a)) })
  return { scenario: runs[0]?.scenario ?? s, runs }
}

export interface ExecuteOptions {
  /** Write a trace of each run into this directory: ftrace text, or Perfetto protobuf. */
  traceDir?: string
  traceFormat?: 'ftrace' | 'perfetto'
  /** --jobs, --replicas and the limits (the worker pool's memory budget). */
  jobs?: number
  replicas?: number
  limits?: HostLimits
}

/** Below this much simulated time in all, runs stay in this process (a pool costs a worker start). */
const POOL_MIN_TOTAL_MS = 10_000

/**
 * Simulate the runs: on the worker pool when they are long (long steady runs as parallel
 * replicas when workers are idle), else one after the other here, with progress on stderr for
 * runs longer than a second. Traces are always written here.
 */
export async function executeRuns(runs: RunSpec[], io: CliIo, simulate?: SimulateFn, opts: ExecuteOptions = {}): Promise<VariantResult[]> {
  if (opts.traceDir === undefined) {
    const workers = opts.jobs ?? workerCount()
    const plans = plansFor(runs, simulate ? 1 : workers, opts.replicas)
    const totalMs = runs.reduce((a, r) => a + r.scenario.durationMs, 0)
    // patch modules run in workers, where the watchdog stops a hook that never returns
    const patched = runs.some((r) => (r.scenario.variants[r.variantIndex]?.userPatches?.length ?? 0) > 0)
    const pooled = !simulate && (patched || (workers > 1 && (plans.some((p) => p) || (runs.length > 1 && totalMs >= POOL_MIN_TOTAL_MS))))
    if (pooled || plans.some((p) => p)) {
      for (const [i, p] of plans.entries()) if (p) io.err(`${runs[i].variant}, seed ${runs[i].seed}: ${p.replicas} replicas of ${p.measureMs / 1000} s (+${p.warmupMs / 1000} s warm-up each)\n`)
      const ex = pooled ? poolExecutor(workers, opts.limits) : inProcessExecutor(simulate)
      try {
        return await runAll(ex, runs, io, 'runs', plans)
      } finally {
        await ex.close()
      }
    }
  }
  const sim = simulate ?? defaultSimulate
  const results: VariantResult[] = []
  runs.forEach((run, i) => {
    const started = io.now()
    let lastPrint = 0
    let printed = false
    const label = `[${i + 1}/${runs.length}] ${run.variant}, seed ${run.seed}`
    let trace: LineWriter | undefined
    let traced: Tracer | undefined
    let kernel: Kernel | undefined
    const perfetto = opts.traceDir !== undefined && opts.traceFormat === 'perfetto' ? perfettoTrace(run, io, opts.traceDir, label) : null
    if (opts.traceDir !== undefined && !perfetto) {
      io.mkdirp(opts.traceDir)
      const path = join(opts.traceDir, traceFileName(run.scenario.name, run.variant, `seed${run.seed}`))
      trace = io.openLines(path)
      io.err(`tracing ${label} to ${path}\n`)
    }
    const result = sim(run.scenario, run.variantIndex, run.seed, {
      configure: perfetto ? perfetto.configure : trace
        ? (k) => {
            kernel = k
            traced = attachTracer(k, { emit: (l) => trace?.line(l), workloads: run.scenario.workloads.map((w) => ({ name: w.name, type: w.type })) })
          }
        : undefined,
      onProgress(simNs, durationNs) {
        const now = io.now()
        if (now - started < 1000 || now - lastPrint < (io.errIsTty ? 200 : 2000)) return
        lastPrint = now
        printed = true
        const pct = Math.min(100, (simNs / durationNs) * 100)
        const line = `${label}: ${pct.toFixed(0)}% (${(simNs / 1e6).toFixed(0)} of ${(durationNs / 1e6).toFixed(0)} ms simulated, ${((now - started) / 1000).toFixed(1)} s)`
        io.err(io.errIsTty ? `\r${line}\u001b[K` : `${line}\n`)
      }
    })
    if (traced && kernel) traced.finish(kernel.now)
    trace?.close()
    perfetto?.close()
    if (traced && traced.lines() >= DEFAULT_TRACE_LINES) io.err(`${label}: the trace stopped after ${DEFAULT_TRACE_LINES} lines; shorten the run for a full one\n`)
    if (printed) io.err(io.errIsTty ? `\r${label}: done in ${((io.now() - started) / 1000).toFixed(1)} s\u001b[K\n` : `${label}: done\n`)
    results.push(result)
  })
  return results
}

/** A Perfetto trace of one run (--trace-format perfetto), streamed to DIR/<run>.perfetto-trace. */
function perfettoTrace(run: RunSpec, io: CliIo, dir: string, label: string): { configure(k: Kernel): void; close(): void } {
  io.mkdirp(dir)
  const path = join(dir, `${runFileStem(run.scenario.name, run.variant, `seed${run.seed}`)}.perfetto-trace`)
  const file = io.openBytes(path)
  io.err(`tracing ${label} to ${path}\n`)
  let writer: PerfettoWriter | null = null
  let kernel: Kernel | null = null
  return {
    configure(k) {
      kernel = k
      writer = attachPerfetto(k, { write: (c) => file.write(c), workloads: run.scenario.workloads })
    },
    close() {
      if (writer && kernel) {
        const n = writer.finish(kernel.now)
        if (n.truncated) io.err(`${label}: the Perfetto trace stopped after ${DEFAULT_PERFETTO_EVENTS} events; shorten the run for a full one\n`)
      }
      file.close()
    }
  }
}

function writeOut(dir: string, scenario: Scenario, output: RunOutput, io: CliIo): void {
  io.mkdirp(dir)
  io.writeFile(join(dir, 'result.json'), JSON.stringify(output, null, 2) + '\n')
  io.writeFile(join(dir, 'scenario.json'), JSON.stringify(scenario, null, 2) + '\n')
  io.err(`wrote ${join(dir, 'result.json')} and scenario.json\n`)
}

/** The result object of `run --json`: the runs, then their statistics (DESIGN.md). */
export function runOutput(scenario: string, variants: VariantResult[]): RunOutput & ReturnType<typeof summarize> {
  return { scenario, variants, ...summarize(variants) }
}

function poolOptions(a: RunArgs): ExecuteOptions {
  return { jobs: a.jobs, replicas: a.replicas, limits: cliLimits(a) }
}

export async function runCommand(a: RunArgs, io: CliIo, simulate?: SimulateFn): Promise<number> {
  const { scenario, runs } = planRuns(a, io)
  let extra: { precision?: PrecisionReport } = {}
  let variants: VariantResult[]
  // the output folder before any simulation: a folder that cannot be made fails in a moment, not after the runs
  if (a.out) io.mkdirp(a.out)
  if (a.precision) {
    if (a.trace) throw new InputError('--precision and --trace exclude each other (trace one seed with --seed N)')
    const p = await runPrecision(a, a.precision, scenario, runs, io, simulate)
    variants = p.results
    extra = { precision: p.report }
  } else {
    variants = await executeRuns(runs, io, simulate, a.trace ? { traceDir: a.out ?? '.', traceFormat: a.traceFormat } : poolOptions(a))
  }
  const output = { ...runOutput(scenario.name, variants), ...extra }
  if (a.out) writeOut(a.out, scenario, output, io)
  io.out(a.json ? JSON.stringify(output, null, 2) + '\n' : renderRunText(output, { perSeed: a.perSeed }) + precisionText(extra.precision))
  return 0
}

export async function compareCommand(a: CompareArgs, io: CliIo, simulate?: SimulateFn): Promise<number> {
  const { scenario, runs } = planRuns(a, io)
  const names = [...new Set(runs.map((r) => r.variant))]
  if (a.out) io.mkdirp(a.out)
  const results = await executeRuns(runs, io, simulate, a.trace ? { traceDir: a.out ?? '.', traceFormat: a.traceFormat } : poolOptions(a))
  if (a.out) writeOut(a.out, scenario, { scenario: scenario.name, variants: results }, io)
  let c
  try {
    c = compareResults(scenario.name, results, names, a.percentiles, { noise: a.noise })
  } catch (e) {
    throw new InputError((e as Error).message)
  }
  io.out(a.json ? JSON.stringify(c, null, 2) + '\n' : a.md ? renderCompareMarkdown(c) : renderCompareText(c))
  return 0
}

export function validateCommand(a: { file: string; sets: SetArg[]; topology?: string; json: boolean; maxEvents?: number; maxTotalEvents?: number; memoryShare?: number }, io: CliIo): number {
  let s: Scenario
  try {
    const { file, text: raw } = readScenarioText(a.file, io)
    const text = a.sets.length > 0 ? setsApplied(raw, a.sets) : raw
    const opts = { topology: a.topology, maxEvents: a.maxEvents }
    s = parseScenarioText(text, file, io, opts)
    // What `run` would meet: the whole submission against the limits.
    const limits = submissionLimits(cliLimits(a))
    expandRuns(s, { limits })
    // and what `sweep` would meet: every cell parsed and expanded, all of them as one submission
    if (s.sweep && s.sweep.length > 0) {
      const planned = planCells(s.sweep, text, cells(s.sweep), file, (t) => expandRuns(parseScenarioText(t, file, io, opts), { limits }),
        (e, where) => (e instanceof ScenarioError ? new ScenarioError(where, e.issues) : e))
      const refusals = submissionRefusals(planned.flatMap((x) => x.scenario), limits)
      if (refusals.length > 0) throw new ScenarioError(file, refusals.map((message) => ({ path: '(sweep)', message: `${message}; or run it in shards (--shard I/N, --slurm)` })))
    }
  } catch (e) {
    // With --json the verdict is JSON either way: { ok: false, file, issues } on stdout, exit 2.
    if (!a.json || !(e instanceof ScenarioError || e instanceof InputError)) throw e
    const issues = e instanceof ScenarioError ? e.issues : [{ path: '(root)', message: e.message }]
    io.out(JSON.stringify({ ok: false, file: e instanceof ScenarioError ? e.file : a.file, issues }, null, 2) + '\n')
    return 2
  }
  printWarnings(s, io)
  if (a.json) {
    io.out(JSON.stringify({ ok: true, scenario: s }, null, 2) + '\n')
    return 0
  }
  const est = estimateEvents(s)
  const ncpus = s.topology.clusters.reduce((n, c) => n + c.cpus, 0)
  io.out(
    `${s.file ?? a.file}: OK: "${s.name}" on ${s.topology.name} (${ncpus} CPUs), ${s.workloads.length} workload(s), ` +
      `${s.variants.length} variant(s) x ${s.seeds} seed(s) = ${s.variants.length * s.seeds} run(s) of ${s.durationMs} ms, ` +
      `about ${formatCount(est.total)} events per run\n`
  )
  return 0
}

export function listCommand(what: 'patches' | 'topologies' | 'presets', json: boolean, io: CliIo): number {
  if (what === 'patches') {
    const patches = listPatches()
    const features = SCHED_FEATURES.map((f) => ({ name: f.name, doc: f.doc }))
    const switches = knownFeatureNames()
      .filter((n) => !features.some((f) => f.name === n))
      .map((name) => ({ name, patches: patches.filter((p) => p.switches.includes(name)).map((p) => p.name) }))
    const modules = libraryListing()
    if (json) io.out(JSON.stringify({ patches, features, switches, modules }, null, 2) + '\n')
    else {
      io.out('Patches (variants[].patches):\n')
      for (const p of patches) io.out(`  ${p.name.padEnd(24)} ${p.doc}\n`)
      io.out('\nsched_feat flags (features):\n')
      for (const f of features) io.out(`  ${f.name.padEnd(24)} ${f.doc}\n`)
      io.out('\nPatch switches (features; each patch turns its own on):\n')
      for (const sw of switches) io.out(`  ${sw.name.padEnd(24)} set by ${sw.patches.join(', ')}\n`)
      io.out('\nPatch modules (variants[].patches by name, or any file by path; docs/patches.md):\n')
      for (const m of modules) io.out(`  ${m.name.padEnd(24)} ${m.example ? '(example) ' : ''}${m.file}\n`)
      io.out(`  (new ones: schedlab patch new NAME)\n`)
    }
    return 0
  }
  if (what === 'topologies') {
    const topos = topologyPresets()
    if (json) io.out(JSON.stringify(topos, null, 2) + '\n')
    else for (const t of topos) io.out(`  ${t.name.padEnd(16)} ${t.description}\n${' '.repeat(19)}source: ${t.source}\n`)
    return 0
  }
  const presets = listPresets()
  if (json) io.out(JSON.stringify(presets, null, 2) + '\n')
  else {
    const w = Math.max(0, ...presets.map((p) => p.id.length))
    for (const p of presets) {
      const dur = p.publishedDurationMs ? ` [${p.durationMs ?? '?'} ms; published ${p.publishedDurationMs / 1000} s: --published]` : ''
      io.out(`  ${p.id.padEnd(w)}  ${p.name}${dur}\n`)
    }
  }
  return 0
}
