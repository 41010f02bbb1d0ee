/**
 * Parallel replicas of one long run: a run of duration D becomes K independent runs of D/K,
 * each with its own seed and a discarded warm-up, spread over the worker pool, and their
 * results are merged back into one variant result carrying `replicas: K`.
 *
 * Why it is the same sample. The percentiles of a steady-state run estimate the stationary
 * distribution of the latency; a run of D is (after its start-up transient) a sequence of
 * samples of that distribution, correlated only over short spans (a hackbench round, a few
 * periods of a timer: milliseconds). Cutting it into K pieces of D/K and starting each from a
 * fresh state with its own seed gives K sequences of the same distribution, each preceded by a
 * warm-up that is discarded so the start-up transient (empty runqueues, PELT at zero, the
 * first hackbench round) is not counted K times. Pooled, they hold as many samples as the one
 * run, of the same distribution, and are *less* correlated with each other than consecutive
 * pieces of one run, so intervals computed on the pooled batches (20 per replica, replicated
 * batch means: concatLatencyBatches below, docs/statistics.md) are at least as honest. What a
 * replica cannot show is what only happens once per D (a drift over the whole run, a rare event
 * with a period longer than D/K): runs are split only above REPLICA_MIN_MS and each piece keeps
 * at least REPLICA_MIN_PIECE_MS. Runs that end by themselves (hackbench without repeat,
 * cyclictest -l, rt-app loops) are never split: their sample is the run.
 * The known case is tested in replicas.test.ts: K replicas of D/K against one run of D.
 */
import type { Scenario } from './scenario/types'
import type {
  LatencyBatches, LatencySummary, StatSummary, TaskResult, ThreadMetrics, TimeBatches, VariantResult, WorkloadResult
} from '../shared/result'
import { LogHistogram } from './metrics/histogram'

/** Runs shorter than this are not split. */
export const REPLICA_MIN_MS = 20_000
/** No piece shorter than this. */
export const REPLICA_MIN_PIECE_MS = 5_000

export interface ReplicaPlan {
  replicas: number
  /** Simulated before each piece and discarded. */
  warmupMs: number
  /** Measured per replica: the run's duration / replicas. */
  measureMs: number
}

/** A run whose workloads never finish by themselves (a steady state to sample). */
export function steadyState(s: Scenario): boolean {
  return s.workloads.every((w) => {
    const x = w as unknown as Record<string, unknown>
    if (w.type === 'hackbench') return x.repeat === true
    if (w.type === 'cyclictest') return !x.loops
    if (w.type === 'rt-app') {
      const tasks = ((x.rtapp as { tasks?: { loop: number }[] } | undefined)?.tasks ?? [])
      return tasks.every((t) => t.loop === -1)
    }
    return true
  })
}

/** Warm-up of a replica: 2 % of the run, within 0.5-2 s. */
export function replicaWarmupMs(durationMs: number): number {
  return Math.min(2000, Math.max(500, Math.round(durationMs * 0.02)))
}

/**
 * How to split `runs` runs of s over `workers` workers. `force`: that many replicas (0 or 1:
 * none); otherwise automatic, for long steady runs: the fewest replicas per run that leave no
 * worker idle, runs x K a multiple of the workers (workers / gcd(runs, workers): 1 run on 2
 * workers, 2 each; 3 runs on 2 workers, 2 each instead of one worker idle for the third run's
 * whole length), within the shortest piece.
 */
export function planReplicas(s: Scenario, runs: number, workers: number, force?: number): ReplicaPlan | null {
  const d = s.durationMs
  let k: number
  if (force !== undefined) {
    k = Math.floor(force)
  } else {
    if (d < REPLICA_MIN_MS || !steadyState(s)) return null
    const r = Math.max(1, runs)
    k = workers / gcd(r, workers)
    const most = Math.floor(d / REPLICA_MIN_PIECE_MS)
    if (k > most) k = Math.floor(workers / r) <= most ? Math.floor(workers / r) : most
  }
  if (!(k >= 2)) return null
  return { replicas: k, warmupMs: replicaWarmupMs(d), measureMs: d / k }
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b]
  return a
}

/** Replica j's seed: the run's own for j = 0, a mix for the others (never another run's seed + 1). */
export function replicaSeed(seed: number, j: number): number {
  if (j === 0) return seed
  let z = (seed ^ Math.imul(j, 0x9e3779b9)) >>> 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
  return (z ^ (z >>> 16)) >>> 0
}

/** The scenario one replica runs (its measured duration; the warm-up is a run hook). */
export function replicaScenario(s: Scenario, plan: ReplicaPlan): Scenario {
  return { ...s, durationMs: plan.measureMs }
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000

function mergeSummary(list: LatencySummary[]): LatencySummary {
  // percentiles of per-task summaries cannot be pooled exactly: the count-weighted mean of each
  const n = list.reduce((a, s) => a + s.count, 0)
  if (n === 0) return { ...list[0] }
  const w = (key: keyof LatencySummary): number => r3(list.reduce((a, s) => a + s[key] * s.count, 0) / n)
  return {
    count: n,
    min: Math.min(...list.filter((s) => s.count > 0).map((s) => s.min)),
    avg: w('avg'), p50: w('p50'), p90: w('p90'), p99: w('p99'), p99_9: w('p99_9'),
    max: Math.max(...list.map((s) => s.max))
  }
}

function mergeStat(list: StatSummary[]): StatSummary {
  const n = list.reduce((a, s) => a + s.count, 0)
  if (n === 0) return { count: 0, min: 0, avg: 0, max: 0 }
  const some = list.filter((s) => s.count > 0)
  return {
    count: n,
    min: Math.min(...some.map((s) => s.min)),
    avg: r3(some.reduce((a, s) => a + s.avg * s.count, 0) / n),
    max: Math.max(...some.map((s) => s.max))
  }
}

function sumRecords(list: (Record<string, number> | undefined)[]): Record<string, number> | undefined {
  if (list.every((x) => x === undefined)) return undefined
  const out: Record<string, number> = {}
  for (const r of list) for (const [k, v] of Object.entries(r ?? {})) out[k] = (out[k] ?? 0) + v
  return out
}

function mergeWorkload(list: WorkloadResult[]): WorkloadResult {
  const first = list[0]
  const h = new LogHistogram()
  for (const w of list) h.merge(LogHistogram.fromUs(w.latencyHist, w.latencyUs))
  const out: WorkloadResult = { ...first, latencyUs: h.summaryUs(), latencyHist: h.dataUs() }
  const batches = concatLatencyBatches(list.map((w) => w.latencyBatches))
  if (batches) out.latencyBatches = batches
  else delete out.latencyBatches
  // hackbench: the mean round over every replica's rounds
  const rounds = list.map((w) => (w.timeSec !== undefined ? (w.extra?.rounds ?? 1) : 0))
  const nRounds = rounds.reduce((a, x) => a + x, 0)
  if (nRounds > 0) out.timeSec = r3(list.reduce((a, w, i) => a + (w.timeSec ?? 0) * rounds[i], 0) / nRounds * 1000) / 1000
  else delete out.timeSec
  const tb = concatTimeBatches(list.map((w) => w.timeBatches))
  if (tb) out.timeBatches = tb
  const extra = sumRecords(list.map((w) => w.extra))
  if (extra) {
    // a rate and a capacity are not sums
    if (first.extra?.rps !== undefined) extra.rps = r3(list.reduce((a, w) => a + (w.extra?.rps ?? 0), 0) / list.length)
    if (first.extra?.channelCapacity !== undefined) extra.channelCapacity = first.extra.channelCapacity
    out.extra = extra
  }
  if (first.requestLatencyUs) out.requestLatencyUs = mergeSummary(list.map((w) => w.requestLatencyUs as LatencySummary))
  if (first.threads) {
    out.threads = first.threads.map((t, i): ThreadMetrics => ({
      name: t.name,
      iterations: list.reduce((a, w) => a + (w.threads?.[i]?.iterations ?? 0), 0),
      metrics: Object.fromEntries(Object.keys(t.metrics).map((m) => [m, mergeStat(list.map((w) => w.threads?.[i]?.metrics[m]).filter((x): x is StatSummary => !!x))]))
    }))
  }
  return out
}

/**
 * One variant result from its replicas (in replica order): histograms, counts and batches
 * pooled, per-CPU shares averaged, and `replicaResults` with each replica's own summary (for an
 * interval across replicas).
 */
export function mergeReplicas(list: VariantResult[], plan: ReplicaPlan): VariantResult {
  const first = list[0]
  const sum = (f: (r: VariantResult) => number): number => list.reduce((a, r) => a + f(r), 0)
  const tasks: TaskResult[] = first.tasks.map((t, i) => {
    const same = list.map((r) => r.tasks[i]).filter((x): x is TaskResult => !!x && x.name === t.name)
    return {
      ...t,
      cpuTimeMs: r3(same.reduce((a, x) => a + x.cpuTimeMs, 0)),
      latencyUs: mergeSummary(same.map((x) => x.latencyUs)),
      migrations: same.reduce((a, x) => a + x.migrations, 0),
      contextSwitches: same.reduce((a, x) => a + x.contextSwitches, 0),
      wakeups: same.reduce((a, x) => a + x.wakeups, 0),
      lastCpu: list[list.length - 1].tasks[i]?.lastCpu ?? t.lastCpu
    }
  })
  const idle = first.unreasonableIdle.events
  return {
    ...first,
    stats: {
      ...first.stats,
      events: sum((r) => r.stats.events),
      wallMs: Math.max(...list.map((r) => r.stats.wallMs)),
      simulatedMs: r3(sum((r) => r.stats.simulatedMs)),
      contextSwitches: sum((r) => r.stats.contextSwitches),
      migrations: sum((r) => r.stats.migrations),
      wakeups: sum((r) => r.stats.wakeups),
      sysPct: r3(sum((r) => r.stats.sysPct) / list.length),
      warmupMs: r3(sum((r) => r.stats.warmupMs ?? 0)),
      warmupEvents: sum((r) => r.stats.warmupEvents ?? 0)
    },
    workloads: first.workloads.map((_, i) => mergeWorkload(list.map((r) => r.workloads[i]))),
    tasks,
    cpus: first.cpus.map((c, i) => ({
      ...c,
      busyPct: r3(sum((r) => r.cpus[i].busyPct) / list.length),
      ...(c.sysPct !== undefined ? { sysPct: r3(sum((r) => r.cpus[i].sysPct ?? 0) / list.length) } : {}),
      ...(c.utilAvg !== undefined ? { utilAvg: r3(sum((r) => r.cpus[i].utilAvg ?? 0) / list.length) } : {})
    })),
    unreasonableIdle: {
      events: Object.fromEntries(Object.keys(idle).map((k) => [k, sum((r) => r.unreasonableIdle.events[k as keyof typeof idle])])) as typeof idle
    },
    counters: sumRecords(list.map((r) => r.counters)),
    warnings: [...new Set(list.flatMap((r) => r.warnings ?? []))],
    replicas: plan.replicas,
    replicaResults: list.map((r) => ({
      seed: r.seed,
      simulatedMs: r.stats.simulatedMs,
      warmupMs: r.stats.warmupMs ?? 0,
      workloads: r.workloads.map((w) => ({ name: w.name, latencyUs: w.latencyUs, ...(w.timeSec !== undefined ? { timeSec: w.timeSec } : {}) }))
    }))
  }
}

/**
 * Pooling the batches of the replicas (K replicas of D/K returned as one variant result with
 * `replicas: K`): the pooled result carries every replica's batches, so its intervals rest on
 * all 20 K of them (replicated batch means, docs/statistics.md).
 */
/** All replicas' latency batches in one (a replica without batches: undefined for all). */
export function concatLatencyBatches(list: readonly (LatencyBatches | undefined)[]): LatencyBatches | undefined {
  const present = list.filter((b): b is LatencyBatches => !!b && b.counts.some((row) => row.length > 0))
  if (present.length === 0 || present.length !== list.filter((b) => b !== undefined).length) return undefined
  const shift = present[0].shift
  if (present.some((b) => b.shift !== shift)) return undefined
  const lo = Math.min(...present.map((b) => b.lo))
  const counts = present.flatMap((b) => b.counts.map((row) => (row.length === 0 ? [] : [...new Array<number>(b.lo - lo).fill(0), ...row])))
  return { batchMs: present[0].batchMs, shift, lo, counts }
}

export function concatTimeBatches(list: readonly (TimeBatches | undefined)[]): TimeBatches | undefined {
  const present = list.filter((b): b is TimeBatches => !!b)
  if (present.length === 0) return undefined
  return { sumSec: present.flatMap((b) => b.sumSec), count: present.flatMap((b) => b.count) }
}
