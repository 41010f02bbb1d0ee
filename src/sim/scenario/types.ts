import type { TopologySpec } from '../kernel/topology-types'
import type { KernelProfile } from '../kernel/features'
import type { PolicyName } from '../kernel/api'

/**
 * The validated, defaulted scenario the simulator consumes. Produced by sim/scenario from
 * the scenario text (DESIGN.md "Scenario format"); field names follow that contract.
 */

export interface CostsSpec {
  /** Context switch cost charged to the CPU switching tasks. */
  contextSwitchUs?: number
  /** Delay of a reschedule/wakeup IPI to a remote CPU. */
  ipiUs?: number
  /** Interrupt entry + timer handling cost on the CPU whose hrtimer fires. */
  timerIrqUs?: number
  /** select_task_rq_fair(): fixed part of one wakeup/fork CPU selection, on the selecting CPU. */
  selectUs?: number
  /** select_task_rq_fair(): each CPU the selection examines (idle scans, EAS candidates, slow path). */
  selectPerCpuUs?: number
  /** sched_balance_rq(): fixed part of one balance pass, on the balancing CPU. */
  balanceUs?: number
  /** sched_balance_rq(): each CPU whose runqueue the pass reads (group statistics, busiest queue). */
  balancePerCpuUs?: number
  /** sched_balance_rq() / active balance: each task examined for migration. */
  balancePerTaskUs?: number
  /** One fair push attempt (short-slice v2 push callback), on the pushing CPU. */
  pushUs?: number
  /** One stopper run (active balance), on the stopper's CPU; the moved task is attached at its end. */
  stopperUs?: number
}

export interface KernelSpec {
  hz: number
  profile: KernelProfile
  features: Record<string, boolean>
  /** Normalized base slice (before CPU-count scaling); default by profile. */
  baseSliceUs?: number
  /** 'log' (default), 'none' or 'linear' (sysctl sched_tunable_scaling). */
  tunableScaling?: 'none' | 'log' | 'linear'
  /** 'full' (default) or 'lazy' (6.13+ PREEMPT_LAZY) preemption model. */
  preempt?: 'full' | 'lazy'
  costs?: CostsSpec
  /** Turn on the model's invariant checks (tests). */
  debug?: boolean
}

export interface VariantSpec {
  name: string
  patches: string[]
  features: Record<string, boolean>
  /** Per-variant kernel overrides (hz, profile, baseSliceUs, ...). */
  kernel?: Partial<Omit<KernelSpec, 'features'>>
}

/** Fields every workload accepts. */
export interface WorkloadCommon {
  type: string
  name: string
  policy?: PolicyName
  nice?: number
  priority?: number
  sliceUs?: number
  cpus?: number[]
  uclampMin?: number
  uclampMax?: number
  count?: number
  threads?: number
  /** Start offset in microseconds. */
  delayUs?: number
  /** CPU the tasks start on (no fork placement), e.g. to watch the balancer spread them. */
  startCpu?: number
}

export interface HogWorkload extends WorkloadCommon { type: 'hog' }

export interface PeriodicWorkload extends WorkloadCommon {
  type: 'periodic'
  runUs: number
  periodUs: number
  /** 'work' (default): runUs is CPU work at capacity 1024; 'wall': busy for runUs whatever the CPU. */
  runMode?: 'work' | 'wall'
  /** Offset of task i's grid: i * staggerUs (default 0: all wake together). */
  staggerUs?: number
}

/** Workload types added by later modules extend this open record. */
export interface GenericWorkload extends WorkloadCommon { [key: string]: unknown }

export type WorkloadSpec = HogWorkload | PeriodicWorkload | GenericWorkload

export interface Scenario {
  name: string
  /** The file the scenario came from, for messages. */
  file?: string
  topology: TopologySpec
  kernel: KernelSpec
  durationMs: number
  seed: number
  seeds: number
  variants: VariantSpec[]
  workloads: WorkloadSpec[]
}
