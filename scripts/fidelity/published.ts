/**
 * The result tables published in the seed threads (shared/seeds), transcribed row by row.
 * Values are as printed: latencies in microseconds, hackbench times in seconds, counts as
 * counts, sys% in percent. `better` says which direction is an improvement.
 */

export interface PublishedRow {
  /** Stable id, e.g. "000/cyclictest/p99_9". */
  id: string
  seed: string
  table: string
  row: string
  baseline: number
  patched: number
  better: 'lower' | 'higher'
}

export interface PublishedTable {
  seed: string
  table: string
  /** What was run, as the thread describes it. */
  setup: string
  rows: PublishedRow[]
}

type Cells = [row: string, baseline: number, patched: number][]

function table(seed: string, name: string, setup: string, cells: Cells, better: 'lower' | 'higher' = 'lower'): PublishedTable {
  return {
    seed,
    table: name,
    setup,
    rows: cells.map(([row, baseline, patched]) => ({
      id: `${seed}/${name}/${row}`, seed, table: name, row, baseline, patched, better
    }))
  }
}

const HACKBENCH_ROWS = ['1 group process pipe', '4 group process pipe', '8 group process pipe', '16 group process pipe',
  '1 group thread pipe', '4 group thread pipe', '8 group thread pipe', '16 group thread pipe']

function hackbenchTable(seed: string, base: number[], patched: number[]): PublishedTable {
  return table(seed, 'hackbench', 'hackbench -g N (process|thread) pipe, default 2.8 ms slice, RB5, perf governor',
    HACKBENCH_ROWS.map((r, i) => [r, base[i], patched[i]]))
}

export const PUBLISHED: PublishedTable[] = [
  // ---- seed 000: short-slice v1 (tip/sched/core vs this patchset), RB5, 130 s each ----
  table('000', 'cyclictest', 'cyclictest -i 3777, 8 ms slice, alone', [
    ['p99', 91, 90], ['p99_9', 126, 108], ['max', 2273, 1018]
  ]),
  table('000', 'cyclictest+rt-app', 'cyclictest -i 3777 8 ms slice + 2xNR_CPUS rt-app run 8177 us / sleep 17777 us, 16 ms slice', [
    ['p99', 66, 66], ['p99_9', 1104, 832], ['max', 6165, 3041]
  ]),
  table('000', 'cyclictest+hackbench', 'cyclictest -i 3777 8 ms slice + hackbench 1 group thread pipe, 16 ms slice', [
    ['p99', 75, 75], ['p99_9', 730, 637], ['max', 15996, 8124]
  ]),
  hackbenchTable('000',
    [0.863, 0.721, 0.661, 0.630, 0.925, 0.846, 0.750, 0.640],
    [0.764, 0.561, 0.496, 0.498, 0.813, 0.614, 0.524, 0.506]),

  // ---- seed 001: short-slice v2; its baseline already has v1 patches 1-3 ----
  table('001', 'cyclictest', 'cyclictest -i 3777, 8 ms slice, alone', [
    ['p99', 91, 92], ['p99_9', 128, 120], ['max', 906, 293]
  ]),
  table('001', 'cyclictest+rt-app', 'cyclictest -i 3777 8 ms slice + 2xNR_CPUS rt-app run 8177 us / sleep 17777 us, 16 ms slice', [
    ['p99', 65, 66], ['p99_9', 841, 960], ['max', 4153, 5026]
  ]),
  table('001', 'cyclictest+hackbench', 'cyclictest -i 3777 8 ms slice + hackbench 1 group thread pipe, 16 ms slice', [
    ['p99', 74, 71], ['p99_9', 645, 513], ['max', 8737, 4043]
  ]),
  ...multiShortSlice(),
  hackbenchTable('001',
    [0.863, 0.717, 0.652, 0.634, 0.919, 0.851, 0.760, 0.640],
    [0.752, 0.601, 0.540, 0.529, 0.780, 0.630, 0.553, 0.527]),

  // ---- seed 002: delayed-dequeue negative lag; baseline tip with the 8 ms / 20 ms slices ----
  table('002', 'cyclictest+hackbench', 'hackbench -T -p -g 2 + cyclictest -i 2777, slices 8 ms / 20 ms', [
    ['avg', 64, 61], ['p50', 56, 56], ['p90', 62, 62], ['p99', 73, 72], ['p99_9', 2707, 1300], ['max', 14273, 13525]
  ]),

  // ---- seed 003: NEXT_BUDDY reimplementation, 2-socket x86 ----
  table('003', 'hackbench-process-pipes', 'hackbench process pipes, mmtests group counts, 2-socket machine', [
    ['1', 0.2657, 0.2120], ['4', 0.6107, 0.6120], ['7', 0.7923, 0.7307], ['12', 1.15, 1.148], ['21', 1.795, 1.8207],
    ['30', 2.3207, 2.534], ['48', 3.5023, 4.0047], ['79', 4.8093, 5.3137], ['110', 6.116, 6.5287], ['141', 7.4763, 7.9553],
    ['172', 8.956, 9.3977], ['203', 10.4783, 11.016], ['234', 12.4977, 13.551], ['265', 14.7003, 15.695], ['296', 16.1007, 17.086]
  ]),
  table('003', 'hackbench-process-sockets', 'hackbench process sockets, mmtests group counts, 2-socket machine', [
    ['1', 0.3073, 0.3187], ['4', 0.7863, 0.785], ['7', 1.367, 1.3747], ['12', 2.1337, 2.145], ['21', 3.4683, 3.4293],
    ['30', 4.7247, 4.8], ['48', 7.6097, 7.6943], ['79', 14.7957, 15.3353], ['110', 21.3413, 21.5753], ['141', 29.0503, 28.874],
    ['172', 36.466, 35.7207], ['203', 39.7177, 39.7343], ['234', 42.112, 43.0177], ['265', 45.783, 46.9863], ['296', 50.7043, 50.7017]
  ]),
  table('003', 'schbench-wakeup', 'schbench default (80 threads), wakeup latency', [
    ['p50', 7.17, 6.0], ['p90', 46.56, 19.61], ['p99', 119.61, 87.28], ['p99_9', 3193.78, 367.0], ['max', 3874.28, 3951.39]
  ]),
  table('003', 'schbench-rps', 'schbench default (80 threads), requests per second', [
    ['p20', 8900.91, 9167.86], ['p50', 8987.41, 9213.06], ['p90', 9123.73, 9263.8], ['max', 9193.5, 9282.18]
  ], 'higher'),

  // ---- seed 004: LB_PROMOTE (off = baseline, on = patched), embedded 18-CPU SoC, HZ 250 ----
  table('004', 'unreasonable-idle', 'fillback scenario, 60 s, 3 runs each: events per bucket, summed', [
    ['2.5-3ms', 4 + 6 + 1, 0], ['3-4ms', 13 + 3 + 1, 0], ['4ms+', 1, 0]
  ]),
  table('004', 'end-to-end', 'fillback scenario, 15 x 25 min: end-to-end latency and sys%', [
    ['latency max', 180, 172], ['latency median of avg', 167.68, 166]
  ]),
  table('004', 'sys%', 'fillback scenario: system CPU time', [
    ['sys% max', 9.35, 9.68], ['sys% median of avg', 8.55, 8.81]
  ])
]

/** Seed 001's per-task table: 4 short-slice tasks (uclamp_min 512) among 16 normal ones. */
function multiShortSlice(): PublishedTable[] {
  const rows = ['avg', 'p50', 'p90', 'p99', 'p99_9', 'max']
  const base = [
    [2002, 55, 361, 1631], [2589, 57, 64, 1379], [2703, 57, 1287, 2512], [2723, 59, 1296, 2526], [3714, 63, 1314, 2547], [3717, 72, 1326, 2554]
  ]
  const patched = [
    [61, 60, 62, 58], [60, 60, 60, 60], [62, 62, 62, 61], [64, 64, 64, 64], [1130, 1096, 1130, 69], [1507, 1097, 1131, 76]
  ]
  return [0, 1, 2, 3].map((task) =>
    table('001', `multi-short-slice task ${task}`, '4 short-slice tasks (uclamp_min 512) + 16 normal tasks, all 1 ms every 7777 us, woken together, SIS_UTIL off',
      rows.map((r, i) => [r, base[i][task], patched[i][task]]))
  )
}

/** Every published row, flattened. */
export const PUBLISHED_ROWS: PublishedRow[] = PUBLISHED.flatMap((t) => t.rows)
