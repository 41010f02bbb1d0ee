import type { TopologySpec } from '../sim/kernel/topology-types'
import { VmRefusal } from './errors'

/**
 * A scenario's topology as QEMU's x86 machine expresses it: `-smp N,sockets=S,cores=C,threads=T`
 * and one `-numa node` per NUMA node (with `-numa dist` from the topology's distance matrix).
 * CPUs are numbered socket by socket with SMT siblings adjacent, as the simulator numbers them.
 * What QEMU cannot express is refused with the reason: asymmetric capacities (big.LITTLE such
 * as rb5), sockets of different sizes, several LLCs in one socket, cluster (CLS) levels, NUMA
 * nodes that split a socket.
 */

export interface QemuTopology {
  cpus: number
  sockets: number
  cores: number
  threads: number
  /** NUMA nodes: each node's CPU range; empty when the machine is one node. */
  nodes: { cpus: [number, number] }[]
  /** SLIT distances between nodes (10 = local), only off-diagonal values that are given. */
  distances: { src: number; dst: number; val: number }[]
}

export function qemuTopology(t: TopologySpec): QemuTopology {
  const why = (msg: string): never => {
    throw new VmRefusal(`topology "${t.name}": ${msg}; QEMU cannot express that (give the VM a symmetric topology such as smp-N, or clusters that differ only in package)`)
  }
  if (t.clusters.length === 0) why('no CPUs')
  const caps = new Set(t.clusters.map((c) => c.capacity))
  if (caps.size > 1) why(`asymmetric CPU capacities (${t.clusters.map((c) => `${c.name} ${c.capacity}`).join(', ')})`)
  const smt = new Set(t.clusters.map((c) => c.smt ?? 1))
  if (smt.size > 1) why('clusters with different SMT widths')
  const threads = [...smt][0]
  if (t.clusters.some((c) => c.cls !== undefined)) why('a cluster (CLS) sched domain level')
  // sockets: clusters grouped by package, each package's CPUs, LLCs and nodes
  const packages = new Map<number, { cpus: number; llcs: Set<string>; nodes: Set<number> }>()
  for (const c of t.clusters) {
    const pkg = c.package ?? 0
    const e = packages.get(pkg) ?? { cpus: 0, llcs: new Set<string>(), nodes: new Set<number>() }
    e.cpus += c.cpus
    e.llcs.add(c.llc === undefined ? `pkg${pkg}` : String(c.llc))
    e.nodes.add(c.node ?? pkg)
    packages.set(pkg, e)
  }
  // clusters must be listed socket by socket for the CPU numbering to match QEMU's
  const order = t.clusters.map((c) => c.package ?? 0)
  for (let i = 1; i < order.length; i++) if (order[i] < order[i - 1]) why('clusters not listed socket by socket')
  const sizes = new Set([...packages.values()].map((p) => p.cpus))
  if (sizes.size > 1) why(`sockets of different sizes (${[...packages.values()].map((p) => p.cpus).join(', ')} CPUs)`)
  for (const [pkg, p] of packages) {
    if (p.llcs.size > 1) why(`several LLCs in socket ${pkg}`)
    if (p.nodes.size > 1) why(`several NUMA nodes in socket ${pkg}`)
  }
  const llcOwners = new Map<string, number>()
  for (const [pkg, p] of packages) {
    for (const l of p.llcs) {
      if (llcOwners.has(l) && llcOwners.get(l) !== pkg) why(`LLC ${l} shared by several sockets`)
      llcOwners.set(l, pkg)
    }
  }
  const perSocket = [...sizes][0]
  if (perSocket % threads !== 0) why(`${perSocket} CPUs per socket is not a multiple of SMT${threads}`)
  const sockets = packages.size
  const cpus = sockets * perSocket
  const nodeOf = [...packages.entries()].sort((a, b) => a[0] - b[0]).map(([, p]) => [...p.nodes][0])
  const nodeIds = [...new Set(nodeOf)]
  const nodes: QemuTopology['nodes'] = []
  if (nodeIds.length > 1) {
    // QEMU numbers nodes from 0 in order; sockets of one node must be consecutive
    for (let n = 0; n < nodeIds.length; n++) {
      const socks = nodeOf.map((id, s) => (id === nodeIds[n] ? s : -1)).filter((s) => s >= 0)
      if (socks[socks.length - 1] - socks[0] !== socks.length - 1) why(`NUMA node ${nodeIds[n]} is not a run of consecutive sockets`)
      nodes.push({ cpus: [socks[0] * perSocket, (socks[socks.length - 1] + 1) * perSocket - 1] })
    }
  }
  const distances: QemuTopology['distances'] = []
  const d = t.numaDistance
  if (nodes.length > 1 && d) {
    for (let a = 0; a < nodeIds.length; a++) {
      for (let b = 0; b < nodeIds.length; b++) {
        const v = d[nodeIds[a]]?.[nodeIds[b]]
        if (a !== b && typeof v === 'number') distances.push({ src: a, dst: b, val: v })
      }
    }
  }
  return { cpus, sockets, cores: perSocket / threads, threads, nodes, distances }
}

/** QEMU's arguments for the topology and `memoryMb` of RAM (split evenly over the NUMA nodes). */
export function qemuTopologyArgs(q: QemuTopology, memoryMb: number): string[] {
  const args = ['-smp', `${q.cpus},sockets=${q.sockets},cores=${q.cores},threads=${q.threads}`]
  if (q.nodes.length === 0) return [...args, '-m', `${memoryMb}M`]
  const per = Math.ceil(memoryMb / q.nodes.length)
  args.push('-m', `${per * q.nodes.length}M`)
  q.nodes.forEach((n, i) => {
    args.push('-object', `memory-backend-ram,id=mem${i},size=${per}M`, '-numa', `node,nodeid=${i},cpus=${n.cpus[0]}-${n.cpus[1]},memdev=mem${i}`)
  })
  for (const d of q.distances) args.push('-numa', `dist,src=${d.src},dst=${d.dst},val=${d.val}`)
  return args
}
