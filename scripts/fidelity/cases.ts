/**
 * How each published table is reproduced: which preset (with which edits), which variants are
 * the baseline and the patched column, how many seeds, and how a row's value is read from the
 * simulated results.
 */
import type { VariantResult } from '../../src/shared/result'
import { MMTESTS_HACKBENCH_LOOPS, SEED003_SIM_LOOPS } from '../../src/calibrate/suites'

export interface Case {
  /** Published table key: "<seed>/<table>" (see published.ts). */
  table: string
  preset: string
  /** --set PATH=VALUE edits applied to the preset text. */
  sets?: Record<string, unknown>
  baseline: string
  patched: string
  seeds: number
  durationMs?: number
  /** Only these rows of the table come from this case (default: all). */
  rows?: string[]
  /** Value of a published row from the results of one variant (all seeds). */
  value(row: string, runs: VariantResult[]): number
  /**
   * A run shorter than the board's, scaled to it: simulated values are multiplied by `factor`
   * (hackbench's time is linear in its loops once started), so that levels compare.
   */
  scale?: { factor: number; why: string }
}

/** Pool a workload's latency histograms over seeds and read a percentile, or max/avg. */
export function pooledLatency(runs: VariantResult[], workload: string, row: string, task?: string): number {
  const buckets = new Map<number, { hi: number; n: number }>()
  let count = 0
  let sum = 0
  let max = 0
  for (const r of runs) {
    if (task !== undefined) {
      const t = r.tasks.find((x) => x.name === task)
      if (!t) throw new Error(`no task ${task}`)
      // per-task results carry the summary only: pool by averaging percentiles, max of max
      count += t.latencyUs.count
      sum += t.latencyUs.avg * t.latencyUs.count
      max = Math.max(max, t.latencyUs.max)
      continue
    }
    const w = r.workloads.find((x) => x.name === workload)
    if (!w || !w.latencyHist) throw new Error(`no workload ${workload}`)
    const h = w.latencyHist
    for (let i = 0; i < h.counts.length; i++) {
      const b = buckets.get(h.lowUs[i]) ?? { hi: h.highUs[i], n: 0 }
      b.n += h.counts[i]
      buckets.set(h.lowUs[i], b)
    }
    count += w.latencyUs.count
    sum += w.latencyUs.avg * w.latencyUs.count
    max = Math.max(max, w.latencyUs.max)
  }
  if (row === 'max') return max
  if (row === 'avg') return count ? sum / count : 0
  const p = percentileOf(row)
  if (task !== undefined) {
    const key = row as 'p50' | 'p90' | 'p99' | 'p99_9'
    return mean(runs.map((r) => r.tasks.find((x) => x.name === task)!.latencyUs[key]))
  }
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0])
  const rank = Math.max(1, Math.ceil((p / 100) * count))
  let seen = 0
  for (const [lo, b] of sorted) {
    seen += b.n
    if (seen >= rank) return Math.min(max, (lo + b.hi) / 2)
  }
  return max
}

function percentileOf(row: string): number {
  const m = /^p(\d+)(?:_(\d+))?$/.exec(row)
  if (!m) throw new Error(`not a percentile row: ${row}`)
  return Number(m[2] !== undefined ? `${m[1]}.${m[2]}` : m[1])
}

export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)

const latency = (workload: string) => (row: string, runs: VariantResult[]): number => pooledLatency(runs, workload, row)

const hackbenchTime = (runs: VariantResult[]): number =>
  mean(runs.map((r) => r.workloads.find((w) => w.type === 'hackbench')?.timeSec ?? NaN))

const HB_ROWS: [string, number, string][] = [
  ['1 group process pipe', 1, 'process'], ['4 group process pipe', 4, 'process'], ['8 group process pipe', 8, 'process'], ['16 group process pipe', 16, 'process'],
  ['1 group thread pipe', 1, 'thread'], ['4 group thread pipe', 4, 'thread'], ['8 group thread pipe', 8, 'thread'], ['16 group thread pipe', 16, 'thread']
]

/** One case per hackbench configuration: the preset runs one configuration at a time. */
function hackbenchCases(seed: string, baseline: string, patched: string): Case[] {
  return HB_ROWS.map(([row, groups, mode]) => ({
    table: `${seed}/hackbench`,
    preset: 'hackbench-groups-rb5',
    // the published times barely change with the group count: a fixed total message count
    // (loops inversely proportional to groups), as in the author's usual hackbench runs
    sets: { 'workloads[0].groups': groups, 'workloads[0].mode': mode, 'workloads[0].loops': Math.round(4000 / groups) },
    baseline,
    patched,
    seeds: 5,
    rows: [row],
    value: (_r: string, runs: VariantResult[]) => hackbenchTime(runs)
  }))
}

const GROUPS_003 = [1, 4, 7, 12, 21, 30, 48, 79, 110, 141, 172, 203, 234, 265, 296]

/** Seed 003's mmtests hackbench sweep: one case per group count; loops kept constant as mmtests does. */
function hackbench003(ipc: 'pipe' | 'socket'): Case[] {
  return GROUPS_003.map((g) => ({
    table: `003/hackbench-process-${ipc}s`,
    preset: 'hackbench-next-buddy-x86',
    sets: { 'workloads[0].groups': g, 'workloads[0].ipc': ipc, 'workloads[0].loops': SEED003_SIM_LOOPS },
    baseline: 'vanilla',
    patched: 'next-buddy-v4',
    seeds: g > 100 ? 2 : 3,
    rows: [String(g)],
    value: (_r: string, runs: VariantResult[]) => hackbenchTime(runs),
    scale: { factor: MMTESTS_HACKBENCH_LOOPS / SEED003_SIM_LOOPS, why: `${SEED003_SIM_LOOPS} loops simulated, times scaled to mmtests' ${MMTESTS_HACKBENCH_LOOPS}` }
  }))
}

export const CASES: Case[] = [
  ...['000', '001'].flatMap((seed) => {
    const patched = seed === '000' ? 'short-slice v1' : 'short-slice v2'
    const baseline = seed === '000' ? 'tip/sched/core' : 'tip + v1 1-3'
    return [
      // tails of a lone cyclictest need many samples: 5 x 30 s (the board ran 130 s)
      { table: `${seed}/cyclictest`, preset: 'cyclictest-alone-rb5', baseline, patched, seeds: 5, durationMs: 30000, value: latency('cyclictest') },
      { table: `${seed}/cyclictest+rt-app`, preset: 'cyclictest-rtapp-rb5', baseline, patched, seeds: 5, value: latency('cyclictest') },
      { table: `${seed}/cyclictest+hackbench`, preset: 'cyclictest-hackbench-rb5', baseline, patched, seeds: 5, value: latency('cyclictest') },
      ...hackbenchCases(seed, baseline, patched)
    ]
  }),
  ...[0, 1, 2, 3].map((task) => ({
    table: `001/multi-short-slice task ${task}`,
    preset: 'short-slice-uclamp-rb5',
    baseline: 'tip + v1 1-3',
    patched: 'short-slice v2',
    seeds: 5,
    value: (row: string, runs: VariantResult[]) => pooledLatency(runs, 'short', row, `short-${task}`)
  })),
  {
    table: '002/cyclictest+hackbench', preset: 'cyclictest-hackbench-dd-neglag-rb5',
    baseline: 'tip 8/20 ms', patched: 'dd-neglag 8/20 ms', seeds: 5, value: latency('cyclictest')
  },
  ...hackbench003('pipe'),
  ...hackbench003('socket'),
  {
    table: '003/schbench-wakeup', preset: 'schbench-next-buddy',
    baseline: 'vanilla, alone', patched: 'next-buddy-v4, alone', seeds: 5, value: latency('schbench')
  },
  {
    // the letter's RPS percentiles are over per-second samples of a steady run: their mean
    table: '003/schbench-rps', preset: 'schbench-next-buddy',
    baseline: 'vanilla, alone', patched: 'next-buddy-v4, alone', seeds: 5,
    value: (_row, runs) => mean(runs.map((r) => r.workloads.find((w) => w.name === 'schbench')?.extra?.rps ?? NaN))
  },
  {
    // the letter does not define its "end-to-end latency"; the proxy is the scheduling latency
    // of the fair tasks of the mix: the worst over runs, and the median of the runs' averages
    table: '004/end-to-end', preset: 'lb-promote-fillback-embedded18',
    baseline: 'LB_PROMOTE off', patched: 'LB_PROMOTE on', seeds: 5,
    value: (row, runs) => {
      const fair = (r: VariantResult) => r.workloads.filter((w) => w.name !== 'rt')
      if (row === 'latency max') return Math.max(...runs.flatMap((r) => fair(r).map((w) => w.latencyUs.max)))
      return median(runs.map((r) => {
        const ws = fair(r)
        const n = ws.reduce((a, w) => a + w.latencyUs.count, 0)
        return ws.reduce((a, w) => a + w.latencyUs.avg * w.latencyUs.count, 0) / Math.max(1, n)
      }))
    }
  },
  {
    // the board counted 1 event of 4 ms+ in 3 x 60 s: 5 x 20 s here
    table: '004/unreasonable-idle', preset: 'lb-promote-fillback-embedded18',
    baseline: 'LB_PROMOTE off', patched: 'LB_PROMOTE on', seeds: 5, durationMs: 20000,
    value: (row, runs) => runs.reduce((a, r) => a + r.unreasonableIdle.events[row as '2.5-3ms' | '3-4ms' | '4ms+'], 0)
  },
  {
    table: '004/sys%', preset: 'lb-promote-fillback-embedded18',
    baseline: 'LB_PROMOTE off', patched: 'LB_PROMOTE on', seeds: 5,
    value: (row, runs) => (row === 'sys% max' ? Math.max(...runs.map((r) => r.stats.sysPct)) : median(runs.map((r) => r.stats.sysPct)))
  }
]

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
