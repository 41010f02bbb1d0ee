import type { PatchDoc } from './types'

/**
 * Seed 001: "[PATCH 00/18 v2] Improving latency of short slice tasks" (Vincent Guittot,
 * 2026-10-02). Only the cover letter is public, so each part is modeled from its description;
 * the design choices are written here.
 *
 * - Its baseline already contains v1 patches 1-3 ("queued"): presets for seed 001 turn
 *   SS1_VPROT_MINSLICE, SS2_ALIGN_UPDATE and SS3_SHORT_BUDDY_TIE on in the base kernel.
 * - Patch 1 "Decay positive lag of sleeping entities", v2: "take into account cfs load but not
 *   migrated task yet". Modeled as decaying by sleep * 1024 / (cfs_rq load_avg + w): the PELT
 *   load average the reviewer proposed (it over-estimates the competing weight rather than
 *   under-estimating it), skipped for migrated tasks; positive lag is cleared after a sleep
 *   longer than 4 s (a third-party digest of v2).
 * - Patch 2 "Reset lag when waking up on idle cpu", v2: "Reset lag if the CPU entered idle while
 *   task was sleeping". Modeled as: on a non-migrating wakeup, lag is cleared when the CPU's last
 *   idle entry is later than the task's last run on it.
 */
const SEED = '001'

export const SHORT_SLICE_V2_PARTS: PatchDoc[] = [
  {
    name: 'short-slice-v2/1', seed: `${SEED} 1/18`,
    title: 'sched/eevdf: Decay positive lag of sleeping entities (v2)',
    effect: 'Positive lag shrinks by sleep * 1024 / (queue load_avg + w) at a non-migrating wakeup; cleared after 4 s of sleep.',
    switches: { DECAY_LAG_LOADAVG: true, SSV2_LAG_EXPIRE: true }
  },
  {
    name: 'short-slice-v2/2', seed: `${SEED} 2/18`,
    title: 'sched/eevdf: Reset lag when waking up on idle cpu (v2)',
    effect: 'A task waking on the CPU it ran on loses its positive lag when that CPU went idle during its sleep.',
    switches: { SSV2_RESET_LAG_IDLE: true }
  }
]
