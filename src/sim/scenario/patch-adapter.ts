import { SCHED_FEATURES } from '../kernel/features'
import { findPatch, PATCHES } from '../patches'
import { PATCH_SWITCH_NAMES } from './kernel-config'

/** Scenario-side view of the patch registry (src/sim/patches): names, docs and switches. */

export interface PatchInfo {
  name: string
  /** Seed thread and position, title and effect, in one line. */
  doc: string
  /** Switches the patch sets (also accepted in `features`). */
  switches: string[]
}

export function listPatches(): PatchInfo[] {
  return PATCHES.map((p) => ({ name: p.name, doc: `[seed ${p.seed}] ${p.title}: ${p.effect}`, switches: Object.keys(p.switches) }))
}

export function isKnownPatch(name: string): boolean {
  return findPatch(name) !== undefined
}

/** Every name a `features` object may set: sched_feat flags and patch switches. */
export function knownFeatureNames(): string[] {
  return [...SCHED_FEATURES.map((f) => f.name), ...PATCH_SWITCH_NAMES]
}
