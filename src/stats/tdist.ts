/**
 * Student's t distribution, from jStat (MIT; one dependency-free file): the quantile for interval
 * half-widths and the CDF for p-values.
 */
// @ts-expect-error jstat ships no type declarations; the two functions used are typed below
import jstat from 'jstat'

interface StudentT {
  inv(p: number, df: number): number
  cdf(x: number, df: number): number
}

const studentt = (jstat as { studentt: StudentT }).studentt

/** The q-quantile of t with df degrees of freedom (df may be fractional: Welch). */
export function tQuantile(q: number, df: number): number {
  if (!(df > 0)) return NaN
  return studentt.inv(q, df)
}

/** Two-sided p-value of a t statistic with df degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return 0
  if (!(df > 0)) return NaN
  const p = 2 * (1 - studentt.cdf(Math.abs(t), df))
  return Math.min(1, Math.max(0, p))
}
