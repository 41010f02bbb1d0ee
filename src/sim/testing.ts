/**
 * Builders for tests and benchmarks: a normalized Scenario from a few fields, without going
 * through the scenario parser.
 */
import type { KernelSpec, Scenario, VariantSpec, WorkloadSpec } from './scenario/types'
import type { TopologySpec } from './kernel/topology-types'
import { smpSpec } from './kernel/topology'

export interface QuickScenario {
  name?: string
  topology?: TopologySpec | number
  kernel?: Partial<KernelSpec>
  durationMs?: number
  seed?: number
  variants?: Partial<VariantSpec>[]
  workloads: WorkloadSpec[]
}

export function quickScenario(q: QuickScenario): Scenario {
  const topology = typeof q.topology === 'number' || q.topology === undefined ? smpSpec(q.topology ?? 1) : q.topology
  return {
    name: q.name ?? 'test',
    topology,
    kernel: { hz: 250, profile: 'tip-2026', features: {}, ...q.kernel },
    durationMs: q.durationMs ?? 1000,
    seed: q.seed ?? 1,
    seeds: 1,
    variants: (q.variants ?? [{ name: 'base' }]).map((v, i) => ({ name: v.name ?? `v${i}`, patches: v.patches ?? [], features: v.features ?? {}, kernel: v.kernel })),
    workloads: q.workloads
  }
}
