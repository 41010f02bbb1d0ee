/**
 * Workload registry: scenario `type` -> generator. Each generator turns its scenario entry
 * into tasks driven by TaskPrograms.
 */
import type { HogWorkload, PeriodicWorkload, WorkloadSpec } from '../scenario/types'
import type { WorkloadInstance } from './types'
import { Hog } from './hog'
import { Periodic } from './periodic'

type Factory = (spec: WorkloadSpec, index: number) => WorkloadInstance

const FACTORIES: Record<string, Factory> = {
  hog: (s, i) => new Hog(s as HogWorkload, i),
  periodic: (s, i) => new Periodic(s as PeriodicWorkload, i)
}

export const WORKLOAD_TYPES: readonly string[] = Object.keys(FACTORIES)

export function createWorkload(spec: WorkloadSpec, index: number): WorkloadInstance {
  const f = FACTORIES[spec.type]
  if (!f) throw new Error(`unknown workload type "${spec.type}"`)
  return f(spec, index)
}
