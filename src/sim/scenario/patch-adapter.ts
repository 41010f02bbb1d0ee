import { SCHED_FEATURES } from '../kernel/features'

/**
 * The one place where scenario parsing meets the patch registry. Until `PATCHES`
 * (src/sim/patches/index.ts) lands on main, this lists the patch series named in DESIGN.md so
 * that scenarios can be validated; switch the body to the registry when it exists.
 */

export interface PatchInfo {
  name: string
  doc: string
  /** Boolean switches the patch turns on (also accepted in `features`). */
  switches: string[]
}

const PROVISIONAL: PatchInfo[] = [
  { name: 'short-slice-v1', doc: 'Seed 000: Vincent Guittot, improving latency of short slice tasks (8 patches).', switches: [] },
  { name: 'short-slice-v2', doc: 'Seed 001: short slice latency v2 (lag decay, slice-aware CPU selection, fair push).', switches: [] },
  { name: 'dd-neglag', doc: 'Seed 002: prevent negative lag increase during delayed dequeue.', switches: [] },
  { name: 'next-buddy-v4', doc: 'Seed 003: Mel Gorman, reimplement NEXT_BUDDY to align with EEVDF.', switches: [] },
  { name: 'lb-promote', doc: 'Seed 004: Xin Zhao, LB_PROMOTE load balance patches for low-HZ systems.', switches: [] }
]

export function listPatches(): PatchInfo[] {
  return PROVISIONAL
}

export function isKnownPatch(name: string): boolean {
  return listPatches().some((p) => p.name === name)
}

/** Every name a `features` object may set: sched_feat flags and patch switches. */
export function knownFeatureNames(): string[] {
  const names = new Set<string>(SCHED_FEATURES.map((f) => f.name))
  for (const p of listPatches()) for (const s of p.switches) names.add(s)
  return [...names]
}
