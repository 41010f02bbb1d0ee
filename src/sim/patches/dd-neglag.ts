import type { PatchDoc } from './types'

/**
 * Seed 002: "[PATCH v2] sched: fair: Prevent negative lag increase during delayed dequeue"
 * (Vincent Guittot, 2026-03-31; merged in tip 2026-04, commit 059258b0d424). Like every patch
 * switch it is off in all profiles; presets whose baseline is a later tip (seeds 000/001, Sept.
 * and Oct. 2026) turn it on in their base kernel.
 */
export const DD_NEGLAG_PATCH: PatchDoc = {
  name: 'dd-neglag', seed: '002',
  title: 'sched: fair: Prevent negative lag increase during delayed dequeue',
  effect: 'A delayed-dequeued entity\'s negative lag cannot grow while it waits, positive lag is dropped with DELAY_ZERO, and it is re-placed when its lag changed.',
  switches: { DD_NEGLAG: true }
}
