import type { ClusterSpec, IdleStateSpec, OppSpec, Topology, TopologySpec } from './topology-types'
import { buildTopology, smpSpec } from './topology'

/**
 * Topology presets. Every number says where it comes from: a public device tree or kernel
 * driver table (read through the project's source search, facts only), or a stated estimate.
 */

export interface TopologyPresetDoc {
  /** Preset name as written in a scenario ("smp-N" stands for smp-1, smp-2, ...). */
  name: string
  description: string
  source: string
}

/** The arm cpuidle WFI state every arm64 CPU has as state 0 (exit 1 us, residency 1 us). */
const ARM_WFI: IdleStateSpec = { name: 'WFI', exitLatencyUs: 1, targetResidencyUs: 1 }

/**
 * cpuidle's exit latency for a DT idle state without wakeup-latency-us is
 * entry-latency-us + exit-latency-us (drivers/cpuidle/dt_idle_states.c, checked).
 */
function dtIdleState(name: string, entryUs: number, exitUs: number, minResidencyUs: number): IdleStateSpec {
  return { name, exitLatencyUs: entryUs + exitUs, targetResidencyUs: minResidencyUs }
}

/**
 * capacity_orig as topology_normalize_cpu_scale() derives it: capacity-dmips-mhz times the
 * maximum frequency, normalised so the largest CPU gets 1024 (truncating division).
 */
export function capacityFromDmips(dmipsMhz: number, maxKhz: number, biggestDmipsTimesKhz: number): number {
  return Math.floor((dmipsMhz * maxKhz * 1024) / biggestDmipsTimesKhz)
}

/**
 * Power of each OPP from the cluster's dynamic-power-coefficient as the OPP library computes it
 * for the energy model (P[uW] = dpc * mV^2 * MHz / 1e6, dev_pm_opp_of_register_em), returned
 * in mW. The voltages are not public for SM8250 (cpufreq-hw reads them from the firmware LUT),
 * so they are a stated estimate: linear from `mvLow` at the lowest to `mvHigh` at the highest OPP.
 */
export function oppsFromDpc(freqsKhz: readonly number[], dpc: number, mvLow: number, mvHigh: number): OppSpec[] {
  const fLo = freqsKhz[0]
  const fHi = freqsKhz[freqsKhz.length - 1]
  return freqsKhz.map((freqKhz) => {
    const mv = fHi === fLo ? mvHigh : Math.round(mvLow + ((mvHigh - mvLow) * (freqKhz - fLo)) / (fHi - fLo))
    const uw = Math.floor((dpc * mv * mv * Math.floor(freqKhz / 1000)) / 1e6)
    return { freqKhz, powerMw: uw / 1000 }
  })
}

// SM8250 (QRB5165) cpufreq OPP tables, opp-hz of cpu0/cpu4/cpu7_opp_table in
// arch/arm64/boot/dts/qcom/sm8250.dtsi (mainline, 2024+). Node cpu7_opp9 is named
// opp-1747200000 but carries opp-hz 1708800000; the OPP core uses opp-hz, so do we.
const SM8250_SILVER_KHZ = [
  300000, 403200, 518400, 614400, 691200, 787200, 883200, 979200, 1075200, 1171200, 1248000, 1344000,
  1420800, 1516800, 1612800, 1708800, 1804800
]
const SM8250_GOLD_KHZ = [
  710400, 825600, 940800, 1056000, 1171200, 1286400, 1382400, 1478400, 1574400, 1670400, 1766400,
  1862400, 1958400, 2054400, 2150400, 2246400, 2342400, 2419200
]
const SM8250_PRIME_KHZ = [
  844800, 960000, 1075200, 1190400, 1305600, 1401600, 1516800, 1632000, 1708800, 1862400, 1977600,
  2073600, 2169600, 2265600, 2361600, 2457600, 2553600, 2649600, 2745600, 2841600
]
const lastOf = (a: readonly number[]): number => a[a.length - 1]

/** capacity-dmips-mhz: 448 (Kryo 485 silver, cpu0-3) and 1024 (gold cpu4-6, prime cpu7). */
const RB5_BIGGEST = 1024 * lastOf(SM8250_PRIME_KHZ)

function rb5Cluster(
  name: string, cpus: number, dmipsMhz: number, freqsKhz: readonly number[], dpc: number,
  mv: [number, number], idleStates: IdleStateSpec[]
): ClusterSpec {
  return {
    name,
    cpus,
    capacity: capacityFromDmips(dmipsMhz, lastOf(freqsKhz), RB5_BIGGEST),
    llc: 0,
    idleStates,
    opps: oppsFromDpc(freqsKhz, dpc, mv[0], mv[1])
  }
}

export function rb5Spec(): TopologySpec {
  const silverIdle = [ARM_WFI, dtIdleState('silver-rail-power-collapse', 360, 531, 3934)]
  const goldIdle = [ARM_WFI, dtIdleState('gold-rail-power-collapse', 702, 1061, 4488)]
  return {
    name: 'rb5',
    description: 'Qualcomm RB5 (QRB5165/SM8250): 4 little + 3 mid + 1 big Kryo 485, one shared L3, asymmetric capacity, EAS energy model',
    source:
      'arch/arm64/boot/dts/qcom/sm8250.dtsi: capacity-dmips-mhz 448/1024/1024, dynamic-power-coefficient ' +
      '105/379/444, cpufreq OPP frequencies (cpu0/cpu4/cpu7_opp_table), idle-states little_cpu_sleep_0 ' +
      '(entry 360, exit 531, min-residency 3934 us) and big_cpu_sleep_0 (702, 1061, 4488 us); cpuidle exit ' +
      'latency = entry + exit. capacity_orig = dmips x fmax normalised to 1024 (284/871/1024). OPP voltages ' +
      'are an estimate (linear 600-850 mV silver, 600-1000 mV gold, 650-1050 mV prime) giving power via the ' +
      'DPC formula. The cluster power-collapse domain state (exit 3264+6562 us, residency 9987 us) needs all ' +
      '8 CPUs idle and is not modeled as a per-CPU state. Costs: fitted by `schedlab calibrate --topology rb5 ' +
      '--published` to the seed tables (seed 000 hackbench 1 and 8 groups, process and thread, tip and v1; ' +
      'seed 002 cyclictest p50 56 and p90 62 us): residuals -11..+16 % on hackbench (short-slice v1 at 8 groups ' +
      'still 16 % slower than on the boards), -3.5/+1.2 % on cyclictest.',
    // derived with `schedlab calibrate --topology rb5 --published` (docs/model.md)
    costs: { contextSwitchUs: 0.558, timerIrqUs: 3, ipiUs: 2, coldSwitchUs: 9.88, hackbenchWriteUs: 0.704, hackbenchReadUs: 0.704 },
    arch: 'arm64',
    clusters: [
      rb5Cluster('little', 4, 448, SM8250_SILVER_KHZ, 105, [600, 850], silverIdle),
      rb5Cluster('mid', 3, 1024, SM8250_GOLD_KHZ, 379, [600, 1000], goldIdle),
      rb5Cluster('big', 1, 1024, SM8250_PRIME_KHZ, 444, [650, 1050], goldIdle)
    ]
  }
}

export function embedded18Spec(): TopologySpec {
  const sizes = [2, 4, 4, 4, 4]
  return {
    name: 'embedded-18',
    description: 'Seed 004 embedded SoC: 18 CPUs at 2.1 GHz, clusters 0-1, 2-5, 6-9, 10-13, 14-17, each an LLC; two levels (MC, PKG)',
    source:
      'Seed 004 (Xin Zhao, LB_PROMOTE thread): "two-level scheduling hierarchy with 18 CPUs ... 0-1, 2-5, ' +
      '6-9, 10-13, and 14-17. Each cluster is LLC"; HZ=250. The thread also says "first three sd_llc ' +
      'domains each contains 4 CPUs and the last contains 2"; we follow the explicit CPU list. Symmetric ' +
      'capacity 1024 and the default idle states (WFI, cpu-off 50/500 us) are a stated estimate.',
    arch: 'arm64',
    clusters: sizes.map((cpus, i) => ({ name: `cluster${i}`, cpus, capacity: 1024, llc: i }))
  }
}

/** intel_idle skx_cstates (Skylake-SP), drivers/idle/intel_idle.c: exit/target residency in us. */
const SKX_CSTATES: IdleStateSpec[] = [
  { name: 'C1', exitLatencyUs: 2, targetResidencyUs: 2 },
  { name: 'C1E', exitLatencyUs: 10, targetResidencyUs: 20 },
  { name: 'C6', exitLatencyUs: 133, targetResidencyUs: 600 }
]

export function x86TwoSocketSpec(): TopologySpec {
  const socket = (s: number): ClusterSpec => ({
    name: `socket${s}`,
    cpus: 40,
    capacity: 1024,
    smt: 2,
    package: s,
    node: s,
    idleStates: SKX_CSTATES
  })
  return {
    name: 'x86-2s',
    arch: 'x86_64',
    description: 'Two-socket x86 server: 2 sockets x 20 cores x SMT2 = 80 CPUs, one LLC and NUMA node per socket',
    source:
      'Seed 003\'s 2-socket machine: mmtests\' config-scheduler-unbound runs hackbench up to NUMCPUS x 4 groups, ' +
      'capped at 296, and the letter\'s rows reach 296, so the machine has at least 74 CPUs; 2 x 20 cores x SMT2 ' +
      'is the smallest common 2-socket Xeon layout with that many (stated estimate). Idle states: intel_idle skx_cstates (C1 2/2, C1E ' +
      '10/20, C6 133/600 us). SLIT distance 21 between sockets (typical firmware value). CPUs are numbered ' +
      'with SMT siblings adjacent (Linux on x86 usually enumerates siblings N apart; only the numbering differs).',
    numaDistance: [
      [10, 21],
      [21, 10]
    ],
    // Fitted to seed 003's vanilla columns only (the baseline: NEXT_BUDDY v4's column is
    // predicted). From 48 to 296 groups hackbench is throughput-bound: the board spends 1.1-1.5 us
    // of CPU per pipe message and 3.2-3.4 us per socket message, where the default 1.2 us per
    // write and read made pipes 1.9-2.4x slow and sockets 0.75x. At 1 group a sender's own writes
    // bound the time (1.3 us per write on the board, 20 senders sharing each pipe), which one
    // cost per message cannot give as well: 0.65 us per pipe write and read keep every pipes row
    // within 2x (0.55x at 1 group, 1.0x at 12, 1.06x at 48, 1.34x at 296); sockets 1.3 us
    // (0.95x at 4 groups, 0.88x at 79).
    costs: { hackbenchWriteUs: 0.65, hackbenchReadUs: 0.65, hackbenchSocketWriteUs: 1.3, hackbenchSocketReadUs: 1.3 },
    clusters: [socket(0), socket(1)]
  }
}

/** cpuidle-pseries dedicated-partition states: snooze (0/0) and CEDE (exit 10, residency 100 us). */
const PSERIES_DEDICATED: IdleStateSpec[] = [
  { name: 'snooze', exitLatencyUs: 0, targetResidencyUs: 0 },
  { name: 'CEDE', exitLatencyUs: 10, targetResidencyUs: 100 }
]

export function power11Spec(): TopologySpec {
  const clusters: ClusterSpec[] = []
  for (let core = 0; core < 20; core++) {
    const node = Math.floor(core / 5)
    clusters.push({
      name: `node${node}-core${core % 5}`,
      cpus: 8,
      capacity: 1024,
      smt: 4,
      llc: core,
      package: node,
      node,
      idleStates: PSERIES_DEDICATED
    })
  }
  const dist = [0, 1, 2, 3].map((a) => [0, 1, 2, 3].map((b) => (a === b ? 10 : 40)))
  return {
    name: 'power11-160',
    arch: 'powerpc',
    description: 'IBM Power11 LPAR of seed 003: 4 sockets / NUMA nodes, 160 CPUs, 5 SMT8 cores per socket',
    source:
      'Seed 003 (Power11, 4 sockets, 160 CPUs, 4 NUMA nodes). Sched levels follow arch/powerpc/kernel/smp.c ' +
      'for big cores: SMT = small core (4 threads), CACHE = the SMT8 core sharing L2 (SD_SHARE_LLC, our MC ' +
      'level), PKG = socket, then NUMA. Idle states: cpuidle-pseries dedicated snooze and CEDE (10/100 us). ' +
      'Node distance 40 (PowerVM-style) is a stated estimate; >30 removes wake-affine/fork balancing at NUMA. ' +
      'Small-core threads are interleaved on real hardware (0,2,4,6 / 1,3,5,7); here they are adjacent.',
    numaDistance: dist,
    clusters
  }
}

const FIXED: Record<string, () => TopologySpec> = {
  rb5: rb5Spec,
  'embedded-18': embedded18Spec,
  'x86-2s': x86TwoSocketSpec,
  'power11-160': power11Spec
}

export const TOPOLOGY_PRESETS: readonly TopologyPresetDoc[] = [
  ...Object.values(FIXED).map((f) => {
    const s = f()
    return { name: s.name, description: s.description ?? '', source: s.source ?? '' }
  }),
  {
    name: 'smp-N',
    description: 'N identical CPUs of capacity 1024 sharing one LLC (smp-1 ... smp-1024)',
    source: smpSpec(1).source ?? ''
  }
]

export const MAX_SMP_CPUS = 1024

/** The preset's spec, or undefined for an unknown name. */
export function presetSpec(name: string): TopologySpec | undefined {
  const f = FIXED[name]
  if (f) return f()
  const m = /^smp-(\d+)$/.exec(name)
  if (m) {
    const n = Number(m[1])
    if (n >= 1 && n <= MAX_SMP_CPUS) return smpSpec(n)
  }
  return undefined
}

export class UnknownTopologyError extends Error {}

/**
 * A topology from a preset name ("rb5", "smp-8", ...) or a custom cluster description
 * (`{ name, clusters: [...] }`, already validated by sim/scenario).
 */
export function resolveTopology(nameOrSpec: string | TopologySpec): Topology {
  if (typeof nameOrSpec !== 'string') return buildTopology(nameOrSpec)
  const spec = presetSpec(nameOrSpec)
  if (!spec) {
    const known = TOPOLOGY_PRESETS.map((p) => p.name).join(', ')
    throw new UnknownTopologyError(`unknown topology "${nameOrSpec}" (known: ${known})`)
  }
  return buildTopology(spec)
}
