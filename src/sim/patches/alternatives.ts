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
  }
]
