import { describe, expect, it } from 'vitest'
import type { VariantResult } from '../shared/result'
import { relativeHalfWidth, runToPrecision, targetEstimate, type PrecisionJob } from './precision'
import { exponential, syntheticResult } from './testing'

const MEAN_NS = 100_000
const trueP90Us = (-Math.log(0.1) * MEAN_NS) / 1000

/** Variant v, seed s: 1500 exponential samples (variant 1 twice as spread out as variant 0). */
const run = (v: number, seed: number): VariantResult => syntheticResult(`v${v}`, seed, 1500, exponential(MEAN_NS * (v + 1)))

/** Jobs that finish in a scrambled order, as parallel runs do. */
function scrambledSubmit(order: number[]) {
  const pending: (() => void)[] = []
  let n = 0
  return (v: number, seed: number): PrecisionJob => {
    let release!: () => void
    const result = new Promise<VariantResult | null>((r) => (release = () => r(run(v, seed))))
    pending.push(release)
    // release jobs out of order, a few at a time
    queueMicrotask(() => {
      const i = order[n++ % order.length] % pending.length
      pending.splice(i, 1)[0]()
    })
    return { result, cancel: () => {} }
  }
}

describe('--precision', () => {
  const target = { workload: 'ct', metric: 'p90' as const, pct: 3 }

  it('stops at the first seed count whose interval is within PCT % of the estimate', async () => {
    const out = await runToPrecision({
      variants: [0, 1], firstSeed: 1, minSeeds: 2, maxSeeds: 60, concurrency: 1, target,
      submit: (v, seed) => ({ result: Promise.resolve(run(v, seed)), cancel: () => {} })
    })
    for (const v of out.variants) {
      expect(v.reached).toBe(true)
      const runs = Array.from({ length: v.seeds }, (_, i) => run(v.variantIndex, i + 1))
      // within PCT at the stop, not one seed earlier: it stopped when it should
      expect(relativeHalfWidth(targetEstimate(runs, target))!).toBeLessThanOrEqual(3)
      expect(relativeHalfWidth(targetEstimate(runs.slice(0, -1), target))!).toBeGreaterThan(3)
      expect(v.seeds).toBeGreaterThan(3)
      // the interval it stopped with holds the true p90 of the distribution
      const ci = targetEstimate(runs, target)!.ci95!
      expect(ci[0]).toBeLessThanOrEqual(trueP90Us * (v.variantIndex + 1))
      expect(ci[1]).toBeGreaterThanOrEqual(trueP90Us * (v.variantIndex + 1))
    }
    expect(out.results.map((r) => r.seed)).toEqual([
      ...Array.from({ length: out.variants[0].seeds }, (_, i) => i + 1),
      ...Array.from({ length: out.variants[1].seeds }, (_, i) => i + 1)
    ])
  })

  it('gives the same answer in parallel, whatever order the runs finish in', async () => {
    const seq = await runToPrecision({
      variants: [0, 1], firstSeed: 1, minSeeds: 2, maxSeeds: 60, concurrency: 1, target,
      submit: (v, seed) => ({ result: Promise.resolve(run(v, seed)), cancel: () => {} })
    })
    const par = await runToPrecision({ variants: [0, 1], firstSeed: 1, minSeeds: 2, maxSeeds: 60, concurrency: 4, target, submit: scrambledSubmit([3, 0, 2, 1, 5]) })
    expect(par.variants.map((v) => v.seeds)).toEqual(seq.variants.map((v) => v.seeds))
    expect(par.results).toEqual(seq.results)
  })

  it('stops at --max-seeds and says the precision was not reached', async () => {
    const states: number[] = []
    const out = await runToPrecision({
      variants: [0], firstSeed: 5, minSeeds: 2, maxSeeds: 3, concurrency: 2, target: { ...target, pct: 0.1 },
      submit: (v, seed) => ({ result: Promise.resolve(run(v, seed)), cancel: () => {} }),
      onCheck: (s) => states.push(s[0].seeds)
    })
    expect(out.variants[0]).toMatchObject({ seeds: 3, reached: false, running: false })
    expect(out.results.map((r) => r.seed)).toEqual([5, 6, 7])
    expect(states.at(-1)).toBe(3)
  })

  it('a failed run fails the whole', async () => {
    await expect(runToPrecision({
      variants: [0], firstSeed: 1, minSeeds: 2, maxSeeds: 10, concurrency: 2, target,
      submit: (v, seed) => ({ result: seed === 2 ? Promise.reject(new Error('out of memory')) : Promise.resolve(run(v, seed)), cancel: () => {} })
    })).rejects.toThrow('out of memory')
  })
})
