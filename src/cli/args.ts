import { parseArgs as nodeParseArgs } from 'node:util'
import { parseSetArg, type SetArg } from '../sim/scenario/set'
import { parsePrecisionTarget } from '../stats/precision'
import { UsageError } from './errors'

/** `schedlab calibrate` (calibrate.ts). */
export interface CalibrateArgs {
  topology: string
  source: 'real' | 'vm' | 'from' | 'published'
  /** --vm: the kernel (6.12, 7.2 or a bzImage) and the data folder of the VM cache. */
  kernel?: string
  dataDir?: string
  from?: string
  seeds?: number
  quietWaitSec?: number
  out?: string
  json: boolean
  /** Only print the residuals of the topology as it is (no fit). */
  check: boolean
  /** Fit only these parameters of the suite; the others keep the topology's values. */
  params?: string[]
}

export interface RunArgs {
  file: string
  /** --set PATH=VALUE edits applied to the scenario text before parsing. */
  sets: SetArg[]
  variants: string[]
  seed?: number
  seeds?: number
  durationMs?: number
  topology?: string
  /** This run's limits (src/services/limits.ts): per-run events, total events, memory share. */
  maxEvents?: number
  maxTotalEvents?: number
  memoryShare?: number
  /** Use the scenario's publishedDurationMs. */
  published: boolean
  json: boolean
  out?: string
  trace: boolean
  /** Print each seed's own table after the pooled one. */
  perSeed: boolean
  /** --precision WORKLOAD.METRIC:PCT: add seeds until the interval is that tight. */
  precision?: PrecisionTarget
  maxSeeds?: number
  /** --trace-format: ftrace text (default) or a Perfetto protobuf trace. */
  traceFormat: 'ftrace' | 'perfetto'
  /** --jobs N: runs at once on the worker pool (1: in this process, one after the other). */
  jobs?: number
  /** --replicas K: split each run into K parallel replicas (1: never); default automatic. */
  replicas?: number
  /** --patch FILE: patch modules added to every variant that names no patch. */
  patches: string[]
}

export interface ExplainArgs {
  file: string
  sets: SetArg[]
  variant?: string
  workload?: string
  seed?: number
  durationMs?: number
  topology?: string
  maxEvents?: number
  published: boolean
  /** max, p99_9, p99, p90, p50, p<percentile> or a sample index. */
  sample: string
  /** --idle BUCKET[:N]: explain the N-th unreasonable-idle event of that bucket instead. */
  idle?: { bucket: string; index: number }
  json: boolean
}

export interface PrecisionTarget {
  workload: string
  metric: 'p50' | 'p90' | 'p99' | 'p99_9' | 'timeSec'
  pct: number
  text: string
}

export interface RealArgs extends Pick<RunArgs, 'file' | 'sets' | 'variants' | 'seed' | 'seeds' | 'durationMs' | 'json' | 'out' | 'trace'> {
  /** Longest wait for a quiet machine before each run, seconds (0: do not wait). */
  quietWaitSec?: number
  bufferKb?: number
}

export interface VmArgs extends Pick<RunArgs, 'file' | 'sets' | 'variants' | 'seed' | 'seeds' | 'durationMs' | 'json' | 'out' | 'trace'> {
  /** 6.12, 7.2 or the path to a bzImage. */
  kernel?: string
  bufferKb?: number
  dataDir?: string
  /** Wall-clock budget of each run, seconds. */
  timeoutSec?: number
}

export interface CompareArgs extends RunArgs {
  md: boolean
  /** Extra percentile rows (e.g. 50, 90, 95). */
  percentiles: number[]
  /** Include background-noise workloads (left out of the tables by default). */
  noise: boolean
}

export interface SweepArgs extends RunArgs {
  shard?: string
  slurm: boolean
  dryRun: boolean
  partition?: string
  shards?: number
  cpusPerTask?: number
  time?: string
  k8s: boolean
  image?: string
  claim?: string
  /** Continue the sweep whose checkpoint is in --out (a killed `sweep --out DIR`). */
  resume: boolean
}

export type Command =
  | ({ cmd: 'run' } & RunArgs)
  | ({ cmd: 'sweep' } & SweepArgs)
  | { cmd: 'merge'; dirs: string[]; json: boolean; out?: string }
  | ({ cmd: 'compare' } & CompareArgs)
  | { cmd: 'validate'; file: string; sets: SetArg[]; topology?: string; json: boolean; maxEvents?: number; maxTotalEvents?: number; memoryShare?: number }
  | { cmd: 'patches' | 'topologies' | 'presets'; json: boolean; host?: boolean }
  | { cmd: 'patch'; action: 'new' | 'check'; target: string; json: boolean }
  | { cmd: 'serve'; args: string[] }
  | { cmd: 'analyze'; file: string; workloads: string[]; json: boolean; out?: string; maxTraceMb?: number }
  | ({ cmd: 'real' } & RealArgs)
  | ({ cmd: 'vm' } & VmArgs)
  | ({ cmd: 'explain' } & ExplainArgs)
  | ({ cmd: 'calibrate' } & CalibrateArgs)
  | { cmd: 'help'; topic?: string }
  | { cmd: 'version' }

export const USAGE = `usage: schedlab COMMAND [options]

  run SCENARIO [--variant NAME]... [--seed N] [--seeds N] [--duration-ms N]
               [--topology NAME] [--published] [--json] [--out DIR] [--trace]
               [--set PATH=VALUE]... [--per-seed] [--precision WORKLOAD.METRIC:PCT [--max-seeds N]]
               [--trace-format ftrace|perfetto] [--jobs N] [--replicas K]
               [--max-events N] [--max-total-events N] [--memory-share F] [--patch FILE]...
      Simulate every variant x seed; per variant, its seeds pooled: each percentile with the
      half-width of its 95 % interval (docs/statistics.md); --per-seed adds each seed's table.
      The JSON carries "summary" and "comparisons" (every variant against the first).
      --precision cyclictest.p99:5 adds seeds (in parallel) until every variant's interval of
      that figure is within 5 % of it, up to --max-seeds (default 100); METRIC: p50, p90, p99,
      p99.9 or time (hackbench). WORKLOAD is a workload name, type, or ct/hb/sb.
      --set changes one scenario field first, e.g. --set workloads[0].groups=4.
      --patch FILE adds a patch module (docs/patches.md) to every variant that names no patch.
      --out DIR writes result.json and the normalized scenario; --trace writes each run's
      sched_switch/sched_waking trace as ftrace text (opens in Perfetto) there (or in .);
      --trace-format perfetto writes a Perfetto protobuf trace (*.perfetto-trace) instead, with
      the scheduler's decisions as annotations (open it at ui.perfetto.dev).
      Long runs go to the worker pool (--jobs N at once; default one per CPU, 1 = in this
      process); a long steady run takes idle workers as parallel replicas of duration/K, each
      with its own seed and a discarded warm-up, merged into one result ("replicas": K;
      --replicas K forces K, 1 never; docs/model.md).
      Limits (a scenario's "maxEvents" can lower the first, nothing in it can raise any):
      --max-events per run (default 200 million estimated events), --max-total-events per
      command over all its runs (default 4 billion), --memory-share of this machine's memory
      for the runs at one time (default 0.5; docs/security.md).
  explain SCENARIO --variant NAME --workload NAME [--seed N] [--sample max|p99_9|p99|INDEX]
               [--idle BUCKET[:N]] [--duration-ms N] [--set PATH=VALUE]... [--json]
      Re-run one variant with the decision recorder and explain one latency sample (default
      the maximum): a timeline of the CPUs involved and the scheduler's decisions between the
      moment the task became runnable and the moment it ran (reason codes: docs/explain.md).
      --idle 4ms+:0 explains an unreasonable-idle event instead (no --workload needed).
  compare SCENARIO [same options] [--percentile P]... [--noise] [--md] [--json]
      Variants side by side in the seed threads' table form: 99th / 99.9th percentile and
      maximum, "1018 (+55 %)" = 55 % lower than the first column; hackbench mean +/- stddev.
      Background-noise workloads are left out; --noise shows their CPU time, for reference.
  sweep SCENARIO [run options] [--json] [--out DIR [--resume]] [--shard I/N]
      Run the scenario's "sweep" grid (paths as in --set, the product of their values) on the
      worker pool; --shard I/N runs cells I, I+N, ... (I from 0). Prints a table per workload,
      or with --json { "sweep": { "axes", "cells": [ { "values", "result" } ] } }.
      With --out, each finished run is kept in DIR/checkpoint.jsonl as it ends: the same
      command with --resume (after a kill, a power cut) runs only what had not finished.
  sweep SCENARIO --slurm [--dry-run] [--partition P] [--shards N] [--cpus-per-task N] [--time T] [--out DIR]
      Write an sbatch job-array script (one array task per shard) to DIR (shared storage) and
      submit it; prints the job id and the merge command. --dry-run prints the script only.
  sweep SCENARIO --k8s --image IMAGE --claim PVC [--shards N] [--out DIR]
      Print a Kubernetes Indexed Job manifest doing the same (docs/cluster.md).
  merge DIR... [--json] [--out FILE]
      Join shard outputs (folders of sweep --out, or their sweep.json) into the whole sweep.
  validate SCENARIO [--topology NAME] [--set PATH=VALUE]... [--json]
      Check a scenario (or a plain rt-app file); errors name file, JSON path, line and column.
  topologies --host [--json]
      What this machine is as the "host" topology and kernel profile (Linux).
  patches | topologies | presets [--json]
      List patch series and sched_feat flags (then the patch library's modules), topology
      presets, bundled scenario presets.
  patch new NAME|PATH
      Write a patch module template (NAME.ts in the patch library, or PATH.ts) and print its path.
  patch check FILE [--json]
      Compile and load a patch module: its name, hooks, flags and parameters, or its problem
      as FILE:LINE:COL (exit 2).
  serve [--port N] [--data-dir DIR]
      Host the workbench UI on 127.0.0.1.
  real SCENARIO [--variant NAME]... [--seeds N] [--duration-ms N] [--json] [--out DIR] [--trace]
               [--set PATH=VALUE]... [--quiet-wait S] [--buffer-kb N]
      Run the scenario's workloads on this machine's kernel (Linux, root, tracefs) and
      measure them from a trace; --seeds N repeats each variant N times. Waits up to
      --quiet-wait seconds (default 60, 0 = not) for a quiet machine before each run.
  vm SCENARIO [--kernel 6.12|7.2|PATH] [--variant NAME]... [--seeds N] [--json] [--out DIR]
              [--seed N] [--duration-ms N] [--set PATH=VALUE]... [--trace] [--buffer-kb N]
              [--data-dir DIR] [--timeout S]
      Run the scenario's workloads on a mainline kernel in QEMU, with the scenario's CPU
      count and topology and each variant's sched_feat flags, slices, nice values, policies,
      affinities and preemption model; measured from the guest's trace. --kernel 6.12 or 7.2
      is Debian's cloud kernel (fetched on first use into DIR/vm, default the app's data
      folder), or give your own bzImage (docs/vm.md). KVM where /dev/kvm works, else TCG
      with icount: the same seed gives the same result. --timeout bounds each run's wall time.
  calibrate --topology NAME|FILE (--real [--seeds N] [--quiet-wait S] | --vm [--kernel 6.12|7.2|PATH] [--seeds N]
            | --from RESULT.json|CACHE-DIR | --published)
            [--params NAME,...] [--out FILE] [--json] [--check]
      Fit the topology's costs (context switch, timer interrupt, hackbench write/read, cache
      refill) and background noise so that simulated runs match measured ones: --real
      measures this machine (cyclictest alone, hackbench alone; Linux, root), --from reads
      such a measurement (calibrate --real saves it as FILE.real.json) or the clean ct-alone
      runs of a fidelity:real cache directory, --published uses the seed threads' RB5 tables,
      --vm measures the same two workloads and cyclictest against a nice-19 hog (which also
      fits the idle loop's exit, idleExitUs) in guests of schedlab vm on the topology (6.12 by
      default; saved as FILE.vm.json, which --from reads again).
      --params fits only those parameters (the others keep the topology's values). Writes the
      calibrated topology file (--out) and prints each figure measured and simulated with its
      residual; --check only prints the residuals.
  analyze TRACE [--workload NAME=REGEX]... [--json] [--out DIR] [--max-trace-mb N]
      Latency, CPU time, migrations and switches from ftrace text (tracefs \`trace\`,
      \`trace-cmd report\`, \`perf script\`, or run --trace output; .gz or - for stdin).
      Tasks group into workloads by comm unless --workload says otherwise. At most
      --max-trace-mb of text is read (default 1024, after gunzip), lines of 64 KB, 8192 CPUs
      and 200,000 tasks (a line beyond these limits is a malformed line).

SCENARIO is a file, or the id of a preset (\`schedlab presets\`).
Exit codes: 0 success, 2 invalid input, 1 internal error.`

/** Options of the commands that measure a kernel (real, vm). */
const MEASURED_OPTIONS = { set: { type: 'string', multiple: true }, variant: { type: 'string', multiple: true }, seed: { type: 'string' }, seeds: { type: 'string' }, 'duration-ms': { type: 'string' }, json: { type: 'boolean' }, out: { type: 'string' }, trace: { type: 'boolean' }, 'buffer-kb': { type: 'string' } } as const

function measuredArgs(file: string, v: { set?: string[]; variant?: string[]; seed?: string; seeds?: string; 'duration-ms'?: string; json?: boolean; out?: string; trace?: boolean }): Pick<RunArgs, 'file' | 'sets' | 'variants' | 'seed' | 'seeds' | 'durationMs' | 'json' | 'out' | 'trace'> {
  return {
    file,
    sets: setArgs(v.set),
    variants: v.variant ?? [],
    seed: intOpt('seed', v.seed, 0, 2 ** 32 - 1),
    seeds: intOpt('seeds', v.seeds, 1, 1000),
    durationMs: intOpt('duration-ms', v['duration-ms'], 100, 3_600_000),
    json: v.json === true,
    out: v.out,
    trace: v.trace === true
  }
}

const RUN_OPTIONS = {
  set: { type: 'string', multiple: true },
  variant: { type: 'string', multiple: true },
  seed: { type: 'string' },
  seeds: { type: 'string' },
  'duration-ms': { type: 'string' },
  topology: { type: 'string' },
  'max-events': { type: 'string' },
  'max-total-events': { type: 'string' },
  'memory-share': { type: 'string' },
  published: { type: 'boolean' },
  json: { type: 'boolean' },
  out: { type: 'string' },
  trace: { type: 'boolean' },
  'per-seed': { type: 'boolean' },
  precision: { type: 'string' },
  'max-seeds': { type: 'string' },
  'trace-format': { type: 'string' },
  jobs: { type: 'string' },
  replicas: { type: 'string' },
  patch: { type: 'string', multiple: true }
} as const

const EXPLAIN_OPTIONS = {
  set: { type: 'string', multiple: true },
  variant: { type: 'string' },
  workload: { type: 'string' },
  seed: { type: 'string' },
  'duration-ms': { type: 'string' },
  topology: { type: 'string' },
  'max-events': { type: 'string' },
  published: { type: 'boolean' },
  sample: { type: 'string' },
  idle: { type: 'string' },
  json: { type: 'boolean' }
} as const

const SWEEP_OPTIONS = {
  ...RUN_OPTIONS,
  shard: { type: 'string' },
  slurm: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  partition: { type: 'string' },
  shards: { type: 'string' },
  'cpus-per-task': { type: 'string' },
  time: { type: 'string' },
  k8s: { type: 'boolean' },
  image: { type: 'string' },
  claim: { type: 'string' },
  resume: { type: 'boolean' }
} as const

const COMPARE_OPTIONS = { ...RUN_OPTIONS, md: { type: 'boolean' }, percentile: { type: 'string', multiple: true }, noise: { type: 'boolean' } } as const

function intOpt(name: string, v: string | undefined, min: number, max: number): number | undefined {
  if (v === undefined) return undefined
  if (!/^-?\d+$/.test(v.trim())) throw new UsageError(`--${name}: expected an integer, got "${v}"`)
  const n = Number(v)
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name}: must be in ${min}..${max}, got ${v}`)
  return n
}

/** The three limit flags, shared by run, compare, sweep, validate (and serve's own parser). */
export function limitArgs(v: Record<string, unknown>): { maxEvents?: number; maxTotalEvents?: number; memoryShare?: number } {
  const share = v['memory-share'] as string | undefined
  let memoryShare: number | undefined
  if (share !== undefined) {
    memoryShare = Number(share)
    if (!/^\d*\.?\d+$/.test(share.trim()) || !(memoryShare >= 0.01 && memoryShare <= 0.95)) throw new UsageError(`--memory-share: must be a number in 0.01..0.95 (of this machine's memory), got "${share}"`)
  }
  return {
    maxEvents: intOpt('max-events', v['max-events'] as string | undefined, 1000, 1e13),
    maxTotalEvents: intOpt('max-total-events', v['max-total-events'] as string | undefined, 1000, 1e15),
    memoryShare
  }
}

function parse<T extends Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>(argv: string[], options: T, positionals: number, cmd: string) {
  const r = nodeParse(argv, options, cmd)
  if (r.positionals.length !== positionals) {
    throw new UsageError(positionals === 1 ? `${cmd}: expected one ${cmd === 'analyze' ? 'TRACE' : 'SCENARIO'} argument, got ${r.positionals.length}` : `${cmd}: unexpected argument "${r.positionals[0]}"`)
  }
  return r
}

function nodeParse<T extends Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>(argv: string[], options: T, cmd: string) {
  try {
    return nodeParseArgs({ args: argv, options, allowPositionals: true, strict: true })
  } catch (e) {
    throw new UsageError(`${cmd}: ${(e as Error).message.replace(/\. To specify.*$/s, '')}`)
  }
}

function setArgs(v: string[] | undefined): SetArg[] {
  return (v ?? []).map((a) => {
    const r = parseSetArg(a)
    if (typeof r === 'string') throw new UsageError(`--set: ${r}`)
    return r
  })
}

function runArgs(argv: string[], cmd: string, options: typeof RUN_OPTIONS | typeof COMPARE_OPTIONS | typeof SWEEP_OPTIONS): RunArgs & { values: Record<string, unknown> } {
  const r = parse(argv, options, 1, cmd)
  const v = r.values as Record<string, string | string[] | boolean | undefined>
  return {
    values: v,
    file: r.positionals[0],
    sets: setArgs(v.set as string[] | undefined),
    variants: (v.variant as string[] | undefined) ?? [],
    seed: intOpt('seed', v.seed as string | undefined, 0, 2 ** 32 - 1),
    seeds: intOpt('seeds', v.seeds as string | undefined, 1, 1000),
    durationMs: intOpt('duration-ms', v['duration-ms'] as string | undefined, 1, 86_400_000),
    topology: v.topology as string | undefined,
    ...limitArgs(v),
    published: v.published === true,
    json: v.json === true,
    out: v.out as string | undefined,
    trace: v.trace === true || v['trace-format'] !== undefined,
    traceFormat: traceFormat(v['trace-format'] as string | undefined),
    perSeed: v['per-seed'] === true,
    precision: precisionOpt(v.precision as string | undefined),
    maxSeeds: intOpt('max-seeds', v['max-seeds'] as string | undefined, 1, 1000),
    jobs: intOpt('jobs', v.jobs as string | undefined, 1, 256),
    replicas: intOpt('replicas', v.replicas as string | undefined, 1, 256),
    patches: (v.patch as string[] | undefined) ?? []
  }
}

/** `WORKLOAD.METRIC:PCT`, e.g. `ct.p99:5`, `hackbench.time:2`. */
export function precisionOpt(v: string | undefined): PrecisionTarget | undefined {
  if (v === undefined) return undefined
  const t = parsePrecisionTarget(v)
  if (typeof t === 'string') throw new UsageError(`--precision: ${t}`)
  return t
}

function traceFormat(v: string | undefined): 'ftrace' | 'perfetto' {
  if (v === undefined || v === 'ftrace') return 'ftrace'
  if (v === 'perfetto') return 'perfetto'
  throw new UsageError(`--trace-format: expected ftrace or perfetto, got "${v}"`)
}

function explainArgs(argv: string[]): ExplainArgs {
  const r = parse(argv, EXPLAIN_OPTIONS, 1, 'explain')
  const v = r.values
  const a: ExplainArgs = {
    file: r.positionals[0],
    sets: setArgs(v.set),
    variant: v.variant,
    workload: v.workload,
    seed: intOpt('seed', v.seed, 0, 2 ** 32 - 1),
    durationMs: intOpt('duration-ms', v['duration-ms'], 1, 86_400_000),
    topology: v.topology,
    maxEvents: intOpt('max-events', v['max-events'], 1000, 1e12),
    published: v.published === true,
    sample: v.sample ?? 'max',
    json: v.json === true
  }
  if (!/^(max|p50|p90|p99|p99_9|p\d{1,2}(\.\d+)?|\d+)$/.test(a.sample)) throw new UsageError(`--sample: expected max, p99_9, p99, p90, p50, p<percentile> or a sample index, got "${a.sample}"`)
  if (v.idle !== undefined) {
    const m = /^(2\.5-3ms|3-4ms|4ms\+)(?::(\d+))?$/.exec(v.idle)
    if (!m) throw new UsageError(`--idle: expected BUCKET[:N] with BUCKET 2.5-3ms, 3-4ms or 4ms+, got "${v.idle}"`)
    if (v.sample !== undefined) throw new UsageError('explain: --idle and --sample exclude each other')
    a.idle = { bucket: m[1], index: m[2] === undefined ? 0 : Number(m[2]) }
  }
  if (a.published && a.durationMs !== undefined) throw new UsageError('explain: --published and --duration-ms exclude each other')
  return a
}

/** The section(s) of USAGE about `cmd`, with the lines every command shares; null if it has none. */
export function usageOf(cmd: string): string | null {
  const lines = USAGE.split('\n')
  const out: string[] = []
  let inSection = false
  for (const l of lines) {
    // A section starts at a line indented by two: "  run SCENARIO ...", "  patches | topologies | presets ...".
    if (/^ {2}\S/.test(l)) {
      const prefix = l.trim().split(/ (?=[A-Z[])/)[0]
      inSection = prefix.split(/\s*\|\s*|\s+/).includes(cmd)
    } else if (!/^ {4,}/.test(l)) inSection = false
    if (inSection) out.push(l)
  }
  if (out.length === 0) return null
  return `usage: schedlab ${cmd} [options]\n\n${out.join('\n')}\n\nSCENARIO is a file, or the id of a preset (\`schedlab presets\`).\nExit codes: 0 success, 2 invalid input, 1 internal error.`
}

export function parseArgs(argv: readonly string[]): Command {
  const [cmd, ...rest] = argv
  // `schedlab CMD --help` (or -h) anywhere among its arguments: that command's usage.
  // (serve has its own, with its defaults.)
  if (cmd && cmd !== 'serve' && rest.some((x) => x === '--help' || x === '-h') && usageOf(cmd)) return { cmd: 'help', topic: cmd }
  switch (cmd) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      return { cmd: 'help' }
    case '--version':
    case 'version':
      return { cmd: 'version' }
    case 'run': {
      const { values: _v, ...a } = runArgs(rest, 'run', RUN_OPTIONS)
      if (a.published && a.durationMs !== undefined) throw new UsageError('run: --published and --duration-ms exclude each other')
      return { cmd: 'run', ...a }
    }
    case 'compare': {
      const { values, ...a } = runArgs(rest, 'compare', COMPARE_OPTIONS)
      if (a.published && a.durationMs !== undefined) throw new UsageError('compare: --published and --duration-ms exclude each other')
      const percentiles = ((values.percentile as string[] | undefined) ?? []).map((p) => {
        const n = Number(p)
        if (!/^\d+(\.\d+)?$/.test(p) || !(n > 0 && n < 100)) throw new UsageError(`--percentile: expected a number between 0 and 100 (exclusive), got "${p}"`)
        return n
      })
      if (values.md === true && a.json) throw new UsageError('compare: --md and --json exclude each other')
      return { cmd: 'compare', ...a, md: values.md === true, percentiles, noise: values.noise === true }
    }
    case 'sweep': {
      const { values: v, ...a } = runArgs(rest, 'sweep', SWEEP_OPTIONS)
      if (a.precision) throw new UsageError('sweep: --precision is for run (a sweep cell runs its seeds)')
      if (a.trace) throw new UsageError('sweep: --trace is for run')
      const str = (k: string): string | undefined => v[k] as string | undefined
      const sw: SweepArgs = {
        ...a,
        shard: str('shard'),
        slurm: v.slurm === true,
        dryRun: v['dry-run'] === true,
        partition: str('partition'),
        shards: intOpt('shards', str('shards'), 1, 10000),
        cpusPerTask: intOpt('cpus-per-task', str('cpus-per-task'), 1, 1024),
        time: str('time'),
        k8s: v.k8s === true,
        image: str('image'),
        claim: str('claim'),
        resume: v.resume === true
      }
      if (sw.resume && (sw.slurm || sw.k8s)) throw new UsageError('sweep: --resume is for a sweep run here (--out DIR); a cluster\'s shards are run again one by one')
      if (sw.resume && !sw.out) throw new UsageError('sweep: --resume needs --out DIR, the folder of the interrupted sweep')
      if (sw.slurm && sw.k8s) throw new UsageError('sweep: --slurm and --k8s exclude each other')
      if ((sw.slurm || sw.k8s) && sw.shard) throw new UsageError('sweep: --shard is what each cluster task runs; leave it out with --slurm or --k8s')
      if (sw.dryRun && !sw.slurm) throw new UsageError('sweep: --dry-run goes with --slurm')
      if (sw.k8s && (!sw.image || !sw.claim)) throw new UsageError('sweep: --k8s needs --image IMAGE and --claim PVC')
      if (sw.partition !== undefined && !/^[\w.,-]+$/.test(sw.partition)) throw new UsageError(`--partition: not a partition name: "${sw.partition}"`)
      if (sw.time !== undefined && !/^[\d:-]+$/.test(sw.time)) throw new UsageError(`--time: expected a Slurm time limit (MM, HH:MM:SS, D-HH), got "${sw.time}"`)
      return { cmd: 'sweep', ...sw }
    }
    case 'merge': {
      const r = nodeParse(rest, { json: { type: 'boolean' }, out: { type: 'string' } }, 'merge')
      if (r.positionals.length === 0) throw new UsageError('merge: expected one or more shard folders (schedlab merge DIR/shard-*)')
      return { cmd: 'merge', dirs: r.positionals, json: r.values.json === true, out: r.values.out as string | undefined }
    }
    case 'validate': {
      const r = parse([...rest], {
        set: { type: 'string', multiple: true }, topology: { type: 'string' }, json: { type: 'boolean' },
        'max-events': { type: 'string' }, 'max-total-events': { type: 'string' }, 'memory-share': { type: 'string' }
      }, 1, 'validate')
      return { cmd: 'validate', file: r.positionals[0], sets: setArgs(r.values.set), topology: r.values.topology, json: r.values.json === true, ...limitArgs(r.values) }
    }
    case 'topologies': {
      const r = parse([...rest], { json: { type: 'boolean' }, host: { type: 'boolean' } }, 0, cmd)
      return { cmd, json: r.values.json === true, host: r.values.host === true }
    }
    case 'patches':
    case 'presets': {
      const r = parse([...rest], { json: { type: 'boolean' } }, 0, cmd)
      return { cmd, json: r.values.json === true }
    }
    case 'serve':
      return { cmd: 'serve', args: [...rest] }
    case 'patch': {
      const r = nodeParse(rest, { json: { type: 'boolean' } }, 'patch')
      const [action, target, extra] = r.positionals
      if (action !== 'new' && action !== 'check') throw new UsageError(`patch: expected "new NAME" or "check FILE"${action ? `, got "${action}"` : ''}`)
      if (!target || extra !== undefined) throw new UsageError(`patch ${action}: expected one ${action === 'new' ? 'NAME or PATH' : 'FILE'} argument`)
      return { cmd: 'patch', action, target, json: r.values.json === true }
    }
    case 'real': {
      const r = parse([...rest], { ...MEASURED_OPTIONS, 'quiet-wait': { type: 'string' } }, 1, 'real')
      const v = r.values
      return { cmd: 'real', ...measuredArgs(r.positionals[0], v), quietWaitSec: intOpt('quiet-wait', v['quiet-wait'], 0, 3600), bufferKb: intOpt('buffer-kb', v['buffer-kb'], 64, 4_194_304) }
    }
    case 'vm': {
      const r = parse([...rest], { ...MEASURED_OPTIONS, kernel: { type: 'string' }, 'data-dir': { type: 'string' }, timeout: { type: 'string' } }, 1, 'vm')
      const v = r.values
      return { cmd: 'vm', ...measuredArgs(r.positionals[0], v), kernel: v.kernel, bufferKb: intOpt('buffer-kb', v['buffer-kb'], 64, 1_048_576), dataDir: v['data-dir'], timeoutSec: intOpt('timeout', v.timeout, 5, 86_400) }
    }
    case 'explain':
      return { cmd: 'explain', ...explainArgs([...rest]) }
    case 'calibrate': {
      const r = parse([...rest], { topology: { type: 'string' }, real: { type: 'boolean' }, vm: { type: 'boolean' }, kernel: { type: 'string' }, 'data-dir': { type: 'string' }, from: { type: 'string' }, published: { type: 'boolean' }, seeds: { type: 'string' }, 'quiet-wait': { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean' }, check: { type: 'boolean' }, params: { type: 'string' } }, 0, 'calibrate')
      const v = r.values
      if (!v.topology) throw new UsageError('calibrate: --topology NAME|FILE is required')
      const sources = [v.real === true, v.vm === true, v.from !== undefined, v.published === true].filter(Boolean).length
      if (sources !== 1) throw new UsageError('calibrate: give exactly one of --real, --vm, --from RESULT.json, --published')
      return {
        cmd: 'calibrate',
        topology: v.topology,
        source: v.real ? 'real' : v.vm ? 'vm' : v.from !== undefined ? 'from' : 'published',
        kernel: v.kernel,
        dataDir: v['data-dir'],
        from: v.from,
        seeds: intOpt('seeds', v.seeds, 1, 100),
        quietWaitSec: intOpt('quiet-wait', v['quiet-wait'], 0, 3600),
        out: v.out,
        json: v.json === true,
        check: v.check === true,
        ...(v.params !== undefined ? { params: v.params.split(',').map((x) => x.trim()).filter(Boolean) } : {})
      }
    }
    case 'analyze': {
      const r = parse([...rest], { workload: { type: 'string', multiple: true }, json: { type: 'boolean' }, out: { type: 'string' }, 'max-trace-mb': { type: 'string' } }, 1, 'analyze')
      return { cmd: 'analyze', file: r.positionals[0], workloads: r.values.workload ?? [], json: r.values.json === true, out: r.values.out, maxTraceMb: intOpt('max-trace-mb', r.values['max-trace-mb'], 1, 1024 * 1024) }
    }
    default:
      throw new UsageError(`unknown command "${cmd}"`)
  }
}
