import type { PatchDoc } from './types'

/**
 * Seed 000: "[PATCH 0/8] Improving latency of short slice tasks" (Vincent Guittot, 2026-09-21).
 * Patches 1-3 were queued in tip afterwards (v2 cover letter). Each patch is its own switch;
 * the series name turns on all that are modeled.
 */
const SEED = '000'

export const SHORT_SLICE_V1_PARTS: PatchDoc[] = [
  {
    name: 'short-slice-v1/1', seed: `${SEED} 1/8`,
    title: 'sched/eevdf: Ensure that vprot will never go above a min slice',
    effect: 'set_protect_slice always caps vprot at v + min slice; PREEMPT_SHORT then also caps it at ineligible_vruntime.',
    switches: { SS1_VPROT_MINSLICE: true }
  },
  {
    name: 'short-slice-v1/2', seed: `${SEED} 2/8`,
    title: 'sched/eevdf: Align update_protect_slice to set_protect_slice',
    effect: 'update_protect_slice uses the base slice without RUN_TO_PARITY and caps at ineligible_vruntime with PREEMPT_SHORT.',
    switches: { SS2_ALIGN_UPDATE: true }
  },
  {
    name: 'short-slice-v1/3', seed: `${SEED} 3/8`,
    title: 'sched/eevdf: Handle more short slice waking cases',
    effect: 'set_short_buddy keeps an existing buddy with an equal slice and an earlier deadline.',
    switches: { SS3_SHORT_BUDDY_TIE: true }
  },
  {
    name: 'short-slice-v1/4', seed: `${SEED} 4/8`,
    title: 'sched/eevdf: Decay positive lag of sleeping entities',
    effect: 'At wakeup (not migrated) positive lag shrinks by calc_delta_fair(sleep time), floored at 0.',
    switches: { SS4_DECAY_POS_LAG: true }
  },
  {
    name: 'short-slice-v1/5', seed: `${SEED} 5/8`,
    title: 'sched/eevdf: Reset lag when waking up on idle cpu',
    effect: 'A task waking on a CPU whose current task is idle loses its positive lag (the corrected version that clears se->vlag).',
    switches: { SS5_RESET_LAG_IDLE: true }
  }
]
