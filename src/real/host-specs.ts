import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { KERNEL_PROFILES, type KernelProfile, type PreemptModelName } from '../sim/kernel/features'
import type { ClusterSpec, IdleStateSpec, TopologySpec } from '../sim/kernel/topology-types'
import type { HostSpecs } from '../sim/scenario'
import type { KernelSpec } from '../sim/scenario/types'
import { detectHost, linuxOrReason, type HostCpu, type HostInfo } from './host'

/**
 * This machine as the simulator's `"topology": "host"` and `"kernel": { "profile": "host" }`.
 * The detection (src/real/host.ts) stays here, outside src/sim; the scenario parser receives
 * the resulting specs.
 */

const HZ_VALUES: readonly KernelSpec['hz'][] = [100, 250, 300, 1000]

/** The modeled profile for a kernel release: the newest modeled one not newer than it. */
export function nearestProfile(release: string): { profile: KernelProfile; note: string } {
  const m = /^(\d+)\.(\d+)/.exec(release)
  const modeled = KERNEL_PROFILES.filter((p) => p !== 'tip-2026').map((p) => ({ p, v: p.split('.').map(Number) }))
  if (!m) return { profile: 'tip-2026', note: `release "${release}" not understood: the default profile tip-2026` }
  const [maj, min] = [Number(m[1]), Number(m[2])]
  const key = (v: number[]): number => v[0] * 1000 + v[1]
  const rel = maj * 1000 + min
  const newest = modeled[modeled.length - 1]
  if (rel > key(newest.v)) return { profile: 'tip-2026', note: `${maj}.${min} is newer than ${newest.p}: tip-2026, the newest modeled` }
  const older = modeled.filter((x) => key(x.v) <= rel)
  if (older.length === 0) return { profile: modeled[0].p, note: `${maj}.${min} is older than every modeled profile: ${modeled[0].p}, the oldest` }
  const pick = older[older.length - 1].p
  return { profile: pick, note: pick === `${maj}.${min}` ? `${pick}, as this kernel` : `${pick}, the newest modeled release not newer than ${maj}.${min}` }
}

function nodeOf(cpu: number): number {
  try {
    const n = readdirSync(`/sys/devices/system/cpu/cpu${cpu}`).find((f) => /^node\d+$/.test(f))
    return n ? Number(n.slice(4)) : 0
  } catch {
    return 0
  }
}

function idleSpec(c: HostCpu): IdleStateSpec[] {
  return c.idleStates.filter((s) => !s.disabled).map((s) => ({ name: s.name, exitLatencyUs: s.exitLatencyUs, targetResidencyUs: s.targetResidencyUs }))
}

/**
 * Clusters of identical CPUs: same package, NUMA node, LLC, capacity, SMT width, cluster id
 * and idle states. The simulator numbers CPUs cluster by cluster with SMT siblings adjacent;
 * `cpuMap` says which host CPU each simulated one is when that order differs from the host's.
 */
export function hostTopologySpec(h: HostInfo, nodes: (cpu: number) => number = nodeOf): TopologySpec & { cpuMap: number[] } {
  const groups = new Map<string, { cpus: HostCpu[]; node: number }>()
  const sorted = [...h.cpus].sort((a, b) => a.package - b.package || a.llc.localeCompare(b.llc) || a.cluster - b.cluster || a.core - b.core || a.id - b.id)
  for (const c of sorted) {
    const node = nodes(c.id)
    const key = JSON.stringify([c.package, node, c.llc, c.capacity, c.siblings.length, c.cluster, idleSpec(c)])
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { cpus: [], node }))
    g.cpus.push(c)
  }
  const llcs = [...new Set(sorted.map((c) => c.llc))]
  const clsIds = new Set(sorted.map((c) => c.cluster))
  const clusters: ClusterSpec[] = [...groups.values()].map((g, i) => {
    const c = g.cpus[0]
    return {
      name: groups.size === 1 ? 'host' : `host${i}`,
      cpus: g.cpus.length,
      capacity: c.capacity,
      ...(c.siblings.length > 1 ? { smt: c.siblings.length } : {}),
      llc: llcs.indexOf(c.llc),
      package: c.package,
      node: g.node,
      idleStates: idleSpec(c),
      // a cluster level only where the architecture reports several clusters in an LLC
      ...(clsIds.size > 1 && c.cluster >= 0 ? { cls: c.cluster } : {})
    }
  })
  const cpuMap = [...groups.values()].flatMap((g) => g.cpus.map((c) => c.id))
  const renumbered = cpuMap.some((id, i) => id !== i)
  const idle = h.cpus[0]?.idleStates.map((s) => `${s.name} ${s.exitLatencyUs}/${s.targetResidencyUs} us${s.disabled ? ' (disabled)' : ''}`).join(', ')
  return {
    name: 'host',
    description: `This machine: ${h.cpus.length} CPUs (${h.model || 'unknown model'}), Linux ${h.kernel}`,
    source:
      `Detected from sysfs: online CPUs, cpu_capacity, physical_package_id, core/thread siblings, cluster_id, the highest ` +
      `shared cache level's shared_cpu_list (LLC), NUMA node, cpuidle states (${h.cpuidleDriver ?? 'no driver'}/${h.cpuidleGovernor ?? '-'}: ${idle || 'none'}; ` +
      `exit latency/target residency).` +
      (renumbered ? ` Simulated CPU i is host CPU ${cpuMap.join(', ')} (clusters and SMT siblings made contiguous).` : ''),
    clusters,
    cpuMap
  }
}

/** The profile nearest to uname -r, this machine's HZ and preemption model. */
export function hostKernelSpec(h: HostInfo): NonNullable<HostSpecs['kernel']> {
  const { profile, note } = nearestProfile(h.kernel)
  const notes = [`Linux ${h.kernel}: ${note}`]
  let hz: KernelSpec['hz'] = 250
  if (h.hz === null) notes.push('HZ unknown (no readable kernel config): 250')
  else {
    hz = HZ_VALUES.reduce((best, v) => (Math.abs(v - (h.hz as number)) < Math.abs(best - (h.hz as number)) ? v : best), 250 as KernelSpec['hz'])
    notes.push(hz === h.hz ? `HZ ${hz} (${h.hzSource})` : `HZ ${h.hz} is not modeled: ${hz}`)
  }
  let preempt: PreemptModelName | undefined
  if (h.preempt === 'rt') {
    preempt = 'full'
    notes.push('PREEMPT_RT is modeled as full preemption (threaded interrupts and sleeping locks are not modeled)')
  } else if (h.preempt) {
    preempt = h.preempt
    notes.push(`preempt=${preempt} (${h.preemptSource})`)
  } else notes.push('preemption model unknown: the scenario\'s default')
  const features = stableBackports(h.kernel, notes)
  return { profile, hz, ...(preempt ? { preempt } : {}), ...(features ? { features } : {}), notes }
}

/**
 * Switches of a newer profile that a stable series took: 6.18.5 took 6.19's proportional
 * newidle balance (NI_RANDOM) with the revert of the max_newidle_lb_cost bump.
 */
export function stableBackports(release: string, notes: string[]): Record<string, boolean> | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(release)
  if (!m || Number(m[1]) !== 6 || Number(m[2]) !== 18 || Number(m[3]) < 5) return undefined
  notes.push('6.18.5+ has the 6.19 proportional newidle balance (NI_RANDOM)')
  return { NI_RANDOM: true }
}

let cache: HostSpecs | null = null

/** For ParseOptions.host: this machine, or why there is none (not Linux). */
export function hostSpecs(): HostSpecs {
  if (cache) return cache
  const why = linuxOrReason() ?? (existsSync(join('/sys/devices/system/cpu', 'online')) ? null : 'no /sys/devices/system/cpu: cannot read the CPUs')
  if (why) return (cache = { unavailable: why })
  const h = detectHost()
  const { cpuMap: _map, ...topology } = hostTopologySpec(h)
  return (cache = { topology, kernel: hostKernelSpec(h) })
}
