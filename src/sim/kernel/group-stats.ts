/**
 * The state structures of load balancing: group statistics (struct sg_lb_stats, enum
 * group_type, group_classify()), which both sched_balance_rq() (balance.ts) and the slow wakeup
 * path's sched_balance_find_dst_group() (select.ts) read, and the balancer's environment
 * (struct lb_env with struct sd_lb_stats, enum migration_type).
 */
import { CPU_NOT_IDLE, type SchedDomain, type SchedGroup } from './domains'

// enum group_type, in order of how badly a group needs help
export const GROUP_HAS_SPARE = 0
export const GROUP_FULLY_BUSY = 1
export const GROUP_MISFIT_TASK = 2
export const GROUP_SMT_BALANCE = 3
export const GROUP_ASYM_PACKING = 4
export const GROUP_IMBALANCED = 5
export const GROUP_OVERLOADED = 6

const NUMA_IMBALANCE_MIN = 2

/** struct sg_lb_stats */
export class SgStats {
  avgLoad = 0
  groupLoad = 0
  groupCapacity = 0
  groupUtil = 0
  groupRunnable = 0
  sumNrRunning = 0
  sumHNrRunning = 0
  idleCpus = 0
  groupWeight = 0
  groupType = GROUP_HAS_SPARE
  groupSmtBalance = 0
  groupMisfitTaskLoad = 0

  reset(): void {
    this.copyFrom(ZERO_STATS)
  }

  copyFrom(o: SgStats): void {
    this.avgLoad = o.avgLoad
    this.groupLoad = o.groupLoad
    this.groupCapacity = o.groupCapacity
    this.groupUtil = o.groupUtil
    this.groupRunnable = o.groupRunnable
    this.sumNrRunning = o.sumNrRunning
    this.sumHNrRunning = o.sumHNrRunning
    this.idleCpus = o.idleCpus
    this.groupWeight = o.groupWeight
    this.groupType = o.groupType
    this.groupSmtBalance = o.groupSmtBalance
    this.groupMisfitTaskLoad = o.groupMisfitTaskLoad
  }
}

const ZERO_STATS = new SgStats()

function groupIsOverloaded(pct: number, s: SgStats): boolean {
  if (s.sumNrRunning <= s.groupWeight) return false
  if (s.groupCapacity * 100 < s.groupUtil * pct) return true
  return s.groupCapacity * pct < s.groupRunnable * 100
}

function groupHasCapacity(pct: number, s: SgStats): boolean {
  if (s.sumNrRunning < s.groupWeight) return true
  if (s.groupCapacity * pct < s.groupRunnable * 100) return false
  return s.groupCapacity * 100 > s.groupUtil * pct
}

/** group_classify() */
export function groupClassify(pct: number, group: SchedGroup, s: SgStats): number {
  if (groupIsOverloaded(pct, s)) return GROUP_OVERLOADED
  if (group.sgc.imbalance) return GROUP_IMBALANCED
  if (s.groupSmtBalance) return GROUP_SMT_BALANCE
  if (s.groupMisfitTaskLoad) return GROUP_MISFIT_TASK
  if (!groupHasCapacity(pct, s)) return GROUP_FULLY_BUSY
  return GROUP_HAS_SPARE
}

/** adjust_numa_imbalance(): forgive a small imbalance while the destination is lightly loaded. */
export function adjustNumaImbalance(imbalance: number, dstRunning: number, imbNumaNr: number): number {
  if (dstRunning > imbNumaNr) return imbalance
  if (imbalance <= NUMA_IMBALANCE_MIN) return 0
  return imbalance
}

// enum migration_type
export const MIGRATE_LOAD = 0
export const MIGRATE_UTIL = 1
export const MIGRATE_TASK = 2
export const MIGRATE_MISFIT = 3

/**
 * SCHED_NR_MIGRATE_BREAK. sysctl_sched_nr_migrate is kernel.nrMigrate (32 by default): with the
 * default, loop_max (at most nr_migrate) always stops detach_tasks() before loop_break, so
 * LBF_NEED_BREAK only happens with a raised nr_migrate.
 */
export const SCHED_NR_MIGRATE_BREAK = 32

/** struct lb_env plus struct sd_lb_stats, preallocated per balancer. */
export class LbEnv {
  sd!: SchedDomain
  dstCpu = 0
  srcCpu = 0
  dstGrp!: SchedGroup
  idle = CPU_NOT_IDLE
  imbalance = 0
  migrationType = MIGRATE_LOAD
  flags = 0
  loop = 0
  loopMax = 0
  loopBreak = SCHED_NR_MIGRATE_BREAK
  newDstCpu = -1
  readonly cpus: Uint8Array
  readonly detached: Int32Array
  nDetached = 0
  /** Runqueues read and tasks examined by the current pass (its modeled cost). */
  cpusVisited = 0
  tasksVisited = 0
  /** Wall-clock cost of the last pass on the balancing CPU, ns. */
  costNs = 0
  // sd_lb_stats
  busiest: SchedGroup | null = null
  local: SchedGroup | null = null
  totalLoad = 0
  totalCapacity = 0
  avgLoad = 0
  preferSibling = false
  readonly busiestStat = new SgStats()
  readonly localStat = new SgStats()
  readonly tmpStat = new SgStats()

  constructor(ncpus: number, maxTasks: number) {
    this.cpus = new Uint8Array(ncpus)
    this.detached = new Int32Array(maxTasks + 1)
  }
}
