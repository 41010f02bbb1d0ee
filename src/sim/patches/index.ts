/**
 * Registry of the seed patch series and reviewer alternatives. `schedlab patches`, scenario
 * validation and the editor's completion all read PATCHES.
 */
import type { PatchDoc } from './types'
import { SHORT_SLICE_V1_PARTS } from './short-slice-v1'
import { SHORT_SLICE_V2_PARTS } from './short-slice-v2'
import { DD_NEGLAG_PATCH } from './dd-neglag'
import { NEXT_BUDDY_PATCHES } from './next-buddy-v4'
import { LB_PROMOTE_PARTS } from './lb-promote'
import { ALTERNATIVE_PATCHES } from './alternatives'

export type { PatchDoc } from './types'

function series(name: string, seed: string, title: string, parts: PatchDoc[]): PatchDoc {
  const switches: Record<string, boolean> = {}
  for (const p of parts) Object.assign(switches, p.switches)
  return { name, seed, title, effect: `All of: ${parts.map((p) => p.name).join(', ')}.`, switches }
}

export const PATCHES: readonly PatchDoc[] = [
  series('short-slice-v1', '000', 'Improving latency of short slice tasks (v1, 8 patches)', SHORT_SLICE_V1_PARTS),
  ...SHORT_SLICE_V1_PARTS,
  series('short-slice-v2', '001', 'Improving latency of short slice tasks (v2, 18 patches; from the cover letter)', SHORT_SLICE_V2_PARTS),
  ...SHORT_SLICE_V2_PARTS,
  DD_NEGLAG_PATCH,
  ...NEXT_BUDDY_PATCHES,
  series('lb-promote', '004', 'sched/fair: A series of load balance patches to improve real-time performance of CFS tasks (RFC, 10 patches)', LB_PROMOTE_PARTS),
  ...LB_PROMOTE_PARTS,
  ...ALTERNATIVE_PATCHES
]

const BY_NAME = new Map(PATCHES.map((p) => [p.name, p]))

export function findPatch(name: string): PatchDoc | undefined {
  return BY_NAME.get(name)
}

/** The switches of a patch; throws on an unknown name (scenario validation reports it first). */
export function patchSwitches(name: string): Record<string, boolean> {
  const p = BY_NAME.get(name)
  if (!p) throw new Error(`unknown patch "${name}"`)
  return p.switches
}
