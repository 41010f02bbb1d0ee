/**
 * The kernel model's header (what kernel/sched/sched.h is to core.c, fair.c and rt.c): the
 * types of its state and the functions one part calls in another. The per-task and per-CPU
 * state (task_struct, sched_entity, struct rq, cfs_rq) lives in typed arrays indexed by task
 * or CPU on the Kernel (implemented by core.ts); the fair class's multi-CPU side (root domain,
 * sched domains, load tracking, balancing state) on FairSched (fair-sched.ts); the RT class's
 * runqueues on RtClass (rt.ts); the fair deadline server on FairServer (fair-server.ts).
 *
 * The class files (fair.ts, rt.ts, select.ts, balance.ts, eas.ts, fair-push.ts, ...) and the
 * hookable-function table (fns.ts) import these types, never the implementations, so the
 * model's files import each other in one direction only.
 */
import type { TaskAttrs, TaskContext, TaskProgram } from './api'
import type { KernelConfig } from './config'
import type { IdleStateSpec, Topology } from './topology-types'
import type { SchedDomain, SchedDomains, SchedGroup } from './domains'
import type { EevdfTree } from './eevdf-tree'
import type { Pelt } from './pelt'
import type { PerfDomain, UclampRq, UtilBounds } from './energy'
import type { LbEnv, SgStats } from './group-stats'
import type { KernelRecorder } from './recording'
import type { EventQueue } from '../engine/event-queue'
import type { Prng } from '../engine/prng'
import type { LogHistogram } from '../metrics/histogram'
import type { LatencyBatches } from '../metrics/batches'
import type { UnreasonableIdleDetector } from '../metrics/unreasonable-idle'
import type { VariantResult } from '../../shared/result'
// task states
export const TASK_NEW = 0
export const TASK_RUNNING = 1 // runnable or running
export const TASK_SLEEPING = 2
export const TASK_DEAD = 3

// CPU modes
export const CPU_IDLE = 0 // in a low-power idle state
export const CPU_AWAKE_IDLE = 1 // idle task running: exiting idle, handling an interrupt
export const CPU_BUSY = 2 // running a task

// the action a task's program chose (TaskContext's terminal actions)
export const ACT_NONE = 0
export const ACT_RUN = 1
export const ACT_RUN_WALL = 2
export const ACT_SLEEP = 3
export const ACT_BLOCK = 4
export const ACT_YIELD = 5
export const ACT_EXIT = 6
/** CPU work in kernel mode (a syscall's work, a kernel thread's section): see reschedDue(). */
export const ACT_RUN_KERNEL = 7

// event kinds of the kernel's event queue (events.ts dispatches them); eq.pushKeyed slots (one
// live event each): RUN_DONE cpu, TICK n+cpu, HRTICK 2n+cpu, FAIR_SERVER 3n+cpu, TIMER 4n+task
export const EV_FORK = 1
export const EV_RUN_DONE = 2
export const EV_TIMER = 3
export const EV_TIMER_IRQ = 4
export const EV_IPI = 5
export const EV_IDLE_EXIT = 6
export const EV_TICK = 7
export const EV_HRTICK = 8
export const EV_STOPPER = 9
export const EV_CALLBACK = 10
export const EV_FAIR_SERVER = 11

export class KernelInvariantError extends Error {}

/** PELT and other load-tracking hooks the fair class calls at the kernel's points. */
export interface LoadHooks {
  enqueueEntityLoad(cpu: number, se: number, flags: number): void
  dequeueEntityLoad(cpu: number, se: number, flags: number, delayed: boolean): void
  requeueDelayedLoad(cpu: number, se: number): void
  setNextLoad(cpu: number, se: number): void
  putPrevLoad(cpu: number, se: number): void
  tickLoad(cpu: number, se: number): void
}

/** Work queued on a CPU's stopper (active balance, migration): runs above every class. */
export interface StopWork {
  run(k: Kernel, cpu: number): void
}

/**
 * The seam between the core and the multi-CPU policies: where a waking or forked task goes,
 * and load balancing. The core calls only these; select_task_rq_fair, the balancer and EAS
 * plug in here (FairSched); a bare kernel has SimplePlacement (placement.ts).
 */
export interface Placement {
  /** Forget the counters reported so far (the end of a discarded warm-up). */
  resetStats?(): void
  /** select_task_rq() for a fair task: the CPU it is enqueued on. */
  selectTaskRq(p: number, prevCpu: number, wakeFlags: number, thisCpu: number): number
  /**
   * sched_balance_newidle(): cpu's fair pick found nothing. Pull work if the policy wants to.
   * Returns true when something was pulled (the core picks again).
   */
  newidleBalance(cpu: number): boolean
  /** Called from every tick on a busy CPU (sched_balance_trigger, misfit, nohz kick). */
  tick(cpu: number): void
  /** add_nr_running(): a task was added to cpu's runqueue (any class). */
  addNrRunning?(cpu: number): void
  /** A fair task was woken onto cpu (enqueued, wakeup preemption checked): task_woken. */
  taskWoken?(cpu: number, p: number): void
  /** __schedule() on cpu switched away from the still-runnable fair task prev (preemption). */
  taskPreempted?(cpu: number, prev: number): void
  /** The balance callbacks at the end of __schedule() on cpu (after a switch). */
  afterSchedule?(cpu: number): void
  /** A task queued or running on cpu had its affinity changed. */
  affinityChanged?(cpu: number): void
  /** Add the policy's metrics to a finished run's result (optional). */
  report?(result: VariantResult): void
}

/**
 * The hookable scheduling functions (struct sched_class's operations, in the model's form): the
 * kernel calls each through `k.fn` (fns.ts builds the table).
 */
export interface KernelFns {
  // fair.c: the fair class's core (one cfs_rq per CPU)
  updateCurr(k: Kernel, cpu: number): void
  updateDeadline(k: Kernel, cpu: number, se: number): boolean
  entityEligible(k: Kernel, cpu: number, se: number): boolean
  updateEntityLag(k: Kernel, cpu: number, se: number): boolean
  decayEntityLag(k: Kernel, cpu: number, se: number, flags: number): void
  placeEntity(k: Kernel, cpu: number, se: number, flags: number): void
  setProtectSlice(k: Kernel, cpu: number, se: number): void
  updateProtectSlice(k: Kernel, cpu: number, se: number): void
  enqueueEntity(k: Kernel, cpu: number, se: number, flags: number): void
  dequeueEntity(k: Kernel, cpu: number, se: number, flags: number): boolean
  requeueDelayedEntity(k: Kernel, cpu: number, se: number): void
  pickEevdf(k: Kernel, cpu: number, protect: boolean): number
  pickNextEntity(k: Kernel, cpu: number, protect: boolean): number
  checkPreemptWakeupFair(k: Kernel, cpu: number, p: number, wakeFlags: number): number
  taskTickFair(k: Kernel, cpu: number, queued: boolean): void
  yieldTaskFair(k: Kernel, cpu: number, p: number): void
  // fair.c: wakeup CPU selection
  selectTaskRqFair(fs: FairSched, p: number, prevCpu: number, wakeFlags: number, thisCpu: number): number
  wakeWide(fs: FairSched, p: number, cpu: number): boolean
  wakeAffine(fs: FairSched, sd: SchedDomain, p: number, thisCpu: number, prevCpu: number, sync: boolean): number
  selectIdleSibling(fs: FairSched, p: number, prev: number, target: number, wakeup: boolean): number
  selectIdleCpu(fs: FairSched, p: number, sd: SchedDomain, hasIdleCore: boolean, target: number): number
  selectIdleCapacity(fs: FairSched, p: number, sd: SchedDomain, target: number): number
  // fair.c: load balancing
  schedBalanceRq(fs: FairSched, dstCpu: number, sd: SchedDomain, idle: number, cont: { value: boolean }): number
  findBusiestQueue(fs: FairSched, env: LbEnv, group: SchedGroup): number
  canMigrateTask(fs: FairSched, env: LbEnv, p: number): boolean
  needActiveBalance(fs: FairSched, env: LbEnv): boolean
  schedBalanceNewidle(fs: FairSched, cpu: number): boolean
  checkUpdateOverutilized(fs: FairSched, cpu: number): void
  // rt.c
  selectTaskRqRt(k: Kernel, p: number, prevCpu: number, thisCpu: number): number
  findLowestRq(k: Kernel, p: number, thisCpu: number): number
  pushRtTasks(k: Kernel, cpu: number): void
  pullRtTask(k: Kernel, cpu: number, prevPrio: number): void
}

export type KernelFnName = keyof KernelFns

/**
 * The modeled kernel: its state and the core.c functions the classes call (core.ts implements
 * it). Task and CPU ids index the typed arrays; NIL (-1) is "no task".
 */
export interface Kernel extends TaskContext {
  readonly topo: Topology
  readonly cfg: KernelConfig
  now: number
  readonly ncpus: number
  ntasks: number
  readonly f: Record<string, boolean>
  readonly rng: Prng
  readonly eq: EventQueue
  placement: Placement
  hooks: LoadHooks
  /**
   * The hookable scheduling functions (./fns.ts): the model's own, or a patch module's table
   * in which the functions it hooks are replaced. Set before the first event, never after.
   */
  fn: Readonly<KernelFns>
  readonly rt: RtClass
  /** The fair deadline server (null when FAIR_SERVER is off). */
  readonly fairServer: FairServer | null
  // ---- per task (task_struct, sched_entity, sched_rt_entity) -------------------------------
  attrs: TaskAttrs[]
  programs: TaskProgram[]
  state: Uint8Array
  policy: Uint8Array
  taskCpu: Int32Array
  onRq: Uint8Array
  rtPrio: Int32Array
  // fair entity
  weight: Float64Array
  vruntime: Float64Array
  deadline: Float64Array
  vlag: Float64Array
  vprot: Float64Array
  slice: Float64Array
  customSlice: Uint8Array
  schedDelayed: Uint8Array
  relDeadline: Uint8Array
  execStart: Float64Array
  sumExec: Float64Array
  prevSumExec: Float64Array
  vlagSeq: Int32Array
  // cfs_tasks list links (load balancer order)
  cfsTaskNext: Int32Array
  cfsTaskPrev: Int32Array
  // execution of the program
  action: Uint8Array
  remaining: Float64Array
  /** Kernel section: work between its might_resched() points (PREEMPT_VOLUNTARY), 0 = none. */
  kernelPoint: Float64Array
  /** Kernel section: the `remaining` at which its next preemption point comes, 0 = none. */
  pointAt: Float64Array
  /** Work of one operation when the current run is a coalesced batch of them (runOps), else 0. */
  batchOp: Float64Array
  /** Switched out exactly at the end of a batch's syscall that the one-by-one run had not completed yet. */
  opPending: Uint8Array
  /** When the current run's completion was last armed (switch-in, a new action, a change), and the work then left. */
  armedAt: Float64Array
  armedLeft: Float64Array
  timerAt: Float64Array
  timerGen: Int32Array
  timerCpu: Int32Array
  /**
   * The per-CPU queue of armed hrtimer sleeps that have a slack, in hard-expiry order (the
   * order of the kernel's timerqueue): any hrtimer interrupt of the CPU also runs those whose
   * soft expiry has passed (__hrtimer_run_queues).
   */
  slackNext: Int32Array
  slackPrev: Int32Array
  slackOn: Uint8Array
  slackHard: Float64Array
  wakeTs: Float64Array
  /** The task's next wakeup is not a sample of its workload's latency (unmeasuredWakeup). */
  unmeasured: Uint8Array
  /** When try_to_wake_up() ran for the task's last wakeup (its sched_waking). */
  ttwuAt: Float64Array
  // affinity: ncpus bytes per task
  allowed: Uint8Array
  nrCpusAllowed: Int32Array
  uclampMin: Int32Array
  uclampMax: Int32Array
  // wake_wide bookkeeping
  lastWakee: Int32Array
  wakeeFlips: Int32Array
  wakeeFlipDecayTs: Float64Array
  recentUsedCpu: Int32Array
  /** The task whose wakeup made this one runnable last (NIL for timers). */
  lastWaker: Int32Array
  /** TTWU_QUEUE wake lists: links and the flags of the pending activation. */
  wakeListNext: Int32Array
  wakeFlagsPending: Int32Array
  enqFlagsPending: Int32Array
  // per task metrics
  latency: LogHistogram[]
  /** Per-workload latency batches (set by simulate(); null in bare kernels). */
  latencyBatches: LatencyBatches | null
  /** Per workload: latency from try_to_wake_up to running (null: not recorded). */
  wakeupLatency: LogHistogram[] | null
  nrSwitches: Float64Array
  nrMigrations: Float64Array
  nrWakeups: Float64Array
  // ---- per CPU (struct rq) -------------------------------------------------------------------
  curr: Int32Array
  nrRunning: Int32Array
  /** The last task that ran on each CPU (cache warmth). */
  lastTaskOn: Int32Array
  /** Tasks on the CPU's wake list, not yet activated (rq->ttwu_pending). */
  ttwuPending: Int32Array
  wakeListHead: Int32Array
  wakeListTail: Int32Array
  /** Queued SCHED_IDLE tasks (cfs h_nr_idle): sched_idle_cpu() in O(1). */
  nrIdleQueued: Int32Array
  needResched: Uint8Array
  needReschedLazy: Uint8Array
  /** The current task is at a preemption point (return to user mode, end of a kernel section). */
  preemptPoint: Uint8Array
  /** The stopper waits for the kernel section it cannot preempt (preempt none/voluntary). */
  stopDeferred: Uint8Array
  /** Until when each CPU executes nothing (a vCPU stall); anyStall: some stall happened. */
  stallUntil: Float64Array
  mode: Uint8Array
  cpuRate: Float64Array
  segStart: Float64Array
  pendingStall: Float64Array
  /** When work was last charged to the CPU (chargeCpu). */
  lastStallAt: Float64Array
  runDoneGen: Int32Array
  tickGen: Int32Array
  /** Head of the CPU's queue of slack timers (slackNext), NIL when empty. */
  slackHead: Int32Array
  tickArmed: Uint8Array
  hrtickGen: Int32Array
  ipiPending: Uint8Array
  idleStart: Float64Array
  /** Last time the CPU went idle (short-slice v2's lag reset). */
  idleEnterTs: Float64Array
  idleState: Int32Array
  idlePredictNs: Float64Array
  /** rq->avg_idle (EWMA of idle durations at wakeup, capped), for newidle balance. */
  avgIdle: Float64Array
  wakeDoneAt: Float64Array
  /** 1 from an idle state's exit until the idle loop hands the CPU to a task (tickNohzIdleExit). */
  leavingIdle: Uint8Array
  /**
   * Scheduler work charged while no task can absorb it (during a pick, on the stopper, in an
   * idle CPU's interrupt): it delays the next task this CPU switches to.
   */
  schedStall: Float64Array
  /** When the CPU last ran a timer interrupt's tail (timerIrqTail: once per interrupt). */
  irqTailAt: Float64Array
  /**
   * When the last wakeup of an idle CPU's timer interrupt that wakes several sleepers is
   * handled (runSoftExpiredTimers); its tail comes after it.
   */
  irqLastWakeAt: Float64Array
  /** When the current task began to run after its switch (the instant its latency ends). */
  switchStart: Float64Array
  busyNs: Float64Array
  sysNs: Float64Array
  lastBusyStart: Float64Array
  // cfs_rq
  cfsLoad: Float64Array
  cfsLoadAvg: Float64Array
  cfsNrQueued: Int32Array
  cfsNrRunnable: Int32Array
  sumWVruntime: Float64Array
  sumWeight: Float64Array
  zeroVruntime: Float64Array
  cfsCurr: Int32Array
  cfsNext: Int32Array
  idleSeq: Int32Array
  rqMinSlice: Float64Array
  cfsTasksHead: Int32Array
  tree: EevdfTree
  // ---- global counters and probes ------------------------------------------------------------
  events: number
  /** Delayed dequeues: started, finished by a pick, undone by a wakeup. */
  nrDelayed: number
  nrDelayedPicked: number
  nrDelayedWoken: number
  /** Test probe: a fair task went to sleep ineligible and stays queued as sched_delayed. */
  onDelayed: ((cpu: number, se: number) => void) | null
  /** PM QoS CPU latency limit: idle states with a longer exit latency are not entered. */
  cpuLatencyQosNs: number
  /** Test probe: set_protect_slice() just ran for se. */
  onSetProtect: ((cpu: number, se: number) => void) | null
  /** Test probe: a fair task was enqueued (after placement). */
  onFairEnqueue: ((cpu: number, p: number, flags: number) => void) | null
  /** Test probe: a delayed entity is dequeued because it was picked; `lag` is V - v then. */
  onDelayedPick: ((cpu: number, se: number, lag: number) => void) | null
  /** The decision recorder (explanations, Perfetto export); null costs one test per decision point. */
  rec: KernelRecorder | null
  contextSwitches: number
  nrInvoluntarySwitches: number
  nrIdleExits: number
  nrStopperRuns: number
  migrations: number
  wakeups: number
  counters: Record<string, number>
  warnings: string[]
  /** in_task(): the code runs in a task's context (its syscall), not in an interrupt. */
  get inTask(): boolean
  /** The task whose program step is running (`current` in task context), NIL otherwise. */
  get currentTask(): number
  /** CPU whose context the current code runs in (-1: none, e.g. the launcher). */
  thisCpu: number
  onTaskExit: ((task: number) => void) | null
  // ---- the core's own state, shared with programs.ts, hrtimer.ts and events.ts ----------------
  /** Task whose program is executing (the waker for wakeups). */
  stepping: number
  /** The action the running step chose (ACT_*), its argument(s) and, for runOps, the work of one operation. */
  stepAction: number
  stepArg: number
  stepArg2: number
  stepOp: number
  /** Steps a task made at one instant (stepGuardAt): a program that never waits or runs is an error. */
  stepGuard: Int32Array
  stepGuardAt: Float64Array
  /** The bound the last runOpsLeft() found (TaskContext.opDoneNotBefore). */
  opNotBefore: number
  /** CPUs with a reschedule raised in the current instant, acted on at its end (drainLocalResched). */
  localResched: Int32Array
  localReschedN: number
  localReschedMark: Uint8Array
  /** The current schedule() call comes from sched_yield() (a voluntary switch). */
  yielding: boolean
  /** Tasks not exited yet. */
  liveTasks: number
  /** A task exited: the stop condition (every workload done) is worth checking now. */
  exitedSinceCheck: boolean
  /** Some vCPU stall happened (stallUntil is then checked per event). */
  anyStall: boolean
  /** Timer delivery delay of a virtual machine (setTimerDelay): mean ns (0 = none), log-spread. */
  timerDelayNs: number
  timerDelaySigma: number
  /** The fastest any CPU runs (capacity_orig / 1024 at its highest frequency): opDoneNotBefore(). */
  maxCpuRate: number
  /** Work queued on each CPU's stopper (queueStopWork), null when none. */
  stopWork: (StopWork | null)[]
  /** Each CPU's idle states (cpuidle), shallowest first. */
  idleStates: IdleStateSpec[][]
  /** Callbacks of at() by slot, and the free slots. */
  callbacks: (() => void)[]
  freeCallbacks: number[]
  // ---- core.c: the functions the classes and the event loop call ------------------------------
  /** Allocate a task's state (its fork comes later: createTask, fork). */
  allocTask(attrs: TaskAttrs, program: TaskProgram): number
  /** Policy, priority, weight, slice and uclamp of a task from its attributes (sched_setattr). */
  applyAttrs(t: number, a: Pick<TaskAttrs, 'policy' | 'nice' | 'rtPriority' | 'sliceNs' | 'uclampMin' | 'uclampMax'>): void
  /** The task's allowed CPUs (an empty or null list: all). */
  setAffinityMask(t: number, cpus: readonly number[] | null): void
  /** Is a pending reschedule acted on now, at an irq exit or a return from a syscall? */
  reschedDue(cpu: number): boolean
  /** The running task reached a preemption point: a reschedule or a waiting stopper happens now. */
  atPreemptionPoint(cpu: number): void
  /** Act on cpu's reschedule at the end of the current instant. */
  markLocal(cpu: number): void
  /** put_prev_set_next_task() */
  putPrevSetNext(cpu: number, prev: number, next: number): void
  /** The running task leaves its CPU: its progress is accounted, its run-done event cancelled. */
  switchOut(cpu: number, prev: number): void
  /** sched_ttwu_pending(): the target CPU activates the tasks queued on its wake list. */
  flushWakeList(cpu: number): void
  /** wake_up_new_task(): first enqueue of a forked task. */
  wakeUpNewTask(p: number, parentCpu: number, startCpu: number): void
  /** sched_tick() */
  schedulerTick(cpu: number): void
  /** Create a task that forks at attrs.startNs (setup time; no parent CPU context). */
  createTask(attrs: TaskAttrs, program: TaskProgram, startCpu?: number): number
  cpuAllowed(t: number, cpu: number): boolean
  isFair(t: number): boolean
  cfsTasksAdd(cpu: number, t: number): void
  cfsTasksDel(cpu: number, t: number): void
  /** idle_cpu(): nothing running, nothing queued. */
  idleCpu(cpu: number): boolean
  /** available_idle_cpu() plus the SCHED_IDLE-only case select_idle_sibling accepts. */
  schedIdleCpu(cpu: number): boolean
  /** activate_task(): enqueue on cpu's runqueue. */
  activateTask(cpu: number, p: number, flags: number): void
  /**
   * deactivate_task(): dequeue from cpu. Returns false when a fair task stays queued as
   * sched_delayed.
   */
  deactivateTask(cpu: number, p: number, flags: number): boolean
  /** A picked entity turned out to be sched_delayed: finish its dequeue (pick_next_entity). */
  delayedPicked(cpu: number, se: number): void
  /** Finish a delayed dequeue (picked while delayed, or woken with a full dequeue). */
  finishDelayedDequeue(cpu: number, se: number): void
  /** set_task_cpu(): move a task that is not queued to another CPU. */
  setTaskCpu(p: number, cpu: number): void
  /**
   * Move a queued (not running) task to another CPU: the load balancer's detach/attach and
   * RT push/pull. Includes the wakeup-preemption check on the destination.
   */
  moveQueuedTask(p: number, dst: number): void
  /** resched_curr(): reschedule cpu now (locally) or by IPI. */
  reschedCurr(cpu: number): void
  /**
   * resched_curr_lazy(): with PREEMPT_LAZY, TIF_NEED_RESCHED_LAZY. It is acted on at the next
   * return to user mode (irq exit, syscall exit), never by kernel preemption; a remote CPU
   * gets no IPI; the tick upgrades it to a plain reschedule. The idle task is always
   * rescheduled at once. Other models: resched_curr().
   */
  reschedCurrLazy(cpu: number): void
  /** The CPU runs kernel code (a kernel section of its current task). */
  inKernel(cpu: number): boolean
  /** max_idle_balance_cost (set by the balancer; migration cost until then). */
  maxIdleBalanceCost(_cpu: number): number
  /** Charge modeled CPU work (scheduler overhead) to cpu: stalls its current task. */
  chargeCpu(cpu: number, workNs: number): void
  /** Change a CPU's execution rate (frequency), keeping the running action's progress. */
  setCpuRate(cpu: number, rate: number): void
  /** __schedule() on cpu: pick the next task by class and switch to it. */
  schedule(cpu: number): void
  /**
   * try_to_wake_up(): make a sleeping task runnable. `latencyFrom` is the instant the
   * scheduling latency is measured from (timer expiry, or now for a wakeup by a task).
   */
  tryToWakeUp(p: number, wakeFlags: number, latencyFrom: number): boolean
  /**
   * select_task_rq(): the class chooses; a CPU the task may not use falls back to an allowed
   * one (select_fallback_rq: the first allowed CPU of prev's node, then any).
   */
  selectTaskRq(p: number, prevCpu: number, wakeFlags: number): number
  /** wakeup_preempt(): class precedence first, then the class's own rule. */
  wakeupPreempt(cpu: number, p: number, wakeFlags: number): void
  armHrtick(cpu: number, at: number): void
  armFairServer(cpu: number, at: number, gen: number): void
  /** Queue work on cpu's stopper: it preempts whatever runs there (after an IPI if remote). */
  queueStopWork(cpu: number, work: StopWork): boolean
  /** Run `fn` at time `at` in no CPU's context (workload timers, instrumentation). */
  at(at: number, fn: () => void): void
  /** hrtimer slack of a task's sleeps: none for RT (hrtimer_nanosleep), 50 us by default otherwise. */
  timerSlack(t: number): number
  /**
   * Run until `endNs`, or until `stop()` says so (checked every few thousand events).
   * Returns the simulated end time.
   */
  runUntil(endNs: number, stop?: (() => boolean) | null, progress?: ((now: number) => void) | null): number
  /**
   * Timer delivery of a virtual machine: the guest's hrtimer is emulated by the hypervisor, whose
   * own timer and interrupt injection fire late by a varying amount. From now on every hrtimer
   * sleep fires a lognormal time (mean `meanNs`, log-spread `sigma`) after its hard expiry; the
   * vCPU runs its task meanwhile.
   */
  setTimerDelay(meanNs: number, sigma: number): void
  /**
   * A vCPU stall: `cpu` executes nothing for `ns` from now (the host runs something else). Its
   * task makes no progress, and its interrupts, IPIs, ticks and idle exits wait for the end.
   */
  stallCpu(cpu: number, ns: number): void
  /** CPU time of each task when its counters were last reset (warm-up end), ns. */
  sumExecBase: Float64Array | null
  /** Events before the counters were last reset (a discarded warm-up). */
  warmupEvents: number
  /**
   * The end of a discarded warm-up: every counter and histogram the result reports starts
   * again from zero (call right after runUntil, which brought the books up to date). The
   * model's own state (vruntimes, PELT, queues) is untouched.
   */
  resetStats(): void
  get allExited(): boolean
}

/** The RT class (rt.ts): rt_rq per CPU, push/pull, cpupri placement. */
export interface RtClass {
  /** rt_rq->rt_nr_running per CPU. */
  readonly nrRunning: Int32Array
  /** Highest queued RT priority per CPU (0 = none). */
  readonly highest: Int32Array
  /** The sched domains of each CPU (set by FairSched), for find_lowest_rq()'s affine walk. */
  domains: readonly (SchedDomain | null)[] | null
  resize(n: number): void
  /** enqueue_task_rt(): tail of its priority list (head when put back after preemption). */
  enqueue(cpu: number, p: number, _flags: number, atHead?: boolean): void
  dequeue(cpu: number, p: number): void
  /** pick_task_rt(): head of the highest non-empty level. */
  pickTask(cpu: number): number
  setNext(cpu: number, p: number): void
  putPrev(cpu: number, p: number): void
  /** update_curr_rt() */
  updateCurr(cpu: number): void
  /** task_tick_rt(): SCHED_RR tasks rotate within their level every rr timeslice. */
  taskTick(cpu: number, p: number): void
  yieldTask(cpu: number, p: number): void
  /** cpupri value of a CPU: its highest queued RT priority, or NORMAL. */
  cpuPrio(cpu: number): number
  /**
   * rt_task_fits_capacity(): on asymmetric systems the CPU's capacity must reach the task's
   * uclamp_min (capped by its uclamp_max). RT tasks' uclamp_min defaults to 1024
   * (sysctl_sched_uclamp_util_min_rt_default), so by default only the biggest CPUs fit.
   */
  taskFitsCpu(p: number, cpu: number): boolean
  /**
   * find_lowest_rq(): a CPU of the lowest priority level (cpupri_find). The task's own CPU
   * first (cache hot), then, walking the task CPU's domains upward, this CPU if a wake-affine
   * domain holds it, else a CPU of that domain spread by cpumask_any_and_distribute; then this
   * CPU; then any of the mask.
   */
  findLowestRq(p: number, thisCpuIn: number): number
  /**
   * select_task_rq_rt(): stay on prev unless an RT task of higher or equal priority (or a
   * pinned one) runs there, or p does not fit prev's capacity; then find_lowest_rq(), kept only
   * if p would run there first (and, when only fitness sent it looking, if it fits there).
   */
  selectTaskRq(p: number, prevCpu: number, thisCpu: number): number
  /** Waiting (not running) RT tasks that may run elsewhere. */
  hasPushable(cpu: number): boolean
  /** push_rt_tasks(): move waiting RT tasks to CPUs running something of lower priority. */
  pushRtTasks(cpu: number): void
  /** pull_rt_task(): this CPU's priority dropped; take higher RT work waiting elsewhere. */
  pullRtTask(cpu: number, _prevPrio: number): void
  /** task_woken_rt(): a woken RT task that will not run soon is pushed away. */
  taskWoken(cpu: number, p: number): void
}

/** The fair deadline server (fair-server.ts). */
export interface FairServer {
  readonly runtimeNs: number
  readonly periodNs: number
  readonly state: Uint8Array
  readonly periodStart: Float64Array
  readonly left: Float64Array
  readonly boostStart: Float64Array
  readonly gen: Int32Array
  nrBoosts: number
  boosted(cpu: number): boolean
  /** dl_server_start(): fair work appeared on cpu. */
  start(cpu: number): void
  /** dl_server_stop(): the CPU has no fair work left. */
  stop(cpu: number): void
  /** Fair execution time on cpu (normal or boosted) consumes the reservation. */
  account(cpu: number, delta: number): void
  /** The server's dl_timer fired. */
  timer(cpu: number): void
}

/**
 * The fair class's multi-CPU side (fair-sched.ts): sched domains, PELT, uclamp, capacity_of(),
 * schedutil and the balancing state, with the preallocated scratch of the policies in
 * select.ts, eas.ts and balance.ts.
 */
export interface FairSched extends Placement, LoadHooks {
  readonly k: Kernel
  readonly ncpus: number
  readonly d: SchedDomains
  readonly pelt: Pelt
  readonly uclamp: UclampRq
  readonly pds: PerfDomain[]
  /** Perf domain of each CPU, -1 when it has no energy model. */
  readonly pdOf: Int32Array
  readonly capOrig: Int32Array
  /** capacity_of(): capacity left to CFS after RT pressure, refreshed by the balancer. */
  readonly capacityOf: Float64Array
  readonly asym: boolean
  readonly schedutil: boolean
  readonly eas: boolean
  readonly rateLimitNs: number
  uclampUsed: boolean
  /** rq->misfit_task_load. */
  readonly misfitTaskLoad: Float64Array
  /** rq->next_balance, jiffies. */
  readonly nextBalance: Float64Array
  readonly maxIdleBalanceCost: Float64Array
  readonly activeBalance: Uint8Array
  /** Source runqueue of the work queued on each CPU's stopper (its own CPU for mainline). */
  readonly stopSrc: Int32Array
  /** rq->all_pinned (reviewer alternative to seed 004/1). */
  readonly allPinned: Uint8Array
  readonly nohzIdle: Uint8Array
  nohzNrCpus: number
  nohzNextBalance: number
  nohzNextBlocked: number
  nohzHasBlocked: boolean
  nohzNeedsUpdate: boolean
  readonly nohzFlags: Int32Array
  /** sd_llc->nohz_idle per CPU (the CPU's contribution to nr_busy_cpus is withdrawn). */
  readonly llcNohzIdle: Uint8Array
  readonly ilbRun: (() => void)[]
  readonly pdOpp: Int32Array
  readonly pdLastUpdate: Float64Array
  readonly pdLastChange: Float64Array
  readonly freqResidencyNs: Float64Array[]
  peltInited: Uint8Array
  uclampActive: Uint8Array
  /** On its runqueue's pushable list (short-slice v2 fair push). */
  pushable: Uint8Array
  /** Per-level migration counts: [wakeup by level..., balance by level...]. */
  readonly levelNames: string[]
  readonly wakeMigrations: Float64Array
  readonly lbMigrations: Float64Array
  readonly idle: UnreasonableIdleDetector
  readonly lbEnv: LbEnv
  readonly swbMask: Uint8Array
  readonly selMask: Uint8Array
  readonly scanScratch: ScanScratch
  readonly sliceScan: SliceScan
  /** CPUs examined by the current wakeup CPU selection (its modeled cost). */
  selectScanned: number
  readonly wakeStats: {
    localSgs: SgStats
    tmpSgs: SgStats
    idlestSgs: SgStats
  }
  readonly eenv: EnergyEnv
  readonly eenvBounds: UtilBounds
  readonly stopWork: StopWork[]
  readonly pushCpu: Int32Array
  /** sched_cluster_active: some LLC has a CLS level below it. */
  readonly clusterActive: boolean
  /** Exit latency of the idle state the CPU sits in, -1 when it is not in one. */
  idleExitLatencyNs(cpu: number): number
  ensureTask(p: number): void
  jiffies(): number
  /** idle_cpu() / available_idle_cpu(): nothing running or queued. */
  idleCpu(cpu: number): boolean
  /** sched_idle_cpu(): only SCHED_IDLE tasks queued. */
  schedIdleCpu(cpu: number): boolean
  /** cpu_load(): the cfs_rq's load_avg. */
  cpuLoad(cpu: number): number
  cpuRunnable(cpu: number): number
  taskHLoad(p: number): number
  /** task_util_est() */
  taskUtilEst(p: number): number
  uclampTask(p: number, id: number): number
  /** util_fits_cpu() for this CPU's capacities. */
  utilFitsCpu(util: number, umin: number, umax: number, cpu: number): number
  /** task_fits_cpu() */
  taskFitsCpu(p: number, cpu: number): boolean
  /** check_cpu_capacity(): RT/IRQ pressure noticeably reduces the CPU's capacity. */
  checkCpuCapacity(cpu: number, imbalancePct: number): boolean
  /** cpu_overutilized(): only meaningful with EAS. */
  cpuOverutilized(cpu: number): boolean
  /** Largest capacity among the task's allowed CPUs (p->max_allowed_capacity). */
  maxAllowedCapacity(p: number): number
  /** update_rq_clock() + avg_rt: advance the CPU's PELT clocks to now. */
  syncClock(cpu: number): void
  /** sched_balance_update_blocked_averages() for one CPU. */
  updateBlockedAverages(cpu: number): void
  /** update_cpu_capacity(): capacity_of = capacity_orig minus RT utilization. */
  updateCpuCapacity(cpu: number): void
  enqueueEntityLoad(cpu: number, se: number, flags: number): void
  dequeueEntityLoad(cpu: number, se: number, flags: number, delayed: boolean): void
  requeueDelayedLoad(cpu: number, se: number): void
  setNextLoad(cpu: number, se: number): void
  putPrevLoad(cpu: number, se: number): void
  tickLoad(cpu: number, se: number): void
  selectTaskRq(p: number, prevCpu: number, wakeFlags: number, thisCpu: number): number
  /** Count a migration at the lowest domain level spanning both CPUs. */
  countMigration(into: Float64Array, from: number, to: number): void
  newidleBalance(cpu: number): boolean
  tick(cpu: number): void
  /**
   * add_nr_running(): a second runnable task makes the root domain overloaded. With the
   * reviewer's all_pinned alternative an rq whose tasks were all found pinned re-sets it on
   * any enqueue (the balancer may have cleared it while looking at a subset of CPUs).
   */
  addNrRunning(cpu: number): void
  /** affine_move_task() part of the all_pinned alternative: a task may have become movable. */
  affinityChanged(cpu: number): void
  taskWoken(cpu: number, p: number): void
  taskPreempted(cpu: number, prev: number): void
  afterSchedule(cpu: number): void
  nohzBalanceEnterIdle(cpu: number): void
  nohzBalanceExitIdle(cpu: number): void
  /** cpufreq_update_util() -> sugov_update_shared(): pick the policy's OPP from its CPUs' util. */
  cpufreqUpdateUtil(cpu: number): void
  /** Add balancing metrics to a finished run's result. */
  resetStats(): void
  report(result: VariantResult): void
}

/**
 * What the idle scans remember about non-idle CPUs for the slice-aware fallback: the
 * reviewer's "keep track of the minimal slice CPU that was not idle during our initial scan"
 * (seed 000, review of 8/8) and v2's "merge min_slice rq selection in select_idle_capacity()
 * and select_idle_cpu()".
 */
export interface SliceScan {
  mode: number
  /** The selection is a push's, not a wakeup's. */
  push: boolean
  best: number
  bestMinSlice: number
  asym: boolean
  util: number
  umin: number
  umax: number
}

export interface ScanScratch {
  idleCpu: number
  nr: number
  /** The task being placed. */
  p: number
}

/** struct energy_env: the per-wakeup constants of the energy estimation. */
export interface EnergyEnv {
  taskBusyTime: number
  pdBusyTime: number
  cpuCap: number
  pdCap: number
}
