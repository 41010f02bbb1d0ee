/**
 * Workload registry: scenario `type` -> generator. Each generator turns its scenario entry
 * into tasks driven by TaskPrograms.
 */
import type {
  CyclictestWorkload, HackbenchWorkload, HogWorkload, NoiseWorkload, PeriodicWorkload, RtAppWorkload,
  SchbenchWorkload, WorkloadSpec
} from '../scenario/workload-specs'
import type { WorkloadInstance } from './types'
import { Hog } from './hog'
import { Periodic } from './periodic'
import { createCyclictest } from './cyclictest'
import { createHackbench } from './hackbench'
import { createRtApp } from './rtapp'
import { createSchbench } from './schbench'
import { createNoise } from './noise'

type Factory = (spec: WorkloadSpec, index: number) => WorkloadInstance

const FACTORIES: Record<string, Factory> = {
  hog: (s, i) => new Hog(s as HogWorkload, i),
  periodic: (s, i) => new Periodic(s as PeriodicWorkload, i),
  cyclictest: (s, i) => createCyclictest(s as CyclictestWorkload, i),
  'rt-app': (s, i) => createRtApp(s as RtAppWorkload, i),
  hackbench: (s, i) => createHackbench(s as HackbenchWorkload, i),
  schbench: (s, i) => createSchbench(s as SchbenchWorkload, i),
  noise: (s, i) => createNoise(s as NoiseWorkload, i)
}

export const WORKLOAD_TYPES: readonly string[] = Object.keys(FACTORIES)

export function createWorkload(spec: WorkloadSpec, index: number): WorkloadInstance {
  const f = FACTORIES[spec.type]
  if (!f) throw new Error(`unknown workload type "${spec.type}"`)
  return f(spec, index)
}
