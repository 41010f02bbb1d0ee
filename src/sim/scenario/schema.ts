import { z } from 'zod'
import { KERNEL_PROFILES, PREEMPT_MODELS } from '../kernel/features'
import { RTAPP_GLOBAL_INPUT, RTAPP_TASKS_INPUT } from './rtapp-schema'
import { NOISE_DEFAULTS } from './workload-specs'

/**
 * The scenario language: one zod source for validation (parse.ts), the JSON Schema the editor
 * uses (json-schema.ts) and docs/scenario.md (docs.ts). Field names follow DESIGN.md
 * "Scenario format"; descriptions are the reference documentation.
 */

const d = (description: string) => ({ description })

export const POLICIES = ['other', 'batch', 'idle', 'fifo', 'rr'] as const

const cpuIndex = z.number().int().min(0).max(1023)

/** Fields every workload accepts. */
export const COMMON_FIELDS = {
  name: z.string().min(1).max(64).optional().meta(d('Unique name; task names derive from it. Default: the type (type-2, type-3 ... when repeated)')),
  policy: z.enum(POLICIES).optional().meta(d('Scheduling policy. Default: other, or fifo when `priority` is given')),
  nice: z.number().int().min(-20).max(19).optional().meta(d('Nice value of fair tasks (-20..19). Default 0')),
  priority: z.number().int().min(1).max(99).optional().meta(d('RT priority of fifo/rr tasks (1..99)')),
  sliceUs: z.number().min(0).max(1e6).optional().meta(d('Custom slice of fair tasks (sched_attr.sched_runtime), microseconds; clamped to 100..100000 like the kernel; 0 = base slice')),
  cpus: z.array(cpuIndex).min(1).optional().meta(d('CPU affinity (CPU numbers of the topology). Default: all CPUs')),
  uclampMin: z.number().int().min(0).max(1024).optional().meta(d('uclamp min (0..1024)')),
  uclampMax: z.number().int().min(0).max(1024).optional().meta(d('uclamp max (0..1024)')),
  delayUs: z.number().min(0).max(8.64e10).optional().meta(d('Start offset from the beginning of the run, microseconds')),
  startCpu: cpuIndex.optional().meta(d('CPU the tasks start on, bypassing fork placement (e.g. to watch the balancer spread them)')),
  timerSlackUs: z.number().min(0).max(1e6).optional().meta(d('prctl(PR_SET_TIMERSLACK) of the tasks: how late their hrtimer sleeps may fire. Default: kernel.timerSlackUs for fair tasks, 0 for RT')),
  disabled: z.boolean().optional().meta(d('Leave this workload out (a variant may enable it with `"disabled": false`)'))
}

const count = z.number().int().min(1).max(100000)

export const CYCLICTEST = z
  .strictObject({
    type: z.literal('cyclictest'),
    ...COMMON_FIELDS,
    threads: count.default(1).meta(d('Measurement threads (-t N)')),
    periodUs: z.number().min(10).max(1e8).default(1000).meta(d('Base interval (-i), microseconds')),
    distanceUs: z.number().min(0).max(1e8).default(500).meta(d('Interval added per thread (-d): thread k uses periodUs + k x distanceUs')),
    loops: z.number().int().min(0).default(0).meta(d('Cycles per thread (-l); 0 = until the end of the run')),
    relative: z.boolean().default(false).meta(d('Relative sleeps (-r) instead of the absolute timer grid')),
    pin: z.boolean().default(false).meta(d('Pin thread k to CPU k of `cpus` (or of the topology), round robin (-a)')),
    laptop: z.boolean().default(false).meta(d('--laptop / --default-system: do not write 0 to /dev/cpu_dma_latency. By default cyclictest holds that PM QoS request, which keeps every CPU in its shallowest idle state')),
    mainThread: z.boolean().default(true).meta(d('Model cyclictest\'s main thread as well: SCHED_OTHER, waking every 10 ms (usleep(10000)) to run its statistics loop; its latency is not measured. false: only the measurement threads'))
  })
  .meta({
    title: 'cyclictest',
    description:
      'rt-tests cyclictest: each thread sleeps on an absolute timer grid (clock_nanosleep TIMER_ABSTIME) and records timer expiry to switch-in; missed periods are skipped as cyclictest does. Without `priority` it measures fair (EEVDF) latency like `--policy=other`.'
  })

export const RTAPP = z
  .strictObject({
    type: z.literal('rt-app'),
    ...COMMON_FIELDS,
    tasks: RTAPP_TASKS_INPUT.optional(),
    global: RTAPP_GLOBAL_INPUT.optional(),
    file: z.string().min(1).optional().meta(d('An rt-app JSON file (relative to the scenario) instead of `tasks`'))
  })
  .meta({
    title: 'rt-app',
    description:
      'rt-app tasks in rt-app\'s own grammar, inline (`tasks`, `global`) or from a file. The workload-level policy/nice/priority/sliceUs/cpus/uclamp fields are defaults for tasks that do not set their own.'
  })

export const HACKBENCH = z
  .strictObject({
    type: z.literal('hackbench'),
    ...COMMON_FIELDS,
    groups: z.number().int().min(1).max(1000).default(10).meta(d('Groups (-g)')),
    fds: z.number().int().min(1).max(1000).default(20).meta(d('Senders and receivers per group (-f)')),
    loops: z.number().int().min(1).max(1e9).default(100).meta(d('Messages each sender writes to each receiver (-l)')),
    messageBytes: z.number().int().min(1).max(65536).default(100).meta(d('Message size (-s), bytes')),
    ipc: z.enum(['pipe', 'socket']).default('socket').meta(d('pipe (-p) or AF_UNIX stream socket pair (the default)')),
    mode: z.enum(['process', 'thread']).default('process').meta(d('Workers are processes (-P, default) or threads (-T)')),
    repeat: z.boolean().default(false).meta(d('Start the next round when one finishes, until the end of the run (a background load); timeSec is then the mean round time')),
    writeUs: z.number().min(0).max(1000).optional().meta(d('Model: CPU work of one write() at capacity 1024, microseconds. Default: the topology\'s calibration (costs.hackbenchWriteUs, on sockets hackbenchSocketWriteUs), else 1.2')),
    readUs: z.number().min(0).max(1000).optional().meta(d('Model: CPU work of one read() at capacity 1024, microseconds. Default: the topology\'s calibration (costs.hackbenchReadUs, on sockets hackbenchSocketReadUs), else 1.2')),
    pipeBufferBytes: z.number().int().min(4096).max(1 << 24).default(65536).meta(d('Pipe capacity: 16 pages of 4096 bytes; small writes share a page')),
    socketBufferBytes: z.number().int().min(4096).max(1 << 26).default(212992).meta(d('Socket send buffer (net.core.wmem_default); each message is charged its size + 576 bytes of skb overhead'))
  })
  .meta({
    title: 'hackbench',
    description:
      'hackbench / perf bench sched messaging: in each group every sender writes `loops` messages to each receiver; writers block on a full buffer, readers on an empty one, wakeups are WF_SYNC. Reports timeSec (release to the last worker done) and the workers\' wakeup latencies.'
  })

export const SCHBENCH = z
  .strictObject({
    type: z.literal('schbench'),
    ...COMMON_FIELDS,
    messageThreads: z.number().int().min(1).max(1024).default(1).meta(d('Message threads (-m)')),
    workers: z.number().int().min(1).max(10000).optional().meta(d('Workers per message thread (-t). Default: ceil(CPUs / messageThreads)')),
    sleepUs: z.number().min(0).max(1e7).default(100).meta(d('usleep at the start of each request (-s), microseconds')),
    operations: z.number().int().min(1).max(1000).default(5).meta(d('Matrix multiplies per request (-n)')),
    footprintKb: z.number().int().min(1).max(1 << 20).default(256).meta(d('Cache footprint (-F), KiB: matrices of side sqrt(F x 1024 / 3 / 8)')),
    requestWorkUs: z.number().min(0).max(1e7).optional().meta(d('Override the CPU work of one request at capacity 1024, microseconds. Default: operations x side^3 x 0.5 ns')),
    lock: z.boolean().default(true).meta(d('Take the per-CPU lock around the work (false = -L)')),
    rps: z.number().int().min(0).max(1e7).default(0).meta(d('Requests per second per message thread (-R); 0 = saturate mode')),
    calibrate: z.boolean().default(false).meta(d('-C: the request latency excludes the usleep and no lock is taken'))
  })
  .meta({
    title: 'schbench',
    description:
      'schbench: workers hand themselves to a message thread which wakes them all; each woken worker records its wakeup latency, then serves a request (usleep, then matrix work under a per-CPU lock) and records the request latency.'
  })

export const PERIODIC = z
  .strictObject({
    type: z.literal('periodic'),
    ...COMMON_FIELDS,
    count: count.default(1).meta(d('Number of tasks')),
    runUs: z.number().min(0).max(1e8).meta(d('Work per period, microseconds')),
    periodUs: z.number().min(1).max(1e9).meta(d('Period, microseconds; all tasks are released together')),
    runMode: z.enum(['work', 'wall']).default('work').meta(d('"work": runUs at capacity 1024 (slower CPUs take longer); "wall": busy for runUs whatever the CPU')),
    staggerUs: z.number().min(0).max(1e9).optional().meta(d('Offset of task i\'s grid: i x staggerUs. Default 0: all tasks wake together'))
  })
  .meta({ title: 'periodic', description: 'Tasks that run `runUs` every `periodUs` on an absolute grid, released together unless staggered; periods missed while running are skipped.' })

export const HOG = z
  .strictObject({
    type: z.literal('hog'),
    ...COMMON_FIELDS,
    count: count.default(1).meta(d('Number of CPU-bound tasks'))
  })
  .meta({ title: 'hog', description: 'CPU-bound tasks that never sleep.' })

const N = NOISE_DEFAULTS
/** The background-noise parameters, shared by the noise workload and a topology's `noise`. */
const NOISE_PARAMS = {
  perCpu: z.number().int().min(0).max(64).meta(d(`Per-CPU kernel threads (kworker-like) on every CPU (or every CPU of \`cpus\`); their work is kernel code, not preempted under preempt none/voluntary. Default ${N.perCpu}`)),
  perCpuPeriodUs: z.number().min(10).max(1e9).meta(d(`Mean time between activations of a per-CPU thread (exponential), microseconds. Default ${N.perCpuPeriodUs}`)),
  perCpuRunUs: z.number().min(0).max(1e8).meta(d(`Mean work per activation of a per-CPU thread (exponential), microseconds at capacity 1024. Default ${N.perCpuRunUs}`)),
  daemons: z.number().int().min(0).max(10000).meta(d(`Unbound daemon threads (user code). Default ${N.daemons}`)),
  daemonPeriodUs: z.number().min(10).max(1e9).meta(d(`Mean time between activations of a daemon (exponential), microseconds. Default ${N.daemonPeriodUs}`)),
  daemonRunUs: z.number().min(0).max(1e8).meta(d(`Mean work per daemon activation (exponential: a few run several times longer), microseconds at capacity 1024. Default ${N.daemonRunUs}`)),
  kthreads: z.number().int().min(0).max(1000).meta(d(`Unbound kernel threads with long unpreemptible sections (kdamond, kswapd): under preempt none nothing preempts a section. Default ${N.kthreads}`)),
  kthreadPeriodUs: z.number().min(10).max(1e9).meta(d(`Mean time between sections of such a thread (exponential), microseconds. Default ${N.kthreadPeriodUs}`)),
  kthreadRunUs: z.number().min(0).max(1e8).meta(d(`Mean length of a section (lognormal, spread \`sigma\`), microseconds at capacity 1024. Default ${N.kthreadRunUs}`)),
  sigma: z.number().min(0).max(4).meta(d(`Spread (sigma of the logarithm) of the kernel threads' sections and of the stalls; 0 = all equal to the mean. Default ${N.sigma}`)),
  stallPeriodUs: z.number().min(0).max(1e10).meta(d(`vCPU stalls of a virtual machine: mean time between two stalls of one CPU (exponential), microseconds; 0 = none. During a stall the CPU executes nothing: its task, interrupts and wakeups wait. Default ${N.stallPeriodUs}`)),
  stallUs: z.number().min(0).max(1e8).meta(d(`Mean length of a vCPU stall (lognormal, spread \`sigma\`), microseconds. Default ${N.stallUs}`)),
  timerDelayUs: z.number().min(0).max(1e6).meta(d(`Timer delivery of a virtual machine (the hypervisor's timer and interrupt injection): every hrtimer sleep fires a lognormal time of this mean after its hard expiry (requested time + slack), on every CPU, microseconds; 0 = none. Default ${N.timerDelayUs}`)),
  timerDelaySigma: z.number().min(0).max(4).meta(d(`Spread (sigma of the logarithm) of the timer delivery delay; 0 = always \`timerDelayUs\`. Default ${N.timerDelaySigma}`))
}
const NOISE_FIELDS = Object.fromEntries(Object.entries(NOISE_PARAMS).map(([k, v]) => [k, v.default((N as Record<string, number>)[k])])) as {
  [K in keyof typeof NOISE_PARAMS]: z.ZodDefault<(typeof NOISE_PARAMS)[K]>
}
/** A topology's background activity: the noise workload's parameters, each optional. */
export const BACKGROUND_NOISE = z.strictObject(Object.fromEntries(Object.entries(NOISE_PARAMS).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof NOISE_PARAMS]: z.ZodOptional<(typeof NOISE_PARAMS)[K]>
}).meta(d('Background activity of this machine (the noise workload\'s parameters): added to every scenario on it as the workload "background"'))

export const NOISE = z
  .strictObject({
    type: z.literal('noise'),
    ...COMMON_FIELDS,
    ...NOISE_FIELDS
  })
  .meta({
    title: 'noise',
    description: 'Background activity of a running Linux system: per-CPU kworker-like threads with short frequent bursts and unbound daemons with rarer, longer ones, at random (seeded) times. Real boards are never idle; their tails come from this.'
  })

export const WORKLOAD = z.discriminatedUnion('type', [CYCLICTEST, RTAPP, HACKBENCH, SCHBENCH, PERIODIC, HOG, NOISE])

export const WORKLOAD_TYPES = ['cyclictest', 'rt-app', 'hackbench', 'schbench', 'periodic', 'hog', 'noise'] as const

export const IDLE_STATE = z.strictObject({
  name: z.string().min(1).meta(d('State name, e.g. WFI')),
  exitLatencyUs: z.number().min(0).max(1e6).meta(d('Wakeup event to the CPU running code again')),
  targetResidencyUs: z.number().min(0).max(1e7).meta(d('Minimum idle time for the state to pay off')),
  powerMw: z.number().min(0).optional().meta(d('Power in this state'))
})

export const CLUSTER = z.strictObject({
  name: z.string().min(1).meta(d('Cluster name (results name CPUs by it)')),
  cpus: z.number().int().min(1).max(1024).meta(d('CPUs (hardware threads) in the cluster')),
  capacity: z.number().int().min(1).max(1024).meta(d('capacity_orig at the highest OPP (1024 = the biggest core)')),
  smt: z.number().int().min(1).max(8).optional().meta(d('Hardware threads per core')),
  llc: z.union([z.string(), z.number()]).optional().meta(d('Clusters with the same llc share a last-level cache. Default: one LLC per package')),
  package: z.number().int().min(0).optional().meta(d('Package (socket). Default 0')),
  node: z.number().int().min(0).optional().meta(d('NUMA node. Default: the package')),
  idleStates: z.array(IDLE_STATE).optional().meta(d('cpuidle states, shallowest first. Default: WFI (1 us) and cpu-off (50 us)')),
  opps: z.array(z.strictObject({ freqKhz: z.number().min(1), powerMw: z.number().min(0) })).optional().meta(d('Energy model: operating points in ascending frequency; the last is the maximum, where `capacity` applies')),
  cls: z.union([z.string(), z.number()]).optional().meta(d('CPUs with the same cls (inside one LLC) form a cluster (CLS) sched domain. Default: none'))
})

export const COSTS = z.strictObject({
  contextSwitchUs: z.number().min(0).max(1000).optional().meta(d('Context switch cost charged to the CPU switching tasks')),
  ipiUs: z.number().min(0).max(1000).optional().meta(d('Delay of a reschedule/wakeup IPI to a remote CPU')),
  timerIrqUs: z.number().min(0).max(1000).optional().meta(d('Interrupt entry and timer handling on the CPU whose hrtimer fires, up to the wakeup it makes')),
  timerIrqTailUs: z.number().min(0).max(1000).optional().meta(d('The timer interrupt after its wakeup, before the CPU can switch to the woken task: clock event reprogram and interrupt exit (several us on a virtual machine, where the reprogram traps to the hypervisor). Default 0')),
  idleExitUs: z.number().min(0).max(1000).optional().meta(d('The idle loop\'s exit once a wakeup ended an idle state (tick_nohz_idle_exit, schedule_idle): after sched_waking, before the woken task\'s switch-in, on CPUs woken from idle only (several us on a virtual machine). Default 0')),
  coldSwitchUs: z.number().min(0).max(1000).optional().meta(d('Cache/TLB refill after switching to a task other than the CPU\'s previous one (slows the task, not its latency)')),
  selectUs: z.number().min(0).max(1000).optional().meta(d('Wakeup/fork CPU selection (select_task_rq_fair), fixed part, on the selecting CPU. Default 0.25')),
  selectPerCpuUs: z.number().min(0).max(1000).optional().meta(d('Wakeup/fork CPU selection, per CPU examined. Default 0.04')),
  balanceUs: z.number().min(0).max(1000).optional().meta(d('One load balance pass, fixed part, on the balancing CPU. Default 1.5')),
  balancePerCpuUs: z.number().min(0).max(1000).optional().meta(d('Load balance, per runqueue read. Default 0.06')),
  balancePerTaskUs: z.number().min(0).max(1000).optional().meta(d('Load balance and active balance, per task examined. Default 0.1')),
  pushUs: z.number().min(0).max(1000).optional().meta(d('One fair push attempt (short-slice v2), on the pushing CPU. Default 1')),
  stopperUs: z.number().min(0).max(1000).optional().meta(d('One stopper run (active balance), on its CPU. Default 2')),
  hackbenchWriteUs: z.number().min(0).max(1000).optional().meta(d('Workload calibration: CPU work of one hackbench write() at capacity 1024, where a hackbench workload gives no writeUs. Default 1.2')),
  hackbenchReadUs: z.number().min(0).max(1000).optional().meta(d('Workload calibration: CPU work of one hackbench read() at capacity 1024, where a hackbench workload gives no readUs. Default 1.2')),
  hackbenchSocketWriteUs: z.number().min(0).max(1000).optional().meta(d('Workload calibration: the same as hackbenchWriteUs for hackbench on AF_UNIX stream sockets (the default ipc; an skb per message, where a pipe merges messages into its pages). Default: hackbenchWriteUs')),
  hackbenchSocketReadUs: z.number().min(0).max(1000).optional().meta(d('Workload calibration: the same as hackbenchReadUs for hackbench on AF_UNIX stream sockets. Default: hackbenchReadUs'))
})

export const TOPOLOGY = z
  .union([
    z.string().min(1).meta(d('A topology preset name (`schedlab topologies`), e.g. "smp-8"; "host": this machine (online CPUs, capacities, LLCs, idle states; `schedlab topologies --host`); or a topology file (*.json, relative to the scenario: what `schedlab calibrate` writes)')),
    z.strictObject({
      name: z.string().min(1).meta(d('Topology name')),
      clusters: z.array(CLUSTER).min(1).max(256).meta(d('Clusters of identical CPUs, numbered in order')),
      source: z.string().optional().meta(d('Where the numbers come from')),
      description: z.string().optional().meta(d('One-line description')),
      numaDistance: z.array(z.array(z.number().int().min(10).max(255))).optional().meta(d('NUMA node distances (SLIT, 10 = local), nodes x nodes. Default: 10 local, 20 remote')),
      costs: COSTS.optional().meta(d('Cost calibration of this hardware (the scenario\'s kernel.costs override it), microseconds')),
      noise: BACKGROUND_NOISE.optional(),
      arch: z.string().min(1).max(32).optional().meta(d('Architecture, as uname -m prints it (x86_64, arm64, riscv64, ...): kernel defaults that depend on it, e.g. HRTICK in tip-2026'))
    })
  ])
  .meta(d('CPU topology: a preset name, or clusters of identical CPUs'))


const KERNEL_FIELDS = {
  hz: z.union([z.literal(100), z.literal(250), z.literal(300), z.literal(1000)]).meta(d('CONFIG_HZ')),
  profile: z.enum([...KERNEL_PROFILES, 'host'] as unknown as [string, ...string[]]).meta(d('Kernel release modeled (feature defaults and EEVDF details); "host": the profile nearest to this machine\'s kernel (uname -r), with its HZ and preemption model unless given')),
  baseSliceUs: z.number().min(100).max(100000).meta(d('Normalized base slice (sysctl sched_base_slice before CPU scaling). Default by profile')),
  tunableScaling: z.enum(['none', 'log', 'linear']).meta(d('sched_tunable_scaling')),
  preempt: z.enum(PREEMPT_MODELS).meta(d('Preemption model (CONFIG_PREEMPT_*): "none" and "voluntary" wait out kernel-mode sections (syscalls, kernel threads) until a preemption point, "voluntary" also at might_resched() points; "full" (default) preempts at once; "lazy" (PREEMPT_LAZY) defers fair-class reschedules to the next return to user mode or tick')),
  costs: COSTS.meta(d('Modeled overheads, microseconds')),
  timerSlackUs: z.number().min(0).max(1e6).meta(d('Timer slack of fair tasks\' sleeps (task->timer_slack_ns), microseconds. Default 50, the kernel\'s')),
  nrMigrate: z.number().int().min(1).max(4096).meta(d('sysctl sched_nr_migrate: tasks one load-balance pass looks at. Default 32')),
  debug: z.boolean().meta(d('Check the model\'s invariants during the run')),
  coalesce: z.boolean().meta(d('Run a workload\'s operations that wake and block no one (hackbench reads and writes) as one run of their summed work. Default true; false simulates them one by one (validation)'))
}

export const FEATURES = z.record(z.string(), z.boolean()).meta(d('sched_feat flags and patch switches (`schedlab patches`), e.g. { "PREEMPT_SHORT": false }'))

export const KERNEL = z
  .strictObject({
    hz: KERNEL_FIELDS.hz.default(250),
    profile: KERNEL_FIELDS.profile.default('tip-2026'),
    features: FEATURES.default({}),
    baseSliceUs: KERNEL_FIELDS.baseSliceUs.optional(),
    tunableScaling: KERNEL_FIELDS.tunableScaling.optional(),
    preempt: KERNEL_FIELDS.preempt.optional(),
    costs: KERNEL_FIELDS.costs.optional(),
    timerSlackUs: KERNEL_FIELDS.timerSlackUs.optional(),
    nrMigrate: KERNEL_FIELDS.nrMigrate.optional(),
    debug: KERNEL_FIELDS.debug.optional(),
    coalesce: KERNEL_FIELDS.coalesce.optional()
  })
  .meta(d('Base kernel configuration of every variant'))

export const VARIANT = z
  .strictObject({
    name: z.string().min(1).max(64).meta(d('Column title in comparisons; unique')),
    patches: z.array(z.string().min(1).max(1024)).default([]).meta(d('Patches applied: built-in series and switches by name (`schedlab patches`), and patch modules by path relative to the scenario ("./my-idea.ts") or by their name in the patch library')),
    features: FEATURES.default({}),
    patchParams: z
      .record(z.string(), z.record(z.string(), z.number()))
      .optional()
      .meta(d('Parameters of this variant\'s patch modules, by patch name, e.g. { "my-idea": { "thresholdUs": 300 } }; a parameter not given takes the default the patch declares')),
    kernel: z
      .strictObject({
        hz: KERNEL_FIELDS.hz.optional(),
        profile: KERNEL_FIELDS.profile.optional(),
        baseSliceUs: KERNEL_FIELDS.baseSliceUs.optional(),
        tunableScaling: KERNEL_FIELDS.tunableScaling.optional(),
        preempt: KERNEL_FIELDS.preempt.optional(),
        costs: KERNEL_FIELDS.costs.optional(),
        timerSlackUs: KERNEL_FIELDS.timerSlackUs.optional(),
        nrMigrate: KERNEL_FIELDS.nrMigrate.optional(),
        debug: KERNEL_FIELDS.debug.optional(),
        coalesce: KERNEL_FIELDS.coalesce.optional()
      })
      .optional()
      .meta(d('Kernel overrides for this variant')),
    workloads: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .meta(d('Workload fields this variant changes, by workload name, e.g. { "cyclictest": { "sliceUs": 8000 } } or { "stress": { "disabled": true } }: a comparison column may change the setup as well as the kernel'))
  })
  .meta(d('A kernel to compare: the base configuration plus patches and feature overrides'))

export const DEFAULT_DURATION_MS = 1000
export const DEFAULT_MAX_EVENTS = 200_000_000

export const SCENARIO = z
  .strictObject({
    $schema: z.string().optional().meta(d('Ignored (lets editors find the schema)')),
    name: z.string().min(1).max(200).optional().meta(d('Title. Default: the file name')),
    description: z.string().max(10000).optional().meta(d('Free text: what the scenario reproduces')),
    topology: TOPOLOGY,
    kernel: KERNEL.default({ hz: 250, profile: 'tip-2026', features: {} }),
    durationMs: z.number().min(1).max(86_400_000).default(DEFAULT_DURATION_MS).meta(d('Simulated time per run, milliseconds')),
    publishedDurationMs: z.number().min(1).max(86_400_000).optional().meta(d('Duration of the published test this scenario reproduces (used by `--published`)')),
    seed: z.number().int().min(0).max(2 ** 32 - 1).default(1).meta(d('Seed of the first run')),
    seeds: z.number().int().min(1).max(1000).default(1).meta(d('Runs per variant, with seeds seed .. seed+seeds-1')),
    variants: z.array(VARIANT).min(1).max(64).default([{ name: 'base', patches: [], features: {} }]).meta(d('Kernels to compare. Default: one variant "base"')),
    workloads: z.array(WORKLOAD).min(1).max(256).meta(d('What runs')),
    backgroundNoise: z.boolean().default(true).meta(d('Add the topology\'s background activity (its `noise`, if it has one) as the workload "background", unless a noise workload is given. Default true')),
    maxEvents: z.number().int().min(1000).max(1e12).default(DEFAULT_MAX_EVENTS).meta(d('Refuse runs whose estimated event count is larger; can lower the limit of the host (--max-events, the maxEventsPerRun setting), never raise it')),
    sweep: z
      .record(z.string().min(1).max(300), z.array(z.unknown()).min(1).max(1000))
      .optional()
      .meta(d('A parameter sweep for `schedlab sweep`: paths as in `--set` (e.g. "workloads[0].sliceUs", "kernel.hz", "variants[1].patches") mapped to the values to try; the grid is their product (first path slowest), each cell a whole run of the scenario with those values set'))
  })
  .meta({ title: 'schedlab scenario', description: 'A topology, a kernel configuration, a workload mix and the variants to compare.' })

export type ScenarioInput = z.input<typeof SCENARIO>
export type ScenarioParsed = z.output<typeof SCENARIO>
export type WorkloadParsed = z.output<typeof WORKLOAD>
