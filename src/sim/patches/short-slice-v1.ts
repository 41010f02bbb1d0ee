import type { PatchDoc } from './types'

/**
 * Seed 000: "[PATCH 0/8] Improving latency of short slice tasks" (Vincent Guittot, 2026-09-21).
 * Patches 1-3 were queued in tip afterwards (v2 cover letter). Each patch is its own switch;
 * the series name turns on all eight.
 *
 * Where each switch acts: SS1/SS2 in fair.ts setProtectSlice/updateProtectSlice, SS3 in
 * setShortBuddy, SS4/SS5 in decayEntityLag, SS7 in select.ts wakeAffine, SS8 in select.ts
 * selectIdleSibling (selectSlice/selectSliceCpu).
 *
 * SS6_RQ_MIN_SLICE (6/8) is a cache: the model always keeps k.rqMinSlice[cpu] equal to
 * cfs_rq_min_slice() of the CPU's queue (curr included, Infinity when empty), refreshed after
 * every fair enqueue and dequeue as the patch does. Nothing in the kernel reads it without 7/8,
 * so the switch changes nothing observable on its own (its cost, a cache miss the reviewer
 * pointed out, is not modeled); 7/8 and v2 3-5 turn it on with them.
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
  },
  {
    name: 'short-slice-v1/6', seed: `${SEED} 6/8`,
    title: 'sched/eevdf: Add per cpu cached min_slice',
    effect: 'Per-CPU cache of the queue\'s min slice (curr included), refreshed after every fair enqueue/dequeue; nothing observable until 7/8 read it.',
    switches: { SS6_RQ_MIN_SLICE: true }
  },
  {
    name: 'short-slice-v1/7', seed: `${SEED} 7/8`,
    title: 'sched/eevdf: Compare min slice during wake_affine',
    effect: 'wake_affine_slice between WA_IDLE and WA_WEIGHT (PREEMPT_SHORT): prev if the wakee\'s slice is shorter than every slice queued there, else this CPU on the same test.',
    switches: { SS6_RQ_MIN_SLICE: true, SS7_WAKE_AFFINE_SLICE: true }
  },
  {
    name: 'short-slice-v1/8', seed: `${SEED} 8/8`,
    title: 'sched/eevdf: Add min slice check when selecting CPU',
    effect: 'When no idle CPU is found, select_slice_cpu rescans the LLC (or asym domain) from target within the SIS_UTIL budget for the first CPU whose queued slices are all longer than the wakee\'s (and that fits it on asymmetric systems).',
    switches: { SS6_RQ_MIN_SLICE: true, SS8_SELECT_SLICE_CPU: true }
  }
]
