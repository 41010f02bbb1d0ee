/**
 * Calibration suites: what `schedlab calibrate` measures (or reads from a published table), how
 * the same figure is read from a simulated run, and which topology parameters it fits.
 *
 * - "real": this machine. One scenario, two variants (cyclictest alone, hackbench alone), run
 *   for real by src/real and simulated on the topology being calibrated. Fits the context
 *   switch, the timer interrupt (timer delivery), hackbench's write/read work and the cache
 *   refill; the background noise (kernel threads, daemons) is read from the real trace's
 *   foreign tasks; the timer delivery delay (mean and spread of its lognormal) and the vCPU
 *   stalls are fitted to the lone cyclictest's distribution (p50, p90, p99, p99.9).
 * - "published": a board preset from its thread's tables: the RB5 (seed 000's hackbench
 *   baseline and patched times, seed 002's cyclictest median and p90), the 2-socket x86 (seed
 *   003's vanilla hackbench-process-pipes times).
 */
import type { VariantResult } from '../shared/result'
import type { BackgroundNoiseSpec, CostsSpec, TopologySpec } from '../sim/kernel/topology-types'
import type { FitParam } from './fit'

export interface Metric {
  name: string
  /** The variant (of the suite's scenario) the figure comes from. */
  variant: string
  read(r: VariantResult): number
  weight?: number
  /** A published value (suites without real runs). */
  published?: number
  source?: string
}

export interface SuiteScenario {
  /** The scenario text's object (topology filled in by the caller). */
  scenario: Record<string, unknown>
  metrics: Metric[]
  /** Simulated duration per variant when it differs from the scenario's (real) one. */
  simDurationMs?: Record<string, number>
}

export interface Suite {
  name: string
  description: string
  /** Scenarios of the suite, for one topology spec. */
  scenarios(topology: TopologySpec): SuiteScenario[]
  params: FitParam[]
  /** The topology with a parameter vector applied. */
  apply(topology: TopologySpec, params: Record<string, number>): TopologySpec
  /** Simulated seeds per variant in each evaluation. */
  seeds: number
}

const COST_PARAMS = ['contextSwitchUs', 'timerIrqUs', 'timerIrqTailUs', 'idleExitUs', 'coldSwitchUs'] as const
const NOISE_PARAMS = ['stallPeriodUs', 'stallUs', 'sigma', 'timerDelayUs', 'timerDelaySigma'] as const

/** Costs and noise of a parameter vector on top of a topology; hackbench's read costs its write. */
export function applyParams(topology: TopologySpec, params: Record<string, number>): TopologySpec {
  const costs: CostsSpec = { ...(topology.costs ?? {}) }
  for (const k of COST_PARAMS) if (params[k] !== undefined) costs[k] = params[k]
  if (params.hackbenchUs !== undefined) {
    costs.hackbenchWriteUs = params.hackbenchUs
    costs.hackbenchReadUs = params.hackbenchUs
  }
  let noise: BackgroundNoiseSpec | undefined = topology.noise
  if (NOISE_PARAMS.some((k) => params[k] !== undefined)) {
    noise = { ...(noise ?? {}) }
    for (const k of NOISE_PARAMS) if (params[k] !== undefined) noise[k] = params[k]
  }
  return { ...topology, costs, ...(noise ? { noise } : {}) }
}

const workload = (r: VariantResult, name: string) => {
  const w = r.workloads.find((x) => x.name === name)
  if (!w) throw new Error(`no workload ${name} in the result of ${r.name}`)
  return w
}

/** Switch-ins of a workload's tasks per hackbench round. */
function switchesPerRound(r: VariantResult, name: string): number {
  const n = r.tasks.filter((t) => t.workload === name).reduce((a, t) => a + (t.contextSwitches ?? 0), 0)
  const rounds = workload(r, name).extra?.rounds ?? 0
  return rounds > 0 ? n / rounds : NaN
}

/**
 * This machine: cyclictest alone and hackbench alone, measured for real (calibrate --real), and
 * FIFO cyclictest against hogs (from a fidelity:real cache).
 */
export const REAL_SUITE: Suite = {
  name: 'real',
  description: 'cyclictest -i 2777 --policy other alone, and hackbench -T -p -l 1000 -g 2 alone (default slices), 10 s each, on this machine',
  seeds: 3,
  params: [
    { name: 'contextSwitchUs', init: 3, min: 0.2, max: 30 },
    { name: 'timerIrqUs', init: 4, min: 0.2, max: 30 },
    { name: 'timerIrqTailUs', init: 2, min: 0, max: 30 },
    { name: 'hackbenchUs', init: 1.2, min: 0.05, max: 20 },
    { name: 'coldSwitchUs', init: 2, min: 0, max: 50 },
    { name: 'stallPeriodUs', init: 50_000, min: 1000, max: 1e8 },
    { name: 'stallUs', init: 100, min: 5, max: 20_000 },
    { name: 'sigma', init: 1, min: 0.1, max: 3 },
    { name: 'timerDelayUs', init: 10, min: 0.5, max: 500 },
    { name: 'timerDelaySigma', init: 0.8, min: 0.05, max: 2.5 }
  ],
  apply: applyParams,
  scenarios: () => [{
    ...aloneScenario('calibration (this machine)', { profile: 'host' }, 10_000),
    // a round takes about 0.35 s: five of them are enough for its mean; cyclictest as long as
    // the fidelity suite's ct-alone measures (25 s: 9000 samples per seed, 9 beyond the p99.9)
    simDurationMs: { 'hackbench alone': 2000, 'cyclictest alone': 25_000 }
  }, {
    // FIFO cyclictest against pinned fair hogs (the fidelity suite's fifo-hogs): no timer slack
    // and no fair competition, so its distribution is the timer path and the stalls alone. Read
    // from a fidelity:real cache only (calibrate --real does not measure it).
    scenario: {
      name: 'calibration (this machine): FIFO cyclictest against hogs',
      kernel: { profile: 'host' },
      durationMs: 25_000,
      variants: [{ name: 'fifo against hogs' }],
      workloads: [
        { type: 'cyclictest', name: 'cyclictest', periodUs: 2777, policy: 'fifo', priority: 80 },
        { type: 'hog', name: 'hog0', count: 2, cpus: [0] },
        { type: 'hog', name: 'hog1', count: 2, cpus: [1] }
      ]
    },
    metrics: [
      { name: 'FIFO cyclictest against hogs p50', variant: 'fifo against hogs', read: (r) => workload(r, 'cyclictest').latencyUs.p50 },
      { name: 'FIFO cyclictest against hogs p90', variant: 'fifo against hogs', read: (r) => workload(r, 'cyclictest').latencyUs.p90 },
      { name: 'FIFO cyclictest against hogs p99', variant: 'fifo against hogs', read: (r) => workload(r, 'cyclictest').latencyUs.p99, weight: 0.5 },
      { name: 'FIFO cyclictest against hogs p99.9', variant: 'fifo against hogs', read: (r) => workload(r, 'cyclictest').latencyUs.p99_9, weight: 0.25 }
    ]
  }]
}

/**
 * cyclictest alone and hackbench alone (one scenario, a variant each): the lone cyclictest's
 * distribution and the sched_waking-to-running time, hackbench's time and switches per round.
 */
function aloneScenario(name: string, kernel: Record<string, unknown>, durationMs: number, loops = 1000): Omit<SuiteScenario, 'simDurationMs'> {
  return {
    scenario: {
      name,
      kernel,
      durationMs,
      variants: [
        { name: 'cyclictest alone', workloads: { hackbench: { disabled: true } } },
        { name: 'hackbench alone', workloads: { cyclictest: { disabled: true } } }
      ],
      workloads: [
        { type: 'cyclictest', name: 'cyclictest', periodUs: 2777, policy: 'other' },
        { type: 'hackbench', name: 'hackbench', groups: 2, mode: 'thread', ipc: 'pipe', loops, repeat: true }
      ]
    },
    metrics: [
      { name: 'cyclictest p50 (timer slack + delivery + wakeup)', variant: 'cyclictest alone', read: (r) => workload(r, 'cyclictest').latencyUs.p50 },
      { name: 'cyclictest sched_waking to running, p50', variant: 'cyclictest alone', read: (r) => workload(r, 'cyclictest').wakeupLatencyUs?.p50 ?? NaN },
      { name: 'cyclictest p90', variant: 'cyclictest alone', read: (r) => workload(r, 'cyclictest').latencyUs.p90 },
      { name: 'cyclictest p99', variant: 'cyclictest alone', read: (r) => workload(r, 'cyclictest').latencyUs.p99, weight: 0.5 },
      { name: 'cyclictest p99.9', variant: 'cyclictest alone', read: (r) => workload(r, 'cyclictest').latencyUs.p99_9, weight: 0.25 },
      { name: 'hackbench time, s', variant: 'hackbench alone', read: (r) => workload(r, 'hackbench').timeSec ?? NaN, weight: 2 },
      { name: 'hackbench switches per round', variant: 'hackbench alone', read: (r) => switchesPerRound(r, 'hackbench'), weight: 0.5 }
    ]
  }
}

/**
 * A guest of `schedlab vm` (Debian's 6.12 under TCG with icount, voluntary preemption): the same
 * two workloads alone, which the fidelity:vm suite does not score. Fits the costs and the timer
 * delivery delay (the guest's timer interrupt path under icount); a guest runs nothing else,
 * so there is no background noise to read.
 */
export const VM_SUITE: Suite = {
  name: 'vm',
  description: 'cyclictest -i 2777 --policy other alone, and hackbench -T -p -l 200 -g 2 alone (a round takes about 2 s under TCG), 6 s each, in guests of schedlab vm (Debian 6.12, voluntary preemption)',
  seeds: 3,
  params: [
    { name: 'contextSwitchUs', init: 3, min: 0.2, max: 50 },
    { name: 'timerIrqUs', init: 4, min: 0.2, max: 50 },
    { name: 'timerIrqTailUs', init: 2, min: 0, max: 50 },
    { name: 'idleExitUs', init: 2, min: 0, max: 50 },
    { name: 'hackbenchUs', init: 2, min: 0.05, max: 50 },
    { name: 'coldSwitchUs', init: 2, min: 0, max: 50 },
    { name: 'timerDelayUs', init: 10, min: 0.5, max: 500 },
    { name: 'timerDelaySigma', init: 0.5, min: 0.05, max: 2.5 }
  ],
  apply: applyParams,
  scenarios: () => [vmScenario()]
}

/**
 * The VM suite's scenario: cyclictest alone and hackbench alone, and cyclictest woken on a busy
 * vCPU (against a nice-19 hog on its vCPU, which it preempts at once). A wakeup on an idle vCPU
 * also pays do_idle()'s exit (idleExitUs, about 5 us under TCG: cyclictest waits 22.4 us from
 * sched_waking to running alone and 17.8 us against the hog); the busy wakeup separates that
 * cost from the switch's.
 */
function vmScenario(): Omit<SuiteScenario, 'simDurationMs'> {
  const base = aloneScenario('calibration (a VM)', { profile: '6.12', preempt: 'voluntary' }, 6000, 200)
  const sc = base.scenario as { variants: { name: string; workloads: Record<string, unknown> }[]; workloads: Record<string, unknown>[] }
  const busy = 'cyclictest against a nice-19 hog'
  return {
    scenario: {
      ...sc,
      variants: [
        ...sc.variants.map((v) => ({ ...v, workloads: { ...v.workloads, hog: { disabled: true } } })),
        { name: busy, workloads: { hackbench: { disabled: true }, cyclictest: { cpus: [0] } } }
      ],
      workloads: [...sc.workloads, { type: 'hog', name: 'hog', count: 1, cpus: [0], nice: 19 }]
    },
    metrics: [
      ...base.metrics,
      { name: 'cyclictest against a nice-19 hog, p50', variant: busy, read: (r) => workload(r, 'cyclictest').latencyUs.p50 },
      { name: 'cyclictest against a nice-19 hog, sched_waking to running, p50', variant: busy, read: (r) => workload(r, 'cyclictest').wakeupLatencyUs?.p50 ?? NaN }
    ]
  }
}

/** Seed 000's hackbench configurations used for the RB5 fit, with their published times. */
const RB5_HACKBENCH: [groups: number, mode: 'process' | 'thread', base: number, patched: number][] = [
  [1, 'process', 0.863, 0.764], [8, 'process', 0.661, 0.496], [1, 'thread', 0.925, 0.813], [8, 'thread', 0.750, 0.524]
]
/**
 * The fidelity runs use 4000/groups loops (a fixed message count); the fit runs a quarter of
 * them and scales the time by 4 (a round's time is about proportional to its messages).
 */
const RB5_SCALE = 4

/** The RB5 of seeds 000-002, from their published tables. */
export const PUBLISHED_RB5_SUITE: Suite = {
  name: 'published',
  description: 'RB5 from the seed threads: seed 000 hackbench (1 and 8 groups, process and thread pipes; tip/sched/core and short-slice v1 times) and seed 002 cyclictest + hackbench (tip 8/20 ms: p50 56 us, p90 62 us)',
  seeds: 2,
  params: [
    { name: 'contextSwitchUs', init: 0.6, min: 0.1, max: 20 },
    { name: 'timerIrqUs', init: 0.8, min: 0.1, max: 20 },
    { name: 'hackbenchUs', init: 1.2, min: 0.05, max: 20 },
    { name: 'coldSwitchUs', init: 5, min: 0, max: 60 }
  ],
  apply: applyParams,
  scenarios: () => [
    ...RB5_HACKBENCH.map(([groups, mode, base, patched]): SuiteScenario => {
      const row = `${groups} group ${mode} pipe`
      const time = (r: VariantResult) => (workload(r, 'hackbench').timeSec ?? NaN) * RB5_SCALE
      return {
        scenario: {
          name: `hackbench ${row}`,
          kernel: { hz: 250, features: { DD_NEGLAG: true } },
          durationMs: 30_000,
          variants: [{ name: 'tip/sched/core' }, { name: 'short-slice v1', patches: ['short-slice-v1'] }],
          workloads: [{ type: 'hackbench', name: 'hackbench', groups, mode, ipc: 'pipe', loops: Math.round(4000 / groups / RB5_SCALE) }]
        },
        metrics: [
          { name: `hackbench ${row}, tip/sched/core, s`, variant: 'tip/sched/core', read: time, published: base, source: `seed 000 hackbench, ${row}` },
          { name: `hackbench ${row}, short-slice v1, s`, variant: 'short-slice v1', read: time, published: patched, source: `seed 000 hackbench, ${row}` }
        ]
      }
    }),
    {
      scenario: {
        name: 'cyclictest + hackbench -T -p -g 2, 8/20 ms slices',
        kernel: { hz: 250, features: { DD_NEGLAG: true } },
        durationMs: 1000,
        variants: [{ name: 'tip 8/20 ms' }],
        workloads: [
          { type: 'cyclictest', name: 'cyclictest', periodUs: 2777, sliceUs: 8000 },
          { type: 'hackbench', name: 'hackbench', groups: 2, mode: 'thread', ipc: 'pipe', loops: 1000, repeat: true, sliceUs: 20000 }
        ]
      },
      metrics: [
        { name: 'cyclictest p50, us', variant: 'tip 8/20 ms', read: (r) => workload(r, 'cyclictest').latencyUs.p50, published: 56, source: 'seed 002, tip 8/20 ms' },
        { name: 'cyclictest p90, us', variant: 'tip 8/20 ms', read: (r) => workload(r, 'cyclictest').latencyUs.p90, published: 62, source: 'seed 002, tip 8/20 ms' }
      ]
    }
  ]
}

/**
 * Seed 003's vanilla hackbench-process-pipes rows used for the x86-2s fit (the baseline column
 * only: NEXT_BUDDY v4's column is what the model must predict). mmtests runs 10000 loops; the
 * fit runs 100 and scales the time by 100.
 */
const X86_PIPES: [groups: number, base: number][] = [[1, 0.2657], [12, 1.15], [48, 3.5023]]
/** mmtests' config-scheduler-unbound: HACKBENCH_LOOPS, the loops of every seed 003 hackbench row. */
export const MMTESTS_HACKBENCH_LOOPS = 10000
/** Loops simulated for a seed 003 row; its time is scaled by MMTESTS_HACKBENCH_LOOPS / this. */
export const SEED003_SIM_LOOPS = 100
const X86_SCALE = MMTESTS_HACKBENCH_LOOPS / SEED003_SIM_LOOPS

/** The 2-socket x86 of seed 003, from its vanilla hackbench-process-pipes times. */
export const PUBLISHED_X86_SUITE: Suite = {
  name: 'published',
  description: 'x86-2s from seed 003: vanilla hackbench-process-pipes at 1, 12 and 48 groups (mmtests, 10000 loops; simulated at 100 and scaled), the baseline column only',
  seeds: 1,
  params: [
    { name: 'contextSwitchUs', init: 3, min: 0.1, max: 20 },
    { name: 'hackbenchUs', init: 1.2, min: 0.05, max: 20 },
    { name: 'coldSwitchUs', init: 2, min: 0, max: 60 }
  ],
  apply: applyParams,
  scenarios: () => X86_PIPES.map(([groups, base]): SuiteScenario => ({
    scenario: {
      name: `hackbench process pipes, ${groups} groups`,
      kernel: { hz: 250 },
      durationMs: 60_000,
      variants: [{ name: 'vanilla' }],
      workloads: [{ type: 'hackbench', name: 'hackbench', groups, mode: 'process', ipc: 'pipe', loops: SEED003_SIM_LOOPS }]
    },
    metrics: [{ name: `hackbench pipes ${groups} groups, vanilla, s`, variant: 'vanilla', read: (r) => (workload(r, 'hackbench').timeSec ?? NaN) * X86_SCALE, published: base, source: `seed 003 hackbench-process-pipes, ${groups}` }]
  }))
}

/** The published suite of a board preset: its thread's baseline tables. */
export function publishedSuiteFor(topology: string): Suite | null {
  if (topology === 'rb5') return PUBLISHED_RB5_SUITE
  if (topology === 'x86-2s') return PUBLISHED_X86_SUITE
  return null
}

export const SUITES: Record<string, Suite> = { real: REAL_SUITE, published: PUBLISHED_RB5_SUITE, vm: VM_SUITE }
