/**
 * The latency histogram's bucket layout, part of the result format: a result's histogram
 * (HistogramData: the non-empty buckets' bounds and counts) and its latency batches (coarse
 * buckets of 2^shift histogram buckets from `lo`) are in these buckets; the simulator records in
 * them (sim/metrics), the statistics read them (stats).
 *
 * Log-linear, HdrHistogram-style, over non-negative integer values (ns): values below
 * 2^SUB_BITS are exact, above they fall in 2^(SUB_BITS-1) sub-buckets per power of two.
 * Reporting a bucket's midpoint bounds the relative error by 1/2^SUB_BITS (0.8% with 7 bits).
 */
const SUB_BITS = 7
const SUB = 1 << SUB_BITS
/** Largest power of two covered: 2^44 ns is about 4.9 hours. */
const MAX_EXP = 44
export const HISTOGRAM_BUCKETS = SUB + (MAX_EXP - SUB_BITS) * (SUB >> 1)

/** A latency batch's coarse bucket is 2^BATCH_SHIFT histogram buckets (1/8 octave, about 9 % wide). */
export const BATCH_SHIFT = 3
export const COARSE_BUCKETS = (HISTOGRAM_BUCKETS + (1 << BATCH_SHIFT) - 1) >> BATCH_SHIFT

/** The bucket of value v (ns). */
export function bucketOf(v: number): number {
  if (v < SUB) return Math.floor(v)
  // exponent e such that 2^e <= v < 2^(e+1), e >= SUB_BITS
  if (v < 4294967296) {
    // the common case (under 4.3 s): floor(v / 2^shift) as a shift, no division
    const e32 = 31 - Math.clz32(v)
    return SUB + (e32 - SUB_BITS) * (SUB >> 1) + (v >>> (e32 - (SUB_BITS - 1))) - (SUB >> 1)
  }
  let e = Math.floor(Math.log2(v))
  // guard against floating rounding at exact powers of two
  if (2 ** e > v) e--
  else if (2 ** (e + 1) <= v) e++
  if (e >= MAX_EXP) return HISTOGRAM_BUCKETS - 1
  const shift = e - (SUB_BITS - 1)
  const sub = Math.floor(v / 2 ** shift) - (SUB >> 1) // 0 .. SUB/2-1
  return SUB + (e - SUB_BITS) * (SUB >> 1) + sub
}

/** The lowest value (ns) of bucket b; bucketLow(b + 1) is its bound. */
export function bucketLow(b: number): number {
  if (b < SUB) return b
  const k = b - SUB
  const e = SUB_BITS + Math.floor(k / (SUB >> 1))
  const sub = k % (SUB >> 1)
  const shift = e - (SUB_BITS - 1)
  return ((SUB >> 1) + sub) * 2 ** shift
}
