/**
 * Load balancing (model reference §10): sched_balance_rq() with group statistics and
 * classification, the busiest group/queue, the imbalance per migration type, detach_tasks()
 * with can_migrate_task()/task_hot(), pinned-task handling (LBF_ALL_PINNED, LBF_DST_PINNED,
 * env.cpus, the parent group's imbalance flag), active balance through the stopper, misfit
 * migration; periodic balance per domain from the tick, the nohz idle balancer, and newidle
 * balance with avg_idle / max_newidle_lb_cost and NI_RANDOM / NI_RATE.
 *
 * Seed 004 (LB_PROMOTE) switches acting here, each in one place:
 * - LBP1_RD_OVERLOAD_SPAN: update_sd_lb_stats() sets rd->overloaded only when env.cpus is the
 *   whole root domain; ALT_ALL_PINNED is the reviewer's per-rq all_pinned flag instead.
 * - LBP2_STOP_ANY_CPU, LBP3_CLEAR_AFTER_ATTACH, LBP6_STOP_GENERALISED: the active balance
 *   stopper (activeLoadBalanceCpuStop).
 * - LBP5_THIN_SELECT (with LB_PROMOTE): no nr_idle_scan refresh; ALT_SIS_SMALL_LLC relaxes it.
 * - LBP7_PREEMPT_ALB (with LB_PROMOTE): preemptActiveBalance().
 * - LBP8_NEWIDLE_AVG_IDLE (with LB_PROMOTE): schedBalanceNewidle() ignores avg_idle.
 * - LBP9_NEED_BREAK: no more_balance when newly idle with work on the destination.
 * - LBP10_SIMPLE_FIND (with LB_PROMOTE): the simple_find fallback of newidle balance.
 *
 * Modeled cost: every pass charges the balancing CPU balanceWorkNs plus balancePerCpuWorkNs per
 * runqueue it reads and balancePerTaskWorkNs per task it examines (config.ts); newidle balance
 * records that cost as its measured cost.
 */
import type { FairSched } from './sched'
import type { StopWork } from './sched'
import { NIL } from './eevdf-tree'
import { SCHED_IDLE } from './api'
import { DEQUEUE_MIGRATING, DEQUEUE_SAVE, ENQUEUE_MIGRATED, ENQUEUE_RESTORE } from './fair'
import { P_6_17 } from './features'
import {
  CPU_IDLE, CPU_NEWLY_IDLE, CPU_NOT_IDLE, msecsToJiffies, maxLoadBalanceInterval, nrIdleScanFromUtil,
  sdBalanceIntervalJiffies, SD_ASYM_CPUCAPACITY, SD_BALANCE_NEWIDLE, SD_NUMA, SD_PREFER_SIBLING,
  SD_SHARE_CPUCAPACITY, SD_SHARE_LLC, type SchedDomain, type SchedGroup
} from './domains'
import { capacityGreater } from './energy'
import { firstIdleFromLlc } from './select'
import {
  adjustNumaImbalance, groupClassify, GROUP_ASYM_PACKING, GROUP_FULLY_BUSY, GROUP_HAS_SPARE, GROUP_IMBALANCED,
  GROUP_MISFIT_TASK, GROUP_OVERLOADED, GROUP_SMT_BALANCE, LbEnv, MIGRATE_LOAD, MIGRATE_MISFIT, MIGRATE_TASK,
  MIGRATE_UTIL, SCHED_NR_MIGRATE_BREAK, SgStats
} from './group-stats'
import { LB_ALL_PINNED, LB_BALANCED, LB_DONE, LB_ONE_PINNED } from './recording'

export const LBF_ALL_PINNED = 0x01
export const LBF_NEED_BREAK = 0x02
export const LBF_DST_PINNED = 0x04
export const LBF_SOME_PINNED = 0x08
export const LBF_ACTIVE_LB = 0x10

/** MAX_PINNED_INTERVAL, ms. */
export const MAX_PINNED_INTERVAL = 512

const NOHZ_BALANCE_KICK = 0x1
const NOHZ_STATS_KICK = 0x2
const NOHZ_NEXT_KICK = 0x8

// ---- misfit and overutilized ------------------------------------------------------------------

/** update_misfit_status(): a task too big for its CPU that could go to a bigger one. */
export function updateMisfitStatus(fs: FairSched, p: number, cpu: number): void {
  if (!fs.asym) return
  const k = fs.k
  if (p === NIL || k.nrCpusAllowed[p] === 1 || fs.capOrig[cpu] === fs.maxAllowedCapacity(p) || fs.taskFitsCpu(p, cpu)) {
    fs.misfitTaskLoad[cpu] = 0
    return
  }
  fs.misfitTaskLoad[cpu] = Math.max(fs.taskHLoad(p), 1)
}

/** check_update_overutilized_status() */
export function checkUpdateOverutilized(fs: FairSched, cpu: number): void {
  if (!fs.eas || fs.d.rd.overutilized) return
  if (fs.cpuOverutilized(cpu)) fs.d.rd.overutilized = true
}

// ---- group statistics -------------------------------------------------------------------------

/** update_group_capacity(): refresh capacity_of() (lowest level) or sum the child groups. */
function updateGroupCapacity(fs: FairSched, sd: SchedDomain, cpu: number): void {
  const sdg = sd.groups[0]
  const interval = Math.min(Math.max(msecsToJiffies(sd.balanceInterval, fs.k.cfg.hz), 1), Math.max(1, maxLoadBalanceInterval(fs.k.cfg.hz, fs.ncpus)))
  sdg.sgc.nextUpdate = fs.jiffies() + interval
  if (!sd.child) {
    fs.updateCpuCapacity(cpu)
    const c = fs.capacityOf[cpu]
    sdg.sgc.capacity = c
    sdg.sgc.minCapacity = c
    sdg.sgc.maxCapacity = c
    return
  }
  let capacity = 0
  let min = Infinity
  let max = 0
  for (let j = 0; j < sdg.weight; j++) {
    const cap = fs.capacityOf[sdg.cpus[j]]
    capacity += cap
    if (cap < min) min = cap
    if (cap > max) max = cap
  }
  sdg.sgc.capacity = capacity
  sdg.sgc.minCapacity = min
  sdg.sgc.maxCapacity = max
}

function updateSgLbStats(fs: FairSched, env: LbEnv, group: SchedGroup, sgs: SgStats, isLocal: boolean, flags: { overloaded: boolean; overutilized: boolean }): void {
  const k = fs.k
  const sdFlags = env.sd.flags
  const atRoot = env.sd.parent === null
  sgs.reset()
  const cpus = group.cpus
  for (let j = 0; j < group.weight; j++) {
    const i = cpus[j]
    if (!env.cpus[i]) continue
    env.cpusVisited++
    const load = fs.cpuLoad(i)
    sgs.groupLoad += load
    sgs.groupUtil += fs.pelt.cpuUtilCfs(i)
    sgs.groupRunnable += fs.cpuRunnable(i)
    sgs.sumHNrRunning += k.cfsNrRunnable[i]
    const nr = k.nrRunning[i]
    sgs.sumNrRunning += nr
    if (fs.cpuOverutilized(i)) flags.overutilized = true
    if (!nr && fs.idleCpu(i)) {
      sgs.idleCpus++
      continue
    }
    if (atRoot && nr > 1) flags.overloaded = true
    if (isLocal) continue
    if (sdFlags & SD_ASYM_CPUCAPACITY) {
      if (sgs.groupMisfitTaskLoad < fs.misfitTaskLoad[i]) {
        sgs.groupMisfitTaskLoad = fs.misfitTaskLoad[i]
        flags.overloaded = true
      }
    } else if (env.idle !== CPU_NOT_IDLE && k.cfsNrRunnable[i] === 1 && fs.checkCpuCapacity(i, env.sd.imbalancePct)) {
      // sched_reduced_capacity(): a lone task squeezed by RT/IRQ pressure
      if (sgs.groupMisfitTaskLoad < load) sgs.groupMisfitTaskLoad = load
    }
  }
  sgs.groupCapacity = group.sgc.capacity
  sgs.groupWeight = group.weight
  // smt_balance(): an idle dst may take one of two tasks sharing an SMT core
  if (!isLocal && env.idle !== CPU_NOT_IDLE && group.flags & SD_SHARE_CPUCAPACITY && sgs.sumHNrRunning > 1) sgs.groupSmtBalance = 1
  sgs.groupType = groupClassify(env.sd.imbalancePct, group, sgs)
  if (sgs.groupType === GROUP_OVERLOADED) sgs.avgLoad = Math.floor((sgs.groupLoad * 1024) / sgs.groupCapacity)
}

/** update_sd_pick_busiest() */
function updateSdPickBusiest(fs: FairSched, env: LbEnv, sg: SchedGroup, sgs: SgStats): boolean {
  const busiest = env.busiestStat
  if (!sgs.sumHNrRunning) return false
  const asym = (env.sd.flags & SD_ASYM_CPUCAPACITY) !== 0
  // Don't try to pull misfit tasks we can't help.
  if (asym && sgs.groupType === GROUP_MISFIT_TASK &&
      (!capacityGreater(fs.capacityOf[env.dstCpu], sg.sgc.maxCapacity) || env.localStat.groupType !== GROUP_HAS_SPARE)) return false
  if (sgs.groupType > busiest.groupType) return true
  if (sgs.groupType < busiest.groupType) return false
  switch (sgs.groupType) {
    case GROUP_OVERLOADED:
      return sgs.avgLoad > busiest.avgLoad
    case GROUP_IMBALANCED:
    case GROUP_ASYM_PACKING:
      return false
    case GROUP_MISFIT_TASK:
      return sgs.groupMisfitTaskLoad > busiest.groupMisfitTaskLoad
    case GROUP_SMT_BALANCE:
    case GROUP_FULLY_BUSY:
      // SMT groups with spare CPUs compare like has_spare groups; otherwise by avg_load.
      if (sgs.groupType === GROUP_SMT_BALANCE && (sgs.idleCpus !== 0 || busiest.idleCpus !== 0)) {
        if (!hasSpareBusier(sgs, busiest)) return false
        break
      }
      if (sgs.avgLoad < busiest.avgLoad) return false
      if (sgs.avgLoad === busiest.avgLoad && env.busiest && env.busiest.flags & SD_SHARE_CPUCAPACITY) return false
      break
    case GROUP_HAS_SPARE:
      if (!hasSpareBusier(sgs, busiest)) return false
      break
  }
  // Moving lone tasks to smaller CPUs would cost throughput.
  if (asym && sgs.groupType <= GROUP_FULLY_BUSY && capacityGreater(sg.sgc.minCapacity, fs.capacityOf[env.dstCpu])) return false
  return true
}

/** has_spare: fewer idle CPUs, then more running tasks. */
function hasSpareBusier(sgs: SgStats, busiest: SgStats): boolean {
  if (sgs.idleCpus > busiest.idleCpus) return false
  if (sgs.idleCpus === busiest.idleCpus && sgs.sumNrRunning <= busiest.sumNrRunning) return false
  return true
}

const sdFlagsScratch = { overloaded: false, overutilized: false }

/** update_sd_lb_stats(): all groups of the domain; root-level overload/overutilized; SIS_UTIL. */
function updateSdLbStats(fs: FairSched, env: LbEnv): void {
  env.busiest = null
  env.local = null
  env.totalLoad = 0
  env.totalCapacity = 0
  env.avgLoad = 0
  env.preferSibling = false
  env.busiestStat.reset()
  env.busiestStat.idleCpus = Number.MAX_SAFE_INTEGER
  const flags = sdFlagsScratch
  flags.overloaded = false
  flags.overutilized = false
  let sumUtil = 0
  for (const sg of env.sd.groups) {
    const isLocal = sg.mask[env.dstCpu] === 1
    let sgs = env.tmpStat
    if (isLocal) {
      env.local = sg
      sgs = env.localStat
      if (env.idle !== CPU_NEWLY_IDLE || fs.jiffies() >= sg.sgc.nextUpdate) updateGroupCapacity(fs, env.sd, env.dstCpu)
    }
    updateSgLbStats(fs, env, sg, sgs, isLocal, flags)
    if (!isLocal && updateSdPickBusiest(fs, env, sg, sgs)) {
      env.busiest = sg
      env.busiestStat.copyFrom(sgs)
    }
    env.totalLoad += sgs.groupLoad
    env.totalCapacity += sgs.groupCapacity
    sumUtil += sgs.groupUtil
  }
  if (env.busiest) env.preferSibling = (env.busiest.flags & SD_PREFER_SIBLING) !== 0
  const rd = fs.d.rd
  if (!env.sd.parent) {
    // seed 004/1: env.cpus may have lost CPUs (all pinned) and no longer see the whole domain
    if (!fs.k.f.LBP1_RD_OVERLOAD_SPAN || spansRootDomain(fs, env)) rd.overloaded = flags.overloaded
    rd.overutilized = fs.eas && flags.overutilized
  } else if (flags.overutilized && fs.eas) {
    rd.overutilized = true
  }
  updateIdleCpuScan(fs, env, sumUtil)
}

/** cpumask_equal(rd->online, env->cpus) */
function spansRootDomain(fs: FairSched, env: LbEnv): boolean {
  const rd = fs.d.rd
  for (const c of rd.span) if (rd.online[c] && !env.cpus[c]) return false
  return true
}

/** LLCs this small are scanned whole by the ALT_SIS_SMALL_LLC alternative. */
export const SIS_SMALL_LLC_CPUS = 4

/** update_idle_cpu_scan(): SIS_UTIL budget refresh by the LLC-level periodic balance. */
function updateIdleCpuScan(fs: FairSched, env: LbEnv, sumUtil: number): void {
  const f = fs.k.f
  if (f.SIS_UTIL === false || env.idle === CPU_NEWLY_IDLE) return
  // seed 004/5: select_task_rq_fair_thin() does not read nr_idle_scan, so it is not refreshed
  if (f.LB_PROMOTE && f.LBP5_THIN_SELECT) return
  const llcWeight = fs.d.sdLlcSize[env.dstCpu]
  if (env.sd.spanWeight !== llcWeight) return
  const shared = fs.d.sdLlcShared[env.dstCpu]
  if (!shared) return
  // Reviewer alternative (seed 004, review of 5/10): "nr_idle_scan has been designed with large
  // llc in mind ... when you have only few cores, we could be more relax": small LLCs keep a
  // budget covering every CPU.
  if (f.ALT_SIS_SMALL_LLC && llcWeight <= SIS_SMALL_LLC_CPUS) shared.nrIdleScan = llcWeight
  else shared.nrIdleScan = nrIdleScanFromUtil(sumUtil, llcWeight, env.sd.imbalancePct)
}

/** sibling_imbalance(): task-count imbalance normalised by the groups' core counts. */
function siblingImbalance(env: LbEnv, busiest: SgStats, local: SgStats): number {
  if (env.idle === CPU_NOT_IDLE || !busiest.sumNrRunning) return 0
  const nb = env.busiest!.cores
  const nl = env.local!.cores
  if (nb === nl) return Math.max(0, busiest.sumNrRunning - local.sumNrRunning)
  let imb = Math.max(0, nl * busiest.sumNrRunning - nb * local.sumNrRunning)
  imb = Math.floor((2 * imb + nl + nb) / (nl + nb))
  if (imb <= 1 && local.sumNrRunning === 0 && busiest.sumNrRunning > 1) imb = 2
  return imb
}

/** calculate_imbalance() */
function calculateImbalance(env: LbEnv): void {
  const local = env.localStat
  const busiest = env.busiestStat
  if (busiest.groupType === GROUP_MISFIT_TASK) {
    if (env.sd.flags & SD_ASYM_CPUCAPACITY) {
      env.migrationType = MIGRATE_MISFIT
      env.imbalance = 1
    } else {
      env.migrationType = MIGRATE_LOAD
      env.imbalance = busiest.groupMisfitTaskLoad
    }
    return
  }
  if (busiest.groupType === GROUP_SMT_BALANCE || busiest.groupType === GROUP_IMBALANCED) {
    env.migrationType = MIGRATE_TASK
    env.imbalance = 1
    return
  }
  if (local.groupType === GROUP_HAS_SPARE) {
    if (busiest.groupType > GROUP_FULLY_BUSY && !(env.sd.flags & SD_SHARE_LLC)) {
      env.migrationType = MIGRATE_UTIL
      env.imbalance = Math.max(local.groupCapacity, local.groupUtil) - local.groupUtil
      if (env.idle !== CPU_NOT_IDLE && env.imbalance === 0) {
        env.migrationType = MIGRATE_TASK
        env.imbalance = 1
      }
      return
    }
    env.migrationType = MIGRATE_TASK
    if (busiest.groupWeight === 1 || env.preferSibling) env.imbalance = siblingImbalance(env, busiest, local)
    else env.imbalance = Math.max(0, local.idleCpus - busiest.idleCpus)
    if (env.sd.flags & SD_NUMA) env.imbalance = adjustNumaImbalance(env.imbalance, local.sumNrRunning + 1, env.sd.imbNumaNr)
    env.imbalance >>= 1
    return
  }
  if (local.groupType < GROUP_OVERLOADED) {
    local.avgLoad = Math.floor((local.groupLoad * 1024) / local.groupCapacity)
    if (local.avgLoad >= busiest.avgLoad) {
      env.imbalance = 0
      return
    }
    env.avgLoad = Math.floor((env.totalLoad * 1024) / env.totalCapacity)
    if (local.avgLoad >= env.avgLoad) {
      env.imbalance = 0
      return
    }
  }
  env.migrationType = MIGRATE_LOAD
  // avg_load is unsigned long in the kernel: a busiest group below the domain average (a heavy
  // task elsewhere inflates it) wraps the first term, so the local deficit decides.
  const excess = busiest.avgLoad >= env.avgLoad ? (busiest.avgLoad - env.avgLoad) * busiest.groupCapacity : Infinity
  env.imbalance = Math.floor(Math.min(excess, (env.avgLoad - local.avgLoad) * local.groupCapacity) / 1024)
}

/** sched_balance_find_src_group() (find_busiest_group) */
function findBusiestGroup(fs: FairSched, env: LbEnv): SchedGroup | null {
  updateSdLbStats(fs, env)
  if (!env.busiest || !busiestNeedsHelp(fs, env)) {
    env.imbalance = 0
    return null
  }
  calculateImbalance(env)
  return env.imbalance ? env.busiest : null
}

/** The decision part of find_busiest_group(): is there an imbalance worth computing? */
function busiestNeedsHelp(fs: FairSched, env: LbEnv): boolean {
  const busiest = env.busiestStat
  const local = env.localStat
  // Misfit tasks are dealt with regardless of the average load.
  if (busiest.groupType === GROUP_MISFIT_TASK) return true
  if (fs.eas && !fs.d.rd.overutilized) return false
  // Affinity made the groups unequal: averages do not apply.
  if (busiest.groupType === GROUP_IMBALANCED) return true
  if (local.groupType > busiest.groupType) return false
  if (local.groupType === GROUP_OVERLOADED) {
    if (local.avgLoad >= busiest.avgLoad) return false
    env.avgLoad = Math.floor((env.totalLoad * 1024) / env.totalCapacity)
    if (local.avgLoad >= env.avgLoad) return false
    if (100 * busiest.avgLoad <= env.sd.imbalancePct * local.avgLoad) return false
  }
  // Spread excess tasks to a sibling domain first.
  if (env.preferSibling && local.groupType === GROUP_HAS_SPARE && siblingImbalance(env, busiest, local) > 1) return true
  if (busiest.groupType !== GROUP_OVERLOADED) {
    // Not overloaded: let an idle CPU do the pulling.
    if (env.idle === CPU_NOT_IDLE) return false
    if (busiest.groupType === GROUP_SMT_BALANCE && smtVsNonsmt(env)) return true
    // No imbalance of idle CPUs between the groups (only meaningful with >1 CPU per group).
    if (busiest.groupWeight > 1 && local.idleCpus <= busiest.idleCpus + 1) return false
    if (busiest.sumHNrRunning === 1) return false
  }
  return true
}

/** smt_vs_nonsmt_groups(): a non-SMT dst group may pull from an SMT group sharing a core. */
function smtVsNonsmt(env: LbEnv): boolean {
  if (!env.local || !env.busiest) return false
  return (env.local.flags & SD_SHARE_CPUCAPACITY) !== (env.busiest.flags & SD_SHARE_CPUCAPACITY)
}

/** sched_balance_find_src_rq() (find_busiest_queue) */
export function findBusiestQueue(fs: FairSched, env: LbEnv, group: SchedGroup): number {
  const k = fs.k
  let busiest = -1
  let busiestUtil = 0
  let busiestLoad = 0
  let busiestCapacity = 1
  let busiestNr = 0
  const asym = (env.sd.flags & SD_ASYM_CPUCAPACITY) !== 0
  for (let j = 0; j < group.weight; j++) {
    const i = group.cpus[j]
    if (!env.cpus[i]) continue
    env.cpusVisited++
    const nr = k.cfsNrRunnable[i]
    if (!nr) continue
    const capacity = fs.capacityOf[i]
    if (asym && !capacityGreater(fs.capacityOf[env.dstCpu], capacity) && nr === 1) continue
    switch (env.migrationType) {
      case MIGRATE_LOAD: {
        const load = fs.cpuLoad(i)
        if (nr === 1 && load > env.imbalance && !fs.checkCpuCapacity(i, env.sd.imbalancePct)) break
        if (load * busiestCapacity > busiestLoad * capacity) {
          busiestLoad = load
          busiestCapacity = capacity
          busiest = i
        }
        break
      }
      case MIGRATE_UTIL: {
        const util = fs.pelt.cpuUtilCfsBoost(i)
        if (nr <= 1) break
        if (busiestUtil < util) {
          busiestUtil = util
          busiest = i
        }
        break
      }
      case MIGRATE_TASK:
        if (busiestNr < nr) {
          busiestNr = nr
          busiest = i
        }
        break
      case MIGRATE_MISFIT:
        if (fs.misfitTaskLoad[i] > busiestLoad) {
          busiestLoad = fs.misfitTaskLoad[i]
          busiest = i
        }
        break
    }
  }
  return busiest
}

// ---- moving tasks -----------------------------------------------------------------------------

/** task_hot(): recently run tasks keep their cache unless the balance keeps failing. */
function taskHot(fs: FairSched, env: LbEnv, p: number): boolean {
  const k = fs.k
  if (!k.isFair(p) || k.policy[p] === SCHED_IDLE) return false
  if (env.sd.flags & SD_SHARE_CPUCAPACITY) return false
  if (k.f.CACHE_HOT_BUDDY !== false && k.nrRunning[env.dstCpu] > 0 && k.cfsNext[env.srcCpu] === p) return true
  const cost = k.cfg.migrationCostNs
  if (cost === 0) return false
  return k.now - k.execStart[p] < cost
}

/** can_migrate_task() */
export function canMigrateTask(fs: FairSched, env: LbEnv, p: number): boolean {
  const k = fs.k
  // A delayed-dequeued task (still queued, its load counted) moves only when the balance
  // migrates load (6.14+: migrating it does not balance runnable tasks); 6.12-6.13 moved it
  // like any task. It stays delayed on the destination.
  if (k.schedDelayed[p] && k.cfg.prof >= P_6_17 && env.migrationType !== MIGRATE_LOAD) return false
  // Prefer eligible tasks: an ineligible one moves only after the balance has failed (6.13+).
  if (k.cfg.prof >= P_6_17 && k.f.PLACE_LAG !== false && !env.sd.nrBalanceFailed && k.cfsNrQueued[env.dstCpu] > 0 &&
      !k.fn.entityEligible(k, env.srcCpu, p)) return false
  if (!k.cpuAllowed(p, env.dstCpu)) {
    env.flags |= LBF_SOME_PINNED
    if (env.idle === CPU_NEWLY_IDLE || env.flags & (LBF_DST_PINNED | LBF_ACTIVE_LB)) return false
    // Remember another CPU of our group the task could go to.
    for (const c of env.dstGrp.cpus) {
      if (env.cpus[c] && k.cpuAllowed(p, c)) {
        env.flags |= LBF_DST_PINNED
        env.newDstCpu = c
        break
      }
    }
    return false
  }
  env.flags &= ~LBF_ALL_PINNED
  if (k.curr[env.srcCpu] === p) return false
  if (env.flags & LBF_ACTIVE_LB) return true
  const hot = taskHot(fs, env, p)
  return !hot || env.sd.nrBalanceFailed > env.sd.cacheNiceTries
}

/** Last entry of src's cfs_tasks (least recently run). */
function cfsTasksTail(fs: FairSched, cpu: number): number {
  const k = fs.k
  let t = k.cfsTasksHead[cpu]
  if (t === NIL) return NIL
  while (k.cfsTaskNext[t] !== NIL) t = k.cfsTaskNext[t]
  return t
}

/** list_move_tail() on cfs_tasks: p becomes the first task detach_one_task() looks at. */
function cfsTasksMoveTail(fs: FairSched, cpu: number, p: number): void {
  const k = fs.k
  const tail = cfsTasksTail(fs, cpu)
  if (tail === p || tail === NIL) return
  k.cfsTasksDel(cpu, p)
  k.cfsTaskNext[tail] = p
  k.cfsTaskPrev[p] = tail
  k.cfsTaskNext[p] = NIL
}

function detachTask(fs: FairSched, env: LbEnv, p: number): void {
  const k = fs.k
  if (k.rec !== null) k.rec.lbMove(p, env.srcCpu, env.dstCpu, env.idle, env.sd.name, env.migrationType, (env.flags & LBF_ACTIVE_LB) !== 0)
  k.deactivateTask(env.srcCpu, p, DEQUEUE_SAVE | DEQUEUE_MIGRATING)
  k.setTaskCpu(p, env.dstCpu)
  env.detached[env.nDetached++] = p
}

/** attach_task(): enqueue on dst and check wakeup preemption there. */
function attachTask(fs: FairSched, p: number, src: number, dst: number): void {
  const k = fs.k
  k.activateTask(dst, p, ENQUEUE_MIGRATED | ENQUEUE_RESTORE)
  k.wakeupPreempt(dst, p, 0)
  fs.countMigration(fs.lbMigrations, src, dst)
}

function attachTasks(fs: FairSched, env: LbEnv): void {
  for (let i = 0; i < env.nDetached; i++) attachTask(fs, env.detached[i], env.srcCpu, env.dstCpu)
  env.nDetached = 0
}

/** detach_tasks(): walk src's cfs_tasks from the tail, moving what fits the imbalance. */
function detachTasks(fs: FairSched, env: LbEnv): number {
  const k = fs.k
  const src = env.srcCpu
  if (k.nrRunning[src] <= 1) {
    env.flags &= ~LBF_ALL_PINNED
    return 0
  }
  if (env.imbalance <= 0) return 0
  let detached = 0
  let tail = cfsTasksTail(fs, src)
  while (tail !== NIL) {
    if (env.idle !== CPU_NOT_IDLE && k.nrRunning[src] <= 1) break
    env.loop++
    // (the `&& !LBF_ALL_PINNED` clause of 6.x was reverted in 6.10, 2feab2492deb, also in 6.6.y)
    if (env.loop > env.loopMax) break
    if (env.loop > env.loopBreak) {
      env.loopBreak += SCHED_NR_MIGRATE_BREAK
      env.flags |= LBF_NEED_BREAK
      break
    }
    env.tasksVisited++
    const p = tail
    const prev = k.cfsTaskPrev[p]
    let take = fs.k.fn.canMigrateTask(fs, env, p)
    if (take) {
      switch (env.migrationType) {
        case MIGRATE_LOAD: {
          const load = Math.max(fs.taskHLoad(p), 1)
          if (k.f.LB_MIN && load < 16 && !env.sd.nrBalanceFailed) take = false
          else if (shrBound(load, env.sd.nrBalanceFailed) > env.imbalance) take = false
          else env.imbalance -= load
          break
        }
        case MIGRATE_UTIL: {
          const util = fs.taskUtilEst(p)
          if (shrBound(util, env.sd.nrBalanceFailed) > env.imbalance) take = false
          else env.imbalance -= util
          break
        }
        case MIGRATE_TASK:
          env.imbalance--
          break
        case MIGRATE_MISFIT:
          if (fs.taskFitsCpu(p, src)) take = false
          else env.imbalance = 0
          break
      }
    }
    if (!take) {
      // list_move() to the head: the next candidate is the new tail.
      k.cfsTasksDel(src, p)
      k.cfsTasksAdd(src, p)
      tail = prev !== NIL ? prev : p
      continue
    }
    detachTask(fs, env, p)
    detached++
    tail = prev
    // Preemptible kernels stop after one task in newidle balance.
    if (env.idle === CPU_NEWLY_IDLE) break
    if (env.imbalance <= 0) break
  }
  env.sd.lbGained[env.idle] += detached
  return detached
}

function shrBound(v: number, shift: number): number {
  return Math.floor(v / 2 ** Math.min(shift, 31))
}

/** need_active_balance() */
export function needActiveBalance(fs: FairSched, env: LbEnv): boolean {
  const k = fs.k
  const sd = env.sd
  if (env.migrationType === MIGRATE_TASK && sd.nrBalanceFailed > sd.cacheNiceTries + 2) return true
  if (env.idle !== CPU_NOT_IDLE && k.cfsNrRunnable[env.srcCpu] === 1) {
    if (fs.checkCpuCapacity(env.srcCpu, sd.imbalancePct) && fs.capacityOf[env.srcCpu] * sd.imbalancePct < fs.capacityOf[env.dstCpu] * 100) return true
  }
  return env.migrationType === MIGRATE_MISFIT
}

/** should_we_balance(): one CPU per group does the periodic balance (the first idle, or the first). */
function shouldWeBalance(fs: FairSched, env: LbEnv): boolean {
  const k = fs.k
  if (!env.cpus[env.dstCpu]) return false
  if (env.idle === CPU_NEWLY_IDLE) return k.nrRunning[env.dstCpu] === 0 && k.ttwuPending[env.dstCpu] === 0
  const sg = env.sd.groups[0]
  const skip = fs.swbMask
  for (let j = 0; j < sg.weight; j++) skip[sg.cpus[j]] = 0
  let idleSmt = -1
  for (let j = 0; j < sg.weight; j++) {
    const cpu = sg.cpus[j]
    if (skip[cpu] || !env.cpus[cpu] || !fs.idleCpu(cpu)) continue
    if (!(env.sd.flags & SD_SHARE_CPUCAPACITY) && !isCoreIdle(fs, cpu)) {
      if (idleSmt === -1) idleSmt = cpu
      for (const s of fs.d.smtMask[cpu]) skip[s] = 1
      continue
    }
    return cpu === env.dstCpu
  }
  if (idleSmt !== -1) return idleSmt === env.dstCpu
  return sg.firstCpu === env.dstCpu
}

function isCoreIdle(fs: FairSched, cpu: number): boolean {
  for (const s of fs.d.smtMask[cpu]) if (s !== cpu && !fs.idleCpu(s)) return false
  return true
}

/** The lb_env of a pass over sd toward dst: env.cpus = the domain's span, counters reset. */
function initEnv(fs: FairSched, sd: SchedDomain, dst: number, idle: number, flags: number): LbEnv {
  const env = fs.lbEnv
  env.sd = sd
  env.dstCpu = dst
  env.dstGrp = sd.groups[0]
  env.idle = idle
  env.flags = flags
  env.nDetached = 0
  env.cpusVisited = 0
  env.tasksVisited = 0
  env.cpus.fill(0)
  for (let j = 0; j < sd.spanWeight; j++) env.cpus[sd.span[j]] = 1
  return env
}

/** Charge a balance pass to the balancing CPU; returns its wall-clock cost there. */
function chargeBalance(fs: FairSched, cpu: number, env: LbEnv): number {
  const k = fs.k
  const c = k.cfg.costs
  const work = c.balanceWorkNs + c.balancePerCpuWorkNs * env.cpusVisited + c.balancePerTaskWorkNs * env.tasksVisited
  k.chargeCpu(cpu, work)
  return Math.ceil(work / k.cpuRate[cpu])
}

/** Some CPU of env.cpus is outside the local group: a source to try is left. */
function sourcesLeft(env: LbEnv): boolean {
  const span = env.sd.span
  for (let j = 0; j < span.length; j++) if (env.cpus[span[j]] && !env.dstGrp.mask[span[j]]) return true
  return false
}

/**
 * sched_balance_rq() (load_balance): pull from the busiest queue of the busiest group toward
 * dstCpu. Returns the number of tasks moved. `cont.value` is cleared when another CPU of the
 * group should balance instead (should_we_balance).
 */
export function schedBalanceRq(fs: FairSched, dstCpu: number, sd: SchedDomain, idle: number, cont: { value: boolean }): number {
  const k = fs.k
  const f = k.f
  // seed 004/10 is active only under LB_PROMOTE, and acts in newidle balance only
  const simpleFind = f.LB_PROMOTE === true && f.LBP10_SIMPLE_FIND === true && idle === CPU_NEWLY_IDLE
  const env = initEnv(fs, sd, dstCpu, idle, 0)
  env.loopBreak = SCHED_NR_MIGRATE_BREAK
  env.loop = 0
  env.imbalance = 0
  env.migrationType = MIGRATE_LOAD
  const cpus = env.cpus
  sd.lbCount[idle]++
  let ldMoved = 0
  let activeBalance = false
  let sfind = false
  let phaseSimple = false
  let outcome: 'balanced' | 'all_pinned' | 'one_pinned' | 'done' = 'done'

  for (;;) {
    let busiest = -1
    if (!phaseSimple) {
      // redo:
      if (!shouldWeBalance(fs, env)) {
        cont.value = false
        outcome = 'balanced'
        break
      }
      const group = findBusiestGroup(fs, env)
      if (group) busiest = fs.k.fn.findBusiestQueue(fs, env, group)
      if (busiest < 0) {
        if (simpleFind) {
          phaseSimple = true
          continue
        }
        outcome = 'balanced'
        break
      }
    } else {
      // simple_find: the first CPU outside the local group with more than one task
      if (k.nrRunning[env.dstCpu] > 0) {
        outcome = 'balanced'
        break
      }
      sfind = true
      env.migrationType = MIGRATE_TASK
      env.imbalance = 1
      for (let j = 0; j < sd.spanWeight; j++) {
        const c = sd.span[j]
        if (!cpus[c] || env.dstGrp.mask[c]) continue
        env.cpusVisited++
        if (k.nrRunning[c] <= 1) {
          cpus[c] = 0
          continue
        }
        busiest = c
        break
      }
      if (busiest < 0) {
        outcome = 'balanced'
        break
      }
      k.counters.lbSimpleFind = (k.counters.lbSimpleFind ?? 0) + 1
    }
    // begin_balance:
    env.srcCpu = busiest
    ldMoved = 0
    let checkRedo = false
    env.flags |= LBF_ALL_PINNED
    if (k.nrRunning[busiest] > 1) {
      env.loopMax = Math.min(k.cfg.nrMigrate, k.nrRunning[busiest])
      for (;;) {
        // more_balance:
        const moved = detachTasks(fs, env)
        // the reviewer's per-rq all_pinned flag (instead of seed 004/1), set at the root level
        if (f.ALT_ALL_PINNED && !sd.parent && (env.flags & (LBF_DST_PINNED | LBF_ALL_PINNED)) === LBF_ALL_PINNED) fs.allPinned[busiest] = 1
        if (moved) {
          attachTasks(fs, env)
          ldMoved += moved
        }
        if (env.flags & LBF_NEED_BREAK) {
          env.flags &= ~LBF_NEED_BREAK
          // seed 004/9: a newly idle CPU that got work meanwhile stops here
          const stop = f.LBP9_NEED_BREAK === true && env.idle === CPU_NEWLY_IDLE && (k.nrRunning[env.dstCpu] > 0 || k.ttwuPending[env.dstCpu] > 0)
          if (stop) k.counters.lbNeedBreakStops = (k.counters.lbNeedBreakStops ?? 0) + 1
          // Stop once every task of the source has been looked at.
          else if (env.loop < k.nrRunning[busiest]) continue
        }
        if (env.flags & LBF_DST_PINNED && env.imbalance > 0) {
          // Retry the tasks pinned away from dst with another CPU of our group.
          k.counters.lbDstPinnedRetries = (k.counters.lbDstPinnedRetries ?? 0) + 1
          cpus[env.dstCpu] = 0
          env.dstCpu = env.newDstCpu
          env.flags &= ~LBF_DST_PINNED
          env.loop = 0
          env.loopBreak = SCHED_NR_MIGRATE_BREAK
          continue
        }
        break
      }
      if (sd.parent && env.flags & LBF_SOME_PINNED && env.imbalance > 0) sd.parent.groups[0].sgc.imbalance = 1
      if (env.flags & LBF_ALL_PINNED) checkRedo = true
    }
    if (!checkRedo) {
      if (!ldMoved) {
        sd.lbFailed[idle]++
        if (idle !== CPU_NEWLY_IDLE && env.migrationType !== MIGRATE_MISFIT) sd.nrBalanceFailed++
        if (fs.k.fn.needActiveBalance(fs, env)) {
          const curr = k.curr[busiest]
          if (curr !== NIL && !k.cpuAllowed(curr, dstCpu)) {
            // seed 004/10: try the other sources instead of giving up
            if (simpleFind) checkRedo = true
            else {
              outcome = 'one_pinned'
              break
            }
          } else {
            env.flags &= ~LBF_ALL_PINNED
            if (f.ALT_ALL_PINNED) fs.allPinned[busiest] = 0
            activeBalance = requestActiveBalance(fs, busiest, busiest, dstCpu)
          }
        }
      } else {
        sd.nrBalanceFailed = 0
      }
      // out_unbalanced, seed 004/10: nothing moved and no stopper queued
      if (!checkRedo && simpleFind && !ldMoved && !activeBalance) checkRedo = true
    }
    if (checkRedo) {
      // check_redo: drop this source and retry at this level while sources remain
      cpus[busiest] = 0
      if (sourcesLeft(env)) {
        env.loop = 0
        env.loopBreak = SCHED_NR_MIGRATE_BREAK
        phaseSimple = sfind
        continue
      }
      outcome = 'all_pinned'
      break
    }
    if (!activeBalance || fs.k.fn.needActiveBalance(fs, env)) sd.balanceInterval = sd.minInterval
    outcome = 'done'
    break
  }

  if (outcome === 'balanced' && sd.parent && !(env.flags & LBF_ALL_PINNED)) {
    // Balanced with others able to move: the parent's pinned-imbalance flag can go.
    if (sd.parent.groups[0].sgc.imbalance) sd.parent.groups[0].sgc.imbalance = 0
  }
  if (outcome === 'balanced' || outcome === 'all_pinned') {
    sd.lbBalanced[idle]++
    sd.nrBalanceFailed = 0
  }
  if (outcome !== 'done') {
    ldMoved = 0
    if (env.idle !== CPU_NEWLY_IDLE && env.migrationType !== MIGRATE_MISFIT) {
      if ((env.flags & LBF_ALL_PINNED && sd.balanceInterval < MAX_PINNED_INTERVAL) || sd.balanceInterval < sd.maxInterval) sd.balanceInterval *= 2
    }
  }
  env.costNs = chargeBalance(fs, dstCpu, env)
  if (k.rec !== null) k.rec.balanced(dstCpu, sd.name, idle, LB_OUTCOME[outcome], ldMoved, outcome === 'balanced' ? -1 : env.srcCpu)
  return ldMoved
}

const LB_OUTCOME = { balanced: LB_BALANCED, all_pinned: LB_ALL_PINNED, one_pinned: LB_ONE_PINNED, done: LB_DONE }

/**
 * active_load_balance_cpu_stop() on stopCpu: move one task from the source runqueue to
 * push_cpu. Mainline queues it on the busiest CPU (source = stopCpu); seed 004/7 queues it on
 * the idle destination with the preempted task's CPU as source (needs 004/2 and 004/6).
 * The detach happens at once; the attach at the end of the stopper's run (stopperWorkNs).
 * Mainline clears active_balance before that attach, seed 004/3 after it.
 */
export function activeLoadBalanceCpuStop(fs: FairSched, stopCpu: number): void {
  const k = fs.k
  const f = k.f
  const src = fs.stopSrc[stopCpu]
  // seed 004/6: push_cpu and active_balance are read from the stopper's own runqueue
  // (before: from the busiest one, which is the same runqueue for mainline's active balance)
  const flagCpu = f.LBP6_STOP_GENERALISED ? stopCpu : src
  const target = fs.pushCpu[flagCpu]
  const lateClear = f.LBP3_CLEAR_AFTER_ATTACH === true
  const env = fs.lbEnv
  env.tasksVisited = 0
  let moved = -1
  run: {
    // before seed 004/2 the stopper refuses a source other than its own CPU
    if (!f.LBP2_STOP_ANY_CPU && src !== stopCpu) break run
    // before seed 004/3 a cleared active_balance means "cancelled"; after it, a warning only
    if (!lateClear && !fs.activeBalance[flagCpu]) break run
    // "Is there any task to move?": the stopper counts on its own runqueue
    if (k.nrRunning[src] + (src === stopCpu ? 1 : 0) <= 1 || target === src) break run
    let sd = fs.d.sd[target]
    while (sd && !sd.spanMask[src]) sd = sd.parent
    if (!sd) break run
    initEnv(fs, sd, target, CPU_IDLE, LBF_ACTIVE_LB)
    env.srcCpu = src
    sd.albCount++
    // detach_one_task(): from the tail, the first task allowed on target
    for (let p = cfsTasksTail(fs, src); p !== NIL; p = k.cfsTaskPrev[p]) {
      env.tasksVisited++
      if (!fs.k.fn.canMigrateTask(fs, env, p)) continue
      detachTask(fs, env, p)
      env.nDetached = 0
      moved = p
      break
    }
    if (moved >= 0) {
      sd.albPushed++
      sd.nrBalanceFailed = 0
    }
  }
  const c = k.cfg.costs
  const work = c.stopperWorkNs + c.balancePerTaskWorkNs * env.tasksVisited
  k.chargeCpu(stopCpu, work)
  if (!lateClear) fs.activeBalance[flagCpu] = 0
  const p = moved
  k.at(k.now + Math.ceil(work / k.cpuRate[stopCpu]), () => {
    if (p >= 0 && k.onRq[p] === 0 && k.taskCpu[p] === target) attachTask(fs, p, src, target)
    if (lateClear) fs.activeBalance[flagCpu] = 0
  })
}

export function makeStopWork(fs: FairSched): StopWork[] {
  const out: StopWork[] = []
  for (let c = 0; c < fs.ncpus; c++) out.push({ run: (_k, cpu) => activeLoadBalanceCpuStop(fs, cpu) })
  return out
}

/**
 * preempt_active_balance() + trigger_preempt_alb() (seed 004/7, under LB_PROMOTE): a fair task
 * was preempted on cpu. If an idle CPU is around (its recent_used_cpu first, then a scan of its
 * allowed CPUs from the first CPU of this LLC), the task moves to the tail of cfs_tasks and
 * that CPU's stopper pulls it.
 */
export function preemptActiveBalance(fs: FairSched, cpu: number, prev: number): void {
  const k = fs.k
  if (!k.f.LB_PROMOTE || !k.f.LBP7_PREEMPT_ALB) return
  if (!k.isFair(prev) || k.onRq[prev] === 0 || k.schedDelayed[prev] !== 0) return
  fs.selectScanned = 1
  let idle = -1
  const recent = k.recentUsedCpu[prev]
  if (recent >= 0 && recent !== cpu && fs.idleCpu(recent) && !fs.activeBalance[recent]) idle = recent
  else idle = firstIdleFromLlc(fs, prev, cpu, cpu, true)
  k.chargeCpu(cpu, k.cfg.costs.selectPerCpuWorkNs * fs.selectScanned)
  fs.selectScanned = 0
  if (idle < 0) return
  cfsTasksMoveTail(fs, cpu, prev)
  // trigger_preempt_alb(), the balance callback: the idle CPU's stopper pulls from this CPU
  if (requestActiveBalance(fs, idle, cpu, idle)) k.counters.preemptActiveBalance = (k.counters.preemptActiveBalance ?? 0) + 1
}

/**
 * Queue active_load_balance_cpu_stop() on stopCpu to move a task from src to pushCpu, unless
 * stopCpu's active_balance is already set (one stopper work at a time). Returns whether it was
 * queued.
 */
export function requestActiveBalance(fs: FairSched, stopCpu: number, src: number, pushCpu: number): boolean {
  if (fs.activeBalance[stopCpu]) return false
  fs.activeBalance[stopCpu] = 1
  fs.pushCpu[stopCpu] = pushCpu
  fs.stopSrc[stopCpu] = src
  if (fs.k.queueStopWork(stopCpu, fs.stopWork[stopCpu])) return true
  fs.activeBalance[stopCpu] = 0
  return false
}

// ---- periodic, nohz and newidle balance -------------------------------------------------------

const contScratch = { value: true }

/** update_newidle_cost(): track the max newidle cost per domain, decaying ~1% per second. */
function updateNewidleCost(fs: FairSched, sd: SchedDomain, cost: number): boolean {
  const j = fs.jiffies()
  if (cost > sd.maxNewidleLbCost) {
    sd.maxNewidleLbCost = cost
    sd.lastDecayMaxLbCost = j
  } else if (j > sd.lastDecayMaxLbCost + fs.k.cfg.hz) {
    sd.maxNewidleLbCost = Math.floor((sd.maxNewidleLbCost * 253) / 256)
    sd.lastDecayMaxLbCost = j
    return true
  }
  return false
}

/** Proportional newidle statistics (6.19 NI_RANDOM/NI_RATE). */
function updateNewidleStats(fs: FairSched, sd: SchedDomain, success: number): void {
  sd.newidleCall++
  sd.newidleSuccess += success
  if (sd.newidleCall >= 1024) {
    let ratio = sd.newidleSuccess
    if (fs.k.f.NI_RATE) {
      const now = fs.k.now
      ratio += Math.floor((now - sd.newidleStamp) / 2 ** 22)
      sd.newidleStamp = now
    }
    sd.newidleRatio = Math.min(1024, ratio)
    sd.newidleCall >>= 1
    sd.newidleSuccess >>= 1
  }
}

/**
 * sched_balance_domains(): for each domain bottom-up whose interval has passed, balance;
 * refresh rq->next_balance and decay the newidle costs.
 */
export function schedBalanceDomains(fs: FairSched, cpu: number, idleIn: number): void {
  const k = fs.k
  let idle = idleIn
  let busy = idle !== CPU_IDLE && !fs.schedIdleCpu(cpu)
  const j = fs.jiffies()
  let nextBalance = j + 60 * k.cfg.hz
  let updateNext = false
  let needDecay = false
  let maxCost = 0
  const cont = contScratch
  cont.value = true
  for (let sd = fs.d.sd[cpu]; sd; sd = sd.parent) {
    // the kernel keeps the last domain's answer (an assignment, not an OR)
    needDecay = updateNewidleCost(fs, sd, 0)
    maxCost += sd.maxNewidleLbCost
    if (!cont.value) {
      if (needDecay) continue
      break
    }
    let interval = sdBalanceIntervalJiffies(sd, busy, k.cfg.hz, fs.ncpus)
    if (j >= sd.lastBalance + interval) {
      if (fs.k.fn.schedBalanceRq(fs, cpu, sd, idle, cont)) {
        idle = fs.idleCpu(cpu) ? CPU_IDLE : CPU_NOT_IDLE
        busy = idle !== CPU_IDLE && !fs.schedIdleCpu(cpu)
      }
      sd.lastBalance = j
      interval = sdBalanceIntervalJiffies(sd, busy, k.cfg.hz, fs.ncpus)
    }
    if (nextBalance > sd.lastBalance + interval) {
      nextBalance = sd.lastBalance + interval
      updateNext = true
    }
  }
  if (needDecay) fs.maxIdleBalanceCost[cpu] = Math.max(k.cfg.migrationCostNs, maxCost)
  if (updateNext) fs.nextBalance[cpu] = nextBalance
  if (idleIn === CPU_IDLE && fs.nohzNextBalance > fs.nextBalance[cpu]) fs.nohzNextBalance = fs.nextBalance[cpu]
}

/** sched_balance_trigger() from the tick: the periodic balance softirq, then the nohz kick. */
export function schedBalanceTrigger(fs: FairSched, cpu: number): void {
  if (!fs.d.sd[cpu]) return
  nohzBalancerKick(fs, cpu)
  if (fs.jiffies() >= fs.nextBalance[cpu]) {
    fs.updateBlockedAverages(cpu)
    schedBalanceDomains(fs, cpu, fs.idleCpu(cpu) ? CPU_IDLE : CPU_NOT_IDLE)
  }
}

/**
 * nohz_balancer_kick(): a busy CPU's tick decides whether an idle CPU should balance on behalf
 * of all idle (tickless) CPUs.
 */
function nohzBalancerKick(fs: FairSched, cpu: number): void {
  const k = fs.k
  fs.nohzBalanceExitIdle(cpu)
  if (!fs.nohzNrCpus) return
  const j = fs.jiffies()
  let flags = 0
  if (fs.nohzHasBlocked && j > fs.nohzNextBlocked) flags = NOHZ_STATS_KICK
  if (j >= fs.nohzNextBalance) {
    const all = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK
    const sd = fs.d.sd[cpu]
    if (k.nrRunning[cpu] >= 2) flags = all
    else if (sd && k.cfsNrRunnable[cpu] >= 1 && fs.checkCpuCapacity(cpu, sd.imbalancePct)) flags = all
    else if (fs.d.sdAsymCpucapacity[cpu]) {
      // Asymmetric systems: only a misfit task justifies the kick.
      if (fs.misfitTaskLoad[cpu] && (fs.capOrig[cpu] < fs.d.rd.maxCpuCapacity || (sd && fs.checkCpuCapacity(cpu, sd.imbalancePct)))) flags = all
    } else {
      const shared = fs.d.sdLlcShared[cpu]
      if (shared && shared.nrBusyCpus > 1) flags = all
    }
  }
  if (fs.nohzNeedsUpdate) flags |= NOHZ_NEXT_KICK
  if (flags) kickIlb(fs, cpu, flags)
}

/** kick_ilb(): IPI the first idle CPU; it runs the balance once out of its idle state. */
function kickIlb(fs: FairSched, thisCpu: number, flags: number): void {
  const k = fs.k
  if (flags & NOHZ_BALANCE_KICK) fs.nohzNextBalance = fs.jiffies() + 1
  let ilb = -1
  for (let c = 0; c < fs.ncpus; c++) {
    if (c !== thisCpu && fs.nohzIdle[c] && fs.idleCpu(c)) {
      ilb = c
      break
    }
  }
  if (ilb < 0) return
  if ((fs.nohzFlags[ilb] & flags) === flags) return
  const had = fs.nohzFlags[ilb]
  fs.nohzFlags[ilb] |= flags
  if (had) return
  k.at(k.now + k.cfg.costs.ipiNs + fs.idleExitLatencyNs(ilb), fs.ilbRun[ilb])
  k.counters.ilbKicks = (k.counters.ilbKicks ?? 0) + 1
}

/** _nohz_idle_balance(): on the kicked CPU, balance every idle CPU that is due, itself last. */
export function nohzIdleBalanceRun(fs: FairSched, ilb: number, flags: number): void {
  const k = fs.k
  const j = fs.jiffies()
  let nextBalance = j + 60 * k.cfg.hz
  let updateNext = false
  if (flags & NOHZ_STATS_KICK) fs.nohzHasBlocked = false
  if (flags & NOHZ_NEXT_KICK) fs.nohzNeedsUpdate = false
  const n = fs.ncpus
  for (let i = 1; i <= n; i++) {
    const c = (ilb + i) % n
    if (!fs.nohzIdle[c] || !fs.idleCpu(c)) continue
    if (!fs.idleCpu(ilb)) {
      if (flags & NOHZ_NEXT_KICK) fs.nohzNeedsUpdate = true
      return
    }
    if (flags & NOHZ_STATS_KICK) fs.updateBlockedAverages(c)
    if (j >= fs.nextBalance[c] && flags & NOHZ_BALANCE_KICK) schedBalanceDomains(fs, c, CPU_IDLE)
    if (nextBalance > fs.nextBalance[c]) {
      nextBalance = fs.nextBalance[c]
      updateNext = true
    }
  }
  if (updateNext) fs.nohzNextBalance = nextBalance
  if (flags & NOHZ_STATS_KICK) fs.nohzNextBlocked = j + msecsToJiffies(32, k.cfg.hz)
}

/**
 * sched_balance_newidle(): the CPU's fair queue is empty. Unless no CPU is overloaded or the
 * CPU is expected to idle for less than the balancing costs (avg_idle), try each domain from
 * the bottom (NI_RANDOM skips domains by their success ratio) until a task is pulled.
 */
export function schedBalanceNewidle(fs: FairSched, cpu: number): boolean {
  const k = fs.k
  fs.misfitTaskLoad[cpu] = 0
  // a wakeup already queued to this CPU will run: no need to search (it is enqueued in idle)
  if (k.ttwuPending[cpu] !== 0) return false
  const base = fs.d.sd[cpu]
  if (!base) return false
  let nextBalance = fs.jiffies() + k.cfg.hz
  const avgIdle = k.avgIdle[cpu]
  const f = k.f
  // seed 004/8: under LB_PROMOTE a short expected idle period does not skip the balance
  const useAvgIdle = !(f.LB_PROMOTE && f.LBP8_NEWIDLE_AVG_IDLE)
  if (!fs.d.rd.overloaded || (useAvgIdle && avgIdle < base.maxNewidleLbCost)) {
    // update_next_balance() of the lowest domain only
    nextBalance = Math.min(nextBalance, base.lastBalance + sdBalanceIntervalJiffies(base, false, k.cfg.hz, fs.ncpus))
    if (fs.nextBalance[cpu] > nextBalance) fs.nextBalance[cpu] = nextBalance
    k.counters.newidleSkipped = (k.counters.newidleSkipped ?? 0) + 1
    return false
  }
  fs.updateBlockedAverages(cpu)
  let pulled = 0
  let currCost = 0
  const cont = contScratch
  cont.value = true
  for (let sd: SchedDomain | null = base; sd; sd = sd.parent) {
    nextBalance = Math.min(nextBalance, sd.lastBalance + sdBalanceIntervalJiffies(sd, false, k.cfg.hz, fs.ncpus))
    if (useAvgIdle && avgIdle < currCost + sd.maxNewidleLbCost) break
    if (sd.flags & SD_BALANCE_NEWIDLE) {
      let weight = 1
      if (f.NI_RANDOM) {
        const d1k = Math.floor(k.random() * 1024)
        weight = 1 + sd.newidleRatio
        if (d1k > weight) {
          updateNewidleStats(fs, sd, 0)
          continue
        }
        weight = Math.floor((1024 + Math.floor(weight / 2)) / weight)
      }
      pulled = fs.k.fn.schedBalanceRq(fs, cpu, sd, CPU_NEWLY_IDLE, cont)
      const cost = fs.lbEnv.costNs
      currCost += cost
      updateNewidleCost(fs, sd, cost)
      if (f.NI_RANDOM) updateNewidleStats(fs, sd, pulled ? weight : 0)
    }
    if (pulled || !cont.value) break
  }
  if (currCost > fs.maxIdleBalanceCost[cpu]) fs.maxIdleBalanceCost[cpu] = currCost
  if (fs.nextBalance[cpu] > nextBalance) fs.nextBalance[cpu] = nextBalance
  if (pulled) k.counters.newidlePulls = (k.counters.newidlePulls ?? 0) + 1
  return pulled > 0 || k.cfsNrQueued[cpu] > 0
}

