/**
 * Test helpers for the placement and balancing model: run a scenario with FairSched installed
 * and sample kernel state on a simulated-time grid.
 */
import { simulateDetailed } from '../index'
import type { Scenario } from '../scenario/types'
import type { VariantResult } from '../../shared/result'
import type { Kernel } from './sched'
import { FairSched } from './fair-sched'

export interface PlacementRun {
  k: Kernel
  fs: FairSched
  result: VariantResult
}

/** Run `scenario` (variant 0); `setup` may schedule probes on the kernel and its FairSched. */
export function runPlacement(scenario: Scenario, seed = 1, setup?: (k: Kernel, fs: FairSched) => void): PlacementRun {
  let fs: FairSched | null = null
  const run = simulateDetailed(scenario, 0, seed, {
    configure: (k) => {
      fs = k.placement instanceof FairSched ? k.placement : FairSched.install(k)
      setup?.(k, fs)
    }
  })
  return { k: run.kernel, fs: fs as unknown as FairSched, result: run.result }
}

/** Call `fn` every `stepNs` from `fromNs` up to `untilNs` of simulated time. */
export function every(k: Kernel, fromNs: number, stepNs: number, untilNs: number, fn: () => void): void {
  const tick = (): void => {
    fn()
    if (k.now + stepNs <= untilNs) k.at(k.now + stepNs, tick)
  }
  k.at(fromNs, tick)
}
