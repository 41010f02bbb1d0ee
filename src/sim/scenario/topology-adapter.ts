import { smpSpec } from '../kernel/topology'
import type { TopologySpec } from '../kernel/topology-types'

/**
 * The one place where scenario parsing meets the topology presets. Until
 * src/sim/kernel/topologies.ts (TOPOLOGY_PRESETS, resolveTopology) lands on main, only the
 * synthetic `smp-N` family is known by name; custom cluster lists are accepted as given.
 */

/** Topology of a plain rt-app file run without --topology. */
export const DEFAULT_TOPOLOGY = 'smp-8'

export const MAX_CPUS = 1024

export interface TopologyPresetInfo {
  name: string
  cpus: number
  description: string
}

const SMP = /^smp-(\d+)$/

/** Named topologies for `schedlab topologies` and the editor. */
export function topologyPresets(): TopologyPresetInfo[] {
  return [{ name: 'smp-N', cpus: 0, description: 'N identical CPUs of capacity 1024 sharing one LLC (N = 1..1024), e.g. smp-4' }]
}

/** Resolve a preset name; returns an error message when the name is unknown. */
export function resolveTopologyName(name: string): TopologySpec | string {
  const m = SMP.exec(name)
  if (m) {
    const n = Number(m[1])
    if (n >= 1 && n <= MAX_CPUS) return smpSpec(n)
    return `smp-N needs 1 <= N <= ${MAX_CPUS}, got ${n}`
  }
  const known = topologyPresets().map((p) => p.name).join(', ')
  return `unknown topology "${name}" (known: ${known})`
}
