/**
 * Push of waiting fair tasks, after short-slice v2 (seed 001, patches 6-14; cover letter only,
 * the design choices are listed in src/sim/patches/short-slice-v2.ts):
 *
 * - FAIR_PUSH (patches 6-11): the mechanism. A fair runqueue keeps pushable tasks (queued,
 *   not running, not delayed, allowed elsewhere); a push callback runs at the end of the
 *   wakeup that queued one (task_woken) and at the end of __schedule(); the tick forces a push
 *   of tasks still marked; the destination comes from select_idle_sibling() called for a task
 *   that is not waking up. A push only moves a task to a CPU where it would run first: an idle
 *   one, or one whose shortest queued slice is longer than the task's.
 * - PUSH_SHORT_WAKEUP (12), PUSH_SHORT_UNPICKED (13), PUSH_SHORT_PREEMPT (14): which tasks
 *   become pushable. Only a task with a short slice, i.e. shorter than the default slice or than
 *   a slice queued or running on its CPU, is ever marked.
 */
import type { FairSched } from './sched'
import { NIL } from './eevdf-tree'
import { cfsRqMaxSlice } from './fair'
import { findEnergyEfficientCpu } from './eas'

/**
 * A short-slice task: its slice is shorter than the default one, or than a slice some task
 * queued or running on its CPU asked for.
 */
function shortOnRq(fs: FairSched, p: number, cpu: number): boolean {
  const k = fs.k
  return k.slice[p] < k.cfg.baseSliceNs || k.slice[p] < cfsRqMaxSlice(k, cpu)
}

/** A queued task that waits on cpu and could go elsewhere. */
function waiting(fs: FairSched, p: number, cpu: number): boolean {
  const k = fs.k
  return k.onRq[p] !== 0 && k.taskCpu[p] === cpu && k.curr[cpu] !== p && k.schedDelayed[p] === 0 && k.nrCpusAllowed[p] > 1
}

/**
 * task_woken for a fair task (v2 patches 12 and 14): p was enqueued on cpu and the wakeup
 * preemption check ran. If p is not about to run there, it is marked and pushed at once.
 */
export function fairTaskWoken(fs: FairSched, cpu: number, p: number): void {
  const k = fs.k
  const f = k.f
  if (!f.FAIR_PUSH || !(f.PUSH_SHORT_WAKEUP || f.PUSH_SHORT_PREEMPT)) return
  const curr = k.curr[cpu]
  // An idle CPU runs one of its woken tasks; the others are handled when it schedules (13).
  if (curr === NIL || !waiting(fs, p, cpu) || !shortOnRq(fs, p, cpu)) return
  if (k.needResched[cpu] !== 0 && k.fn.pickEevdf(k, cpu, true) === p) return
  // PREEMPT_SHORT applied (p's slice beats the running one's) and still did not get p the CPU
  const preemptShort = f.PREEMPT_SHORT === true && k.isFair(curr) && k.slice[p] < k.slice[curr]
  if (preemptShort ? !f.PUSH_SHORT_PREEMPT : !f.PUSH_SHORT_WAKEUP) return
  fs.pushable[p] = 1
  pushFairTasks(fs, cpu)
}

/**
 * The balance callback at the end of __schedule() (v2 patch 13): short-slice tasks woken on
 * this CPU that the pick did not choose are marked and pushed.
 */
export function fairAfterSchedule(fs: FairSched, cpu: number): void {
  const k = fs.k
  if (!k.f.FAIR_PUSH || !k.f.PUSH_SHORT_UNPICKED) return
  let any = false
  for (let t = k.cfsTasksHead[cpu]; t !== NIL; t = k.cfsTaskNext[t]) {
    // still waiting since its wakeup (its scheduling latency is running)
    if (k.wakeTs[t] < 0 || !waiting(fs, t, cpu) || !shortOnRq(fs, t, cpu)) continue
    fs.pushable[t] = 1
    any = true
  }
  if (any) pushFairTasks(fs, cpu)
}

/** The forced push from the tick (v2 patches 9-10): retry every task still marked. */
export function fairPushTick(fs: FairSched, cpu: number): void {
  if (!fs.k.f.FAIR_PUSH) return
  pushFairTasks(fs, cpu)
}

/** push_fair_task() for every marked task of cpu: move each to a CPU where it runs first. */
export function pushFairTasks(fs: FairSched, cpu: number): void {
  const k = fs.k
  let t = k.cfsTasksHead[cpu]
  while (t !== NIL) {
    const next = k.cfsTaskNext[t]
    if (fs.pushable[t]) {
      if (!waiting(fs, t, cpu)) {
        fs.pushable[t] = 0
      } else {
        k.chargeCpu(cpu, k.cfg.costs.pushWorkNs)
        const dst = selectPushTarget(fs, t, cpu)
        if (dst >= 0) {
          fs.pushable[t] = 0
          k.counters.fairPush = (k.counters.fairPush ?? 0) + 1
          k.moveQueuedTask(t, dst)
        }
      }
    }
    t = next
  }
}

/**
 * The CPU selection of a task that is not waking up (v2 patches 6 and 11): EAS when it
 * applies, and if that gives no CPU where the task runs first, select_idle_sibling() from the
 * task's CPU in its not-wakeup form (no recent_used_cpu rotation, no SIS_UTIL budget, the busy
 * CPU with the longest shortest-slice above the task's as last resort).
 */
function selectPushTarget(fs: FairSched, p: number, src: number): number {
  const k = fs.k
  fs.selectScanned = 0
  let dst = -1
  if (fs.eas && !fs.d.rd.overutilized) dst = runsFirstOn(fs, p, src, findEnergyEfficientCpu(fs, p, src, src))
  if (dst < 0) dst = runsFirstOn(fs, p, src, fs.k.fn.selectIdleSibling(fs, p, src, src, false))
  const c = k.cfg.costs
  k.chargeCpu(src, c.selectWorkNs + c.selectPerCpuWorkNs * fs.selectScanned)
  fs.selectScanned = 0
  return dst
}

/** dst if p, waiting on src, would run first there (idle, or longer slices only), else -1. */
function runsFirstOn(fs: FairSched, p: number, src: number, dst: number): number {
  const k = fs.k
  if (dst < 0 || dst === src || !k.cpuAllowed(p, dst)) return -1
  const idle = fs.idleCpu(dst) || fs.schedIdleCpu(dst)
  if (!idle && !(k.slice[p] < k.rqMinSlice[dst])) return -1
  if (fs.asym && !fs.taskFitsCpu(p, dst)) return -1
  return dst
}

/** A task starts running or leaves the runqueue: it is no longer pushable. */
export function clearPushable(fs: FairSched, p: number): void {
  fs.pushable[p] = 0
}
