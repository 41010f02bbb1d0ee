/** The placement of a bare kernel (the Placement seam is declared in sched.ts). */
import type { Kernel, Placement } from './sched'
import { WF_FORK } from './api'

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
