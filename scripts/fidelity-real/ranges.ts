/**
 * What the fidelity reports against measured kernels share (fidelity:real, fidelity:vm): the
 * range of a figure over repeats or seeds, the "inside" rule, an effect's direction.
 */

import { bucketLow, bucketOf } from '../../src/shared/histogram-layout'

export interface Range {
  lo: number
  hi: number
  n: number
}

/** A report's score: cells inside, effect directions that agree (overall and where the measured effect is clear). */
export interface Score {
  cells: number
  inCells: number
  dirs: number
  agree: number
  clear: number
  clearAgree: number
}

export function rangeOf<M extends string>(runs: readonly Partial<Record<M, number>>[], m: M): Range | null {
  const xs = runs.map((r) => r[m]).filter((x): x is number => x !== undefined)
  if (xs.length === 0) return null
  return { lo: Math.min(...xs), hi: Math.max(...xs), n: xs.length }
}

/**
 * The measured range widened by half its width on each side, and at least by `resolution` (the
 * resolution the figures are known to: a latency percentile read from a result's histogram is
 * known to its bucket, so three seeds in one bucket are a range of one bucket, not of zero).
 */
export function inside(r: Range, x: number, resolution = 0): boolean {
  const pad = Math.max((r.hi - r.lo) / 2, resolution)
  return x >= r.lo - pad && x <= r.hi + pad
}

/** The width (us) of the latency histogram's bucket holding x us (1/64 of its power of two: at most 1.6 %). */
export function latencyResolutionUs(x: number): number {
  const b = bucketOf(Math.round(x * 1000))
  return (bucketLow(b + 1) - bucketLow(b)) / 1000
}

/** + or - when the two ranges do not overlap (are more than `resolution` apart), = when they do. */
export function direction(a: Range, b: Range, resolution = 0): '+' | '-' | '=' {
  if (b.lo > a.hi + resolution) return '+'
  if (b.hi < a.lo - resolution) return '-'
  return '='
}

export function fmt(x: number): string {
  if (!Number.isFinite(x)) return '-'
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(x >= 1 ? 2 : 3)
}
