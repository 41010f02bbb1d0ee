/**
 * Wakeup and fork CPU selection for fair tasks (model reference §9): select_task_rq_fair(),
 * wake_wide(), wake_affine() with WA_IDLE/WA_WEIGHT/WA_BIAS, select_idle_sibling() with its
 * idle-core / SIS_UTIL-limited scan or select_idle_capacity() on asymmetric systems, and the
 * slow path sched_balance_find_dst_cpu() used for fork/exec (and SD_BALANCE_WAKE domains).
 *
 * Seed switches acting here:
 * - SS7_WAKE_AFFINE_SLICE (seed 000/7, v2/4): wake_affine_slice() between WA_IDLE and WA_WEIGHT.
 * - SS8_SELECT_SLICE_CPU (seed 000/8): select_slice_cpu(), a second scan for a CPU whose
 *   running slices are longer than the wakee's, once the idle search failed.
 * - SLICE_TRACK_SCAN (reviewer alternative to 000/8) and SSV2_SLICE_SCAN (v2/5): the same
 *   choice made during the idle scans (see SliceScan), without a second scan.
 * - LBP5_THIN_SELECT (seed 004/5, under LB_PROMOTE): select_task_rq_fair_thin().
 * - ALT_LBP_SLOW_WAKE (reviewer alternative to 004/5, under LB_PROMOTE): no wake-affine fast
 *   path; wakeups take the slow path as if every domain had SD_BALANCE_WAKE.
 * Every CPU a selection examines is counted in fs.selectScanned (the modeled cost).
 */
import type { FairSched, ScanScratch, SliceScan } from './sched'
import { NIL } from './eevdf-tree'
import { WF_CURRENT_CPU, WF_SYNC, WF_TTWU } from './api'
import {
  cpusShareCache, cpusShareResources, SD_ASYM_CPUCAPACITY, SD_BALANCE_FORK, SD_CLUSTER, SD_NUMA,
  SD_WAKE_AFFINE, type SchedDomain, type SchedGroup
} from './domains'
import { UCLAMP_MAX, UCLAMP_MIN } from './energy'
import { findEnergyEfficientCpu } from './eas'
import {
  GROUP_FULLY_BUSY, GROUP_HAS_SPARE, GROUP_MISFIT_TASK, GROUP_OVERLOADED, groupClassify, SgStats, adjustNumaImbalance
} from './group-stats'

/** select_task_rq_fair() */
export function selectTaskRqFair(fs: FairSched, p: number, prevCpu: number, wakeFlags: number, thisCpu: number): number {
  const k = fs.k
  const f = k.f
  if (f.LB_PROMOTE && f.LBP5_THIN_SELECT) return selectTaskRqFairThin(fs, p, prevCpu)
  const cpu = thisCpu >= 0 ? thisCpu : prevCpu
  const sync = (wakeFlags & WF_SYNC) !== 0
  const sdFlag = wakeFlags & 0xf
  let newCpu = prevCpu
  let wantAffine = false
  if (wakeFlags & WF_TTWU) {
    if (wakeFlags & WF_CURRENT_CPU && k.cpuAllowed(p, cpu)) return cpu
    if (fs.eas && !fs.d.rd.overutilized) {
      const target = findEnergyEfficientCpu(fs, p, prevCpu, cpu)
      if (target >= 0) return target
    }
    wantAffine = !fs.k.fn.wakeWide(fs, p, cpu) && k.cpuAllowed(p, cpu)
  }
  // The reviewer alternative to the thin selection: force the slow path for wakeups.
  const slowWake = f.LB_PROMOTE === true && f.ALT_LBP_SLOW_WAKE === true && (wakeFlags & WF_TTWU) !== 0
  if (slowWake) wantAffine = false
  let slow: SchedDomain | null = null
  for (let tmp = fs.d.sd[cpu]; tmp; tmp = tmp.parent) {
    // Both this CPU and prev are in this domain: a valid wake-affine target.
    if (wantAffine && tmp.flags & SD_WAKE_AFFINE && tmp.spanMask[prevCpu]) {
      if (cpu !== prevCpu) {
        newCpu = fs.k.fn.wakeAffine(fs, tmp, p, cpu, prevCpu, sync)
        if (k.rec !== null) k.rec.wakeAffine(p, cpu, prevCpu, newCpu)
      }
      slow = null
      break
    }
    // Usually only fork/exec: domains rarely have SD_BALANCE_WAKE.
    if (tmp.flags & sdFlag || slowWake) slow = tmp
    else if (!wantAffine) break
  }
  if (slow) return schedBalanceFindDstCpu(fs, slow, p, cpu, prevCpu, sdFlag, slowWake)
  if (wakeFlags & WF_TTWU) return fs.k.fn.selectIdleSibling(fs, p, prevCpu, newCpu, true)
  return newCpu >= 0 && k.cpuAllowed(p, newCpu) ? newCpu : firstAllowed(fs, p, cpu)
}

/**
 * select_task_rq_fair_thin() (seed 004/5): prev if idle, else recent_used_cpu if idle, else
 * the first idle allowed CPU scanning all allowed CPUs from the first CPU of prev's LLC, else
 * prev. No wake_affine, no SIS_UTIL budget, no EAS; also used for fork.
 */
export function selectTaskRqFairThin(fs: FairSched, p: number, prevCpu: number): number {
  const k = fs.k
  fs.selectScanned++
  if (fs.idleCpu(prevCpu)) return prevCpu
  const recent = k.recentUsedCpu[p]
  k.recentUsedCpu[p] = prevCpu
  if (recent >= 0 && recent !== prevCpu) {
    fs.selectScanned++
    if (fs.idleCpu(recent)) return recent
  }
  const c = firstIdleFromLlc(fs, p, prevCpu, -1, false)
  return c >= 0 ? c : prevCpu
}

/**
 * The scan of seed 004 patches 5 and 7: p's allowed CPUs in order, wrapping, from the first
 * allowed CPU of llcCpu's LLC (the first allowed CPU when none is there); the first idle one
 * other than `exclude` (and, for patch 7, without an active balance pending). -1 if none.
 */
export function firstIdleFromLlc(fs: FairSched, p: number, llcCpu: number, exclude: number, noActiveBalance: boolean): number {
  const k = fs.k
  const n = fs.ncpus
  let start = -1
  const llc = fs.d.sdLlc[llcCpu]
  if (llc) {
    for (const c of llc.span) {
      if (k.cpuAllowed(p, c)) {
        start = c
        break
      }
    }
  }
  if (start < 0) start = firstAllowed(fs, p, 0)
  for (let i = 0; i < n; i++) {
    const c = (start + i) % n
    if (!k.cpuAllowed(p, c)) continue
    fs.selectScanned++
    if (c !== exclude && fs.idleCpu(c) && !(noActiveBalance && fs.activeBalance[c])) return c
  }
  return -1
}

/** Index in span of the first CPU >= cpu: where for_each_cpu_wrap(span, cpu) starts. */
function wrapStart(span: Int32Array, cpu: number): number {
  let first = 0
  while (first < span.length && span[first] < cpu) first++
  return first
}

function firstAllowed(fs: FairSched, p: number, from: number): number {
  const n = fs.ncpus
  for (let i = 0; i < n; i++) {
    const c = (from + i) % n
    if (fs.k.cpuAllowed(p, c)) return c
  }
  return from
}

/**
 * wake_wide(): a waker that switches between many wakees (a server with workers) should not
 * pull them all onto its LLC: wide when both flip counts reach the LLC size, the larger one
 * by a factor of the LLC size.
 */
export function wakeWide(fs: FairSched, p: number, cpu: number): boolean {
  const k = fs.k
  const waker = k.curr[cpu]
  let master = waker !== NIL ? k.wakeeFlips[waker] : 0
  let slave = k.wakeeFlips[p]
  const factor = fs.d.sdLlcSize[cpu]
  if (master < slave) {
    const t = master
    master = slave
    slave = t
  }
  return !(slave < factor || master < slave * factor)
}

/** wake_affine(): this CPU if WA_IDLE or WA_WEIGHT choose it, otherwise prev. */
export function wakeAffine(fs: FairSched, sd: SchedDomain, p: number, thisCpu: number, prevCpu: number, sync: boolean): number {
  const f = fs.k.f
  let target = -1
  if (f.WA_IDLE !== false) target = wakeAffineIdle(fs, thisCpu, prevCpu, sync)
  if (f.SS7_WAKE_AFFINE_SLICE && f.PREEMPT_SHORT && target < 0) target = wakeAffineSlice(fs, p, thisCpu, prevCpu)
  if (f.WA_WEIGHT !== false && target < 0) target = wakeAffineWeight(fs, sd, p, thisCpu, prevCpu, sync)
  return target === thisCpu ? thisCpu : prevCpu
}

/**
 * wake_affine_slice() (seed 000/7): on which of prev and this CPU would the wakee most
 * probably run first? prev if its slice is shorter than every slice queued there (so it can
 * preempt), else this CPU on the same test, else no opinion.
 */
function wakeAffineSlice(fs: FairSched, p: number, thisCpu: number, prevCpu: number): number {
  const k = fs.k
  const slice = k.slice[p]
  if (slice < k.rqMinSlice[prevCpu]) return prevCpu
  if (slice < k.rqMinSlice[thisCpu]) return thisCpu
  return -1
}

function wakeAffineIdle(fs: FairSched, thisCpu: number, prevCpu: number, sync: boolean): number {
  // An idle waker means an interrupt woke the task: move only within the cache.
  if (fs.idleCpu(thisCpu) && cpusShareCache(fs.d, thisCpu, prevCpu)) return fs.idleCpu(prevCpu) ? prevCpu : thisCpu
  if (sync) {
    const k = fs.k
    // nr_running minus delayed-dequeued fair tasks: the waker is about to sleep.
    const delayed = k.cfsNrQueued[thisCpu] - k.cfsNrRunnable[thisCpu]
    if (k.nrRunning[thisCpu] - delayed === 1) return thisCpu
  }
  if (fs.idleCpu(prevCpu)) return prevCpu
  return -1
}

function wakeAffineWeight(fs: FairSched, sd: SchedDomain, p: number, thisCpu: number, prevCpu: number, sync: boolean): number {
  const k = fs.k
  let thisEff = fs.cpuLoad(thisCpu)
  if (sync) {
    const waker = k.curr[thisCpu]
    const currentLoad = waker !== NIL && k.isFair(waker) ? fs.taskHLoad(waker) : 0
    if (currentLoad > thisEff) return thisCpu
    thisEff -= currentLoad
  }
  const taskLoad = fs.taskHLoad(p)
  thisEff += taskLoad
  const bias = k.f.WA_BIAS !== false
  if (bias) thisEff *= 100
  thisEff *= fs.capacityOf[prevCpu]
  let prevEff = fs.cpuLoad(prevCpu) - taskLoad
  if (bias) prevEff *= 100 + Math.trunc((sd.imbalancePct - 100) / 2)
  prevEff *= fs.capacityOf[thisCpu]
  // With sync, a tie lets select_idle_sibling consider stacking the wakee on the waker.
  if (sync) prevEff += 1
  return thisEff < prevEff ? thisCpu : -1
}

/** available_idle_cpu() || sched_idle_cpu(): what the idle scans accept. */
function idleOrSchedIdle(fs: FairSched, cpu: number): boolean {
  return fs.idleCpu(cpu) || fs.schedIdleCpu(cpu)
}

/**
 * select_idle_sibling(): target, prev or recent_used_cpu when idle and cache-affine, then an
 * idle CPU of the LLC (or, with asymmetric capacities, the idle CPU that fits the task best).
 */
export function selectIdleSibling(fs: FairSched, p: number, prev: number, target: number, wakeup = true): number {
  const k = fs.k
  const d = fs.d
  const f = k.f
  let taskUtil = 0
  let umin = 0
  let umax = 1024
  const asym = fs.asym && d.sdAsymCpucapacity[target] !== null
  if (asym) {
    fs.pelt.syncEntityLoadAvg(k.taskCpu[p] >= 0 ? k.taskCpu[p] : prev, p)
    taskUtil = fs.taskUtilEst(p)
    umin = fs.uclampTask(p, UCLAMP_MIN)
    umax = fs.uclampTask(p, UCLAMP_MAX)
  }
  const ss = fs.sliceScan
  // The push's "not wakeup" selection looks for the best CPU to run first on (see fair-push.ts).
  ss.mode = !wakeup || f.SSV2_SLICE_SCAN ? SLICE_SCAN_BEST : f.SLICE_TRACK_SCAN ? SLICE_SCAN_FIRST : SLICE_SCAN_OFF
  ss.push = !wakeup
  ss.best = -1
  ss.bestMinSlice = 0
  ss.asym = asym
  ss.util = taskUtil
  ss.umin = umin
  ss.umax = umax
  fs.selectScanned++
  if (idleOrSchedIdle(fs, target) && asymFits(fs, asym, taskUtil, umin, umax, target)) return target
  let prevAff = -1
  if (prev !== target && cpusShareCache(d, prev, target) && idleOrSchedIdle(fs, prev) && asymFits(fs, asym, taskUtil, umin, umax, prev)) {
    if (!fs.clusterActive || cpusShareResources(d, prev, target)) return prev
    prevAff = prev
  }
  // a per-CPU kthread waking a task whose previous CPU is its own (IO completion) is
  // essentially a sync wakeup: stack the wakee there
  const waker = k.currentTask
  if (
    wakeup && waker >= 0 && k.attrs[waker].kthread === true && k.nrCpusAllowed[waker] === 1 &&
    prev === k.thisCpu && k.nrRunning[prev] <= 1 && asymFits(fs, asym, taskUtil, umin, umax, prev)
  ) return prev
  let recent = k.recentUsedCpu[p]
  // the push path (short-slice v2 "not wakeup case") reads recent_used_cpu without rotating it
  if (wakeup) k.recentUsedCpu[p] = prev
  if (
    recent >= 0 && recent !== prev && recent !== target && cpusShareCache(d, recent, target) &&
    idleOrSchedIdle(fs, recent) && k.cpuAllowed(p, recent) && asymFits(fs, asym, taskUtil, umin, umax, recent)
  ) {
    if (!fs.clusterActive || cpusShareResources(d, recent, target)) return recent
  } else {
    recent = -1
  }
  if (asym) {
    const sd = d.sdAsymCpucapacity[target]!
    const i = fs.k.fn.selectIdleCapacity(fs, p, sd, target)
    if (i >= 0) return i
    return selectSlice(fs, p, sd, target)
  }
  const sd = d.sdLlc[target]
  if (!sd) return target
  let hasIdleCore = false
  if (k.topo.smt) {
    hasIdleCore = d.sdLlcShared[target]?.hasIdleCores ?? false
    if (!hasIdleCore && cpusShareCache(d, prev, target)) {
      const i = selectIdleSmt(fs, p, sd, prev)
      if (i >= 0) return i
    }
  }
  const i = fs.k.fn.selectIdleCpu(fs, p, sd, hasIdleCore, target)
  if (i >= 0) return i
  if (prevAff >= 0) return prevAff
  if (recent >= 0) return recent
  return selectSlice(fs, p, sd, target)
}

/**
 * The last level of select_idle_sibling() once no idle CPU was found: the slice candidate
 * the idle scans recorded (SSV2_SLICE_SCAN, SLICE_TRACK_SCAN), else select_slice_cpu()'s own
 * scan (SS8_SELECT_SLICE_CPU), else target.
 */
function selectSlice(fs: FairSched, p: number, sd: SchedDomain, target: number): number {
  const ss = fs.sliceScan
  if (ss.mode !== SLICE_SCAN_OFF && ss.best >= 0) return ss.best
  if (fs.k.f.SS8_SELECT_SLICE_CPU) {
    const i = selectSliceCpu(fs, p, sd, target)
    if (i >= 0) return i
  }
  return target
}

/**
 * select_slice_cpu() (seed 000/8): scan the domain from target (the SIS_UTIL budget of
 * select_idle_cpu, nothing when the LLC is busy) for the first CPU whose queued slices are all
 * longer than the wakee's; on asymmetric systems it must also fit the task (util and uclamp).
 */
export function selectSliceCpu(fs: FairSched, p: number, sd: SchedDomain, target: number): number {
  const k = fs.k
  let nr = Number.MAX_SAFE_INTEGER
  if (k.f.SIS_UTIL !== false && sd.shared) {
    nr = sd.shared.nrIdleScan + 1
    if (nr === 1) return -1
  }
  const ss = fs.sliceScan
  const slice = k.slice[p]
  const w = sd.spanWeight
  const first = wrapStart(sd.span, target)
  for (let i = 0; i < w; i++) {
    const c = sd.span[(first + i) % w]
    if (!k.cpuAllowed(p, c)) continue
    if (--nr <= 0) return -1
    fs.selectScanned++
    if (slice >= k.rqMinSlice[c]) continue
    if (!ss.asym || fs.utilFitsCpu(ss.util, ss.umin, ss.umax, c) > 0) return c
  }
  return -1
}

export const SLICE_SCAN_OFF = 0
/** SLICE_TRACK_SCAN: the first CPU the idle scans visited that passes select_slice_cpu's test. */
export const SLICE_SCAN_FIRST = 1
/** SSV2_SLICE_SCAN: of those, the one whose shortest queued slice is the longest. */
export const SLICE_SCAN_BEST = 2

export function newSliceScan(): SliceScan {
  return { mode: SLICE_SCAN_OFF, push: false, best: -1, bestMinSlice: 0, asym: false, util: 0, umin: 0, umax: 1024 }
}

/** A non-idle CPU visited by an idle scan: remember it if the wakee would run first there. */
function noteSliceCandidate(fs: FairSched, p: number, c: number): void {
  const ss = fs.sliceScan
  if (ss.mode === SLICE_SCAN_OFF) return
  if (ss.mode === SLICE_SCAN_FIRST && ss.best >= 0) return
  const minSlice = fs.k.rqMinSlice[c]
  if (!(fs.k.slice[p] < minSlice)) return
  if (ss.best >= 0 && minSlice <= ss.bestMinSlice) return
  if (ss.asym && fs.utilFitsCpu(ss.util, ss.umin, ss.umax, c) <= 0) return
  ss.best = c
  ss.bestMinSlice = minSlice
}

/** asym_fits_cpu(): on asymmetric systems a candidate must fit the task. */
function asymFits(fs: FairSched, asym: boolean, util: number, umin: number, umax: number, cpu: number): boolean {
  return !asym || fs.utilFitsCpu(util, umin, umax, cpu) > 0
}

/** select_idle_smt(): an idle SMT sibling of `target` inside the LLC. */
function selectIdleSmt(fs: FairSched, p: number, sd: SchedDomain, target: number): number {
  for (const c of fs.d.smtMask[target]) {
    if (c === target || !fs.k.cpuAllowed(p, c) || !sd.spanMask[c]) continue
    fs.selectScanned++
    if (idleOrSchedIdle(fs, c)) return c
  }
  return -1
}

/**
 * select_idle_cpu(): scan the LLC from target+1 (the target's cluster first) for an idle core
 * (when the LLC has one) or an idle CPU. With SIS_UTIL the CPU scan stops after nr_idle_scan
 * CPUs, and does not start at all when the LLC is busy (nr_idle_scan = 0).
 */
export function selectIdleCpu(fs: FairSched, p: number, sd: SchedDomain, hasIdleCore: boolean, target: number): number {
  const k = fs.k
  let nr = Number.MAX_SAFE_INTEGER
  // the push is not a wakeup fast path: it scans the whole LLC
  if (k.f.SIS_UTIL !== false && !fs.sliceScan.push) {
    const shared = fs.d.sdLlcShared[target]
    if (shared) {
      nr = shared.nrIdleScan + 1
      if (nr === 1) return -1
    }
  }
  const cpus = fs.selMask
  const w = sd.spanWeight
  for (let i = 0; i < w; i++) {
    const c = sd.span[i]
    cpus[c] = k.cpuAllowed(p, c) ? 1 : 0
  }
  const scratch = fs.scanScratch
  scratch.idleCpu = -1
  scratch.p = p
  const local = sd.groups[0]
  if (fs.clusterActive && local.flags & SD_CLUSTER) {
    const r = scanWrap(fs, local.cpus, target + 1, hasIdleCore, cpus, nr, scratch)
    if (r !== SCAN_CONTINUE) return r
    nr = scratch.nr
    for (let j = 0; j < local.weight; j++) cpus[local.cpus[j]] = 0
  }
  const r = scanWrap(fs, sd.span, target + 1, hasIdleCore, cpus, nr, scratch)
  if (r !== SCAN_CONTINUE) return r
  if (hasIdleCore) {
    const shared = fs.d.sdLlcShared[target]
    if (shared) shared.hasIdleCores = false
  }
  return scratch.idleCpu
}

const SCAN_CONTINUE = -2

/** One for_each_cpu_wrap() pass of select_idle_cpu over `span` ∩ `cpus` from `start`. */
function scanWrap(
  fs: FairSched, span: Int32Array, start: number, hasIdleCore: boolean, cpus: Uint8Array, nr: number,
  scratch: ScanScratch
): number {
  const w = span.length
  const first = wrapStart(span, start)
  for (let i = 0; i < w; i++) {
    const c = span[(first + i) % w]
    if (!cpus[c]) continue
    fs.selectScanned++
    if (hasIdleCore) {
      const r = selectIdleCore(fs, c, cpus, scratch)
      if (r >= 0) return r
      if (!idleOrSchedIdle(fs, c)) noteSliceCandidate(fs, scratch.p, c)
    } else {
      if (--nr <= 0) return -1
      if (idleOrSchedIdle(fs, c)) return c
      noteSliceCandidate(fs, scratch.p, c)
    }
  }
  scratch.nr = nr
  return SCAN_CONTINUE
}

/** select_idle_core(): `core`'s whole SMT core idle -> it; remember a first idle thread. */
function selectIdleCore(fs: FairSched, core: number, cpus: Uint8Array, scratch: ScanScratch): number {
  let idle = true
  for (const c of fs.d.smtMask[core]) {
    if (!fs.idleCpu(c)) {
      idle = false
      if (scratch.idleCpu === -1) {
        if (fs.schedIdleCpu(c) && cpus[c]) {
          scratch.idleCpu = c
          break
        }
        continue
      }
      break
    }
    if (scratch.idleCpu === -1 && cpus[c]) scratch.idleCpu = c
  }
  if (idle) return core
  for (const c of fs.d.smtMask[core]) cpus[c] = 0
  return -1
}

/**
 * select_idle_capacity(): on asymmetric systems, the first idle CPU that fits the task
 * (util and uclamp), else the idle CPU that fits best (-1 before 0), biggest capacity first.
 */
export function selectIdleCapacity(fs: FairSched, p: number, sd: SchedDomain, target: number): number {
  const k = fs.k
  const taskUtil = fs.taskUtilEst(p)
  const umin = fs.uclampTask(p, UCLAMP_MIN)
  const umax = fs.uclampTask(p, UCLAMP_MAX)
  let bestCap = 0
  let bestFits = 0
  let bestCpu = -1
  const w = sd.spanWeight
  const first = wrapStart(sd.span, target)
  for (let i = 0; i < w; i++) {
    const c = sd.span[(first + i) % w]
    if (!k.cpuAllowed(p, c)) continue
    fs.selectScanned++
    if (!idleOrSchedIdle(fs, c)) {
      noteSliceCandidate(fs, p, c)
      continue
    }
    let cap = fs.capacityOf[c]
    const fits = fs.utilFitsCpu(taskUtil, umin, umax, c)
    if (fits > 0) return c
    if (fits < 0) cap = fs.capOrig[c]
    if (fits < bestFits || (fits === bestFits && cap > bestCap)) {
      bestCap = cap
      bestCpu = c
      bestFits = fits
    }
  }
  return bestCpu
}

// ---- slow path ------------------------------------------------------------------------------

/**
 * sched_balance_find_dst_cpu() (find_idlest_cpu): walk down from `sd`, at each level moving to
 * the idlest group and then its idlest CPU, continuing from that CPU's domains.
 */
export function schedBalanceFindDstCpu(
  fs: FairSched, sdIn: SchedDomain, p: number, cpuIn: number, prevCpu: number, sdFlag: number, everyDomain = false
): number {
  const k = fs.k
  let sd: SchedDomain | null = sdIn
  let cpu = cpuIn
  let newCpu = cpu
  let anyAllowed = false
  for (const c of sdIn.span) if (k.cpuAllowed(p, c)) anyAllowed = true
  if (!anyAllowed) return prevCpu
  if (!(sdFlag & SD_BALANCE_FORK) && k.taskCpu[p] >= 0) fs.pelt.syncEntityLoadAvg(k.taskCpu[p], p)
  while (sd) {
    if (!(sd.flags & sdFlag) && !everyDomain) {
      sd = sd.child
      continue
    }
    const group = findDstGroup(fs, sd, p, cpu)
    if (!group) {
      sd = sd.child
      continue
    }
    newCpu = findDstGroupCpu(fs, group, p, cpu)
    if (newCpu === cpu) {
      sd = sd.child
      continue
    }
    cpu = newCpu
    const weight = sd.spanWeight
    sd = null
    for (let tmp = fs.d.sd[cpu]; tmp; tmp = tmp.parent) {
      if (weight <= tmp.spanWeight) break
      if (tmp.flags & sdFlag || everyDomain) sd = tmp
    }
  }
  return k.cpuAllowed(p, newCpu) ? newCpu : firstAllowed(fs, p, newCpu)
}

/** sched_balance_find_dst_group_cpu(): a SCHED_IDLE-only CPU, else the shallowest idle, else least loaded. */
function findDstGroupCpu(fs: FairSched, group: SchedGroup, p: number, thisCpu: number): number {
  const k = fs.k
  if (group.weight === 1) return group.firstCpu
  let minLoad = Infinity
  let minExitLatency = Infinity
  let latestIdle = -Infinity
  let leastLoaded = thisCpu
  let shallowest = -1
  fs.selectScanned += group.weight
  for (const i of group.cpus) {
    if (!k.cpuAllowed(p, i)) continue
    if (fs.schedIdleCpu(i)) return i
    if (fs.idleCpu(i)) {
      const exit = fs.idleExitLatencyNs(i)
      if (exit >= 0 && exit < minExitLatency) {
        minExitLatency = exit
        latestIdle = k.idleStart[i]
        shallowest = i
      } else if ((exit < 0 || exit === minExitLatency) && k.idleStart[i] > latestIdle) {
        latestIdle = k.idleStart[i]
        shallowest = i
      }
    } else if (shallowest === -1) {
      const load = fs.cpuLoad(i)
      if (load < minLoad) {
        minLoad = load
        leastLoaded = i
      }
    }
  }
  return shallowest !== -1 ? shallowest : leastLoaded
}

/** update_sg_wakeup_stats(): group statistics as if `p` were not counted where it is now. */
function updateSgWakeupStats(fs: FairSched, sd: SchedDomain, group: SchedGroup, sgs: SgStats, p: number): void {
  const k = fs.k
  sgs.reset()
  fs.selectScanned += group.weight
  if (sd.flags & SD_ASYM_CPUCAPACITY) sgs.groupMisfitTaskLoad = 1
  const pCpu = k.taskCpu[p]
  const pAttached = fs.pelt.se.attached[p] !== 0
  for (const i of group.cpus) {
    const own = i === pCpu && pAttached
    let load = fs.cpuLoad(i)
    if (own) load = Math.max(0, load - fs.taskHLoad(p))
    sgs.groupLoad += load
    sgs.groupUtil += own ? fs.pelt.cpuUtil(i, p, pCpu, k.onRq[p] !== 0, -1, false) : fs.pelt.cpuUtilCfs(i)
    let runnable = fs.cpuRunnable(i)
    if (own) runnable = Math.max(0, runnable - fs.pelt.se.runnableAvg[p])
    sgs.groupRunnable += runnable
    const local = own && k.onRq[p] !== 0 ? 1 : 0
    sgs.sumHNrRunning += k.cfsNrRunnable[i] - local
    const nr = k.nrRunning[i] - local
    sgs.sumNrRunning += nr
    if (!nr && (k.curr[i] === NIL || k.curr[i] === p)) sgs.idleCpus++
    if (sd.flags & SD_ASYM_CPUCAPACITY && sgs.groupMisfitTaskLoad && fs.taskFitsCpu(p, i)) sgs.groupMisfitTaskLoad = 0
  }
  sgs.groupCapacity = group.sgc.capacity
  sgs.groupWeight = group.weight
  sgs.groupType = groupClassify(sd.imbalancePct, group, sgs)
  if (sgs.groupType === GROUP_FULLY_BUSY || sgs.groupType === GROUP_OVERLOADED) {
    sgs.avgLoad = Math.floor((sgs.groupLoad * 1024) / sgs.groupCapacity)
  }
}

function updatePickIdlest(idlest: SchedGroup | null, idlestSgs: SgStats, group: SchedGroup, sgs: SgStats): boolean {
  if (sgs.groupType < idlestSgs.groupType) return true
  if (sgs.groupType > idlestSgs.groupType) return false
  switch (sgs.groupType) {
    case GROUP_OVERLOADED:
    case GROUP_FULLY_BUSY:
      if (idlestSgs.avgLoad <= sgs.avgLoad) return false
      break
    case GROUP_MISFIT_TASK:
      if (idlest && idlest.sgc.maxCapacity >= group.sgc.maxCapacity) return false
      break
    case GROUP_HAS_SPARE:
      if (idlestSgs.idleCpus > sgs.idleCpus) return false
      if (idlestSgs.idleCpus === sgs.idleCpus && idlestSgs.groupUtil <= sgs.groupUtil) return false
      break
    default:
      return false
  }
  return true
}

/** sched_balance_find_dst_group() (find_idlest_group). */
function findDstGroup(fs: FairSched, sd: SchedDomain, p: number, thisCpu: number): SchedGroup | null {
  const k = fs.k
  const { localSgs, tmpSgs, idlestSgs } = fs.wakeStats
  idlestSgs.reset()
  idlestSgs.avgLoad = Number.MAX_SAFE_INTEGER
  idlestSgs.groupType = GROUP_OVERLOADED
  let idlest: SchedGroup | null = null
  let local: SchedGroup | null = null
  for (const group of sd.groups) {
    let allowed = false
    for (const c of group.cpus) if (k.cpuAllowed(p, c)) { allowed = true; break }
    if (!allowed) continue
    const isLocal = group.mask[thisCpu] === 1
    const sgs = isLocal ? localSgs : tmpSgs
    if (isLocal) local = group
    updateSgWakeupStats(fs, sd, group, sgs, p)
    if (!isLocal && updatePickIdlest(idlest, idlestSgs, group, sgs)) {
      idlest = group
      idlestSgs.copyFrom(sgs)
    }
  }
  if (!idlest) return null
  if (!local) return idlest
  if (localSgs.groupType < idlestSgs.groupType) return null
  if (localSgs.groupType > idlestSgs.groupType) return idlest
  switch (localSgs.groupType) {
    case GROUP_OVERLOADED:
    case GROUP_FULLY_BUSY: {
      const imbalance = Math.floor((1024 * (sd.imbalancePct - 100)) / 100)
      if (sd.flags & SD_NUMA && idlestSgs.avgLoad + imbalance >= localSgs.avgLoad) return null
      if (idlestSgs.avgLoad >= localSgs.avgLoad + imbalance) return null
      if (100 * localSgs.avgLoad <= sd.imbalancePct * idlestSgs.avgLoad) return null
      break
    }
    case GROUP_MISFIT_TASK:
      if (local.sgc.maxCapacity >= idlest.sgc.maxCapacity) return null
      break
    case GROUP_HAS_SPARE:
      if (sd.flags & SD_NUMA) {
        let imbNumaNr = sd.imbNumaNr
        if (k.nrCpusAllowed[p] !== fs.ncpus) {
          let w = 0
          for (const c of local.cpus) if (k.cpuAllowed(p, c)) w++
          imbNumaNr = Math.min(w, sd.imbNumaNr)
        }
        const imbalance = Math.abs(localSgs.idleCpus - idlestSgs.idleCpus)
        if (!adjustNumaImbalance(imbalance, localSgs.sumNrRunning + 1, imbNumaNr)) return null
      }
      if (localSgs.idleCpus >= idlestSgs.idleCpus) return null
      break
    default:
      return null
  }
  return idlest
}

