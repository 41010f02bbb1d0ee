import type { Scenario } from './types'
import type {
  CyclictestWorkload, HackbenchWorkload, NoiseWorkload, RtAppSpec, SchbenchWorkload, WorkloadSpec
} from './workload-specs'

/**
 * A rough upper-bound estimate of the events one run (one variant, one seed) will simulate, so
 * that a scenario that would take hours is refused before it starts. Each workload's rate of
 * scheduling events (timer, wakeup, switch in, switch out, tick) times the simulated time.
 * Within a factor of a few of the engine's count; it only has to catch orders of magnitude.
 */

export interface EventEstimate {
  total: number
  ticks: number
  workloads: { index: number; name: string; events: number }[]
}

/** Events per activation: timer or wakeup, enqueue/pick, switch in, switch out, completion. */
const PER_ACTIVATION = 5
/** Engine events per hackbench message (measured on the simulator: about 2). */
const HACKBENCH_EVENTS_PER_MESSAGE = 4
/** With kernel.coalesce (the default) syscalls that wake and block no one share one event (measured: 0.25-0.6). */
const HACKBENCH_EVENTS_PER_MESSAGE_COALESCED = 0.6
/** An iteration made only of synchronisation events is paced by other threads: assume this. */
const MIN_ITERATION_US = 10

/** 850, 12 thousand, 3.4 million, 1.2 billion. */
export function formatCount(n: number): string {
  if (n < 1e3) return String(Math.round(n))
  if (n < 1e6) return `${Number((n / 1e3).toPrecision(3))} thousand`
  if (n < 1e9) return `${Number((n / 1e6).toPrecision(3))} million`
  return `${Number((n / 1e9).toPrecision(3))} billion`
}

/** Tasks a workload creates at start (noise: its per-CPU kthreads and daemons on `ncpus` CPUs). */
export function taskCount(w: WorkloadSpec, ncpus = 1): number {
  switch (w.type) {
    case 'cyclictest':
      return Number(w.threads)
    case 'hackbench':
      return Number(w.groups) * Number(w.fds) * 2
    case 'schbench':
      return Number(w.messageThreads) * (1 + Number(w.workers))
    case 'rt-app': {
      const spec = (w as { rtapp: { tasks: { instance: number }[] } }).rtapp
      return spec.tasks.reduce((n, t) => n + t.instance, 0)
    }
    case 'noise': {
      const n = w as NoiseWorkload
      return n.perCpu * (n.cpus?.length ?? ncpus) + n.daemons
    }
    default:
      return Number(w.count ?? 1)
  }
}

const cpuCount = (s: Scenario): number => s.topology.clusters.reduce((n, c) => n + c.cpus, 0)

/**
 * Memory one run needs beyond an idle worker, in bytes: mostly each task's latency histograms
 * and each CPU's runqueue and histograms, in typed arrays, which the worker's heap limit does
 * not cover. Measured on the simulator (peak RSS of a run minus the RSS before it: 20,000 hogs
 * on 2 CPUs add about 410 MB, 2,000 on 256 CPUs about 55 MB; the memory-probe test keeps it
 * honest) and rounded up, so it errs on the side of refusing.
 */
export const MEMORY_BASE_BYTES = 16 * 1024 * 1024
export const MEMORY_PER_TASK_BYTES = 24 * 1024
export const MEMORY_PER_CPU_BYTES = 64 * 1024

export function estimateMemoryBytes(s: Scenario): number {
  const ncpus = cpuCount(s)
  const tasks = s.workloads.reduce((n, w) => n + taskCount(w, ncpus), 0)
  return MEMORY_BASE_BYTES + tasks * MEMORY_PER_TASK_BYTES + ncpus * MEMORY_PER_CPU_BYTES
}

/** Default ceiling on one submission's estimated events, over all its runs (about an hour of one core). */
export const DEFAULT_MAX_TOTAL_EVENTS = 4e9

export interface SubmissionLimits {
  /** Ceiling on the estimated events of all runs together; default DEFAULT_MAX_TOTAL_EVENTS. */
  maxTotalEvents?: number
  /** Ceiling on one run's estimated memory (bytes); unchecked when absent. */
  maxRunMemoryBytes?: number
}

const MB = 1024 * 1024

/**
 * Why a submission of these runs is refused, as messages, or none. One run's scenario carries
 * the workloads of its variant, so runs are estimated one by one.
 */
export function submissionRefusals(runs: readonly { scenario: Scenario; variant: string; seed: number }[], limits: SubmissionLimits = {}): string[] {
  const out: string[] = []
  const maxTotal = limits.maxTotalEvents ?? DEFAULT_MAX_TOTAL_EVENTS
  let total = 0
  for (const r of runs) total += estimateEvents(r.scenario).total
  if (total > maxTotal) {
    const variants = new Set(runs.map((r) => r.variant)).size
    const seeds = Math.ceil(runs.length / Math.max(1, variants))
    const shape = variants * seeds === runs.length ? ` (${variants} variant${variants === 1 ? '' : 's'} x ${seeds} seed${seeds === 1 ? '' : 's'})` : ''
    out.push(
      `refused: ${runs.length} run${runs.length === 1 ? '' : 's'}${shape} of about ${formatCount(total / runs.length)} events = ${formatCount(total)} events, ` +
        `above the limit of ${formatCount(maxTotal)} per submission. Run fewer variants or seeds, shorten durationMs, ` +
        `or raise the limit (--max-total-events ${Math.ceil(total * 1.2)}, or the maxTotalEvents setting)`
    )
  }
  if (limits.maxRunMemoryBytes !== undefined) {
    let worst = runs[0]
    let worstBytes = -1
    for (const r of runs) {
      const b = estimateMemoryBytes(r.scenario)
      if (b > worstBytes) [worst, worstBytes] = [r, b]
    }
    if (worst && worstBytes > limits.maxRunMemoryBytes) {
      const ncpus = cpuCount(worst.scenario)
      const tasks = worst.scenario.workloads.reduce((n, w) => n + taskCount(w, ncpus), 0)
      out.push(
        `refused: one run would need about ${Math.ceil(worstBytes / MB)} MB (${tasks} tasks on ${ncpus} CPUs), above the limit of ` +
          `${Math.floor(limits.maxRunMemoryBytes / MB)} MB (a share of this machine's memory). Use fewer tasks or CPUs, or raise the share (--memory-share, or the memoryShare setting)`
      )
    }
  }
  return out
}

export function estimateEvents(s: Scenario): EventEstimate {
  const durUs = s.durationMs * 1000
  const ncpus = cpuCount(s)
  const ticks = (ncpus * s.durationMs * s.kernel.hz) / 1000
  const workloads = s.workloads.map((w, index) => ({ index, name: w.name, events: workloadEvents(w, durUs, ncpus, s.kernel.hz, s.kernel.coalesce !== false) }))
  const total = ticks + workloads.reduce((n, w) => n + w.events, 0)
  return { total, ticks, workloads }
}

function workloadEvents(w: WorkloadSpec, durUs: number, ncpus: number, hz: number, coalesce: boolean): number {
  const tickRate = hz / 1e6 // per microsecond
  switch (w.type) {
    case 'cyclictest': {
      const c = w as CyclictestWorkload
      let n = 0
      for (let k = 0; k < c.threads; k++) {
        const cycles = durUs / (c.periodUs + k * c.distanceUs)
        n += (c.loops > 0 ? Math.min(c.loops, cycles) : cycles) * PER_ACTIVATION
      }
      return n
    }
    case 'periodic': {
      const runUs = Number(w.runUs ?? 0)
      const periodUs = Math.max(1, Number(w.periodUs ?? 1))
      return (w.count ?? 1) * (durUs / periodUs) * (PER_ACTIVATION + runUs * tickRate)
    }
    case 'hog':
      return (w.count ?? 1) * durUs * tickRate * 2
    case 'noise': {
      const n = w as NoiseWorkload
      const perCpu = n.perCpu * (n.cpus?.length ?? ncpus) * (durUs / n.perCpuPeriodUs)
      const daemons = n.daemons * (durUs / n.daemonPeriodUs)
      return (perCpu + daemons) * PER_ACTIVATION
    }
    case 'rt-app':
      return rtappEvents((w as { rtapp: RtAppSpec }).rtapp, durUs)
    case 'hackbench':
      return hackbenchEvents(w as HackbenchWorkload, durUs, ncpus, coalesce)
    case 'schbench':
      return schbenchEvents(w as SchbenchWorkload, durUs, ncpus)
    default:
      return 0
  }
}

function rtappEvents(spec: RtAppSpec, durUs: number): number {
  let total = 0
  for (const t of spec.tasks) {
    // Forked-only tasks run when forked; count them once per instance-equivalent.
    const copies = Math.max(t.instance, 1)
    let left = Math.max(0, durUs - t.delayUs)
    let events = 0
    let passes = t.loop === -1 ? Infinity : t.loop
    while (passes > 0 && left > 0) {
      let passUs = 0
      let passEvents = 0
      let endless = false
      for (const ph of t.phases) {
        let iterUs = 0
        let timerUs = 0
        for (const e of ph.events) {
          if (e.kind === 'run' || e.kind === 'runtime' || e.kind === 'sleep' || e.kind === 'work') iterUs += e.us
          if (e.kind === 'timer') timerUs += e.periodUs
        }
        iterUs = Math.max(iterUs, timerUs, MIN_ITERATION_US)
        const iterEvents = ph.events.length * PER_ACTIVATION
        const possible = (left - passUs) / iterUs
        const n = ph.loop === -1 ? possible : Math.min(ph.loop, possible)
        if (n <= 0) break
        passUs += n * iterUs
        passEvents += n * iterEvents
        if (ph.loop === -1) {
          endless = true
          break
        }
      }
      events += passEvents
      left -= passUs
      passes--
      if (endless || passUs <= 0) break
      if (passes === Infinity) {
        // Identical passes: jump to the end instead of iterating.
        events += (left / passUs) * passEvents
        break
      }
    }
    total += copies * events
  }
  return total
}

function hackbenchEvents(h: HackbenchWorkload, durUs: number, ncpus: number, coalesce: boolean): number {
  const messages = h.groups * h.fds * h.fds * h.loops
  const workers = 2 * h.groups * h.fds
  const roundUs = (messages * ((h.writeUs ?? 1.2) + (h.readUs ?? 1.2))) / Math.max(1, Math.min(ncpus, workers))
  const rounds = h.repeat ? durUs / Math.max(roundUs, 1) : Math.min(1, durUs / Math.max(roundUs, 1))
  // A write and a read each, plus the wakeups and switches of the blocked share (measured: ~4).
  const perMessage = coalesce ? HACKBENCH_EVENTS_PER_MESSAGE_COALESCED : HACKBENCH_EVENTS_PER_MESSAGE
  return rounds * (messages * perMessage + workers * PER_ACTIVATION)
}

function schbenchEvents(s: SchbenchWorkload, durUs: number, ncpus: number): number {
  const perRequest = 2 * PER_ACTIVATION
  if (s.rps > 0) return s.rps * s.messageThreads * (durUs / 1e6) * perRequest
  const workers = s.messageThreads * s.workers
  const rate = Math.min(ncpus, workers) / Math.max(1, s.requestWorkUs + s.sleepUs)
  return rate * durUs * perRequest
}
