/**
 * Energy-aware wakeup placement (model reference §11): find_energy_efficient_cpu() with
 * compute_energy() over the perf domains' energy model. Used by select_task_rq_fair() for
 * wakeups when EAS applies (asymmetric capacities, an energy model, schedutil, no SMT) and the
 * root domain is not overutilized.
 */
import type { EnergyEnv, FairSched } from './sched'
import * as energy from './energy'
import type { PerfDomain } from './energy'

// Bound once: called per CPU per candidate on every EAS wakeup, and module namespaces compiled
// to CommonJS (tsx) resolve each access through a getter.
const effectiveCpuUtil = energy.effectiveCpuUtil
const emCpuEnergy = energy.emCpuEnergy
const sugovEffectiveCpuPerf = energy.sugovEffectiveCpuPerf
const UCLAMP_MIN = energy.UCLAMP_MIN
const UCLAMP_MAX = energy.UCLAMP_MAX

function taskQueued(fs: FairSched, p: number): boolean {
  return fs.k.onRq[p] !== 0 || fs.k.curr[fs.k.taskCpu[p]] === p
}

/** cpu_util(cpu, p, dst, boost) with the task's current accounting CPU. */
function cpuUtilWith(fs: FairSched, cpu: number, p: number, dst: number, boost: boolean): number {
  return fs.pelt.cpuUtil(cpu, p, fs.k.taskCpu[p], taskQueued(fs, p), dst, boost)
}

/** eenv_pd_busy_time(): the domain's summed effective utilization without the task. */
function pdBusyTime(fs: FairSched, env: EnergyEnv, cpus: Int32Array, p: number): void {
  fs.selectScanned += cpus.length
  let busy = 0
  for (let j = 0; j < cpus.length; j++) {
    const c = cpus[j]
    const util = cpuUtilWith(fs, c, p, -1, false)
    busy += effectiveCpuUtil(fs.capOrig[c], util, fs.pelt.cpuUtilRt(c), 0, 1024, false, fs.uclampUsed, null)
  }
  env.pdBusyTime = Math.min(env.pdCap, busy)
}

/**
 * eenv_pd_max_util(): the performance schedutil would request for the domain with the task
 * on `dst` (or nowhere, dst = -1), uclamp included.
 */
function pdMaxUtil(fs: FairSched, env: EnergyEnv, cpus: Int32Array, p: number, dst: number): number {
  fs.selectScanned += cpus.length
  let maxUtil = 0
  const b = fs.eenvBounds
  for (let j = 0; j < cpus.length; j++) {
    const c = cpus[j]
    const util = cpuUtilWith(fs, c, p, dst, true)
    const rtRunnable = fs.k.rt.nrRunning[c] > 0
    const eff = effectiveCpuUtil(
      fs.capOrig[c], util, fs.pelt.cpuUtilRt(c), fs.uclamp.get(c, UCLAMP_MIN), fs.uclamp.get(c, UCLAMP_MAX),
      rtRunnable, fs.uclampUsed, b
    )
    let min = b.min
    let max = b.max
    if (c === dst && fs.uclampUsed) {
      min = Math.max(min, fs.uclampTask(p, UCLAMP_MIN))
      max = fs.uclamp.isIdle(c) ? fs.uclampTask(p, UCLAMP_MAX) : Math.max(max, fs.uclampTask(p, UCLAMP_MAX))
    }
    const perf = sugovEffectiveCpuPerf(eff, min, max)
    if (perf > maxUtil) maxUtil = perf
  }
  return Math.min(maxUtil, env.cpuCap)
}

/** compute_energy(): energy of the domain with the task on `dst` (-1: the base, without it). */
export function computeEnergy(fs: FairSched, env: EnergyEnv, pd: PerfDomain, p: number, dst: number): number {
  const maxUtil = pdMaxUtil(fs, env, pd.cpus, p, dst)
  let busy = env.pdBusyTime
  if (dst >= 0) busy = Math.min(env.pdCap, busy + env.taskBusyTime)
  return emCpuEnergy(pd, maxUtil, busy, env.cpuCap)
}

/**
 * find_energy_efficient_cpu(): in each perf domain evaluate prev (always) and the allowed CPU
 * with the most spare capacity among those the task fits; pick the lowest energy increase,
 * preferring better uclamp fitness. Returns -1 when EAS cannot decide (the caller falls back).
 */
export function findEnergyEfficientCpu(fs: FairSched, p: number, prevCpu: number, thisCpu: number): number {
  const k = fs.k
  const d = fs.d
  if (fs.pds.length === 0) return -1
  let sd = d.sdAsymCpucapacity[thisCpu]
  while (sd && !sd.spanMask[prevCpu]) sd = sd.parent
  if (!sd) return -1
  let target = prevCpu
  const pCpu = k.taskCpu[p]
  if (pCpu >= 0) fs.pelt.syncEntityLoadAvg(pCpu, p)
  const pUtilMin = fs.uclampUsed ? fs.uclampTask(p, UCLAMP_MIN) : 0
  const pUtilMax = fs.uclampUsed ? fs.uclampTask(p, UCLAMP_MAX) : 1024
  if (!fs.taskUtilEst(p) && pUtilMin === 0) return target
  if (k.f.EAS_COST) return feecByCost(fs, sd.spanMask, p, prevCpu, pUtilMin, pUtilMax)

  const env = fs.eenv
  // eenv_task_busy_time(): no IRQ time in this model.
  env.taskBusyTime = Math.min(fs.taskUtilEst(p), fs.capOrig[prevCpu])
  let prevDelta = Infinity
  let bestDelta = Infinity
  let prevFits = -1
  let bestFits = -1
  let bestActualCap = 0
  let prevActualCap = 0
  let bestEnergyCpu = -1

  for (const pd of fs.pds) {
    const cpuActualCap = fs.capOrig[pd.cpus[0]]
    env.cpuCap = cpuActualCap
    env.pdCap = 0
    let prevSpare = -1
    let maxSpare = -1
    let maxSpareCpu = -1
    let maxFits = -1
    for (let j = 0; j < pd.cpus.length; j++) {
      const c = pd.cpus[j]
      env.pdCap += cpuActualCap
      if (!sd.spanMask[c] || !k.cpuAllowed(p, c)) continue
      fs.selectScanned++
      const util = cpuUtilWith(fs, c, p, c, false)
      let cpuCap = fs.capacityOf[c]
      const fits = candidateFits(fs, c, util, pUtilMin, pUtilMax)
      if (!fits) continue
      cpuCap = cpuCap > util ? cpuCap - util : 0
      if (c === prevCpu) {
        prevSpare = cpuCap
        prevFits = fits
      } else if (fits > maxFits || (fits === maxFits && cpuCap > maxSpare)) {
        maxSpare = cpuCap
        maxSpareCpu = c
        maxFits = fits
      }
    }
    if (maxSpareCpu < 0 && prevSpare < 0) continue
    pdBusyTime(fs, env, pd.cpus, p)
    const base = computeEnergy(fs, env, pd, p, -1)
    if (prevSpare > -1) {
      const e = computeEnergy(fs, env, pd, p, prevCpu)
      if (k.rec !== null) k.rec.feecCandidate(p, prevCpu, e - base, prevFits)
      if (e < base) return target
      prevDelta = e - base
      prevActualCap = cpuActualCap
      bestDelta = Math.min(bestDelta, prevDelta)
    }
    if (maxSpareCpu >= 0 && maxSpare > prevSpare) {
      if (maxFits < bestFits) continue
      if (maxFits < 0 && cpuActualCap <= bestActualCap) continue
      const e = computeEnergy(fs, env, pd, p, maxSpareCpu)
      if (k.rec !== null) k.rec.feecCandidate(p, maxSpareCpu, e - base, maxFits)
      if (e < base) return target
      const cur = e - base
      if (maxFits > 0 && bestFits > 0 && cur >= bestDelta) continue
      bestDelta = cur
      bestEnergyCpu = maxSpareCpu
      bestFits = maxFits
      bestActualCap = cpuActualCap
    }
  }
  if (bestFits > prevFits || (bestFits > 0 && bestDelta < prevDelta) || (bestFits < 0 && bestActualCap > prevActualCap)) {
    target = bestEnergyCpu
  }
  return target
}

/** util_fits_cpu() of a candidate with the task's uclamp max-aggregated with the rq's. */
function candidateFits(fs: FairSched, c: number, util: number, pUtilMin: number, pUtilMax: number): number {
  let umin = pUtilMin
  let umax = pUtilMax
  if (fs.uclampUsed && !fs.uclamp.isIdle(c)) {
    umin = Math.max(fs.uclamp.get(c, UCLAMP_MIN), pUtilMin)
    umax = Math.max(fs.uclamp.get(c, UCLAMP_MAX), pUtilMax)
  }
  return fs.utilFitsCpu(util, umin, umax, c)
}

/**
 * find_energy_efficient_cpu() as reworked by short-slice v2 patches 15-18 (cover letter only:
 * "Rework feec() to use cost instead of spare capacity", "Take into account slice in EAS",
 * em_cpu_energy() removed). Design choices:
 * - Every allowed CPU that fits is a candidate (not only prev and the max-spare CPU of each
 *   perf domain). Its cost is the energy model cost of the OPP its perf domain would need with
 *   the task on it (schedutil's request, headroom and uclamp included), per unit of capacity
 *   (cost / capacity of the domain), so domains of different capacities compare.
 * - Lowest cost wins; ties go to the higher capacity_of(), then to more spare capacity, then
 *   to prev, then to the lower CPU number. A CPU where the task only fits thanks to uclamp_max
 *   (util_fits_cpu = -1) ranks after every CPU it really fits.
 * - EAS_SLICE: a CPU where the task would not run first (busy, and its shortest queued slice
 *   is not longer than the task's) ranks after every CPU where it would, whatever its cost.
 * - No candidate: prev, as feec does.
 */
function feecByCost(fs: FairSched, span: Uint8Array, p: number, prevCpu: number, pUtilMin: number, pUtilMax: number): number {
  const k = fs.k
  const env = fs.eenv
  const sliceAware = k.f.EAS_SLICE === true
  const slice = k.slice[p]
  let best = -1
  let bFirst = false
  let bFits = 0
  let bCost = Infinity
  let bCap = 0
  let bSpare = 0
  for (const pd of fs.pds) {
    env.cpuCap = fs.capOrig[pd.cpus[0]]
    for (let j = 0; j < pd.cpus.length; j++) {
      const c = pd.cpus[j]
      if (!span[c] || !k.cpuAllowed(p, c)) continue
      fs.selectScanned++
      const util = cpuUtilWith(fs, c, p, c, false)
      const fits = candidateFits(fs, c, util, pUtilMin, pUtilMax)
      if (!fits) continue
      const maxUtil = pdMaxUtil(fs, env, pd.cpus, p, c)
      const cost = pd.cost[energy.emEfficientState(pd, maxUtil)] / pd.capacity
      const cap = fs.capacityOf[c]
      const spare = cap > util ? cap - util : 0
      const first = !sliceAware || fs.idleCpu(c) || slice < k.rqMinSlice[c]
      let better: boolean
      if (best < 0) better = true
      else if (first !== bFirst) better = first
      else if (fits !== bFits) better = fits > bFits
      else if (cost !== bCost) better = cost < bCost
      else if (cap !== bCap) better = cap > bCap
      else if (spare !== bSpare) better = spare > bSpare
      else better = c === prevCpu
      if (!better) continue
      best = c
      bFirst = first
      bFits = fits
      bCost = cost
      bCap = cap
      bSpare = spare
    }
  }
  return best >= 0 ? best : prevCpu
}

export function newEnergyEnv(): EnergyEnv {
  return { taskBusyTime: 0, pdBusyTime: 0, cpuCap: 0, pdCap: 0 }
}

