/**
 * Topology description types. A topology is given as clusters of identical CPUs; the kernel
 * model derives per-CPU facts (capacity, LLC, SMT core, package) and, in the load-balancing
 * work, the sched domains.
 */

export interface IdleStateSpec {
  name: string
  /** Time from the wakeup event to the CPU executing code again. */
  exitLatencyUs: number
  /** Minimum idle time for the state to pay off (cpuidle target_residency). */
  targetResidencyUs: number
  powerMw?: number
}

export interface OppSpec {
  freqKhz: number
  powerMw: number
}

export interface ClusterSpec {
  name: string
  /** Number of CPUs (hardware threads) in the cluster. */
  cpus: number
  /** capacity_orig at the highest OPP, on the 1024 scale. */
  capacity: number
  /** Hardware threads per core (1 = no SMT). */
  smt?: number
  /** CPUs of the same `llc` value share a last-level cache; default: one LLC per package. */
  llc?: string | number
  /** Package (socket) number; default 0. */
  package?: number
  /** NUMA node; default = package. */
  node?: number
  idleStates?: IdleStateSpec[]
  /**
   * Energy model of the cluster's performance domain (one cpufreq policy): OPPs in ascending
   * frequency. The last OPP is the maximum frequency, at which `capacity` applies.
   */
  opps?: OppSpec[]
  /**
   * CPUs of the same `cls` value (inside one LLC) form a CLS sched domain (SD_CLUSTER: shared
   * L2 or LLC tags, arm64/x86 CONFIG_SCHED_CLUSTER). Omit for no cluster level.
   */
  cls?: string | number
}

/** Modeled CPU-side costs (scenario `kernel.costs`; a topology preset may calibrate its own). */
export interface CostsSpec {
  /** Context switch cost charged to the CPU switching tasks. */
  contextSwitchUs?: number
  /** Delay of a reschedule/wakeup IPI to a remote CPU. */
  ipiUs?: number
  /** Interrupt entry + timer handling cost on the CPU whose hrtimer fires, up to the wakeup it makes. */
  timerIrqUs?: number
  /**
   * The same interrupt after its wakeup, before the CPU can switch to the woken task: the
   * clock event reprogram and the interrupt exit (on a virtual machine the reprogram traps
   * to the hypervisor, which makes it several microseconds). Default 0.
   */
  timerIrqTailUs?: number
  /**
   * The idle loop's exit once a wakeup ended an idle state (tick_nohz_idle_exit, schedule_idle):
   * after sched_waking, before the woken task's switch-in, on CPUs woken from idle only (a
   * virtual machine's vCPU pays several microseconds). Default 0.
   */
  idleExitUs?: number
  /** Cache/TLB refill when switching to a task other than the CPU's previous one (CPU work at 1024). */
  coldSwitchUs?: number
  /** select_task_rq_fair(): fixed part of one wakeup/fork CPU selection, on the selecting CPU. */
  selectUs?: number
  /** select_task_rq_fair(): each CPU the selection examines (idle scans, EAS candidates, slow path). */
  selectPerCpuUs?: number
  /** sched_balance_rq(): fixed part of one balance pass, on the balancing CPU. */
  balanceUs?: number
  /** sched_balance_rq(): each CPU whose runqueue the pass reads (group statistics, busiest queue). */
  balancePerCpuUs?: number
  /** sched_balance_rq() / active balance: each task examined for migration. */
  balancePerTaskUs?: number
  /** One fair push attempt (short-slice v2 push callback), on the pushing CPU. */
  pushUs?: number
  /** One stopper run (active balance), on the stopper's CPU; the moved task is attached at its end. */
  stopperUs?: number
  /** Workload calibration: one hackbench write() / read() of CPU work at capacity 1024. */
  hackbenchWriteUs?: number
  hackbenchReadUs?: number
  /**
   * The same on an AF_UNIX stream socket (hackbench without -p: unix_stream_sendmsg /
   * unix_stream_recvmsg, an skb per message, where a pipe merges messages into its pages).
   * Default: the pipe's.
   */
  hackbenchSocketWriteUs?: number
  hackbenchSocketReadUs?: number
}

/**
 * Background activity of a machine (the `noise` workload's parameters): what runs besides the
 * workloads on a live system, so that a topology can carry its calibration. Times are means of
 * exponential (lognormal for the kernel threads' sections and the stalls) distributions.
 */
export interface BackgroundNoiseSpec {
  /** Per-CPU kernel threads (kworker-like) per CPU, their period and work (kernel code). */
  perCpu?: number
  perCpuPeriodUs?: number
  perCpuRunUs?: number
  /** Unbound user daemons, their period and work. */
  daemons?: number
  daemonPeriodUs?: number
  daemonRunUs?: number
  /** Unbound kernel threads with long unpreemptible sections (kdamond, kswapd), period, section. */
  kthreads?: number
  kthreadPeriodUs?: number
  kthreadRunUs?: number
  /** Spread (sigma of the log) of the kernel threads' sections and of the stalls. */
  sigma?: number
  /** vCPU stalls (a virtual machine's host runs something else): mean interval per CPU, 0 = none. */
  stallPeriodUs?: number
  stallUs?: number
  /** Timer delivery delay of a virtual machine: mean after each hrtimer's hard expiry, 0 = none. */
  timerDelayUs?: number
  /** Its spread (sigma of the log; lognormal). */
  timerDelaySigma?: number
}

export interface TopologySpec {
  name: string
  clusters: ClusterSpec[]
  /** Documentation: where the numbers come from. */
  source?: string
  /** One-line description (presets). */
  description?: string
  /**
   * NUMA node distance matrix (SLIT style, 10 = local), indexed by node number. Default: 10 on
   * the diagonal and 20 (the kernel's REMOTE_DISTANCE) elsewhere.
   */
  numaDistance?: number[][]
  /** Cost calibration for this hardware; the scenario's kernel.costs override it. */
  costs?: CostsSpec
  /**
   * The machine's background activity, added to every scenario on this topology as the
   * workload "background" (unless the scenario has a noise workload or sets backgroundNoise false).
   */
  noise?: BackgroundNoiseSpec
  /**
   * Architecture (uname -m style: x86_64, arm64, riscv64, powerpc, ...): decides kernel defaults
   * that depend on the architecture's entry code (HRTICK in tip 2026). Default: unknown.
   */
  arch?: string
}

export interface CpuInfo {
  id: number
  cluster: number
  clusterName: string
  capacityOrig: number
  /** Index of the CPU's LLC (dense, 0..nLlc-1). */
  llc: number
  /** Index of the CPU's physical core (dense); SMT siblings share it. */
  core: number
  package: number
  node: number
  /** Index of the CPU's CLS cluster (dense), or -1 when the topology has no cluster level. */
  cls: number
}

export interface Topology {
  name: string
  spec: TopologySpec
  cpus: CpuInfo[]
  /** True when CPU capacities differ (SD_ASYM_CPUCAPACITY somewhere). */
  asymCapacity: boolean
  smt: boolean
  /** Number of NUMA nodes (max node id + 1). */
  nodes: number
  /** node_distance(a, b), nodes x nodes. */
  numaDistance: number[][]
}
