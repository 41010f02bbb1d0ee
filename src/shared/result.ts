/**
 * Result types that cross process boundaries (worker -> main -> renderer/CLI).
 * The field names of RunOutput/VariantResult follow the `run --json` contract in DESIGN.md;
 * everything beyond the contract is additive.
 */

import type { TraceTimeline } from './explain'

/** A latency distribution summary. All values in microseconds. */
export interface LatencySummary {
  count: number
  min: number
  avg: number
  p50: number
  p90: number
  p99: number
  p99_9: number
  max: number
}

/**
 * A compact histogram for charts: the non-empty buckets only, each with its lower bound
 * (inclusive) and upper bound (exclusive) in microseconds. Sums of counts equal `count`.
 */
export interface HistogramData {
  lowUs: number[]
  highUs: number[]
  counts: number[]
}

export interface RunStats {
  events: number
  wallMs: number
  simulatedMs: number
  contextSwitches: number
  migrations: number
  wakeups: number
  /** Share of CPU time spent in modeled scheduler overhead (switches, IPIs, scans), percent over all CPUs. */
  sysPct: number
  /** A replica's discarded warm-up (simulated before simulatedMs, not measured) and its events. */
  warmupMs?: number
  warmupEvents?: number
}

export interface WorkloadResult {
  name: string
  type: string
  latencyUs: LatencySummary
  latencyHist?: HistogramData
  /** Latency counts per batch of simulated time: intervals within one run (docs/statistics.md). */
  latencyBatches?: LatencyBatches
  /** hackbench: seconds from release to the last worker done. */
  timeSec?: number
  /** hackbench: its rounds in consecutive batches, for an interval on timeSec. */
  timeBatches?: TimeBatches
  /** From a trace (analyze, real runs): latency from sched_waking to the switch-in. */
  wakeupLatencyUs?: LatencySummary
  /** schbench: request latency (usleep + work), microseconds. */
  requestLatencyUs?: LatencySummary
  /** Free-form per-workload figures (rps, loops done, ...). */
  extra?: Record<string, number>
  /** Per-thread figures of the workload's own log (rt-app: wu_lat, slack, period, run per loop). */
  threads?: ThreadMetrics[]
  /** Real runs: the tool's own measurement beside the trace's (cyclictest's histogram). */
  crossCheck?: CrossCheck
}

export interface CrossCheck {
  tool: string
  samples: number
  /** Samples above the tool's histogram range. */
  overflows: number
  maxUs: number
  /** The tool's percentiles (null: beyond its histogram). */
  latencyUs: Record<'p50' | 'p90' | 'p99' | 'p99_9', number | null>
  /** Trace value minus the tool's, per percentile. */
  traceMinusToolUs: Record<'p50' | 'p90' | 'p99' | 'p99_9', number | null>
  maxAbsDiffUs: number
}

/**
 * Latency sample counts of one run per batch of simulated time (src/sim/metrics/batches.ts), in
 * coarse buckets of 2^shift histogram buckets: counts[b][i] is batch b's count in coarse bucket
 * lo + i (trailing zeros dropped; an empty batch is []). Batches of several runs concatenate.
 */
export interface LatencyBatches {
  batchMs: number
  shift: number
  lo: number
  counts: number[][]
}

/** Rounds of a workload (hackbench) in consecutive batches: the sum of their times and their number. */
export interface TimeBatches {
  sumSec: number[]
  count: number[]
}

/** count, min, average and max of a per-iteration figure, microseconds (may be negative: slack). */
export interface StatSummary {
  count: number
  min: number
  avg: number
  max: number
}

export interface ThreadMetrics {
  name: string
  /** Loop iterations completed (rows of rt-app's per-thread log). */
  iterations: number
  metrics: Record<string, StatSummary>
}

export interface TaskResult {
  name: string
  workload: string
  cpuTimeMs: number
  latencyUs: LatencySummary
  migrations: number
  contextSwitches: number
  wakeups: number
  /** CPU the task was on when the run ended. */
  lastCpu: number
  /** From a trace: the task's comm and thread id (then `name` is "comm-tid"). */
  comm?: string
  tid?: number
  /** From a trace: latency from sched_waking to the switch-in. */
  wakeupLatencyUs?: LatencySummary
}

export interface CpuResult {
  id: number
  cluster: string
  busyPct: number
  /** Percent of time spent in modeled scheduler overhead on this CPU. */
  sysPct?: number
  /** Frequency residency, percent of time per OPP frequency in kHz (when modeled). */
  freqResidency?: Record<string, number>
  utilAvg?: number
}

export interface UnreasonableIdle {
  events: { '2.5-3ms': number; '3-4ms': number; '4ms+': number }
}

/** A patch module a variant ran with, exactly: enough to run it again. */
export interface PatchSourceRecord {
  /** The name the patch declares. */
  name: string
  /** The file (or patch library entry) it was read from. */
  file: string
  /** SHA-256 of the source text, hex. */
  sha256: string
  source: string
}

export interface VariantResult {
  name: string
  seed: number
  stats: RunStats
  /** The patch modules of this variant (none: absent). */
  patchSources?: PatchSourceRecord[]
  workloads: WorkloadResult[]
  tasks: TaskResult[]
  cpus: CpuResult[]
  unreasonableIdle: UnreasonableIdle
  /**
   * Replicas pooled in this result (parallel replicas of one long run): its batches are those
   * of all replicas, so intervals use them all. Absent means 1.
   */
  replicas?: number
  /** With replicas: each one's own summary (seed, measured time, per-workload latency and time). */
  replicaResults?: ReplicaSummary[]
  /** Additional counters (balance attempts, per-level migrations, ...). */
  counters?: Record<string, number>
  warnings?: string[]
  /**
   * The run was canceled before its duration: the figures cover `stats.simulatedMs` only
   * (the workbench keeps such results, marked partial).
   */
  partial?: boolean
  /** Where the figures come from: the simulator (absent), this machine's kernel, or a trace file. */
  source?: ResultSource
  /** Results read from a trace: what the reader saw (src/trace/analyzer.ts). */
  trace?: TraceSummary
  /** Real runs: the machine during this run (src/real). */
  host?: HostRecord
  /** VM runs: the guest of this run (src/vm). */
  vm?: VmRecord
  /** Real runs and imported traces in the workbench: the timeline around each workload's maximum. */
  timelines?: TraceTimeline[]
}

export interface ReplicaSummary {
  seed: number
  simulatedMs: number
  warmupMs: number
  workloads: { name: string; latencyUs: LatencySummary; timeSec?: number }[]
}

export type ResultSource = 'sim' | 'real' | 'trace' | 'vm'

export interface TraceSummary {
  /** Latency counted from requested hrtimer expiries (the trace has hrtimer sleep events). */
  timerLatency: boolean
  /** Switches the trace did not show, inferred from the context of the next event on the CPU. */
  inferredSwitches?: number
  spanMs: number
  events: number
  lines?: number
  otherEvents?: number
  malformed?: number
  malformedExamples?: { line: number; text: string; reason: string }[]
  /** Events the kernel dropped or overwrote (ring buffer overruns). */
  lostEvents?: number
}

/**
 * The machine a real run ran on (DESIGN.md "The real-kernel lab"): kernel release, CPUs, HZ,
 * preemption model, load average before and after, CPU time of processes that were not ours
 * during the run, and whether that was enough to distort latencies.
 */
export interface HostRecord {
  kernel: string
  cpus: number
  hz: number | null
  preempt: string | null
  loadavg: { before: number[]; after: number[] }
  foreignCpuSec: number
  contaminated: boolean
  [extra: string]: unknown
}

/**
 * A `schedlab vm` run's guest (DESIGN.md "The VM runner"): the kernel's version string, the
 * image (the cached Debian package or the user's path), the accelerator, the icount shift
 * (null under KVM), the vCPUs and the seeds; per variant also the guest's own settings.
 */
export interface VmRecord {
  kernel: string
  image: string
  accel: 'kvm' | 'tcg'
  icount: number | null
  cpus: number
  /** Top level: every seed used; per variant: [its seed]. */
  seeds: number[]
  [extra: string]: unknown
}

export interface RunOutput {
  scenario: string
  variants: VariantResult[]
  source?: ResultSource
  host?: HostRecord
  vm?: VmRecord
}

export const EMPTY_LATENCY: LatencySummary = Object.freeze({
  count: 0, min: 0, avg: 0, p50: 0, p90: 0, p99: 0, p99_9: 0, max: 0
})
