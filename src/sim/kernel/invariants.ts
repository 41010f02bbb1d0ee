/**
 * The model's own consistency checks (turned on by kernel.debug and by tests): after every
 * event, the EEVDF sums, the lag clamps and V as the weighted average of the queued vruntimes.
 */
import { KernelInvariantError, type Kernel } from './sched'
import { P_TIP26 } from './features'
import { NIL } from './eevdf-tree'
import { calcDeltaFair, floorDiv } from './weights'
import { lagLimit, recomputeAvg } from './fair'

/**
 * Every queued entity's lag is within the kernel's clamp (from 6.17, whose clamp follows the
 * queue's max slice; before, a short-slice entity waiting behind a long slice really does
 * exceed its own 2*slice clamp, which is why the kernel changed it), stored lags are within
 * their clamp, the incremental avg_vruntime sums match a recomputation, and V is the
 * weighted average of the queued entities' vruntimes.
 */
export function checkInvariants(k: Kernel): void {
  for (let cpu = 0; cpu < k.ncpus; cpu++) {
    const { s, w } = recomputeAvg(k, cpu)
    if (s !== k.sumWVruntime[cpu] || w !== k.sumWeight[cpu]) {
      throw new KernelInvariantError(`CPU ${cpu}: avg sums drifted (S ${k.sumWVruntime[cpu]} vs ${s}, W ${k.sumWeight[cpu]} vs ${w})`)
    }
    const curr = k.cfsCurr[cpu]
    const v0 = k.zeroVruntime[cpu]
    let num = s
    let den = w
    let absNum = 0
    k.tree.forEach(cpu, (n) => { absNum += k.vruntime[n] * k.weight[n] })
    if (curr !== NIL && k.onRq[curr] !== 0) {
      num += (k.vruntime[curr] - v0) * k.weight[curr]
      den += k.weight[curr]
      absNum += k.vruntime[curr] * k.weight[curr]
    }
    if (den === 0) continue
    const V = v0 + floorDiv(num, den)
    const mean = absNum / den
    if (Math.abs(V - mean) > 1 + Math.abs(mean) * 1e-12) {
      throw new KernelInvariantError(`CPU ${cpu}: V ${V} is not the weighted average ${mean}`)
    }
    const liveCheck = k.cfg.prof >= P_TIP26
    const checkLag = (n: number): void => {
      const L = lagLimit(k, cpu, n)
      if (liveCheck) {
        const lag = V - k.vruntime[n]
        const slack = overrunSlack(k, n)
        if (lag > L + slack || lag < -L - slack) {
          throw new KernelInvariantError(`CPU ${cpu}: task ${k.attrs[n].name} lag ${lag} outside +/-${L} (+${slack} for one tick of overrun)`)
        }
      }
      if (Math.abs(k.vlag[n]) > calcDeltaFair(Math.max(k.cfg.tickNs + 100_000_000, 2 * k.slice[n]), k.weight[n])) {
        throw new KernelInvariantError(`task ${k.attrs[n].name}: stored vlag ${k.vlag[n]} beyond any clamp`)
      }
    }
    k.tree.forEach(cpu, checkLag)
    if (curr !== NIL && k.onRq[curr] !== 0) checkLag(curr)
  }
}

/** One tick (plus switch costs) of overrun by curr past its deadline, in n's virtual time. */
function overrunSlack(k: Kernel, n: number): number {
  return Math.ceil((k.cfg.tickNs + 8 * k.cfg.costs.contextSwitchWorkNs) * 1024 / k.weight[n])
}
