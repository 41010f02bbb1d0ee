/**
 * The seam between the core and the multi-CPU policies: where a waking or forked task goes,
 * and load balancing. The core calls only these; select_task_rq_fair, the balancer and EAS
 * plug in here.
 */
import type { Kernel } from './core'
import type { VariantResult } from '../../shared/result'
import { WF_FORK } from './api'

export interface Placement {
  /** Forget the counters reported so far (the end of a discarded warm-up). */
  resetStats?(): void
  /** select_task_rq() for a fair task: the CPU it is enqueued on. */
  selectTaskRq(p: number, prevCpu: number, wakeFlags: number, thisCpu: number): number
  /**
   * sched_balance_newidle(): cpu's fair pick found nothing. Pull work if the policy wants to.
   * Returns true when something was pulled (the core picks again).
   */
  newidleBalance(cpu: number): boolean
  /** Called from every tick on a busy CPU (sched_balance_trigger, misfit, nohz kick). */
  tick(cpu: number): void
  /** add_nr_running(): a task was added to cpu's runqueue (any class). */
  addNrRunning?(cpu: number): void
  /** A fair task was woken onto cpu (enqueued, wakeup preemption checked): task_woken. */
  taskWoken?(cpu: number, p: number): void
  /** __schedule() on cpu switched away from the still-runnable fair task prev (preemption). */
  taskPreempted?(cpu: number, prev: number): void
  /** The balance callbacks at the end of __schedule() on cpu (after a switch). */
  afterSchedule?(cpu: number): void
  /** A task queued or running on cpu had its affinity changed. */
  affinityChanged?(cpu: number): void
  /** Add the policy's metrics to a finished run's result (optional). */
  report?(result: VariantResult): void
}

/**
 * The placement of a bare Kernel (unit tests of the core and the fair class): wakeups stay on
 * the previous CPU when allowed, forks go to the allowed CPU with the fewest runnable tasks
 * (the forking CPU first, then the lowest id). No balancing. simulate() replaces it with
 * FairSched (select_task_rq_fair, load balancing, PELT).
 */
export class SimplePlacement implements Placement {
  constructor(private k: Kernel) {}

  selectTaskRq(p: number, prevCpu: number, wakeFlags: number, thisCpu: number): number {
    const k = this.k
    if (!(wakeFlags & WF_FORK) && prevCpu >= 0 && k.cpuAllowed(p, prevCpu)) return prevCpu
    let best = -1
    if (thisCpu >= 0 && k.cpuAllowed(p, thisCpu)) best = thisCpu
    for (let c = 0; c < k.ncpus; c++) {
      if (!k.cpuAllowed(p, c)) continue
      if (best < 0 || k.nrRunning[c] < k.nrRunning[best]) best = c
    }
    return best < 0 ? Math.max(0, prevCpu) : best
  }

  newidleBalance(): boolean {
    return false
  }

  tick(): void {}
}
