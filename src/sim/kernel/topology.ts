import type { ClusterSpec, CpuInfo, IdleStateSpec, Topology, TopologySpec } from './topology-types'

/**
 * Default idle states for CPUs whose description gives none: an ARM-like WFI state and a
 * core power-down state. Exit latencies are in the range published for Cortex-A/X cores in
 * upstream device trees (arm,idle-state entry/exit latencies); a stated estimate.
 */
export const DEFAULT_IDLE_STATES: readonly IdleStateSpec[] = Object.freeze([
  { name: 'WFI', exitLatencyUs: 1, targetResidencyUs: 1 },
  { name: 'cpu-off', exitLatencyUs: 50, targetResidencyUs: 500 }
])

/** `smp-N`: N identical CPUs of capacity 1024 sharing one LLC. */
export function smpSpec(n: number): TopologySpec {
  return {
    name: `smp-${n}`,
    clusters: [{ name: 'cpu', cpus: n, capacity: 1024 }],
    source: 'synthetic: N identical CPUs, one LLC, default idle states'
  }
}

/** The kernel's LOCAL_DISTANCE and REMOTE_DISTANCE (include/linux/topology.h). */
export const LOCAL_DISTANCE = 10
export const REMOTE_DISTANCE = 20

function denseId(ids: Map<string, number>, key: string): number {
  let id = ids.get(key)
  if (id === undefined) {
    id = ids.size
    ids.set(key, id)
  }
  return id
}

/** Expand a cluster description into per-CPU facts. Validation happens in sim/scenario. */
export function buildTopology(spec: TopologySpec): Topology {
  const cpus: CpuInfo[] = []
  const llcIds = new Map<string, number>()
  const clsIds = new Map<string, number>()
  let core = 0
  let smt = false
  let nodes = 0
  spec.clusters.forEach((cl: ClusterSpec, ci: number) => {
    const threads = Math.max(1, cl.smt ?? 1)
    if (threads > 1) smt = true
    const pkg = cl.package ?? 0
    const llc = denseId(llcIds, cl.llc === undefined ? `pkg${pkg}` : `llc${String(cl.llc)}`)
    const cls = cl.cls === undefined ? -1 : denseId(clsIds, String(cl.cls))
    const node = cl.node ?? pkg
    nodes = Math.max(nodes, node + 1)
    for (let i = 0; i < cl.cpus; i++) {
      cpus.push({
        id: cpus.length,
        cluster: ci,
        clusterName: cl.name,
        capacityOrig: cl.capacity,
        llc,
        core: core + Math.floor(i / threads),
        package: pkg,
        node,
        cls
      })
    }
    core += Math.ceil(cl.cpus / threads)
  })
  const caps = new Set(cpus.map((c) => c.capacityOrig))
  const numaDistance: number[][] = []
  for (let a = 0; a < nodes; a++) {
    const row: number[] = []
    for (let b = 0; b < nodes; b++) {
      row.push(spec.numaDistance?.[a]?.[b] ?? (a === b ? LOCAL_DISTANCE : REMOTE_DISTANCE))
    }
    numaDistance.push(row)
  }
  return { name: spec.name, spec, cpus, asymCapacity: caps.size > 1, smt, nodes, numaDistance }
}

export function idleStatesOf(topo: Topology, cpu: number): readonly IdleStateSpec[] {
  const cl = topo.spec.clusters[topo.cpus[cpu].cluster]
  return cl.idleStates && cl.idleStates.length > 0 ? cl.idleStates : DEFAULT_IDLE_STATES
}
