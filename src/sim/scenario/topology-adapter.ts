import { MAX_SMP_CPUS, presetSpec, TOPOLOGY_PRESETS } from '../kernel/topologies'
import type { TopologySpec } from '../kernel/topology-types'

/** Scenario-side view of the topology presets (src/sim/kernel/topologies.ts). */

/** Topology of a plain rt-app file run without --topology. */
export const DEFAULT_TOPOLOGY = 'smp-8'

export const MAX_CPUS = MAX_SMP_CPUS

export interface TopologyPresetInfo {
  name: string
  description: string
  source: string
}

/** Named topologies for `schedlab topologies`, the docs and the editor. */
export function topologyPresets(): TopologyPresetInfo[] {
  return [
    ...TOPOLOGY_PRESETS.map((p) => ({ name: p.name, description: p.description, source: p.source })),
    { name: 'host', description: 'This machine (Linux): its online CPUs, capacities, LLCs and idle states', source: 'Detected from sysfs when a scenario names it (`schedlab topologies --host`)' }
  ]
}

/** Resolve a preset name; returns an error message when the name is unknown. */
export function resolveTopologyName(name: string): TopologySpec | string {
  const spec = presetSpec(name)
  if (spec) return spec
  const m = /^smp-(\d+)$/.exec(name)
  if (m) return `smp-N needs 1 <= N <= ${MAX_CPUS}, got ${m[1]}`
  return `unknown topology "${name}" (known: ${TOPOLOGY_PRESETS.map((p) => p.name).join(', ')})`
}
