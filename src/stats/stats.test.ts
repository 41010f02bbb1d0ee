import { describe, expect, it } from 'vitest'
import { compareEstimates, columnStats, summarize, workloadStats } from './summary'
import { formatEstimate, formatMark } from './format'
import { meanEstimate, samplesBeyond, samplesNeeded } from './quantile'
import { exponential, syntheticResult } from './testing'
import { LatencyBatches } from '../sim/metrics/batches'
import { LogHistogram } from '../sim/metrics/histogram'
import { tQuantile } from './tdist'
import { concatLatencyBatches, concatTimeBatches } from '../sim/replicas'

const MEAN_NS = 100_000
/** True p-quantile of the exponential, us. */
const trueQuantile = (p: number): number => (-Math.log(1 - p) * MEAN_NS) / 1000

describe('percentile intervals', () => {
  it('need 10 samples beyond a percentile: n/a (N samples; need M)', () => {
    expect(samplesNeeded(99.9)).toBe(10000)
    expect(samplesNeeded(99)).toBe(1000)
    expect(samplesNeeded(50)).toBe(20)
    expect(samplesBeyond(10000, 99.9)).toBe(10)
    const s = workloadStats(syntheticResult('a', 1, 264, exponential(MEAN_NS)).workloads)
    expect(s.latency.p99_9.insufficient).toEqual({ samples: 264, need: 10000 })
    expect(formatEstimate(s.latency.p99_9)).toBe('n/a (264 samples; need 10000)')
    expect(s.latency.p90.insufficient).toBeUndefined()
  })

  it('cover the true quantile about 95 % of the time: one run (batch means) and pooled seeds', () => {
    for (const [seeds, n] of [[1, 20000], [4, 5000]] as const) {
      let covered = { p50: 0, p99: 0 }
      const trials = 150
      for (let t = 0; t < trials; t++) {
        const runs = Array.from({ length: seeds }, (_, i) => syntheticResult('a', 1000 * t + i + 1, n, exponential(MEAN_NS)))
        const s = workloadStats(runs.flatMap((r) => r.workloads))
        for (const [k, p] of [['p50', 0.5], ['p99', 0.99]] as const) {
          const ci = s.latency[k].ci95!
          if (ci[0] <= trueQuantile(p) && trueQuantile(p) <= ci[1]) covered[k]++
        }
      }
      for (const k of ['p50', 'p99'] as const) {
        expect(covered[k] / trials, `${seeds} seed(s), ${k}`).toBeGreaterThan(0.88)
        expect(covered[k] / trials, `${seeds} seed(s), ${k}`).toBeLessThan(0.995)
      }
      covered = { p50: 0, p99: 0 }
    }
  })

  it('are wider when samples come in correlated bursts than the independent-samples interval', () => {
    // every sample repeated 20 times in a row: the same information as 1/20 of the samples
    const bursty = (seed: number): ReturnType<typeof syntheticResult> => {
      let left = 0
      let v = 0
      return syntheticResult('a', seed, 20000, (rng) => {
        if (left-- <= 0) {
          left = 19
          v = exponential(MEAN_NS)(rng)
        }
        return v
      })
    }
    const iid = workloadStats(syntheticResult('a', 7, 20000, exponential(MEAN_NS)).workloads).latency.p90.ci95!
    const corr = workloadStats(bursty(7).workloads).latency.p90.ci95!
    expect(corr[1] - corr[0]).toBeGreaterThan(2.5 * (iid[1] - iid[0]))
  })

  it('shrink as seeds are added', () => {
    const runs = Array.from({ length: 8 }, (_, i) => syntheticResult('a', i + 1, 3000, exponential(MEAN_NS)))
    const w = (k: number): number => {
      const ci = workloadStats(runs.slice(0, k).flatMap((r) => r.workloads)).latency.p99.ci95!
      return ci[1] - ci[0]
    }
    expect(w(8)).toBeLessThan(w(2))
  })

  it('batches hold every sample of the run', () => {
    const h = new LogHistogram()
    const b = new LatencyBatches([true], 1e6)
    for (let i = 0; i < 5000; i++) b.record(0, h.record(i * 37 % 90000), i * 200)
    const data = b.dataOf(0)!
    expect(data.counts).toHaveLength(20)
    expect(data.counts.flat().reduce((a, x) => a + x, 0)).toBe(5000)
    expect(data.counts.every((row) => row.reduce((a, x) => a + x, 0) === 250)).toBe(true)
  })
})

describe('comparisons', () => {
  it('mark a real difference significant and an equal one not', () => {
    const a = Array.from({ length: 3 }, (_, i) => syntheticResult('a', i + 1, 5000, exponential(MEAN_NS)))
    const same = Array.from({ length: 3 }, (_, i) => syntheticResult('same', i + 11, 5000, exponential(MEAN_NS)))
    const better = Array.from({ length: 3 }, (_, i) => syntheticResult('better', i + 21, 5000, exponential(MEAN_NS * 0.8)))
    const { summary, comparisons } = summarize([...a, ...same, ...better])
    expect(summary.map((s) => [s.name, s.seeds])).toEqual([['a', 3], ['same', 3], ['better', 3]])
    const c = (v: string, m: string) => comparisons.find((x) => x.variant === v && x.metric === m)!
    expect(c('better', 'p50').significant).toBe(true)
    expect(c('better', 'p50').change).toBeCloseTo(-20, -1)
    expect(c('better', 'p50').ci95![0]).toBeLessThan(c('better', 'p50').change!)
    expect(c('same', 'p50').significant).toBe(false)
    expect(c('same', 'p50').pValue).toBeGreaterThan(0.05)
    // 15000 samples: p99.9 has 15 beyond it and is compared; 264 would be n/a
    expect(c('better', 'p99_9').note).toBeUndefined()
    expect(formatMark(c('better', 'p50'))).toMatch(/^\(\+\d\d %\)\*$/)
    expect(formatMark(c('same', 'p50'))).not.toContain('*')
  })

  it('never test a percentile with too few samples', () => {
    const { comparisons } = summarize([syntheticResult('a', 1, 264, exponential(MEAN_NS)), syntheticResult('b', 2, 264, exponential(MEAN_NS / 2))])
    const p999 = comparisons.find((x) => x.metric === 'p99_9')!
    expect(p999).toMatchObject({ change: null, pValue: null, significant: false, note: 'n/a (264 samples; need 10000)' })
  })

  it('test is exact for known normal means: p-value of a 2-sigma difference', () => {
    const t = tQuantile(0.975, 1e6)
    const base = { value: 100, ci95: [0, 0] as [number, number], df: 1e6, seLog: 0.01 }
    const other = { value: 100 * Math.exp(t * 0.01 * Math.SQRT2), ci95: [0, 0] as [number, number], df: 1e6, seLog: 0.01 }
    expect(compareEstimates(base, other).pValue).toBeCloseTo(0.05, 3)
  })

  it('hackbench time: mean over rounds with a t interval over sections', () => {
    const e = meanEstimate([1, 2, 3, 4].map((x) => ({ sum: x, count: 1 })))!
    expect(e.value).toBe(2.5)
    const h = tQuantile(0.975, 3) * Math.sqrt(5 / 3) / 2
    expect(e.ci95![0]).toBeCloseTo(2.5 - h, 9)
    expect(meanEstimate([{ sum: 1, count: 1 }])!.ci95).toBeNull()
  })

  it('columnStats keeps workloads in order of appearance', () => {
    expect(columnStats([syntheticResult('a', 1, 10, exponential(1))]).map((w) => w.name)).toEqual(['ct'])
  })
})

describe('replicas of one run', () => {
  it('pooled with their batches concatenated, give the interval of all the batches', () => {
    const parts = [1, 2, 3].map((s) => syntheticResult('a', s, 4000, exponential(MEAN_NS)))
    const ws = parts.map((p) => p.workloads[0])
    const lat = concatLatencyBatches(ws.map((w) => w.latencyBatches))!
    expect(lat.counts).toHaveLength(60)
    expect(lat.counts.flat().reduce((a, x) => a + x, 0)).toBe(12000)
    const pooledHist = { lowUs: [] as number[], highUs: [] as number[], counts: [] as number[] }
    const byLow = new Map<number, [number, number]>()
    for (const w of ws) w.latencyHist!.lowUs.forEach((l, i) => {
      const e = byLow.get(l) ?? [w.latencyHist!.highUs[i], 0]
      e[1] += w.latencyHist!.counts[i]
      byLow.set(l, e)
    })
    for (const l of [...byLow.keys()].sort((a, b) => a - b)) {
      pooledHist.lowUs.push(l)
      pooledHist.highUs.push(byLow.get(l)![0])
      pooledHist.counts.push(byLow.get(l)![1])
    }
    const one = { ...ws[0], latencyUs: { ...ws[0].latencyUs, count: 12000, min: Math.min(...ws.map((w) => w.latencyUs.min)), max: Math.max(...ws.map((w) => w.latencyUs.max)) }, latencyHist: pooledHist, latencyBatches: lat }
    // the same interval as the three results pooled as seeds
    expect(workloadStats([one]).latency.p99.ci95).toEqual(workloadStats(ws).latency.p99.ci95)
    expect(concatTimeBatches([{ sumSec: [1], count: [2] }, undefined, { sumSec: [3, 4], count: [1, 1] }])).toEqual({ sumSec: [1, 3, 4], count: [2, 1, 1] })
  })
})
