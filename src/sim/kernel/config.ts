/**
 * Resolution of a scenario's kernel section + a variant (patches, feature overrides) into the
 * flat configuration the kernel model reads in its hot paths.
 */
import type { KernelSpec, VariantSpec } from '../scenario/types'
import type { CostsSpec } from './topology-types'
import { defaultFeatures, profileOrdinal, P_6_17, type FeatureSet, type KernelProfile } from './features'
import { patchSwitches, PATCH_SWITCH_NAMES } from '../patches'

export interface CostConfig {
  /** Context switch, as CPU work at capacity 1024 (slower CPUs take longer). */
  contextSwitchWorkNs: number
  /** Timer interrupt entry + hrtimer handling + try_to_wake_up on the CPU whose timer fires. */
  timerIrqWorkNs: number
  /** IPI delivery latency to a remote CPU (wall time). */
  ipiNs: number
  /**
   * Cache/TLB refill after switching to a task that is not the last one that ran on the CPU,
   * as CPU work at capacity 1024; delays the task's progress, not its latency.
   */
  coldSwitchWorkNs: number
}

/**
 * Documented defaults (stated estimates; the RB5 preset calibrates its own): a context switch
 * of ~3 us and a timer interrupt path of ~4 us on a big core, an IPI of ~2 us, and ~2 us of
 * cache refill when a different task ran on the CPU in between.
 */
export const DEFAULT_COSTS: Readonly<CostConfig> = Object.freeze({
  contextSwitchWorkNs: 3000,
  timerIrqWorkNs: 4000,
  ipiNs: 2000,
  coldSwitchWorkNs: 2000
})

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
  rrTimesliceNs: number
  preemptLazy: boolean
  /** Default timer slack of fair tasks (task->timer_slack_ns, 50 us in the kernel). */
  timerSlackNs: number
  costs: CostConfig
  debug: boolean
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

export function resolveKernelConfig(kernel: KernelSpec, variant: VariantSpec | undefined, ncpus: number, hardwareCosts: CostsSpec = {}): KernelConfig {
  const k = { ...kernel, ...(variant?.kernel ?? {}) } as KernelSpec
  const profile = k.profile
  const features: FeatureSet = defaultFeatures(profile)
  for (const name of PATCH_SWITCH_NAMES) features[name] = false
  Object.assign(features, kernel.features)
  if (variant) {
    for (const p of variant.patches) Object.assign(features, patchSwitches(p))
    Object.assign(features, variant.features)
  }
  const norm = Math.round((k.baseSliceUs ?? defaultBaseSliceUs(profile)) * 1000)
  const hz = k.hz
  const c = { ...hardwareCosts, ...(k.costs ?? {}) }
  return {
    profile,
    prof: profileOrdinal(profile),
    hz,
    tickNs: Math.round(1e9 / hz),
    normBaseSliceNs: norm,
    baseSliceNs: norm * sliceScaleFactor(ncpus, k.tunableScaling ?? 'log'),
    migrationCostNs: 500_000,
    rrTimesliceNs: 100_000_000,
    preemptLazy: k.preempt === 'lazy',
    timerSlackNs: Math.round((k.timerSlackUs ?? 50) * 1000),
    costs: {
      contextSwitchWorkNs: c.contextSwitchUs !== undefined ? Math.round(c.contextSwitchUs * 1000) : DEFAULT_COSTS.contextSwitchWorkNs,
      timerIrqWorkNs: c.timerIrqUs !== undefined ? Math.round(c.timerIrqUs * 1000) : DEFAULT_COSTS.timerIrqWorkNs,
      ipiNs: c.ipiUs !== undefined ? Math.round(c.ipiUs * 1000) : DEFAULT_COSTS.ipiNs,
      coldSwitchWorkNs: c.coldSwitchUs !== undefined ? Math.round(c.coldSwitchUs * 1000) : DEFAULT_COSTS.coldSwitchWorkNs
    },
    debug: k.debug === true,
    features
  }
}
