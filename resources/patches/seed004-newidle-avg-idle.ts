/**
 * Seed 004 patch 8/10 as a patch module: "sched/fair: newidle balance ignores avg_idle under
 * LB_PROMOTE" from "A series of load balance patches to improve real-time performance of CFS
 * tasks" (RFC). With its flag on, sched_balance_newidle() no longer skips the balance, or stops
 * going up the domains, because the CPU's expected idle time (avg_idle) is shorter than the
 * domains' newidle balance cost.
 *
 * Equivalent, byte for byte, to the built-in `lb-promote/8` (LB_PROMOTE + LBP8_NEWIDLE_AVG_IDLE)
 * when the variant turns this module's LB_PROMOTE on: the hook wraps the balance and lets it see
 * an unbounded avg_idle, which is what the kernel patch's test removal amounts to.
 */
import { definePatch } from 'schedlab/patch'

export default definePatch({
  name: 'seed004-newidle-avg-idle',
  description: 'Under LB_PROMOTE, newidle balance runs whatever avg_idle and max_newidle_lb_cost say.',
  hooks: {
    schedBalanceNewidle(s, orig, cpu) {
      if (!s.feat.LB_PROMOTE) return orig(cpu)
      const avgIdle = s.rq.avgIdle[cpu]
      s.rq.avgIdle[cpu] = Infinity
      try {
        return orig(cpu)
      } finally {
        s.rq.avgIdle[cpu] = avgIdle
      }
    }
  }
})
