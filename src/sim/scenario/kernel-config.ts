/**
 * Resolution of a scenario's kernel section + a variant (patches, feature overrides) into the
 * flat configuration the kernel model reads in its hot paths (src/sim/kernel/config.ts). The
 * kernel model consults switches by name; it never reads the patch registry.
 */
import type { KernelSpec, VariantSpec } from './types'
import type { CostsSpec } from '../kernel/topology-types'
import { defaultFeatures, profileOrdinal, P_TIP26, PREEMPT_MODELS, SCHED_FEATURES, type FeatureSet } from '../kernel/features'
import { defaultBaseSliceUs, resolveCosts, sliceScaleFactor, type KernelConfig } from '../kernel/config'
import { patchSwitches, PATCHES } from '../patches'

/** Every switch any patch sets that is not a sched_feat: the kernel model's patch flags (all default off). */
export const PATCH_SWITCH_NAMES: readonly string[] = [...new Set(PATCHES.flatMap((p) => Object.keys(p.switches)))]
  .filter((n) => !SCHED_FEATURES.some((f) => f.name === n))

/**
 * Architectures with GENERIC_ENTRY and HAVE_GENERIC_TIF_BITS, where CONFIG_HRTIMER_REARM_DEFERRED
 * (tip, 2026-02) defaults on and makes HRTICK and HRTICK_DL default on (kernel/time/Kconfig,
 * kernel/sched/features.h). arm64 has the generic IRQ entry only, so not there.
 */
const REARM_DEFERRED_ARCH = /^(x86|x86_64|amd64|i[3-6]86|riscv|riscv64|loongarch|loongarch64|s390|s390x)$/

export function resolveKernelConfig(kernel: KernelSpec, variant: VariantSpec | undefined, ncpus: number, hardwareCosts: CostsSpec = {}, arch?: string): KernelConfig {
  const k = { ...kernel, ...(variant?.kernel ?? {}) } as KernelSpec
  const profile = k.profile
  const features: FeatureSet = defaultFeatures(profile)
  if (profileOrdinal(profile) === P_TIP26 && arch !== undefined && REARM_DEFERRED_ARCH.test(arch)) {
    features.HRTICK = true
    features.HRTICK_DL = true
  }
  for (const name of PATCH_SWITCH_NAMES) features[name] = false
  Object.assign(features, kernel.features)
  if (variant) {
    for (const p of variant.patches) Object.assign(features, patchSwitches(p))
    Object.assign(features, variant.features)
  }
  const norm = Math.round((k.baseSliceUs ?? defaultBaseSliceUs(profile)) * 1000)
  const hz = k.hz
  return {
    profile,
    prof: profileOrdinal(profile),
    hz,
    tickNs: Math.round(1e9 / hz),
    normBaseSliceNs: norm,
    baseSliceNs: norm * sliceScaleFactor(ncpus, k.tunableScaling ?? 'log'),
    migrationCostNs: 500_000,
    nrMigrate: k.nrMigrate ?? 32,
    rrTimesliceNs: 100_000_000,
    preemptModel: PREEMPT_MODELS.indexOf(k.preempt ?? 'full'),
    timerSlackNs: Math.round((k.timerSlackUs ?? 50) * 1000),
    // the topology's calibration, then the scenario's kernel.costs
    costs: resolveCosts({ ...hardwareCosts, ...(k.costs ?? {}) }),
    debug: k.debug === true,
    coalesce: k.coalesce !== false,
    features
  }
}
