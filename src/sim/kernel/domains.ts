import type { Topology } from './topology-types'

/**
 * Sched domains, groups and the root domain, built from a Topology the way
 * kernel/sched/topology.c does it: one domain per topology level per CPU (SMT, CLS, MC, PKG,
 * NODE, NUMA...), sd_init() defaults and flags, groups from the child spans, degenerate
 * levels removed (cpu_attach_domain), then the per-CPU shortcuts (sd_llc, sd_asym_cpucapacity...).
 *
 * Facts checked against kernel source (search tool, facts only):
 * - flag order/meaning from include/linux/sched/sd_flags.h (values are 1 << position there:
 *   NEWIDLE, EXEC, FORK, WAKE, WAKE_AFFINE, ASYM_CPUCAPACITY, ASYM_CPUCAPACITY_FULL,
 *   SHARE_CPUCAPACITY, CLUSTER, SHARE_LLC, SERIALIZE, ASYM_PACKING, PREFER_SIBLING, OVERLAP,
 *   NUMA); every flag except WAKE_AFFINE "needs groups" (SDF_NEEDS_GROUPS), which is what
 *   sd_degenerate() tests.
 * - sd_init() values as in the model reference section 10 [V]; NUMA levels beyond
 *   node_reclaim_distance (30) lose BALANCE_EXEC/FORK and WAKE_AFFINE.
 * - powerpc builds SMT (small core), CACHE (L2 shared, SD_SHARE_LLC), MC, PKG
 *   (arch/powerpc/kernel/smp.c build_sched_topology), which our MC level represents.
 * - imb_numa_nr: nr_llcs = span / LLC span; 1 LLC -> span >> 3, else nr_llcs; scaled by
 *   span / first-NUMA-span above [M: from Mel Gorman's 2021 patch as read in the thread].
 */

import {
  SD_BALANCE_NEWIDLE, SD_BALANCE_EXEC, SD_BALANCE_FORK, SD_BALANCE_WAKE, SD_WAKE_AFFINE, SD_ASYM_CPUCAPACITY,
  SD_ASYM_CPUCAPACITY_FULL, SD_SHARE_CPUCAPACITY, SD_CLUSTER, SD_SHARE_LLC, SD_SERIALIZE, SD_ASYM_PACKING,
  SD_PREFER_SIBLING, SD_OVERLAP, SD_NUMA
} from '../../shared/patch-api'

export {
  SD_BALANCE_NEWIDLE, SD_BALANCE_EXEC, SD_BALANCE_FORK, SD_BALANCE_WAKE, SD_WAKE_AFFINE, SD_ASYM_CPUCAPACITY,
  SD_ASYM_CPUCAPACITY_FULL, SD_SHARE_CPUCAPACITY, SD_CLUSTER, SD_SHARE_LLC, SD_SERIALIZE, SD_ASYM_PACKING,
  SD_PREFER_SIBLING, SD_OVERLAP, SD_NUMA
}

export const SD_FLAG_NAMES: readonly string[] = [
  'SD_BALANCE_NEWIDLE', 'SD_BALANCE_EXEC', 'SD_BALANCE_FORK', 'SD_BALANCE_WAKE', 'SD_WAKE_AFFINE',
  'SD_ASYM_CPUCAPACITY', 'SD_ASYM_CPUCAPACITY_FULL', 'SD_SHARE_CPUCAPACITY', 'SD_CLUSTER',
  'SD_SHARE_LLC', 'SD_SERIALIZE', 'SD_ASYM_PACKING', 'SD_PREFER_SIBLING', 'SD_OVERLAP', 'SD_NUMA'
]

/** Flags that only make sense with two or more groups (SDF_NEEDS_GROUPS). */
const SD_DEGENERATE_GROUPS_MASK = ((1 << 15) - 1) & ~SD_WAKE_AFFINE
/** Flags set from the base domain upwards (SDF_SHARED_CHILD): a search may stop at the first miss. */
const SD_SHARED_CHILD_MASK =
  SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_BALANCE_WAKE | SD_WAKE_AFFINE |
  SD_SHARE_CPUCAPACITY | SD_SHARE_LLC

/** include/linux/topology.h RECLAIM_DISTANCE (node_reclaim_distance default). */
export const NODE_RECLAIM_DISTANCE = 30

/** enum cpu_idle_type: "idle" in the balancer is truthy for CPU_IDLE and CPU_NEWLY_IDLE. */
export { CPU_NOT_IDLE, CPU_IDLE, CPU_NEWLY_IDLE } from '../../shared/patch-api'

export function sdFlagNames(flags: number): string[] {
  const out: string[] = []
  for (let i = 0; i < SD_FLAG_NAMES.length; i++) if (flags & (1 << i)) out.push(SD_FLAG_NAMES[i])
  return out
}

/** Per-LLC state shared by the CPUs of one SD_SHARE_LLC domain (struct sched_domain_shared). */
export interface SchedDomainShared {
  id: number
  cpus: Int32Array
  /** CPUs of the LLC not in nohz idle; starts at the span weight like the kernel. */
  nrBusyCpus: number
  /** Some core of the LLC is fully idle (SMT only; set when a core goes idle, cleared by a failed scan). */
  hasIdleCores: boolean
  /** SIS_UTIL scan budget, refreshed by the periodic balance at the LLC level. */
  nrIdleScan: number
}

export interface SchedGroupCapacity {
  /** Sum of capacity_of() of the group's CPUs, refreshed by update_group_capacity(). */
  capacity: number
  minCapacity: number
  maxCapacity: number
  /** Next refresh time, ns. */
  nextUpdate: number
  /** Set when a balance left tasks pinned in this group (SOME_PINNED); read by the parent. */
  imbalance: number
}

export interface SchedGroup {
  id: number
  cpus: Int32Array
  mask: Uint8Array
  weight: number
  /** Number of SMT cores in the group (sg->cores). */
  cores: number
  firstCpu: number
  /** Child domain flags (sg->flags), e.g. SD_SHARE_CPUCAPACITY for a group that is one SMT core. */
  flags: number
  asymPreferCpu: number
  sgc: SchedGroupCapacity
}

export interface SchedDomain {
  /** Topology level name: SMT, CLS, MC, PKG, NODE, NUMA. */
  name: string
  /** Depth in the CPU's chain after degeneration, 0 = lowest. */
  level: number
  /** Index of the topology level it was built from (SchedDomains.levelNames). */
  tl: number
  cpu: number
  flags: number
  span: Int32Array
  spanMask: Uint8Array
  spanWeight: number
  parent: SchedDomain | null
  child: SchedDomain | null
  /** groups[0] is the group holding `cpu`; the rest in CPU order wrapping from `cpu`. */
  groups: SchedGroup[]
  /** Balance intervals in ms, as sd_init() sets them. */
  minInterval: number
  maxInterval: number
  busyFactor: number
  imbalancePct: number
  cacheNiceTries: number
  balanceInterval: number
  /** Time of the last periodic balance, ns. */
  lastBalance: number
  nrBalanceFailed: number
  /** Newidle balance cost tracking, ns. */
  maxNewidleLbCost: number
  lastDecayMaxLbCost: number
  /** Proportional newidle (NI_RANDOM/NI_RATE) statistics. */
  newidleCall: number
  newidleSuccess: number
  newidleRatio: number
  newidleStamp: number
  imbNumaNr: number
  /** node_distance of this NUMA level, 0 for non-NUMA levels. */
  numaDistance: number
  shared: SchedDomainShared | null
  /** Balance statistics indexed by CPU_NOT_IDLE / CPU_IDLE / CPU_NEWLY_IDLE. */
  lbCount: Float64Array
  lbBalanced: Float64Array
  lbFailed: Float64Array
  lbGained: Float64Array
  albCount: number
  albPushed: number
}

export interface RootDomain {
  span: Int32Array
  /** CPUs online (all of them in this model). */
  online: Uint8Array
  /** Some rq has more than one runnable task (or a misfit task): newidle balance is worth trying. */
  overloaded: boolean
  /** Some CPU is overutilized: EAS is off. */
  overutilized: boolean
  maxCpuCapacity: number
}

export interface SchedDomains {
  ncpus: number
  /** Level names in bottom-up order as built (before degeneration), e.g. SMT, MC, PKG, NODE, NUMA. */
  levelNames: string[]
  /** rq->sd: the lowest domain of each CPU (null on a 1-CPU system). */
  sd: (SchedDomain | null)[]
  sdLlc: (SchedDomain | null)[]
  sdLlcShared: (SchedDomainShared | null)[]
  sdLlcSize: Int32Array
  sdLlcId: Int32Array
  /** First CPU of the CLS cluster (sd_share_id), the LLC id when there is no cluster level. */
  sdShareId: Int32Array
  sdNuma: (SchedDomain | null)[]
  sdAsymCpucapacity: (SchedDomain | null)[]
  /** SMT siblings of each CPU including itself (cpu_smt_mask). */
  smtMask: Int32Array[]
  /** Dense core id per CPU. */
  coreOf: Int32Array
  rd: RootDomain
  domains: SchedDomain[]
  groups: SchedGroup[]
  shared: SchedDomainShared[]
}

export interface BuildDomainsOptions {
  /** Flags to add to every domain (e.g. SD_BALANCE_WAKE, which no preset sets by default). */
  setFlags?: number
  /** Flags to remove from every domain. */
  clearFlags?: number
}

interface LevelDef {
  name: string
  key: (cpu: number) => string
  tlFlags: number
  numaDistance: number
  overlap: boolean
}

function topologyLevels(topo: Topology): LevelDef[] {
  const cpus = topo.cpus
  const levels: LevelDef[] = []
  const plain = (name: string, key: (cpu: number) => string, tlFlags: number): LevelDef => ({
    name, key, tlFlags, numaDistance: 0, overlap: false
  })
  if (topo.smt) levels.push(plain('SMT', (c) => `c${cpus[c].core}`, SD_SHARE_CPUCAPACITY | SD_SHARE_LLC))
  if (cpus.some((c) => c.cls >= 0)) {
    levels.push(plain('CLS', (c) => (cpus[c].cls >= 0 ? `k${cpus[c].cls}` : `c${cpus[c].core}`), SD_CLUSTER | SD_SHARE_LLC))
  }
  levels.push(plain('MC', (c) => `l${cpus[c].llc}`, SD_SHARE_LLC))
  levels.push(plain('PKG', (c) => `p${cpus[c].package}`, 0))
  if (topo.nodes > 1) {
    // sched_init_numa(): the identity distance gives NODE, each larger distance a NUMA level.
    levels.push(plain('NODE', (c) => `n${cpus[c].node}`, 0))
    const dist = topo.numaDistance
    const distances = [...new Set(dist.flat())].filter((d) => d > dist[0][0]).sort((a, b) => a - b)
    for (const d of distances) {
      levels.push({
        name: 'NUMA',
        key: (c) => {
          const row = dist[cpus[c].node]
          let k = 'm'
          for (let n = 0; n < row.length; n++) if (row[n] <= d) k += `,${n}`
          return k
        },
        tlFlags: SD_NUMA,
        numaDistance: d,
        overlap: true
      })
    }
  }
  return levels
}

function emptyStats(): Float64Array {
  return new Float64Array(3)
}

/** asym_cpu_capacity_classify(): asymmetric if the span holds >1 capacity; FULL if it holds them all. */
function asymClassify(span: Int32Array, capOf: (c: number) => number, allCaps: number): number {
  const seen = new Set<number>()
  for (const c of span) seen.add(capOf(c))
  if (seen.size <= 1) return 0
  return seen.size === allCaps ? SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL : SD_ASYM_CPUCAPACITY
}

/** sd_init(): defaults and the topology-to-behaviour conversion. */
function sdInit(def: LevelDef, cpu: number, span: Int32Array, ncpus: number, child: SchedDomain | null, asym: number): SchedDomain {
  const w = span.length
  const mask = new Uint8Array(ncpus)
  for (const c of span) mask[c] = 1
  let flags =
    SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING | def.tlFlags | asym
  const sd: SchedDomain = {
    name: def.name, level: 0, tl: 0, cpu, flags, span, spanMask: mask, spanWeight: w, parent: null, child,
    groups: [], minInterval: w, maxInterval: 2 * w, busyFactor: 16, imbalancePct: 117, cacheNiceTries: 0,
    balanceInterval: w, lastBalance: 0, nrBalanceFailed: 0, maxNewidleLbCost: 0, lastDecayMaxLbCost: 0,
    // Proportional newidle starts at a 50% success ratio (6.19 sd_init).
    newidleCall: 512, newidleSuccess: 256, newidleRatio: 512, newidleStamp: 0,
    imbNumaNr: 0, numaDistance: def.numaDistance, shared: null,
    lbCount: emptyStats(), lbBalanced: emptyStats(), lbFailed: emptyStats(), lbGained: emptyStats(),
    albCount: 0, albPushed: 0
  }
  // Do not spread across CPUs of different capacities below an asymmetric level.
  if ((flags & SD_ASYM_CPUCAPACITY) && child) child.flags &= ~SD_PREFER_SIBLING
  if (flags & SD_SHARE_CPUCAPACITY) {
    sd.imbalancePct = 110
  } else if (flags & SD_SHARE_LLC) {
    sd.imbalancePct = 117
    sd.cacheNiceTries = 1
  } else if (flags & SD_NUMA) {
    sd.cacheNiceTries = 2
    flags &= ~SD_PREFER_SIBLING
    flags |= SD_SERIALIZE
    if (def.numaDistance > NODE_RECLAIM_DISTANCE) flags &= ~(SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE)
  } else {
    sd.cacheNiceTries = 1
  }
  if (def.overlap) flags |= SD_OVERLAP
  sd.flags = flags
  return sd
}

function sdDegenerate(sd: SchedDomain): boolean {
  if (sd.spanWeight === 1) return true
  if ((sd.flags & SD_DEGENERATE_GROUPS_MASK) && sd.groups.length > 1) return false
  if (sd.flags & SD_WAKE_AFFINE) return false
  return true
}

function sameSpan(a: SchedDomain, b: SchedDomain): boolean {
  if (a.spanWeight !== b.spanWeight) return false
  for (const c of a.span) if (!b.spanMask[c]) return false
  return true
}

function sdParentDegenerate(sd: SchedDomain, parent: SchedDomain): boolean {
  if (sdDegenerate(parent)) return true
  if (!sameSpan(sd, parent)) return false
  let pflags = parent.flags
  if (parent.groups.length <= 1) pflags &= ~SD_DEGENERATE_GROUPS_MASK
  return (~sd.flags & pflags) === 0
}

/** highest_flag_domain(): the highest domain with `flag`, stopping early for shared-child flags. */
export function highestFlagDomain(sd: SchedDomain | null, flag: number): SchedDomain | null {
  let hsd: SchedDomain | null = null
  for (let d = sd; d; d = d.parent) {
    if (d.flags & flag) {
      hsd = d
      continue
    }
    if (flag & SD_SHARED_CHILD_MASK) break
  }
  return hsd
}

export function lowestFlagDomain(sd: SchedDomain | null, flag: number): SchedDomain | null {
  for (let d = sd; d; d = d.parent) if (d.flags & flag) return d
  return null
}

export function buildSchedDomains(topo: Topology, opts: BuildDomainsOptions = {}): SchedDomains {
  const ncpus = topo.cpus.length
  const capOf = (c: number): number => topo.cpus[c].capacityOrig
  const allCaps = new Set(topo.cpus.map((c) => c.capacityOrig)).size
  const levels = topologyLevels(topo)
  const all = Int32Array.from({ length: ncpus }, (_, i) => i)

  // Members of each level key, so spans are computed once per level.
  const members: Map<string, number[]>[] = levels.map((def) => {
    const m = new Map<string, number[]>()
    for (let c = 0; c < ncpus; c++) {
      const k = def.key(c)
      const arr = m.get(k)
      if (arr) arr.push(c)
      else m.set(k, [c])
    }
    return m
  })

  // build_sched_domains(): one chain per CPU, stopping at the first level spanning every CPU.
  const chains: SchedDomain[][] = []
  for (let cpu = 0; cpu < ncpus; cpu++) {
    const chain: SchedDomain[] = []
    let child: SchedDomain | null = null
    for (let li = 0; li < levels.length; li++) {
      const def = levels[li]
      const set = new Set(members[li].get(def.key(cpu)) ?? [cpu])
      if (child) for (const c of child.span) set.add(c) // the kernel's fixup: a parent spans its child
      const span = Int32Array.from([...set].sort((a, b) => a - b))
      const sd = sdInit(def, cpu, span, ncpus, child, asymClassify(span, capOf, allCaps))
      sd.level = li
      sd.tl = li
      if (opts.setFlags) sd.flags |= opts.setFlags
      if (opts.clearFlags) sd.flags &= ~opts.clearFlags
      if (child) child.parent = sd
      chain.push(sd)
      child = sd
      if (span.length === ncpus) break
    }
    chains.push(chain)
  }

  computeImbNumaNr(chains)
  const { groups, shared } = buildGroupsAndShared(topo, chains)

  // cpu_attach_domain(): drop degenerate parents (passing PREFER_SIBLING down) and a degenerate base.
  const sdOf: (SchedDomain | null)[] = []
  for (let cpu = 0; cpu < ncpus; cpu++) {
    let base: SchedDomain | null = chains[cpu][0] ?? null
    for (let tmp = base; tmp; ) {
      const parent: SchedDomain | null = tmp.parent
      if (!parent) break
      if (sdParentDegenerate(tmp, parent)) {
        tmp.parent = parent.parent
        if (parent.parent) {
          parent.parent.child = tmp
          if (tmp.flags & SD_SHARE_CPUCAPACITY) parent.parent.groups[0].flags |= SD_SHARE_CPUCAPACITY
        }
        if (parent.flags & SD_PREFER_SIBLING) tmp.flags |= SD_PREFER_SIBLING
      } else {
        tmp = parent
      }
    }
    if (base && sdDegenerate(base)) {
      base = base.parent
      if (base) base.child = null
    }
    let lvl = 0
    for (let d = base; d; d = d.parent) d.level = lvl++
    sdOf.push(base)
  }

  const out: SchedDomains = {
    ncpus,
    levelNames: levels.map((l) => l.name),
    sd: sdOf,
    sdLlc: [],
    sdLlcShared: [],
    sdLlcSize: new Int32Array(ncpus),
    sdLlcId: new Int32Array(ncpus),
    sdShareId: new Int32Array(ncpus),
    sdNuma: [],
    sdAsymCpucapacity: [],
    smtMask: [],
    coreOf: Int32Array.from(topo.cpus.map((c) => c.core)),
    rd: {
      span: all,
      online: new Uint8Array(ncpus).fill(1),
      overloaded: false,
      overutilized: false,
      maxCpuCapacity: Math.max(...topo.cpus.map((c) => c.capacityOrig))
    },
    domains: [],
    groups,
    shared
  }
  // update_top_cache_domain()
  for (let cpu = 0; cpu < ncpus; cpu++) {
    const llc = highestFlagDomain(sdOf[cpu], SD_SHARE_LLC)
    out.sdLlc.push(llc)
    out.sdLlcShared.push(llc ? llc.shared : null)
    out.sdLlcSize[cpu] = llc ? llc.spanWeight : 1
    out.sdLlcId[cpu] = llc ? llc.span[0] : cpu
    const cls = lowestFlagDomain(sdOf[cpu], SD_CLUSTER)
    out.sdShareId[cpu] = cls && llc && cls.spanWeight < llc.spanWeight ? cls.span[0] : out.sdLlcId[cpu]
    out.sdNuma.push(lowestFlagDomain(sdOf[cpu], SD_NUMA))
    out.sdAsymCpucapacity.push(lowestFlagDomain(sdOf[cpu], SD_ASYM_CPUCAPACITY_FULL))
    out.smtMask.push(Int32Array.from(topo.cpus.filter((c) => c.core === topo.cpus[cpu].core).map((c) => c.id)))
    for (let d = sdOf[cpu]; d; d = d.parent) out.domains.push(d)
  }
  return out
}

/** imb_numa_nr: how many tasks a NUMA-level balance may leave imbalanced to keep LLCs apart. */
function computeImbNumaNr(chains: SchedDomain[][]): void {
  for (const chain of chains) {
    let imb = 0
    let imbSpan = 1
    for (const sd of chain) {
      const child = sd.child
      if (!(sd.flags & SD_SHARE_LLC) && child && child.flags & SD_SHARE_LLC) {
        const nrLlcs = Math.floor(sd.spanWeight / child.spanWeight)
        imb = Math.max(1, nrLlcs === 1 ? sd.spanWeight >> 3 : nrLlcs)
        sd.imbNumaNr = imb
        let top = sd.parent
        while (top && !(top.flags & SD_NUMA)) top = top.parent
        imbSpan = top ? top.spanWeight : sd.spanWeight
      } else {
        sd.imbNumaNr = imb * Math.max(1, Math.floor(sd.spanWeight / imbSpan))
      }
    }
  }
}

/**
 * build_sched_groups() / build_overlap_sched_groups(): groups of a domain are the spans of the
 * child domains of its CPUs, starting with the local one; groups and their capacity structures
 * are shared between CPUs (one per level and span). LLC-sharing levels get a shared state.
 */
function buildGroupsAndShared(topo: Topology, chains: SchedDomain[][]): { groups: SchedGroup[]; shared: SchedDomainShared[] } {
  const ncpus = topo.cpus.length
  const groupByKey = new Map<string, SchedGroup>()
  const sharedByKey = new Map<string, SchedDomainShared>()
  const groups: SchedGroup[] = []
  const shared: SchedDomainShared[] = []
  const getGroup = (li: number, span: Int32Array, flags: number): SchedGroup => {
    const key = `${li}|${span.join(',')}`
    let g = groupByKey.get(key)
    if (!g) {
      const mask = new Uint8Array(ncpus)
      let capacity = 0
      let minCap = Infinity
      let maxCap = 0
      const cores = new Set<number>()
      for (const c of span) {
        mask[c] = 1
        const cap = topo.cpus[c].capacityOrig
        capacity += cap
        minCap = Math.min(minCap, cap)
        maxCap = Math.max(maxCap, cap)
        cores.add(topo.cpus[c].core)
      }
      g = {
        id: groups.length, cpus: span, mask, weight: span.length, cores: cores.size, firstCpu: span[0], flags,
        asymPreferCpu: span[0], sgc: { capacity, minCapacity: minCap, maxCapacity: maxCap, nextUpdate: 0, imbalance: 0 }
      }
      groupByKey.set(key, g)
      groups.push(g)
    }
    return g
  }
  for (let cpu = 0; cpu < ncpus; cpu++) {
    chains[cpu].forEach((sd, li) => {
      const covered = new Uint8Array(ncpus)
      const w = sd.spanWeight
      const start = sd.span.indexOf(cpu)
      for (let k = 0; k < w; k++) {
        const i = sd.span[(start + k) % w]
        if (covered[i]) continue
        const sib = chains[i][Math.min(li, chains[i].length - 1)]
        const gspan = sib.child ? sib.child.span : Int32Array.of(i)
        const g = getGroup(li, gspan, sib.child ? sib.child.flags : 0)
        for (const c of g.cpus) covered[c] = 1
        sd.groups.push(g)
      }
      if (sd.flags & SD_SHARE_LLC) {
        const key = `${li}|${sd.span[0]}`
        let s = sharedByKey.get(key)
        if (!s) {
          s = { id: shared.length, cpus: sd.span, nrBusyCpus: w, hasIdleCores: false, nrIdleScan: w }
          sharedByKey.set(key, s)
          shared.push(s)
        }
        sd.shared = s
      }
    })
  }
  return { groups, shared }
}

export function cpusShareCache(d: SchedDomains, a: number, b: number): boolean {
  return d.sdLlcId[a] === d.sdLlcId[b]
}

export function cpusShareResources(d: SchedDomains, a: number, b: number): boolean {
  return d.sdShareId[a] === d.sdShareId[b]
}

/**
 * SIS_UTIL (update_idle_cpu_scan): how many CPUs select_idle_cpu may scan in an LLC whose CFS
 * utilization sums to `sumUtil`. x = average util per CPU; the scan shrinks with x^2 and stops
 * near 85% (1024 * 10000 / 117^2 = 748 is where tmp reaches 1024 with pct 117).
 */
export function nrIdleScanFromUtil(sumUtil: number, llcWeight: number, imbalancePct: number): number {
  const x = Math.floor(sumUtil / llcWeight)
  const tmp = Math.min(1024, Math.floor((x * x * imbalancePct * imbalancePct) / (10000 * 1024)))
  return Math.floor(((1024 - tmp) * llcWeight) / 1024)
}

/** msecs_to_jiffies(): rounds up. */
export function msecsToJiffies(ms: number, hz: number): number {
  return Math.ceil((ms * hz) / 1000)
}

/** max_load_balance_interval = HZ * num_online_cpus() / 10, in jiffies. */
export function maxLoadBalanceInterval(hz: number, onlineCpus: number): number {
  return Math.floor((hz * onlineCpus) / 10)
}

/**
 * get_sd_balance_interval(): the domain's balance interval stretched by busy_factor when the
 * CPU is busy, in jiffies, minus one when busy (so a busy CPU balances just before its idle
 * siblings would), clamped to [1, max_load_balance_interval].
 */
export function sdBalanceIntervalJiffies(sd: SchedDomain, cpuBusy: boolean, hz: number, onlineCpus: number): number {
  let interval = sd.balanceInterval
  if (cpuBusy) interval *= sd.busyFactor
  interval = msecsToJiffies(interval, hz)
  if (cpuBusy) interval -= 1
  return Math.min(Math.max(interval, 1), Math.max(1, maxLoadBalanceInterval(hz, onlineCpus)))
}

/** A readable dump of one CPU's domain chain (schedlab topologies, tests, debugging). */
export function describeDomains(d: SchedDomains, cpu: number): string[] {
  const lines: string[] = []
  for (let sd = d.sd[cpu]; sd; sd = sd.parent) {
    const groups = sd.groups.map((g) => (g.weight === 1 ? `${g.firstCpu}` : `${g.cpus[0]}-${g.cpus[g.weight - 1]}`))
    lines.push(
      `${sd.name} span=${sd.span[0]}-${sd.span[sd.spanWeight - 1]} (${sd.spanWeight}) groups=[${groups.join(' ')}] ` +
        `pct=${sd.imbalancePct} cnt=${sd.cacheNiceTries} ${sdFlagNames(sd.flags).join('|')}`
    )
  }
  return lines
}
