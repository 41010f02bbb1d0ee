import type { PatchDoc } from './types'

/**
 * Seed 003: "[PATCH v4 0/2] Reintroduce NEXT_BUDDY for EEVDF" (Mel Gorman, 2025-11) and the
 * maintainer's restructured form merged for 6.19-rc (later partly reverted, NEXT_BUDDY
 * defaulted off again).
 */
export const NEXT_BUDDY_PATCHES: PatchDoc[] = [
  {
    name: 'next-buddy-v4', seed: '003 1-2/2',
    title: 'sched/fair: Enable scheduler feature NEXT_BUDDY + Reimplement NEXT_BUDDY to align with EEVDF goals',
    effect: 'NEXT_BUDDY on; __do_preempt_buddy for every non-short wakeup (reschedule an ineligible waker, keep an earlier-deadline buddy, WF_SYNC throttled by migration cost); buddy pick inside pick_eevdf; update_protect_slice under RUN_TO_PARITY.',
    switches: { NEXT_BUDDY: true, NB_POSTED: true }
  },
  {
    name: 'next-buddy-merged', seed: '003 (maintainer restructure)',
    title: 'sched/fair: Reimplement NEXT_BUDDY (restructured by Peter Zijlstra, as merged for 6.19-rc)',
    effect: 'NEXT_BUDDY on; set_preempt_buddy + preempt_sync only when the buddy was set; reschedule when the waker is ineligible (later reverted).',
    switches: { NEXT_BUDDY: true, NB_MERGED: true }
  }
]
