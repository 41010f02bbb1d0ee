import type { PatchDoc } from './types'

/** Alternatives reviewers proposed in the seed threads, so users can weigh them against the patches. */
export const ALTERNATIVE_PATCHES: PatchDoc[] = [
  {
    name: 'alt-idle-seq', seed: '000 review of 5/8 (Peter Zijlstra)',
    title: 'idle_seq: reset stale lag when the queue went idle during the sleep',
    effect: 'cfs_rq.idle_seq counts the times the queue emptied; a waking entity whose vlag_seq differs loses its lag.',
    switches: { IDLE_SEQ: true }
  },
  {
    name: 'alt-decay-ww', seed: '000 review of 4/8 (Peter Zijlstra)',
    title: 'Decay positive lag at the (W + w) rate',
    effect: 'Positive lag shrinks by sleep * 1024 / (queue load + w) instead of sleep * 1024 / w.',
    switches: { DECAY_LAG_WW: true }
  },
  {
    name: 'alt-decay-loadavg', seed: '000 review of 4/8 (Peter Zijlstra)',
    title: 'Decay positive lag at a rate from the queue\'s load_avg',
    effect: 'Positive lag shrinks by sleep * 1024 / (queue PELT load_avg + w): over-estimating W is safer than under-estimating it.',
    switches: { DECAY_LAG_LOADAVG: true }
  },
  {
    name: 'alt-slice-track', seed: '000 review of 8/8 (Peter Zijlstra)',
    title: 'Keep track of the min-slice CPU during the idle scan instead of rescanning',
    effect: 'select_idle_cpu/select_idle_capacity remember the first busy CPU they visit whose queued slices are all longer than the wakee\'s (fitting it on asymmetric systems); it replaces target as the last fallback, with no second scan.',
    switches: { SS6_RQ_MIN_SLICE: true, SLICE_TRACK_SCAN: true }
  },
  {
    name: 'alt-lbp-slow-wake', seed: '004 review of 5/10 (Xin Zhao, Vincent Guittot)',
    title: 'Force the slow wakeup path under LB_PROMOTE instead of select_task_rq_fair_thin()',
    effect: 'With LB_PROMOTE, want_affine is false and wakeups take sched_balance_find_dst_cpu() from the top domain, as if every domain had SD_BALANCE_WAKE.',
    switches: { LB_PROMOTE: true, ALT_LBP_SLOW_WAKE: true }
  },
  {
    name: 'alt-all-pinned', seed: '004 review of 1/10 (K Prateek Nayak)',
    title: 'Per-rq all_pinned flag consumed in add_nr_running() instead of patch 1',
    effect: 'A root-level balance that found every task of the busiest rq pinned marks it; its next enqueue (or an affinity change) with >= 2 tasks sets rd->overloaded again.',
    switches: { ALT_ALL_PINNED: true }
  },
  {
    name: 'alt-sis-small-llc', seed: '004 review of 5/10 (Vincent Guittot)',
    title: 'Relax nr_idle_scan for small LLCs',
    effect: 'LLCs of at most 4 CPUs keep an idle-scan budget covering every CPU, whatever their utilization.',
    switches: { ALT_SIS_SMALL_LLC: true }
  }
]
