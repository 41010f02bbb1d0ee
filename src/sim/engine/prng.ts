/**
 * Seeded PRNG (xoshiro128**, seeded through splitmix32). Deterministic across platforms: only
 * 32-bit integer operations, so the same seed gives the same stream everywhere.
 */
export class Prng {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number) {
    let s = seed >>> 0
    const next = (): number => {
      s = (s + 0x9e3779b9) >>> 0
      let z = s
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
      return (z ^ (z >>> 16)) >>> 0
    }
    this.a = next()
    this.b = next()
    this.c = next()
    this.d = next()
    if ((this.a | this.b | this.c | this.d) === 0) this.d = 1
  }

  /** Uniform 32-bit unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0
    const t = this.b << 9
    this.c ^= this.a
    this.d ^= this.b
    this.b ^= this.c
    this.a ^= this.d
    this.c ^= t
    this.d = rotl(this.d, 11)
    return result
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n)
  }
}

/**
 * A lognormal draw of mean 1 and log-spread `sigma` (Box-Muller on two uniforms of `src.random()`, the
 * first one taken as 1 - u so that it is never 0): the shape of the noise's sections, stalls and
 * timer delivery delays.
 */
export function lognormalMean1(src: { random(): number }, sigma: number): number {
  if (sigma === 0) return 1
  const u = 1 - src.random()
  const v = src.random()
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  return Math.exp(sigma * z - (sigma * sigma) / 2)
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0
}
