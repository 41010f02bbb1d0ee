/** The run bar's fields: what they accept, and what to say about a value they do not. */
import type { RunOptions } from './state'

const LIMITS = { seeds: [1, 1000], durationMs: [1, 86_400_000] } as const

/** A whole number in the option's range, null for an empty field (the scenario's value), NaN otherwise. */
export function parseOption(key: keyof typeof LIMITS, raw: string): number | null {
  const t = raw.trim()
  if (t === '') return null
  const v = Number(t)
  const [lo, hi] = LIMITS[key]
  return Number.isInteger(v) && v >= lo && v <= hi ? v : NaN
}

export function runOptionsProblem(o: RunOptions): string | null {
  if (Number.isNaN(o.seeds)) return `Seeds: a whole number from ${LIMITS.seeds[0]} to ${LIMITS.seeds[1]}, or empty for the scenario's`
  if (!o.published && Number.isNaN(o.durationMs)) return `Duration: whole milliseconds from ${LIMITS.durationMs[0]} to ${LIMITS.durationMs[1]}, or empty for the scenario's`
  return null
}

