import { simulate } from '../sim/index'
import type { Kernel } from '../sim/kernel/sched'
import type { Scenario } from '../sim/scenario/types'
import type { VariantResult } from '../shared/result'

/** The simulator as the CLI calls it (injectable in tests). */

export interface SimHooks {
  onProgress?(simNs: number, durationNs: number): void
  shouldStop?(): boolean
  /** Called with the kernel before the run starts (the trace recorder attaches here). */
  configure?(k: Kernel): void
  /** A replica's discarded warm-up (src/sim/replicas.ts). */
  warmupMs?: number
}

export type SimulateFn = (scenario: Scenario, variantIndex: number, seed: number, hooks?: SimHooks) => VariantResult

export const defaultSimulate: SimulateFn = simulate
