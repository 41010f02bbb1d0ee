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

const SHORT_SLICE = `the short-slice-against-hogs divergence (docs/model.md, "Divergences from the real kernel of this machine"): on the real kernel a shorter slice makes the p99 worse (864-2998 us at the default slice), because on about 1.2 % of wakeups the forced switch goes to another task and cyclictest waits for the tick (reference/real-kernel.md); the model follows check_preempt_wakeup_fair() of 6.12-6.17, where the shorter-slice wakee preempts a hog at once, so its p99 is only the noise's. Not closed: the fair wakeup preemption of this vendor 6.18 kernel is under investigation (its sched_feat values are locked)`
const HACKBENCH = `hackbench's model (issue 11, reworked separately): on the calibrated costs (context switch 7.23 us, pipe write/read 0.40 us) simulated hackbench switches about 3x less often than the real one (19.3 k against 62.6 k switches per round in the calibration, docs/model.md), so a waking cyclictest finds fewer hackbench threads ahead of it on its CPU`

/**
 * Why a cell is outside the real range widened by half (key "case:metric"): a finding about the
 * kernel or a named modeling limit with its figure. The report prints NOT EXPLAINED for an
 * outside cell without one.
 */
export const OUTSIDE_WHY: Readonly<Record<string, string>> = {
  'ct-hogs-1ms:p99': `${SHORT_SLICE} (simulated 1 ms: about 240 us against 2310-3981 real)`,
  'ct-hogs-0.1ms:p99': `${SHORT_SLICE} (simulated 0.1 ms: about 290 us against 1483-3654 real)`,
  'ct-hackbench:p90': `${HACKBENCH} (p90 about 460 us against 1368-1630 real; on the bare host's default costs it was 1597)`,
  'ct-hackbench:p99': `${HACKBENCH} (p99 about 4.0 ms against 4.75-5.67 real)`,
  'ct-hackbench:p99_9': `${HACKBENCH}: the real p99.9 (12.5-15.8 ms) is three to four ticks behind hackbench threads, the model's about 6 ms`,
  'nice-share:sharePct': 'below the model\'s resolution: the real range is 0.007 points wide (75.355-75.362 %), the simulated seeds spread 0.1 point (75.3-75.4 %: the background noise takes its share of CPU 1 at random in a 5 s run); the weights\' ratio 1024 / (1024 + 335) = 75.35 % is met within 0.03 points',
  'hb-time:timeSec': `${HACKBENCH}; its costs were fitted to the calibration's own hackbench runs (0.48-0.56 s that day, residual -6 %), here 0.467 s against 0.516-0.579 real`,
  'hb-time-20ms:timeSec': `${HACKBENCH}; 0.491 s against 0.584-0.617 real`
}

/** Why a simulated effect direction disagrees with the real one (key "a->b:metric"). */
export const EFFECT_WHY: Readonly<Record<string, string>> = {
  'ct-hackbench->ct-hackbench-8-20:p99_9': `${HACKBENCH}: the simulated ct-hackbench p99.9 (about 6 ms) is already below the real one (12.5-15.8 ms), so the long slices raise it (to about 8.8 ms) where the real one falls (to 7.9-10.0 ms)`,
  'hb-time->hb-time-20ms:timeSec': `${HACKBENCH}: the 20 ms slices cost +5 % simulated (0.467 -> 0.491 s), under the 10 % the rule calls a change, against +1..20 % real`
}
