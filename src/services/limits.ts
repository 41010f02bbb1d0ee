import { totalmem } from 'node:os'
import { DEFAULT_MAX_EVENTS } from '../sim/scenario'
import { DEFAULT_MAX_TOTAL_EVENTS, estimateMemoryBytes, submissionRefusals, type SubmissionLimits } from '../sim/scenario/estimate'
import type { RunSpec } from '../sim/scenario'
import type { HostLimits } from '../shared/ipc'

/**
 * What one host lets one submission cost. Set by the host's owner only: `schedlab` and
 * `schedlab serve` flags, or the workbench's settings; never by the scenario text, which may
 * come from anywhere. Every run of every host is parsed with `maxEventsPerRun`, expanded with
 * `submissionLimits()`, and runs on a worker pool whose `memoryOf` is `runMemoryOf`.
 */

export type { HostLimits }

export const DEFAULT_HOST_LIMITS: HostLimits = {
  maxEventsPerRun: DEFAULT_MAX_EVENTS,
  maxTotalEvents: DEFAULT_MAX_TOTAL_EVENTS,
  // Half of the machine's memory for the simulations running at one time, the rest for the
  // desktop, the browser and the OS.
  memoryShare: 0.5
}

export const LIMIT_BOUNDS: Record<keyof HostLimits, [number, number]> = {
  maxEventsPerRun: [1000, 1e13],
  maxTotalEvents: [1000, 1e15],
  memoryShare: [0.01, 0.95]
}

/** The valid limits in `raw` (a setting read back from disk, or flags); anything else is dropped. */
export function parseLimits(raw: unknown): Partial<HostLimits> {
  const out: Partial<HostLimits> = {}
  if (!raw || typeof raw !== 'object') return out
  for (const key of Object.keys(LIMIT_BOUNDS) as (keyof HostLimits)[]) {
    const v = (raw as Record<string, unknown>)[key]
    const [lo, hi] = LIMIT_BOUNDS[key]
    if (typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi) out[key] = v
  }
  return out
}

/** Flags over settings over defaults. */
export function resolveLimits(...layers: (Partial<HostLimits> | undefined)[]): HostLimits {
  const out = { ...DEFAULT_HOST_LIMITS }
  for (const l of layers) Object.assign(out, parseLimits(l))
  return out
}

/** The limits of one CLI command (or `schedlab serve`): its flags over the defaults. */
export function cliLimits(a: { maxEvents?: number; maxTotalEvents?: number; memoryShare?: number }): HostLimits {
  return resolveLimits({ maxEventsPerRun: a.maxEvents, maxTotalEvents: a.maxTotalEvents, memoryShare: a.memoryShare })
}

/** Memory the simulations running at one time may use together. */
export function memoryBudgetBytes(l: HostLimits, machine = totalmem()): number {
  return Math.floor(machine * l.memoryShare)
}

export function submissionLimits(l: HostLimits, machine = totalmem()): SubmissionLimits {
  return { maxTotalEvents: l.maxTotalEvents, maxRunMemoryBytes: memoryBudgetBytes(l, machine) }
}

/**
 * A precision run adds seeds as it goes, up to `maxSeeds` per variant: the most it can cost is
 * checked like any submission before its first job starts. `specs`: one (or more) per variant.
 */
export function precisionRefusals(specs: readonly RunSpec[], maxSeeds: number, limits: HostLimits): string[] {
  const firstSeed = specs[0]?.seed ?? 0
  const perVariant = new Map(specs.map((x) => [x.variantIndex, x]))
  const worst = [...perVariant.values()].flatMap((x) => Array.from({ length: maxSeeds }, (_, k) => ({ ...x, seed: firstSeed + k })))
  return submissionRefusals(worst, submissionLimits(limits)).map((m) => `${m}; or lower the most seeds a precision run may add (${maxSeeds})`)
}

/** The pool's `memoryOf`: a run spec's estimated memory (0 for anything else). */
export function runMemoryOf(payload: unknown): number {
  const spec = payload as { scenario?: Parameters<typeof estimateMemoryBytes>[0] } | null
  return spec?.scenario?.topology ? estimateMemoryBytes(spec.scenario) : 0
}
