import type { Scenario } from '../sim/scenario/types'
import type { VariantResult } from '../shared/result'

/**
 * INTERIM adapter to the simulator entry point (src/sim/index.ts, `simulate`), which is not on
 * main yet. It is loaded at run time so that this build typechecks without it; when it is
 * missing, `run` and `compare` stop with exit code 1 and say so (no result is ever made up).
 */

export interface SimHooks {
  onProgress?(simNs: number, durationNs: number): void
  shouldStop?(): boolean
}

export type SimulateFn = (scenario: Scenario, variantIndex: number, seed: number, hooks?: SimHooks) => VariantResult

export class SimulatorUnavailable extends Error {}

export async function loadSimulator(): Promise<SimulateFn> {
  const specifier = '../sim/index'
  let mod: { simulate?: SimulateFn }
  try {
    mod = (await import(/* @vite-ignore */ specifier)) as { simulate?: SimulateFn }
  } catch {
    throw new SimulatorUnavailable('the simulator core (src/sim/index.ts) is not in this build: schedlab cannot run scenarios yet')
  }
  if (typeof mod.simulate !== 'function') throw new SimulatorUnavailable('src/sim/index.ts exports no simulate()')
  return mod.simulate
}
