/**
 * Seed 000 patch 1/8 as a patch module: "sched/fair: Fix set_protect_slice()" from "Improving
 * latency of short slice tasks" v1. Equivalent to the built-in switch `short-slice-v1/1`
 * (SS1_VPROT_MINSLICE), byte for byte.
 *
 * set_protect_slice() decides how far a picked entity may run before a wakeup can preempt it
 * (vprot). Mainline (6.17+) protects it up to its deadline, or up to vruntime + the queue's
 * minimum slice under RUN_TO_PARITY when that comes first; tip 2026 caps it at
 * ineligible_vruntime() under PREEMPT_SHORT. The patch always caps vprot at vruntime + the min
 * slice, and then, under PREEMPT_SHORT, also at ineligible_vruntime().
 */
import { definePatch } from 'schedlab/patch'

export default definePatch({
  name: 'seed000-vprot-minslice',
  description: 'set_protect_slice caps vprot at vruntime + min slice, then at ineligible_vruntime with PREEMPT_SHORT.',
  init(s) {
    if (!s.profileAtLeast('6.17')) s.warn('seed000-vprot-minslice changes the 6.17+ slice protection; this profile protects to the deadline')
  },
  hooks: {
    setProtectSlice(s, orig, cpu, se) {
      if (!s.profileAtLeast('6.17')) return orig(cpu, se)
      const t = s.task
      let slice = s.feat.RUN_TO_PARITY ? s.fn.cfsRqMinSlice(cpu) : s.normBaseSliceNs
      if (slice > t.slice[se]) slice = t.slice[se]
      let vprot = t.deadline[se]
      if (slice !== t.slice[se]) {
        const byMinSlice = t.vruntime[se] + s.fn.calcDeltaFair(slice, t.weight[se])
        if (byMinSlice < vprot) vprot = byMinSlice
        if (s.feat.PREEMPT_SHORT) {
          const iv = s.fn.ineligibleVruntime(cpu)
          if (iv < vprot) vprot = iv
        }
      }
      t.vprot[se] = vprot
    }
  }
})
