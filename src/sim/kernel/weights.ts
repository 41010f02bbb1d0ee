/** Nice-to-weight table of kernel/sched (sched_prio_to_weight), nice -20..19, on the 1024 scale. */
export const SCHED_PRIO_TO_WEIGHT: readonly number[] = [
  88761, 71755, 56483, 46273, 36291,
  29154, 23254, 18705, 14949, 11916,
  9548, 7620, 6100, 4904, 3906,
  3121, 2501, 1991, 1586, 1277,
  1024, 820, 655, 526, 423,
  335, 272, 215, 172, 137,
  110, 87, 70, 56, 45,
  36, 29, 23, 18, 15
]

export const NICE_0_LOAD = 1024

/**
 * SCHED_IDLE weight. The reference marks 3 as unverified; kernel/sched/sched.h defines
 * WEIGHT_IDLEPRIO as 3 (checked in kernel source) and set_load_weight uses it for SCHED_IDLE.
 */
export const WEIGHT_IDLEPRIO = 3

export function niceToWeight(nice: number): number {
  const i = Math.max(-20, Math.min(19, Math.trunc(nice))) + 20
  return SCHED_PRIO_TO_WEIGHT[i]
}

/**
 * calc_delta_fair: wall delta -> virtual delta for weight w. Exact truncating division as
 * 64-bit tip kernels do; the older fixed-point inverse-weight path differs by a few ns at most.
 */
export function calcDeltaFair(delta: number, w: number): number {
  if (w === NICE_0_LOAD) return delta
  const n = delta * NICE_0_LOAD
  return n >= 0 ? floorDiv(n, w) : -floorDiv(-n, w)
}

/**
 * Floor division toward -infinity for integral doubles (b > 0), exact while |a| < 2^53:
 * the double quotient can round across an integer, so correct it by one step.
 */
export function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b)
  if (q * b > a) q--
  else if ((q + 1) * b <= a) q++
  return q
}

/** Truncating division (toward zero), as C's signed division. */
export function truncDiv(a: number, b: number): number {
  return a >= 0 === b > 0 ? floorDiv(Math.abs(a), Math.abs(b)) : -floorDiv(Math.abs(a), Math.abs(b))
}
