import type { WorkloadSpec } from '../scenario/types'
import type { CyclictestWorkload, HackbenchWorkload, RtAppWorkload, SchbenchWorkload } from '../scenario/workload-specs'
import { createCyclictest } from './cyclictest'
import { createHackbench } from './hackbench'
import { createRtApp } from './rtapp'
import { createSchbench } from './schbench'
import type { WorkloadInstance } from './types'

/**
 * Instances of the cyclictest, rt-app, hackbench and schbench workloads. The workload registry
 * (index.ts, `createWorkload`) delegates these types here; undefined for other types.
 */
export function createToolWorkload(spec: WorkloadSpec, index: number): WorkloadInstance | undefined {
  switch (spec.type) {
    case 'cyclictest':
      return createCyclictest(spec as CyclictestWorkload, index)
    case 'rt-app':
      return createRtApp(spec as RtAppWorkload, index)
    case 'hackbench':
      return createHackbench(spec as HackbenchWorkload, index)
    case 'schbench':
      return createSchbench(spec as SchbenchWorkload, index)
    default:
      return undefined
  }
}
