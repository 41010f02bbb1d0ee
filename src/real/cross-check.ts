import type { CrossCheck, WorkloadResult } from '../shared/result'
import { histPercentile, parseCyclictestHistogram } from './workloads'

/**
 * cyclictest's own histogram beside the trace's figures: they agree within a few us. The
 * comparison is per percentile between two intervals: the trace's histogram bucket at that
 * rank, and cyclictest's values from `k` ranks below to `k` above it, where k is the
 * difference in sample counts (a cycle the trace saw without a sleep, or a sample at the
 * edges of the run); the distance between the intervals is the disagreement.
 */
export function crossCheck(out: string, w: WorkloadResult): CrossCheck | null {
  const h = parseCyclictestHistogram(out)
  if (!h) return null
  const mine = w.latencyUs
  const hist = w.latencyHist
  const theirs: CrossCheck['latencyUs'] = { p50: null, p90: null, p99: null, p99_9: null }
  const diff: CrossCheck['traceMinusToolUs'] = { p50: null, p90: null, p99: null, p99_9: null }
  const k = Math.abs(mine.count - h.total)
  let maxDiff = 0
  for (const [key, p] of [['p50', 50], ['p90', 90], ['p99', 99], ['p99_9', 99.9]] as const) {
    const v = histPercentile(h, p)
    theirs[key] = v
    diff[key] = v === null ? null : round3(mine[key] - v)
    if (v === null || !hist || mine.count === 0) continue
    const rank = Math.max(1, Math.ceil((p / 100) * h.total))
    const lo = histAtRank(h, rank - k)
    const hi = histAtRank(h, rank + k) + 1
    const [mlo, mhi] = bucketAtRank(hist, Math.max(1, Math.ceil((p / 100) * mine.count)))
    maxDiff = Math.max(maxDiff, mlo - hi, lo - mhi, 0)
  }
  return { tool: 'cyclictest', samples: h.total, overflows: h.overflows, maxUs: h.maxUs, latencyUs: theirs, traceMinusToolUs: diff, maxAbsDiffUs: round3(maxDiff) }
}

function histAtRank(h: ReturnType<typeof parseCyclictestHistogram> & object, rank: number): number {
  const r = Math.min(Math.max(1, rank), h.total)
  let seen = 0
  for (let b = 0; b < h.hist.length; b++) {
    seen += h.hist[b]
    if (seen >= r) return b
  }
  return h.hist.length
}

function bucketAtRank(hist: NonNullable<WorkloadResult['latencyHist']>, rank: number): [number, number] {
  let seen = 0
  for (let i = 0; i < hist.counts.length; i++) {
    seen += hist.counts[i]
    if (seen >= rank) return [hist.lowUs[i], hist.highUs[i]]
  }
  const n = hist.counts.length
  return n > 0 ? [hist.lowUs[n - 1], hist.highUs[n - 1]] : [0, 0]
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000
}
