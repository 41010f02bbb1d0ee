import type { PatchDoc } from './types'

/**
 * Seed 002: "[PATCH v2] sched: fair: Prevent negative lag increase during delayed dequeue"
 * (Vincent Guittot, 2026-03-31; merged in tip 2026-04, so the tip-2026 profile's baseline has
 * it: seed 002 presets turn DD_NEGLAG off in the base kernel to reproduce its baseline).
 */
export const DD_NEGLAG_PATCH: PatchDoc = {
  name: 'dd-neglag', seed: '002',
  title: 'sched: fair: Prevent negative lag increase during delayed dequeue',
  effect: 'A delayed-dequeued entity\'s negative lag cannot grow while it waits, positive lag is dropped with DELAY_ZERO, and it is re-placed when its lag changed.',
  switches: { DD_NEGLAG: true }
}
