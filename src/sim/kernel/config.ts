/**
 * The flat configuration the kernel model reads in its hot paths (KernelConfig) and the modeled
 * costs. A scenario's kernel section and a variant resolve into it in
 * src/sim/scenario/kernel-config.ts.
 */
import type { CostsSpec } from './topology-types'
import { profileOrdinal, P_6_17, type FeatureSet, type KernelProfile } from './features'

export interface CostConfig {
  /** Context switch, as CPU work at capacity 1024 (slower CPUs take longer). */
  contextSwitchWorkNs: number
  /** Timer interrupt entry + hrtimer handling + try_to_wake_up on the CPU whose timer fires. */
  timerIrqWorkNs: number
  /** The timer interrupt's work after its wakeup (clock event reprogram, irq exit). */
  timerIrqTailWorkNs: number
  /** do_idle()'s exit after the wakeup that ends an idle state (tick_nohz_idle_exit), before the switch. */
  idleExitWorkNs: number
  /** IPI delivery latency to a remote CPU (wall time). */
  ipiNs: number
  /**
   * Cache/TLB refill after switching to a task that is not the last one that ran on the CPU,
   * as CPU work at capacity 1024; delays the task's progress, not its latency.
   */
  coldSwitchWorkNs: number
  /** select_task_rq_fair(): fixed part, as CPU work on the selecting CPU. */
  selectWorkNs: number
  /** select_task_rq_fair(): per CPU examined. */
  selectPerCpuWorkNs: number
  /** sched_balance_rq(): fixed part of one pass, on the balancing CPU. */
  balanceWorkNs: number
  /** sched_balance_rq(): per CPU whose runqueue statistics the pass reads. */
  balancePerCpuWorkNs: number
  /** detach_tasks() / detach_one_task(): per task examined. */
  balancePerTaskWorkNs: number
  /** One fair push attempt (rq locks, migration), on the pushing CPU. */
  pushWorkNs: number
  /** One stopper run: switching to the stopper and back, detach and attach. */
  stopperWorkNs: number
  /** Workload calibration: a hackbench write() / read() without its own writeUs / readUs. */
  hackbenchWriteWorkNs: number
  hackbenchReadWorkNs: number
  /** The same on a socket (the pipe's where the spec gives none). */
  hackbenchSocketWriteWorkNs: number
  hackbenchSocketReadWorkNs: number
}

/**
 * Documented defaults (stated estimates; the RB5 preset calibrates its own): a context switch
 * of ~3 us and a timer interrupt path of ~4 us on a big core, an IPI of ~2 us, and ~2 us of
 * cache refill when a different task ran on the CPU in between.
 *
 * Scheduler work, as CPU work at capacity 1024 (a slower CPU takes longer):
 * - select_task_rq_fair: 250 ns + 40 ns per CPU examined. Seed 004 measured 460 ns per call
 *   on average for the full path and 328 ns for the thin one on a 2.1 GHz 18-CPU part, i.e. a
 *   few hundred ns with a small per-CPU slope.
 * - sched_balance_rq: 1.5 us per pass + 60 ns per runqueue read + 100 ns per task examined
 *   (the per-pass and per-CPU figures are the ones the balancer used before they became
 *   configurable).
 * - a fair push: 1 us (double rq lock, dequeue/enqueue), plus the selection it runs.
 * - a stopper run: 2 us (wakeup of the stopper thread, its switch in and out, detach/attach).
 */
export const DEFAULT_COSTS: Readonly<CostConfig> = Object.freeze({
  contextSwitchWorkNs: 3000,
  timerIrqWorkNs: 4000,
  timerIrqTailWorkNs: 0,
  idleExitWorkNs: 0,
  ipiNs: 2000,
  coldSwitchWorkNs: 2000,
  selectWorkNs: 250,
  selectPerCpuWorkNs: 40,
  balanceWorkNs: 1500,
  balancePerCpuWorkNs: 60,
  balancePerTaskWorkNs: 100,
  pushWorkNs: 1000,
  stopperWorkNs: 2000,
  hackbenchWriteWorkNs: 1200,
  hackbenchReadWorkNs: 1200,
  hackbenchSocketWriteWorkNs: 1200,
  hackbenchSocketReadWorkNs: 1200
})

/** Microsecond field of CostsSpec -> nanosecond field of CostConfig. */
const COST_FIELDS: readonly [keyof CostsSpec, keyof CostConfig][] = [
  ['contextSwitchUs', 'contextSwitchWorkNs'],
  ['timerIrqUs', 'timerIrqWorkNs'],
  ['timerIrqTailUs', 'timerIrqTailWorkNs'],
  ['idleExitUs', 'idleExitWorkNs'],
  ['ipiUs', 'ipiNs'],
  ['coldSwitchUs', 'coldSwitchWorkNs'],
  ['selectUs', 'selectWorkNs'],
  ['selectPerCpuUs', 'selectPerCpuWorkNs'],
  ['balanceUs', 'balanceWorkNs'],
  ['balancePerCpuUs', 'balancePerCpuWorkNs'],
  ['balancePerTaskUs', 'balancePerTaskWorkNs'],
  ['pushUs', 'pushWorkNs'],
  ['stopperUs', 'stopperWorkNs'],
  ['hackbenchWriteUs', 'hackbenchWriteWorkNs'],
  ['hackbenchReadUs', 'hackbenchReadWorkNs'],
  ['hackbenchSocketWriteUs', 'hackbenchSocketWriteWorkNs'],
  ['hackbenchSocketReadUs', 'hackbenchSocketReadWorkNs']
]

export function resolveCosts(spec: CostsSpec | undefined): CostConfig {
  const out = { ...DEFAULT_COSTS }
  for (const [us, ns] of COST_FIELDS) {
    const v = spec?.[us]
    if (v !== undefined) out[ns] = Math.round(v * 1000)
  }
  // a socket costs what a pipe does unless the spec says otherwise
  if (spec?.hackbenchSocketWriteUs === undefined) out.hackbenchSocketWriteWorkNs = out.hackbenchWriteWorkNs
  if (spec?.hackbenchSocketReadUs === undefined) out.hackbenchSocketReadWorkNs = out.hackbenchReadWorkNs
  return out
}

export interface KernelConfig {
  profile: KernelProfile
  /** Profile ordinal (P_6_6 ... P_TIP26). */
  prof: number
  hz: number
  tickNs: number
  /** sysctl_sched_base_slice after CPU-count scaling. */
  baseSliceNs: number
  /** normalized_sysctl_sched_base_slice (unscaled). */
  normBaseSliceNs: number
  migrationCostNs: number
  /** sysctl_sched_nr_migrate: tasks one balance pass looks at (loop_max). */
  nrMigrate: number
  rrTimesliceNs: number
  /** PREEMPT_NONE ... PREEMPT_LAZY: when a reschedule interrupts kernel code. */
  preemptModel: number
  /** Default timer slack of fair tasks (task->timer_slack_ns, 50 us in the kernel). */
  timerSlackNs: number
  costs: CostConfig
  debug: boolean
  /** Workloads coalesce operations that wake and block no one (kernel.coalesce, default on). */
  coalesce: boolean
  features: FeatureSet
}

/** Base slice of a profile: 0.75 ms until 6.14, 0.70 ms from 6.15 (commit 2ae891b82695). */
export function defaultBaseSliceUs(profile: KernelProfile): number {
  return profileOrdinal(profile) >= P_6_17 ? 700 : 750
}

/** sched_tunable_scaling factor. */
export function sliceScaleFactor(ncpus: number, scaling: 'none' | 'log' | 'linear'): number {
  const n = Math.min(ncpus, 8)
  if (scaling === 'none') return 1
  if (scaling === 'linear') return n
  return 1 + Math.floor(Math.log2(n))
}
