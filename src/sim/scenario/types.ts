import type { PatchModuleSource } from '../patch-api/evaluate'
import type { CostsSpec, TopologySpec } from '../kernel/topology-types'
import type { KernelProfile, PreemptModelName } from '../kernel/features'
import type { WorkloadSpec } from './workload-specs'

/**
 * The validated, defaulted scenario the simulator consumes. Produced by sim/scenario from
 * the scenario text (DESIGN.md "Scenario format"); field names follow that contract.
 */

export type { CostsSpec } from '../kernel/topology-types'

export interface KernelSpec {
  hz: number
  profile: KernelProfile
  features: Record<string, boolean>
  /** Normalized base slice (before CPU-count scaling); default by profile. */
  baseSliceUs?: number
  /** 'log' (default), 'none' or 'linear' (sysctl sched_tunable_scaling). */
  tunableScaling?: 'none' | 'log' | 'linear'
  /**
   * Preemption model: 'none', 'voluntary', 'full' (default) or 'lazy' (6.13+ PREEMPT_LAZY).
   * none/voluntary wait out kernel-mode sections; lazy defers fair reschedules to the next
   * return to user mode or tick.
   */
  preempt?: PreemptModelName
  costs?: CostsSpec
  /** sysctl_sched_nr_migrate (default 32). */
  nrMigrate?: number
  /** Timer slack of fair tasks' sleeps in microseconds (default 50, the kernel's default). */
  timerSlackUs?: number
  /** Turn on the model's invariant checks (tests). */
  debug?: boolean
  /** Coalesce workload operations that wake and block no one (default true; false: one by one). */
  coalesce?: boolean
}

export interface VariantSpec {
  name: string
  /** Built-in patches (series and switches) by name. */
  patches: string[]
  features: Record<string, boolean>
  /**
   * Patch modules (src/sim/patch-api), in the order the scenario lists them: read and compiled
   * by the host that parsed the scenario, so that a run anywhere needs nothing but this object.
   */
  userPatches?: PatchModuleSource[]
  /** Parameters of the patch modules, by patch name. */
  patchParams?: Record<string, Record<string, number>>
  /** Per-variant kernel overrides (hz, profile, baseSliceUs, ...). */
  kernel?: Partial<Omit<KernelSpec, 'features'>>
  /**
   * The workloads of this variant when it overrides some (variants[].workloads in the scenario
   * text); expandRuns puts them in the run's scenario. Absent: the scenario's workloads.
   */
  workloads?: WorkloadSpec[]
}

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
  /** Free text shown with presets and in reports. */
  description?: string
  /** The duration the published test used (presets), for `--published`. */
  publishedDurationMs?: number
  /** Refuse runs whose estimated event count is above this. */
  maxEvents?: number
  /** Non-fatal findings of the parser (defaults assumed, keys ignored, values clamped). */
  warnings?: string[]
  /** `"sweep"`: the grid's axes, in the order written (src/sweep). */
  sweep?: SweepAxis[]
}

export interface SweepAxis {
  /** As written, e.g. `workloads[0].sliceUs`. */
  path: string
  values: unknown[]
}
