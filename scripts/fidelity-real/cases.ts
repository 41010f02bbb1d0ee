/**
 * The fixed suite of `npm run fidelity:real` (issue 10): each case one scenario on the host
 * topology with the host kernel profile, run for real and simulated. The load starts 2 s
 * before cyclictest, which then measures for the rest of the run (25 s for real), as in the
 * measurements of reference/real-kernel.md.
 */

export type Metric = 'p50' | 'p90' | 'p99' | 'p99_9' | 'timeSec' | 'sharePct'

export interface RealCase {
  id: string
  title: string
  /** The scenario's workloads (the topology, kernel and duration are the suite's). */
  workloads: Record<string, unknown>[]
  /** What the case reports: cyclictest's latency percentiles, hackbench's time, a CPU share. */
  kind: 'latency' | 'time' | 'share'
  /** Simulated duration when shorter than the real one (heavy hackbench cases), ms. */
  simDurationMs?: number
  /** Where the reference measured it, for the report. */
  reference?: string
}

/** Warm-up of the load before cyclictest starts measuring. */
export const WARMUP_US = 2_000_000

const ct = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'cyclictest', name: 'cyclictest', threads: 1, periodUs: 2777, delayUs: WARMUP_US, ...extra })
const hogs = (extra: Record<string, unknown> = {}): Record<string, unknown>[] => [
  { type: 'hog', name: 'hog0', count: 2, cpus: [0], ...extra },
  { type: 'hog', name: 'hog1', count: 2, cpus: [1], ...extra }
]
// hackbench -T -p -g 2 as a background load: one run longer than the measurement
const hackbenchLoad = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'hackbench', name: 'hackbench', groups: 2, mode: 'thread', ipc: 'pipe', loops: 1_000_000, repeat: true, ...extra })
const hackbenchTimed = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'hackbench', name: 'hackbench', groups: 2, mode: 'thread', ipc: 'pipe', loops: 1000, repeat: true, ...extra })

export const CASES: readonly RealCase[] = [
  { id: 'ct-alone', title: 'cyclictest alone', kind: 'latency', workloads: [ct()], reference: '64-66 / 67-72 / 75-90 / 115-1419' },
  { id: 'ct-hogs', title: 'cyclictest + 2 pinned hogs per CPU, default slice', kind: 'latency', workloads: [ct(), ...hogs()], reference: '64-67 / 68-71 / 89-104 / 4000-4069' },
  { id: 'ct-hogs-1ms', title: 'same, cyclictest slice 1 ms', kind: 'latency', workloads: [ct({ sliceUs: 1000 }), ...hogs()], reference: '64-65 / 67-68 / 77-477 / 4126-4185' },
  { id: 'ct-hogs-0.1ms', title: 'same, cyclictest slice 0.1 ms', kind: 'latency', workloads: [ct({ sliceUs: 100 }), ...hogs()], reference: '64-67 / 67-73 / 312-858 / 4137-4273' },
  { id: 'ct-hackbench', title: 'cyclictest + hackbench -T -p -g 2, default slices', kind: 'latency', workloads: [ct(), hackbenchLoad()], simDurationMs: 12_000, reference: '73-84 / 592-1180 / 3154-4082 / 6420-8236' },
  { id: 'ct-hackbench-8-20', title: 'same, cyclictest 8 ms / hackbench 20 ms slices', kind: 'latency', workloads: [ct({ sliceUs: 8000 }), hackbenchLoad({ sliceUs: 20000 })], simDurationMs: 12_000, reference: '70-75 / 84-97 / 949-2638 / 6673-7489' },
  { id: 'fifo-hogs', title: 'FIFO cyclictest (priority 80) + 2 pinned fair hogs per CPU', kind: 'latency', workloads: [ct({ policy: 'fifo', priority: 80 }), ...hogs()] },
  { id: 'nice-share', title: 'nice 0 against nice 5 on one CPU: CPU share of nice 0', kind: 'share', workloads: [{ type: 'hog', name: 'nice0', count: 1, cpus: [1] }, { type: 'hog', name: 'nice5', count: 1, cpus: [1], nice: 5 }], simDurationMs: 5000, reference: 'weights 1024:335 give 75.3 %' },
  { id: 'hb-time', title: 'hackbench -T -p -g 2 -l 1000 run time, default slice', kind: 'time', workloads: [hackbenchTimed()], simDurationMs: 8000, reference: '0.343-0.363 s' },
  { id: 'hb-time-20ms', title: 'hackbench -T -p -g 2 -l 1000 run time, 20 ms slices', kind: 'time', workloads: [hackbenchTimed({ sliceUs: 20000 })], simDurationMs: 8000, reference: '0.401-0.497 s' }
]

/** Pairs whose effect (B against A) the report compares between real and simulated. */
export const EFFECTS: readonly { a: string; b: string; what: string }[] = [
  { a: 'ct-alone', b: 'ct-hogs', what: 'pinned hogs' },
  { a: 'ct-hogs', b: 'ct-hogs-1ms', what: 'a 1 ms slice against hogs' },
  { a: 'ct-hogs', b: 'ct-hogs-0.1ms', what: 'a 0.1 ms slice against hogs' },
  { a: 'ct-alone', b: 'ct-hackbench', what: 'hackbench' },
  { a: 'ct-hackbench', b: 'ct-hackbench-8-20', what: '8 ms / 20 ms slices under hackbench' },
  { a: 'ct-hogs', b: 'fifo-hogs', what: 'FIFO instead of fair against hogs' },
  { a: 'hb-time', b: 'hb-time-20ms', what: '20 ms slices on hackbench run time' }
]

export function metricsOf(kind: RealCase['kind']): Metric[] {
  return kind === 'latency' ? ['p50', 'p90', 'p99', 'p99_9'] : kind === 'time' ? ['timeSec'] : ['sharePct']
}

const HOG_WAITS = 'fewer long waits behind the hogs than on the real kernel: in the real trace of ct-hogs 141 of 8537 wakeups waited over 500 us (74 behind the two hogs alone: a tick switched the hogs and the hog just picked keeps the CPU to the next tick, RUN_TO_PARITY without HRTICK; 67 with other processes: the runner\'s shell, kworkers, rcu_preempt), in the model 49 of 8604 (docs/model.md, "Short slices against CPU hogs"), so its p99 stays under 1 ms where the real hog cases have 0.9-4 ms; the real 1 ms range (2310-3981 us) is the narrowest of the three, the default (864-2998) and 0.1 ms (1483-3654) ranges widened by half take the model\'s value in. The slice itself makes no real difference today (the three real ranges overlap)'
/**
 * The hog cases' p99 in the model: the 1 % mark of a few long waits (the noise's and the
 * hog-switch waits), which moves from seed to seed by a factor of two.
 */
const HOG_P99_SEEDS = 'the seed-to-seed noise of the model\'s p99 in the hog cases: it is the 1 % mark of a few long waits (in one case its 3 seeds spread 346-717 us, a factor of 2), so 3 seeds of two cases can fall apart by chance; the real ranges overlap (no slice effect on the real kernel today, docs/model.md "Short slices against CPU hogs")'
const HACKBENCH = `hackbench's model (issue 11, reworked separately): on the calibrated costs (context switch 7.23 us, pipe write/read 0.40 us) simulated hackbench switches 2-3x less often than the real one (19-31 k against 53-78 k switches per round; on the real kernel most sender runs end preempted right after their one wakeup, docs/model.md "Hackbench\'s switches"), so a waking cyclictest finds fewer hackbench threads ahead of it on its CPU`

/**
 * Why a cell is outside the real range widened by half (key "case:metric"): a finding about the
 * kernel or a named modeling limit with its figure (the simulated value is in the table beside
 * it). The report prints NOT EXPLAINED for an outside cell without one.
 */
export const OUTSIDE_WHY: Readonly<Record<string, string>> = {
  'ct-hogs:p99': HOG_WAITS,
  'ct-hogs-1ms:p99': HOG_WAITS,
  'ct-hogs-0.1ms:p99': HOG_WAITS,
  'ct-hackbench:p90': `${HACKBENCH} (real 1368-1630 us; on the bare host's default costs the model gave 1597)`,
  'ct-hackbench:p99': `${HACKBENCH} (real 4751-5669 us)`,
  'ct-hackbench:p99_9': `${HACKBENCH}: the real p99.9 (12.5-15.8 ms) is three to four ticks behind hackbench threads, the model's under two`,
  'ct-hackbench-8-20:p50': 'a named limit of the costs: the real p50 under hackbench with 8/20 ms slices (72.2-76.3 us) is a few us above the lone one\'s low end (69.1), the cache and TLB refill after hackbench\'s threads ran on that CPU; the model charges that refill (coldSwitchUs) to the task\'s progress, not to its wakeup latency, so every cyclictest case without a queue ahead has the lone p50 (about 69-70 us); the cell misses the widened range (70.2-78.3) by under 1 us',
  'nice-share:sharePct': 'below the model\'s resolution: the real range is 0.007 points wide (75.355-75.362 %), the simulated seeds spread 0.1 point (75.3-75.4 %: the background noise takes its share of CPU 1 at random in a 5 s run); the weights\' ratio 1024 / (1024 + 335) = 75.35 % is met within 0.03 points',
  'hb-time:timeSec': `${HACKBENCH}; its costs were fitted to the calibration's own hackbench runs (0.48-0.56 s that day, residual -6 %), against 0.516-0.579 s in these runs`,
  'hb-time-20ms:timeSec': `${HACKBENCH} (real 0.584-0.617 s)`
}

/** Why a simulated effect direction disagrees with the real one (key "a->b:metric"). */
export const EFFECT_WHY: Readonly<Record<string, string>> = {
  'ct-hogs->ct-hogs-1ms:p99': `${HOG_P99_SEEDS}`,
  'ct-hogs->ct-hogs-0.1ms:p99': `${HOG_P99_SEEDS}`,
  'ct-hackbench->ct-hackbench-8-20:p99': `${HACKBENCH}: the simulated ct-hackbench p99 is already below the real one (4751-5669 us), inside the real 8/20 ms range (2507-4014), so the long slices lower it by less than the 10 % the rule calls a change`,
  'ct-hackbench->ct-hackbench-8-20:p99_9': `${HACKBENCH}: the simulated ct-hackbench p99.9 is already far below the real one (12.5-15.8 ms), about where the real 8/20 ms case ends (7.9-10.0 ms), so the long slices cannot lower it`,
  'hb-time->hb-time-20ms:timeSec': `${HACKBENCH}: the 20 ms slices cost the model under the 10 % the rule calls a change, the real runs +1..20 % (0.516-0.579 -> 0.584-0.617 s)`
}
