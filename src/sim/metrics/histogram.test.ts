import { describe, expect, it } from 'vitest'
import { LogHistogram } from './histogram'
import { HISTOGRAM_BUCKETS, bucketLow, bucketOf } from '../../shared/histogram-layout'
import { Prng } from '../engine/prng'

function exactPercentile(sorted: number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return sorted[rank - 1]
}

describe('LogHistogram', () => {
  it('keeps every value inside its bucket bounds', () => {
    for (const v of [0, 1, 127, 128, 129, 255, 256, 1000, 4095, 4096, 123456789, 2 ** 40 + 5]) {
      const b = bucketOf(v)
      expect(bucketLow(b)).toBeLessThanOrEqual(v)
      expect(bucketLow(b + 1)).toBeGreaterThan(v)
    }
  })

  it('reports exact count/min/avg/max and percentiles within 1% for several distributions', () => {
    for (const seed of [1, 2, 3, 4]) {
      const rng = new Prng(seed)
      const draws: Array<() => number> = [
        () => Math.floor(rng.next() * 1e6),
        () => Math.floor(-Math.log(1 - rng.next()) * 50_000),
        () => Math.floor(Math.exp(rng.next() * 20)),
        () => (rng.next() < 0.999 ? 60_000 + Math.floor(rng.next() * 5000) : 8_000_000 + Math.floor(rng.next() * 1e7))
      ]
      for (const draw of draws) {
        const h = new LogHistogram()
        const xs: number[] = []
        for (let i = 0; i < 20_000; i++) {
          const v = draw()
          xs.push(v)
          h.record(v)
        }
        xs.sort((a, b) => a - b)
        expect(h.count).toBe(xs.length)
        expect(h.min).toBe(xs[0])
        expect(h.max).toBe(xs[xs.length - 1])
        expect(h.sum / h.count).toBeCloseTo(xs.reduce((a, b) => a + b, 0) / xs.length, 6)
        for (const p of [50, 90, 99, 99.9]) {
          const exact = exactPercentile(xs, p)
          const got = h.percentile(p)
          expect(Math.abs(got - exact)).toBeLessThanOrEqual(Math.max(0.5, exact * 0.01))
        }
      }
    }
  })

  it('uses a fixed number of buckets whatever the sample count', () => {
    const h = new LogHistogram()
    for (let i = 0; i < 200_000; i++) h.record(i * 37)
    expect(h.counts.length).toBe(HISTOGRAM_BUCKETS)
    const d = h.dataUs()
    expect(d.counts.reduce((a, b) => a + b, 0)).toBe(200_000)
    expect(d.lowUs.length).toBeLessThan(HISTOGRAM_BUCKETS)
  })

  it('merges', () => {
    const a = new LogHistogram()
    const b = new LogHistogram()
    a.record(10)
    b.record(1_000_000)
    a.merge(b)
    expect(a.count).toBe(2)
    expect(a.max).toBe(1_000_000)
    expect(a.summaryUs().min).toBe(0.01)
  })
})
