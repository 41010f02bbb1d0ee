import type { Topology } from './topology-types'
import { SCHED_CAPACITY_SCALE } from './pelt'

/**
 * Capacity fitness, uclamp aggregation, schedutil's frequency choice and the energy model
 * (model reference §9 util_fits_cpu, §11 EAS, §12 capacity).
 *
 * Facts: fits_capacity u*1280 < c*1024; capacity_greater a*1024 > b*1078; UCLAMP_BUCKETS 5
 * with bucket delta DIV_ROUND_CLOSEST(1024, 5) = 205 [M]; map_util_perf adds 25% headroom;
 * sugov_effective_cpu_perf() = max(min, min(max, util*1.25)) (6.8+) [M]; em_cpu_energy =
 * cost(state) * sum_util / scale_cpu with cost = power * f_max / f and the state the lowest
 * whose performance reaches max_util (energy_model.h, checked: the formula and its derivation).
 */

/** fits_capacity(): util fits when it leaves ~20% headroom. */
export function fitsCapacity(util: number, capacity: number): boolean {
  return util * 1280 < capacity * 1024
}

/** capacity_greater(): a is noticeably (~5%) bigger than b. */
export function capacityGreater(a: number, b: number): boolean {
  return a * 1024 > b * 1078
}

/**
 * util_fits_cpu(): 1 fits, 0 does not, -1 fits only thanks to uclamp_max while uclamp_min asks
 * for more than this CPU can give (the caller keeps looking for a better CPU).
 * capacityOf is capacity_of() (RT/IRQ pressure removed), thermal the thermal pressure.
 */
export function utilFitsCpu(
  util: number, uclampMin: number, uclampMax: number,
  capacityOrig: number, capacityOf: number, thermal: number, uclampUsed: boolean
): number {
  let fits = fitsCapacity(util, capacityOf)
  if (!uclampUsed) return fits ? 1 : 0
  // A uclamp_max below the CPU's capacity caps the task's demand: it "fits" wherever that cap
  // is met, except on the biggest CPU with no cap at all (there the real util decides).
  const maxIsDefaultOnBiggest = capacityOrig === SCHED_CAPACITY_SCALE && uclampMax === SCHED_CAPACITY_SCALE
  const uclampMaxFits = !maxIsDefaultOnBiggest && uclampMax <= capacityOrig
  fits = fits || uclampMaxFits
  const umin = Math.min(uclampMin, uclampMax)
  if (fits && util < umin && umin > capacityOrig - thermal) return -1
  return fits ? 1 : 0
}

// ---- uclamp ---------------------------------------------------------------------------------

export const UCLAMP_MIN = 0
export const UCLAMP_MAX = 1
export const UCLAMP_BUCKETS = 5
export const UCLAMP_BUCKET_DELTA = Math.round(SCHED_CAPACITY_SCALE / UCLAMP_BUCKETS)

export function uclampBucketId(value: number): number {
  return Math.min(Math.floor(value / UCLAMP_BUCKET_DELTA), UCLAMP_BUCKETS - 1)
}

/**
 * Per-runqueue uclamp aggregation: each clamp is the max over RUNNABLE tasks, tracked in
 * buckets. A bucket keeps its max value while it has tasks (the kernel accepts overboosting
 * tasks sharing a bucket); when the max task's bucket empties the next non-empty bucket wins.
 * An idle rq keeps its last UCLAMP_MAX (so a blocked capped task still caps the frequency)
 * and drops UCLAMP_MIN to 0.
 */
export class UclampRq {
  readonly ncpus: number
  /** [cpu][clamp][bucket] task counts and values, flattened. */
  private readonly tasks: Int32Array
  private readonly bucketValue: Int32Array
  /** [cpu][clamp] aggregated value. */
  readonly value: Int32Array
  /** UCLAMP_FLAG_IDLE per CPU. */
  readonly idle: Uint8Array

  constructor(ncpus: number) {
    this.ncpus = ncpus
    this.tasks = new Int32Array(ncpus * 2 * UCLAMP_BUCKETS)
    this.bucketValue = new Int32Array(ncpus * 2 * UCLAMP_BUCKETS)
    this.value = new Int32Array(ncpus * 2)
    this.idle = new Uint8Array(ncpus).fill(1)
    for (let c = 0; c < ncpus; c++) this.value[c * 2 + UCLAMP_MAX] = SCHED_CAPACITY_SCALE
  }

  get(cpu: number, clampId: number): number {
    return this.value[cpu * 2 + clampId]
  }

  /** uclamp_rq_is_idle(): no runnable task holds a clamp here. */
  isIdle(cpu: number): boolean {
    return this.idle[cpu] === 1
  }

  /** uclamp_rq_inc(): a task with effective clamps (min, max) becomes runnable on `cpu`. */
  inc(cpu: number, min: number, max: number): void {
    this.incId(cpu, UCLAMP_MIN, min)
    this.incId(cpu, UCLAMP_MAX, max)
    this.idle[cpu] = 0
  }

  dec(cpu: number, min: number, max: number): void {
    this.decId(cpu, UCLAMP_MIN, min)
    this.decId(cpu, UCLAMP_MAX, max)
  }

  private incId(cpu: number, id: number, v: number): void {
    const base = (cpu * 2 + id) * UCLAMP_BUCKETS
    const b = base + uclampBucketId(v)
    // uclamp_idle_reset(): the first runnable task replaces the value kept over idle.
    if (id === UCLAMP_MAX && this.idle[cpu]) this.value[cpu * 2 + id] = v
    this.tasks[b]++
    if (this.tasks[b] === 1 || v > this.bucketValue[b]) this.bucketValue[b] = v
    if (v > this.value[cpu * 2 + id]) this.value[cpu * 2 + id] = v
  }

  private decId(cpu: number, id: number, v: number): void {
    const base = (cpu * 2 + id) * UCLAMP_BUCKETS
    const b = base + uclampBucketId(v)
    if (this.tasks[b] > 0) this.tasks[b]--
    if (this.tasks[b] > 0) return
    // The emptied bucket held the rq's max: recompute it.
    if (this.bucketValue[b] < this.value[cpu * 2 + id]) return
    // uclamp_rq_max_value(): the highest non-empty bucket, else the idle value.
    for (let k = UCLAMP_BUCKETS - 1; k >= 0; k--) {
      if (this.tasks[base + k] > 0) {
        this.value[cpu * 2 + id] = this.bucketValue[base + k]
        return
      }
    }
    if (id === UCLAMP_MAX) {
      this.idle[cpu] = 1
      this.value[cpu * 2 + id] = v
    } else {
      this.value[cpu * 2 + id] = 0
    }
  }

  /** Number of runnable tasks accounted on `cpu` (for invariant checks). */
  count(cpu: number): number {
    let n = 0
    const base = cpu * 2 * UCLAMP_BUCKETS
    for (let k = 0; k < UCLAMP_BUCKETS; k++) n += this.tasks[base + k]
    return n
  }
}

/** uclamp_eff_value() without cgroups: the request capped by the system default (1024). */
export function uclampEffValue(requested: number): number {
  return Math.min(requested, SCHED_CAPACITY_SCALE)
}

// ---- schedutil ------------------------------------------------------------------------------

/** map_util_perf(): 25% headroom. */
export function mapUtilPerf(util: number): number {
  return util + (util >> 2)
}

/** Scratch outputs of effectiveCpuUtil (no allocation per call). */
export interface UtilBounds {
  min: number
  max: number
}

/**
 * effective_cpu_util(): CFS + RT (+DL, none here) utilization, capped at capacity_orig.
 * Also the performance bounds: min = rq uclamp_min (or the maximum while an RT task is runnable
 * and uclamp is unused), max = min(capacity, rq uclamp_max).
 */
export function effectiveCpuUtil(
  capacityOrig: number, utilCfs: number, utilRt: number,
  rqUclampMin: number, rqUclampMax: number, rtRunnable: boolean, uclampUsed: boolean, out: UtilBounds | null
): number {
  if (out) {
    let min = rqUclampMin
    if (!uclampUsed && rtRunnable) min = Math.max(min, capacityOrig)
    out.min = min
    out.max = Math.min(capacityOrig, rqUclampMax)
  }
  const util = utilCfs + utilRt
  return util >= capacityOrig ? capacityOrig : util
}

/** sugov_effective_cpu_perf(): the performance level schedutil asks for. */
export function sugovEffectiveCpuPerf(actual: number, min: number, max: number): number {
  const a = mapUtilPerf(actual)
  const m = a < max ? a : max
  return min > m ? min : m
}

// ---- energy model ---------------------------------------------------------------------------

/** One performance domain (cpufreq policy) with its energy model table, ascending frequency. */
export interface PerfDomain {
  id: number
  cpus: Int32Array
  /** arch_scale_cpu_capacity() of the domain's CPUs (capacity at the highest OPP). */
  capacity: number
  freqKhz: Float64Array
  /** Performance (capacity) reached at each OPP: capacity * f / f_max. */
  perf: Float64Array
  powerUw: Float64Array
  /** power * f_max / f: energy per unit of work at that OPP. */
  cost: Float64Array
}

/** Build perf domains from the clusters' OPP tables (one policy per cluster); none without OPPs. */
export function buildPerfDomains(topo: Topology): PerfDomain[] {
  const pds: PerfDomain[] = []
  topo.spec.clusters.forEach((cl, ci) => {
    if (!cl.opps || cl.opps.length === 0) return
    const cpus = Int32Array.from(topo.cpus.filter((c) => c.cluster === ci).map((c) => c.id))
    if (cpus.length === 0) return
    const opps = [...cl.opps].sort((a, b) => a.freqKhz - b.freqKhz)
    const fmax = opps[opps.length - 1].freqKhz
    pds.push({
      id: pds.length,
      cpus,
      capacity: cl.capacity,
      freqKhz: Float64Array.from(opps.map((o) => o.freqKhz)),
      perf: Float64Array.from(opps.map((o) => Math.floor((cl.capacity * o.freqKhz) / fmax))),
      powerUw: Float64Array.from(opps.map((o) => Math.round(o.powerMw * 1000))),
      cost: Float64Array.from(opps.map((o) => Math.floor((Math.round(o.powerMw * 1000) * fmax) / o.freqKhz)))
    })
  })
  return pds
}

/**
 * The kernel refuses EAS when perf domains x (states + CPUs) exceeds EM_MAX_COMPLEXITY (2048),
 * and needs every CPU covered, asymmetric capacity and no SMT (build_perf_domains()).
 */
export const EM_MAX_COMPLEXITY = 2048

export function energyModelUsable(topo: Topology, pds: readonly PerfDomain[]): boolean {
  if (!topo.asymCapacity || topo.smt || pds.length === 0) return false
  let covered = 0
  let states = 0
  for (const pd of pds) {
    covered += pd.cpus.length
    states += pd.freqKhz.length
  }
  if (covered !== topo.cpus.length) return false
  return pds.length * (states + topo.cpus.length) <= EM_MAX_COMPLEXITY
}

/** em_pd_get_efficient_state(): the lowest OPP whose performance reaches `maxUtil`. */
export function emEfficientState(pd: PerfDomain, maxUtil: number): number {
  const n = pd.perf.length
  for (let i = 0; i < n; i++) if (pd.perf[i] >= maxUtil) return i
  return n - 1
}

/**
 * em_cpu_energy(): energy of the domain running `sumUtil` at the OPP chosen for `maxUtil`
 * (both on the capacity scale). Only differences between candidate placements matter.
 */
export function emCpuEnergy(pd: PerfDomain, maxUtil: number, sumUtil: number, allowedCpuCap: number): number {
  if (!sumUtil) return 0
  const m = maxUtil < allowedCpuCap ? maxUtil : allowedCpuCap
  const s = emEfficientState(pd, m)
  return Math.floor((pd.cost[s] * sumUtil) / pd.capacity)
}

/**
 * schedutil's frequency for a policy whose CPUs ask for performance `perf` (max over its CPUs
 * of sugov_effective_cpu_perf): get_next_freq() f = f_max * perf / capacity, then the lowest
 * OPP at or above it (CPUFREQ_RELATION_L). Returns the OPP index.
 */
export function schedutilOppIndex(pd: PerfDomain, perf: number): number {
  const n = pd.freqKhz.length
  const fmax = pd.freqKhz[n - 1]
  const target = Math.floor((fmax * perf) / pd.capacity)
  for (let i = 0; i < n; i++) if (pd.freqKhz[i] >= target) return i
  return n - 1
}

/** arch_scale_freq_capacity() for an OPP: (f << 10) / f_max. */
export function freqScaleOf(pd: PerfDomain, opp: number): number {
  const n = pd.freqKhz.length
  return Math.floor((pd.freqKhz[opp] * SCHED_CAPACITY_SCALE) / pd.freqKhz[n - 1])
}
