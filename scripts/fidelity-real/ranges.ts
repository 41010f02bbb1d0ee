/**
 * What the fidelity reports against measured kernels share (fidelity:real, fidelity:vm): the
 * range of a figure over repeats or seeds, the "inside" rule, an effect's direction.
 */

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

/** The measured range widened by half its width on each side. */
export function inside(r: Range, x: number): boolean {
  const w = r.hi - r.lo
  return x >= r.lo - w / 2 && x <= r.hi + w / 2
}

/** + or - when the two ranges do not overlap, = when they do. */
export function direction(a: Range, b: Range): '+' | '-' | '=' {
  if (b.lo > a.hi) return '+'
  if (b.hi < a.lo) return '-'
  return '='
}

export function fmt(x: number): string {
  if (!Number.isFinite(x)) return '-'
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(x >= 1 ? 2 : 3)
}
