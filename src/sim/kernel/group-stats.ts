/**
 * Group statistics of load balancing and of the slow wakeup path (struct sg_lb_stats, enum
 * group_type, group_classify()): the one part of fair.c's balancing that both
 * sched_balance_rq() (balance.ts) and sched_balance_find_dst_group() (select.ts) read.
 */
import type { SchedGroup } from './domains'

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
