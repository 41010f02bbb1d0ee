/**
 * The modeled kernel core (kernel/sched/core.c): per-CPU runqueues with class precedence
 * stop > RT > fair > idle, __schedule(), try_to_wake_up(), the tick, idle states and IPIs. All
 * state lives in typed arrays indexed by task or CPU. Beside it: the execution of task programs
 * (programs.ts), hrtimer sleeps and their interrupts (hrtimer.ts) and the event loop
 * (events.ts), which allocates nothing per event.
 *
 * Execution model: a CPU runs its current task's action (CPU work or wall time) from
 * segStart; a run-done event fires when the action completes, and the task's program then
 * chooses its next action. Switching tasks costs `contextSwitchWorkNs` of CPU work (so more on
 * a slower CPU); an idle CPU pays its idle state's exit latency before doing anything; a
 * remote reschedule pays an IPI. Scheduling latency = switch-in complete - wakeup instant.
 *
 * The class files (fair.ts, rt.ts, select.ts, balance.ts, ...) see the kernel through the
 * Kernel interface of sched.ts, which this class implements.
 */
import { EventQueue } from '../engine/event-queue'
import { Prng } from '../engine/prng'
import { LogHistogram } from '../metrics/histogram'
import type { LatencyBatches } from '../metrics/batches'
import type { Topology, IdleStateSpec } from './topology-types'
import { idleStatesOf } from './topology'
import type { KernelConfig } from './config'
import {
  SCHED_BATCH, SCHED_IDLE, SCHED_RR, isRtPolicy, WF_FORK, WF_MIGRATED, WF_TTWU,
  type TaskAttrs, type TaskProgram
} from './api'
import { EevdfTree, NIL } from './eevdf-tree'
import { niceToWeight, WEIGHT_IDLEPRIO } from './weights'
import {
  avgVruntime, dequeueTaskFair, enqueueTaskFair,
  putPrevEntity, setNextTaskFair, refreshRqMinSlice,
  DEQUEUE_DELAYED, DEQUEUE_SLEEP, ENQUEUE_DELAYED, ENQUEUE_INITIAL, ENQUEUE_MIGRATED, ENQUEUE_WAKEUP,
  DEQUEUE_MIGRATING, ENQUEUE_RESTORE, DEQUEUE_SAVE
} from './fair'
import { P_6_6, PREEMPT_FULL, PREEMPT_LAZY } from './features'
import { RtClass } from './rt'
import { FairServer } from './fair-server'
import { SimplePlacement } from './placement'
import { KERNEL_FNS } from './fns'
import {
  ACT_BLOCK, ACT_EXIT, ACT_NONE, ACT_RUN, ACT_RUN_KERNEL, ACT_RUN_WALL, ACT_SLEEP, ACT_YIELD, CPU_BUSY,
  CPU_IDLE, EV_CALLBACK, EV_FAIR_SERVER, EV_FORK, EV_HRTICK, EV_IPI, EV_STOPPER, EV_TICK, KernelInvariantError, TASK_NEW,
  TASK_RUNNING, TASK_SLEEPING, type Kernel as SchedKernel, type KernelFns, type LoadHooks, type Placement, type StopWork
} from './sched'
import {
  WP_FAIR_UNDER_RT, WP_IDLE_CPU, WP_RT_HIGHER_PRIO, WP_RT_NOT_HIGHER, WP_RT_PREEMPTS_FAIR, type KernelRecorder
} from './recording'
import {
  accountProgress, armRunDone, batchPoint, extendRun, fork, opEndPending, runLeft, runOpsLeft, setAffinity, setAttrs, setRunLeft,
  terminal
} from './programs'
import { setTimerDelay, unlinkSlackTimer } from './hrtimer'
import { runUntil, stallCpu } from './events'
import { enterIdle, tickNohzIdleExit } from './idle'

const NO_LOAD_HOOKS: LoadHooks = {
  enqueueEntityLoad() {},
  dequeueEntityLoad() {},
  requeueDelayedLoad() {},
  setNextLoad() {},
  putPrevLoad() {},
  tickLoad() {}
}

/** Per-task typed arrays, with their fill value: allocated together, grown together. */
const TASK_ARRAYS: readonly [string, TypedArrayCtor, number][] = [
  ['state', Uint8Array, 0],
  ['policy', Uint8Array, 0],
  ['taskCpu', Int32Array, 0],
  ['onRq', Uint8Array, 0],
  ['rtPrio', Int32Array, 0],
  ['weight', Float64Array, 0],
  ['vruntime', Float64Array, 0],
  ['deadline', Float64Array, 0],
  ['vlag', Float64Array, 0],
  ['vprot', Float64Array, 0],
  ['slice', Float64Array, 0],
  ['customSlice', Uint8Array, 0],
  ['schedDelayed', Uint8Array, 0],
  ['relDeadline', Uint8Array, 0],
  ['execStart', Float64Array, 0],
  ['sumExec', Float64Array, 0],
  ['prevSumExec', Float64Array, 0],
  ['vlagSeq', Int32Array, 0],
  ['cfsTaskNext', Int32Array, NIL],
  ['cfsTaskPrev', Int32Array, NIL],
  ['action', Uint8Array, 0],
  ['remaining', Float64Array, 0],
  ['kernelPoint', Float64Array, 0],
  ['pointAt', Float64Array, 0],
  ['batchOp', Float64Array, 0],
  ['opPending', Uint8Array, 0],
  ['armedAt', Float64Array, 0],
  ['armedLeft', Float64Array, 0],
  ['timerAt', Float64Array, 0],
  ['timerGen', Int32Array, 0],
  ['timerCpu', Int32Array, 0],
  ['slackNext', Int32Array, NIL],
  ['slackPrev', Int32Array, NIL],
  ['slackOn', Uint8Array, 0],
  ['slackHard', Float64Array, 0],
  ['wakeTs', Float64Array, -1],
  ['unmeasured', Uint8Array, 0],
  ['ttwuAt', Float64Array, 0],
  ['nrCpusAllowed', Int32Array, 0],
  ['uclampMin', Int32Array, 0],
  ['uclampMax', Int32Array, 0],
  ['lastWakee', Int32Array, NIL],
  ['wakeeFlips', Int32Array, 0],
  ['wakeeFlipDecayTs', Float64Array, 0],
  ['recentUsedCpu', Int32Array, -1],
  ['lastWaker', Int32Array, -1],
  ['wakeListNext', Int32Array, -1],
  ['wakeFlagsPending', Int32Array, 0],
  ['enqFlagsPending', Int32Array, 0],
  ['nrSwitches', Float64Array, 0],
  ['nrMigrations', Float64Array, 0],
  ['nrWakeups', Float64Array, 0],
  ['stepGuard', Int32Array, 0],
  ['stepGuardAt', Float64Array, -1],
]

type TypedArrayCtor = Uint8ArrayConstructor | Int32ArrayConstructor | Float64ArrayConstructor

/** The kernel model: its state and core.c's functions (the state is documented in sched.ts). */
export class Kernel implements SchedKernel {
  now = 0
  readonly ncpus: number
  ntasks = 0
  private cap: number
  readonly f: Record<string, boolean>
  readonly rng: Prng
  readonly eq = new EventQueue(4096)
  placement: Placement
  hooks: LoadHooks = NO_LOAD_HOOKS
  fn: Readonly<KernelFns> = KERNEL_FNS
  readonly rt: RtClass
  readonly fairServer: FairServer | null

  // ---- per task ---------------------------------------------------------------------------
  attrs: TaskAttrs[] = []
  programs: TaskProgram[] = []
  state!: Uint8Array
  policy!: Uint8Array
  taskCpu!: Int32Array
  onRq!: Uint8Array
  rtPrio!: Int32Array
  // fair entity
  weight!: Float64Array
  vruntime!: Float64Array
  deadline!: Float64Array
  vlag!: Float64Array
  vprot!: Float64Array
  slice!: Float64Array
  customSlice!: Uint8Array
  schedDelayed!: Uint8Array
  relDeadline!: Uint8Array
  execStart!: Float64Array
  sumExec!: Float64Array
  prevSumExec!: Float64Array
  vlagSeq!: Int32Array
  // cfs_tasks list links (load balancer order)
  cfsTaskNext!: Int32Array
  cfsTaskPrev!: Int32Array
  // execution of the program
  action!: Uint8Array
  remaining!: Float64Array
  kernelPoint!: Float64Array
  pointAt!: Float64Array
  batchOp!: Float64Array
  opPending!: Uint8Array
  armedAt!: Float64Array
  armedLeft!: Float64Array
  timerAt!: Float64Array
  timerGen!: Int32Array
  timerCpu!: Int32Array
  slackNext!: Int32Array
  slackPrev!: Int32Array
  slackOn!: Uint8Array
  slackHard!: Float64Array
  wakeTs!: Float64Array
  unmeasured!: Uint8Array
  ttwuAt!: Float64Array
  // affinity: ncpus bytes per task
  allowed: Uint8Array
  nrCpusAllowed!: Int32Array
  uclampMin!: Int32Array
  uclampMax!: Int32Array
  // wake_wide bookkeeping
  lastWakee!: Int32Array
  wakeeFlips!: Int32Array
  wakeeFlipDecayTs!: Float64Array
  recentUsedCpu!: Int32Array
  lastWaker!: Int32Array
  wakeListNext!: Int32Array
  wakeFlagsPending!: Int32Array
  enqFlagsPending!: Int32Array
  // per task metrics
  latency: LogHistogram[] = []
  latencyBatches: LatencyBatches | null = null
  wakeupLatency: LogHistogram[] | null = null
  nrSwitches!: Float64Array
  nrMigrations!: Float64Array
  nrWakeups!: Float64Array
  stepGuard!: Int32Array
  stepGuardAt!: Float64Array

  // ---- per CPU ------------------------------------------------------------------------------
  curr: Int32Array
  nrRunning: Int32Array
  lastTaskOn: Int32Array
  ttwuPending: Int32Array
  wakeListHead: Int32Array
  wakeListTail: Int32Array
  nrIdleQueued: Int32Array
  needResched: Uint8Array
  needReschedLazy: Uint8Array
  preemptPoint: Uint8Array
  stopDeferred: Uint8Array
  stallUntil: Float64Array
  anyStall = false
  timerDelayNs = 0
  timerDelaySigma = 1
  mode: Uint8Array
  cpuRate: Float64Array
  maxCpuRate = 0
  segStart: Float64Array
  pendingStall: Float64Array
  lastStallAt: Float64Array
  runDoneGen: Int32Array
  tickGen: Int32Array
  slackHead: Int32Array
  tickArmed: Uint8Array
  hrtickGen: Int32Array
  ipiPending: Uint8Array
  idleStart: Float64Array
  idleEnterTs: Float64Array
  idleState: Int32Array
  idlePredictNs: Float64Array
  avgIdle: Float64Array
  wakeDoneAt: Float64Array
  leavingIdle: Uint8Array
  schedStall: Float64Array
  irqTailAt: Float64Array
  irqLastWakeAt: Float64Array
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
  stopWork: (StopWork | null)[]
  callbacks: (() => void)[] = []
  freeCallbacks: number[] = []

  // ---- global counters ------------------------------------------------------------------------
  events = 0
  nrDelayed = 0
  nrDelayedPicked = 0
  nrDelayedWoken = 0
  onDelayed: ((cpu: number, se: number) => void) | null = null
  cpuLatencyQosNs = Infinity
  onSetProtect: ((cpu: number, se: number) => void) | null = null
  onFairEnqueue: ((cpu: number, p: number, flags: number) => void) | null = null
  onDelayedPick: ((cpu: number, se: number, lag: number) => void) | null = null
  rec: KernelRecorder | null = null
  contextSwitches = 0
  nrInvoluntarySwitches = 0
  nrIdleExits = 0
  nrStopperRuns = 0
  migrations = 0
  wakeups = 0
  // a plain object (not null-prototype) keeps V8's fast properties for the counters bumped per event
  counters: Record<string, number> = {}
  warnings: string[] = []
  private warnedSlice66 = false
  sumExecBase: Float64Array | null = null
  warmupEvents = 0

  /** in_task(): the code runs in a task's context (its syscall), not in an interrupt. */
  get inTask(): boolean {
    return this.stepping !== NIL
  }

  /** The task whose program step is running (`current` in task context), NIL otherwise. */
  get currentTask(): number {
    return this.stepping
  }

  thisCpu = -1
  stepping = NIL
  stepAction = ACT_NONE
  stepArg = 0
  stepArg2 = 0
  stepOp = 0
  localResched: Int32Array
  localReschedN = 0
  /** CPU whose pick_next_task() is running (its overhead delays the task it picks). */
  private pickingCpu = -1
  yielding = false
  localReschedMark: Uint8Array
  idleStates: IdleStateSpec[][]
  liveTasks = 0
  exitedSinceCheck = false
  onTaskExit: ((task: number) => void) | null = null
  opNotBefore = 0

  constructor(readonly topo: Topology, readonly cfg: KernelConfig, seed: number, taskCapacity = 64) {
    this.ncpus = topo.cpus.length
    // a copy with a fixed shape: the feature set is built key by key, which leaves V8 with a
    // dictionary-mode object, and k.f.X is read on every hot path
    this.f = { ...cfg.features }
    this.rng = new Prng(seed)
    this.cap = Math.max(8, taskCapacity)
    const n = this.cap
    const c = this.ncpus
    this.allocTaskArrays(n)
    this.allowed = new Uint8Array(n * c)

    this.curr = new Int32Array(c).fill(NIL)
    this.nrRunning = new Int32Array(c)
    this.lastTaskOn = new Int32Array(c).fill(NIL)
    this.nrIdleQueued = new Int32Array(c)
    this.ttwuPending = new Int32Array(c)
    this.wakeListHead = new Int32Array(c).fill(NIL)
    this.wakeListTail = new Int32Array(c).fill(NIL)
    this.needResched = new Uint8Array(c)
    this.needReschedLazy = new Uint8Array(c)
    this.preemptPoint = new Uint8Array(c)
    this.stopDeferred = new Uint8Array(c)
    this.stallUntil = new Float64Array(c)
    this.mode = new Uint8Array(c)
    this.cpuRate = new Float64Array(c)
    this.segStart = new Float64Array(c)
    this.pendingStall = new Float64Array(c)
    this.lastStallAt = new Float64Array(c)
    this.runDoneGen = new Int32Array(c)
    this.tickGen = new Int32Array(c)
    this.slackHead = new Int32Array(c).fill(NIL)
    this.tickArmed = new Uint8Array(c)
    this.hrtickGen = new Int32Array(c)
    this.ipiPending = new Uint8Array(c)
    this.idleStart = new Float64Array(c)
    this.idleEnterTs = new Float64Array(c).fill(-1)
    this.idleState = new Int32Array(c)
    this.idlePredictNs = new Float64Array(c).fill(1_000_000)
    this.avgIdle = new Float64Array(c).fill(2 * cfg.migrationCostNs)
    this.wakeDoneAt = new Float64Array(c)
    this.leavingIdle = new Uint8Array(c)
    this.schedStall = new Float64Array(c)
    this.irqTailAt = new Float64Array(c).fill(-1)
    this.irqLastWakeAt = new Float64Array(c).fill(-1)
    this.switchStart = new Float64Array(c)
    this.busyNs = new Float64Array(c)
    this.sysNs = new Float64Array(c)
    this.lastBusyStart = new Float64Array(c)
    this.cfsLoad = new Float64Array(c)
    this.cfsLoadAvg = new Float64Array(c)
    this.cfsNrQueued = new Int32Array(c)
    this.cfsNrRunnable = new Int32Array(c)
    this.sumWVruntime = new Float64Array(c)
    this.sumWeight = new Float64Array(c)
    this.zeroVruntime = new Float64Array(c)
    this.cfsCurr = new Int32Array(c).fill(NIL)
    this.cfsNext = new Int32Array(c).fill(NIL)
    this.idleSeq = new Int32Array(c)
    this.rqMinSlice = new Float64Array(c).fill(Infinity)
    this.cfsTasksHead = new Int32Array(c).fill(NIL)
    this.localResched = new Int32Array(c)
    this.localReschedMark = new Uint8Array(c)
    this.stopWork = new Array<StopWork | null>(c).fill(null)
    this.tree = new EevdfTree(n, c, this)
    this.idleStates = topo.cpus.map((_, i) => [...idleStatesOf(topo, i)])
    for (let i = 0; i < c; i++) {
      this.cpuRate[i] = topo.cpus[i].capacityOrig / 1024
      if (this.cpuRate[i] > this.maxCpuRate) this.maxCpuRate = this.cpuRate[i]
      this.mode[i] = CPU_IDLE
      this.idleState[i] = 0
    }
    this.rt = new RtClass(this)
    this.fairServer = cfg.features.FAIR_SERVER ? new FairServer(this) : null
    this.placement = new SimplePlacement(this)
  }

  // =============================================================================================
  // Task creation
  // =============================================================================================

  /** Create a task that forks at attrs.startNs (setup time; no parent CPU context). */
  createTask(attrs: TaskAttrs, program: TaskProgram, startCpu = -1): number {
    const t = this.allocTask(attrs, program)
    this.timerCpu[t] = startCpu
    this.eq.push(Math.max(attrs.startNs, this.now), EV_FORK, t, 0)
    return t
  }

  allocTask(attrs: TaskAttrs, program: TaskProgram): number {
    if (this.ntasks === this.cap) this.growTasks()
    const t = this.ntasks++
    this.attrs.push(attrs)
    this.programs.push(program)
    this.latency.push(new LogHistogram())
    this.state[t] = TASK_NEW
    this.taskCpu[t] = -1
    this.applyAttrs(t, attrs)
    this.setAffinityMask(t, attrs.cpus)
    this.liveTasks++
    return t
  }

  applyAttrs(t: number, a: Pick<TaskAttrs, 'policy' | 'nice' | 'rtPriority' | 'sliceNs' | 'uclampMin' | 'uclampMax'>): void {
    this.policy[t] = a.policy
    this.rtPrio[t] = isRtPolicy(a.policy) ? Math.max(1, Math.min(99, a.rtPriority)) : 0
    this.weight[t] = a.policy === SCHED_IDLE ? WEIGHT_IDLEPRIO : niceToWeight(a.nice)
    if (a.sliceNs > 0 && this.cfg.prof === P_6_6 && !isRtPolicy(a.policy)) {
      // 6.6-6.11 have no custom slices: sched_attr.sched_runtime of a fair task is ignored
      if (!this.warnedSlice66) {
        this.warnedSlice66 = true
        this.warnings.push('kernel profile 6.6 has no custom slices (6.12+): sliceUs of fair tasks is ignored')
      }
    }
    if (a.sliceNs > 0 && (this.cfg.prof > P_6_6 || isRtPolicy(a.policy))) {
      // sched_attr.sched_runtime for fair tasks, clamped to [0.1 ms, 100 ms]
      this.slice[t] = Math.max(100_000, Math.min(100_000_000, Math.round(a.sliceNs)))
      this.customSlice[t] = 1
    } else {
      this.slice[t] = this.cfg.baseSliceNs
      this.customSlice[t] = 0
    }
    this.uclampMin[t] = Math.max(0, Math.min(1024, a.uclampMin))
    this.uclampMax[t] = Math.max(0, Math.min(1024, a.uclampMax))
  }

  setAffinityMask(t: number, cpus: readonly number[] | null): void {
    const c = this.ncpus
    const base = t * c
    let n = 0
    for (let i = 0; i < c; i++) this.allowed[base + i] = 0
    if (cpus === null || cpus.length === 0) {
      for (let i = 0; i < c; i++) this.allowed[base + i] = 1
      n = c
    } else {
      for (const cpu of cpus) {
        if (cpu >= 0 && cpu < c && this.allowed[base + cpu] === 0) {
          this.allowed[base + cpu] = 1
          n++
        }
      }
      if (n === 0) {
        for (let i = 0; i < c; i++) this.allowed[base + i] = 1
        n = c
      }
    }
    this.nrCpusAllowed[t] = n
  }

  cpuAllowed(t: number, cpu: number): boolean {
    return this.allowed[t * this.ncpus + cpu] !== 0
  }

  private allocTaskArrays(n: number): void {
    const self = this as unknown as Record<string, Uint8Array | Int32Array | Float64Array | undefined>
    for (const [name, Ctor, fill] of TASK_ARRAYS) {
      const old = self[name]
      const a = new Ctor(n)
      if (fill !== 0) a.fill(fill)
      if (old) a.set(old)
      self[name] = a
    }
  }

  private growTasks(): void {
    const n = this.cap * 2
    const allowed = new Uint8Array(n * this.ncpus)
    allowed.set(this.allowed)
    this.allowed = allowed
    this.allocTaskArrays(n)
    this.cap = n
    this.tree.resize(n, this)
    this.rt.resize(n)
  }

  // =============================================================================================
  // Runqueue helpers
  // =============================================================================================

  isFair(t: number): boolean {
    return !isRtPolicy(this.policy[t])
  }

  cfsTasksAdd(cpu: number, t: number): void {
    const h = this.cfsTasksHead[cpu]
    this.cfsTaskPrev[t] = NIL
    this.cfsTaskNext[t] = h
    if (h !== NIL) this.cfsTaskPrev[h] = t
    this.cfsTasksHead[cpu] = t
  }

  cfsTasksDel(cpu: number, t: number): void {
    const p = this.cfsTaskPrev[t]
    const n = this.cfsTaskNext[t]
    if (p !== NIL) this.cfsTaskNext[p] = n
    else if (this.cfsTasksHead[cpu] === t) this.cfsTasksHead[cpu] = n
    if (n !== NIL) this.cfsTaskPrev[n] = p
    this.cfsTaskPrev[t] = NIL
    this.cfsTaskNext[t] = NIL
  }

  /** idle_cpu(): nothing running, nothing queued. */
  idleCpu(cpu: number): boolean {
    return this.curr[cpu] === NIL && this.nrRunning[cpu] === 0 && this.ttwuPending[cpu] === 0
  }

  /** available_idle_cpu() plus the SCHED_IDLE-only case select_idle_sibling accepts. */
  schedIdleCpu(cpu: number): boolean {
    return this.nrRunning[cpu] > 0 && this.nrRunning[cpu] === this.nrIdleQueued[cpu]
  }

  /** activate_task(): enqueue on cpu's runqueue. */
  activateTask(cpu: number, p: number, flags: number): void {
    if (this.isFair(p)) enqueueTaskFair(this, cpu, p, flags)
    else this.rt.enqueue(cpu, p, flags)
    this.onRq[p] = 1
    this.nrRunning[cpu]++
    if (this.policy[p] === SCHED_IDLE) this.nrIdleQueued[cpu]++
    this.placement.addNrRunning?.(cpu)
  }

  /**
   * deactivate_task(): dequeue from cpu. Returns false when a fair task stays queued as
   * sched_delayed.
   */
  deactivateTask(cpu: number, p: number, flags: number): boolean {
    if (this.isFair(p)) {
      if (!dequeueTaskFair(this, cpu, p, flags)) return false
    } else {
      this.rt.dequeue(cpu, p)
      this.onRq[p] = 0
    }
    this.nrRunning[cpu]--
    if (this.policy[p] === SCHED_IDLE) this.nrIdleQueued[cpu]--
    return true
  }

  /** A picked entity turned out to be sched_delayed: finish its dequeue (pick_next_entity). */
  delayedPicked(cpu: number, se: number): void {
    this.nrDelayedPicked++
    if (this.onDelayedPick) this.onDelayedPick(cpu, se, avgVruntime(this, cpu) - this.vruntime[se])
    if (this.rec !== null) this.rec.delayedPicked(cpu, se)
    this.finishDelayedDequeue(cpu, se)
  }

  /** Finish a delayed dequeue (picked while delayed, or woken with a full dequeue). */
  finishDelayedDequeue(cpu: number, se: number): void {
    this.fn.dequeueEntity(this, cpu, se, DEQUEUE_SLEEP | DEQUEUE_DELAYED)
    refreshRqMinSlice(this, cpu)
    this.nrRunning[cpu]--
    if (this.policy[se] === SCHED_IDLE) this.nrIdleQueued[cpu]--
  }

  /** set_task_cpu(): move a task that is not queued to another CPU. */
  setTaskCpu(p: number, cpu: number): void {
    const old = this.taskCpu[p]
    if (old === cpu) return
    if (old >= 0) {
      if (this.rec !== null) this.rec.migrate(p, old, cpu)
      this.nrMigrations[p]++
      this.migrations++
      // migrate_task_rq_fair() keeps exec_start (no reset since 6.4): task_hot() goes by when
      // the task last ran, wherever that was
    }
    this.taskCpu[p] = cpu
  }

  /**
   * Move a queued (not running) task to another CPU: the load balancer's detach/attach and
   * RT push/pull. Includes the wakeup-preemption check on the destination.
   */
  moveQueuedTask(p: number, dst: number): void {
    const src = this.taskCpu[p]
    if (src === dst) return
    if (this.curr[src] === p) throw new KernelInvariantError(`cannot move running task ${p}`)
    this.deactivateTask(src, p, DEQUEUE_SAVE | DEQUEUE_MIGRATING)
    this.setTaskCpu(p, dst)
    this.activateTask(dst, p, ENQUEUE_MIGRATED | ENQUEUE_RESTORE)
    this.wakeupPreempt(dst, p, 0)
  }

  // =============================================================================================
  // Rescheduling
  // =============================================================================================

  /** resched_curr(): reschedule cpu now (locally) or by IPI. */
  reschedCurr(cpu: number): void {
    if (this.rec !== null) this.rec.resched(cpu, false)
    if (this.needResched[cpu] !== 0 && this.mode[cpu] === CPU_BUSY) {
      if (cpu === this.thisCpu) this.markLocal(cpu)
      return
    }
    this.needResched[cpu] = 1
    if (cpu === this.thisCpu) this.markLocal(cpu)
    else {
      this.sendIpi(cpu)
      // a syscall returning before the IPI arrives sees the flag
      batchPoint(this, cpu)
    }
  }

  /**
   * resched_curr_lazy(): with PREEMPT_LAZY, TIF_NEED_RESCHED_LAZY. It is acted on at the next
   * return to user mode (irq exit, syscall exit), never by kernel preemption; a remote CPU
   * gets no IPI; the tick upgrades it to a plain reschedule. The idle task is always
   * rescheduled at once. Other models: resched_curr().
   */
  reschedCurrLazy(cpu: number): void {
    if (this.cfg.preemptModel === PREEMPT_LAZY && this.curr[cpu] !== NIL) {
      if (this.needResched[cpu] !== 0) return
      if (this.rec !== null) this.rec.resched(cpu, true)
      this.needReschedLazy[cpu] = 1
      if (cpu === this.thisCpu) this.markLocal(cpu)
      else batchPoint(this, cpu)
      return
    }
    this.reschedCurr(cpu)
  }

  /** The CPU runs kernel code (a kernel section of its current task). */
  inKernel(cpu: number): boolean {
    const t = this.curr[cpu]
    return t !== NIL && this.action[t] === ACT_RUN_KERNEL
  }

  /**
   * Is a pending reschedule acted on now, at an irq exit or a return from a syscall? User code
   * is always preempted. Kernel code only with a preemptible kernel (full, lazy) and only by
   * TIF_NEED_RESCHED, or at a preemption point: the end of its section, a might_resched()
   * point (voluntary).
   */
  reschedDue(cpu: number): boolean {
    if (this.preemptPoint[cpu] !== 0) return this.needResched[cpu] !== 0 || this.needReschedLazy[cpu] !== 0
    if (this.needResched[cpu] !== 0) return this.cfg.preemptModel >= PREEMPT_FULL || !this.inKernel(cpu)
    return this.needReschedLazy[cpu] !== 0 && !this.inKernel(cpu)
  }

  /**
   * The running task reached a preemption point (its syscall returns, its kernel section
   * ends): a reschedule or a stopper that had to wait for it happens now.
   */
  atPreemptionPoint(cpu: number): void {
    if (this.stopDeferred[cpu] !== 0) {
      this.stopDeferred[cpu] = 0
      this.eq.push(this.now, EV_STOPPER, cpu, 0)
    }
    if (this.needResched[cpu] === 0 && this.needReschedLazy[cpu] === 0) return
    if (this.rec !== null) this.rec.preemptionPoint(cpu)
    this.preemptPoint[cpu] = 1
    this.markLocal(cpu)
  }

  markLocal(cpu: number): void {
    if (this.localReschedMark[cpu] !== 0) return
    this.localReschedMark[cpu] = 1
    this.localResched[this.localReschedN++] = cpu
  }

  private sendIpi(cpu: number): void {
    if (this.ipiPending[cpu] !== 0) return
    this.ipiPending[cpu] = 1
    this.eq.push(this.now + this.cfg.costs.ipiNs, EV_IPI, cpu, 0)
  }

  /** max_idle_balance_cost (set by the balancer; migration cost until then). */
  maxIdleBalanceCost(_cpu: number): number {
    return this.cfg.migrationCostNs
  }

  /** Charge modeled CPU work (scheduler overhead) to cpu: stalls its current task. */
  chargeCpu(cpu: number, workNs: number): void {
    if (workNs <= 0) return
    const dt = Math.ceil(workNs / this.cpuRate[cpu])
    this.sysNs[cpu] += dt
    this.lastStallAt[cpu] = this.now
    if (cpu === this.pickingCpu || this.curr[cpu] === NIL) {
      // an idle CPU's balancing on behalf of others (nohz) delays nothing
      if (this.mode[cpu] !== CPU_IDLE) this.schedStall[cpu] += dt
    } else {
      // the progress made so far is kept: the stall only delays what is left
      if (this.segStart[cpu] < this.now) {
        accountProgress(this, cpu, this.curr[cpu])
        this.segStart[cpu] = this.now
      }
      this.segStart[cpu] += dt
      this.pendingStall[cpu] += dt
    }
  }

  /** Change a CPU's execution rate (frequency), keeping the running action's progress. */
  setCpuRate(cpu: number, rate: number): void {
    if (rate === this.cpuRate[cpu]) return
    // a frequency never exceeds the CPU's highest (fair-sched.ts), so this only guards bounds
    // given from now on
    if (rate > this.maxCpuRate) this.maxCpuRate = rate
    const t = this.curr[cpu]
    if (t !== NIL && (this.action[t] === ACT_RUN || this.action[t] === ACT_RUN_KERNEL)) {
      accountProgress(this, cpu, t)
      this.cpuRate[cpu] = rate
      armRunDone(this, cpu, t)
      return
    }
    this.cpuRate[cpu] = rate
  }

  // =============================================================================================
  // __schedule()
  // =============================================================================================

  /** __schedule() on cpu: pick the next task by class and switch to it. */
  schedule(cpu: number): void {
    const prevThis = this.thisCpu
    this.thisCpu = cpu
    // a wake-list IPI that already arrived while the CPU was busy leaving idle is handled now
    if (this.ttwuPending[cpu] !== 0 && this.ipiPending[cpu] === 0) this.flushWakeList(cpu)
    const prev = this.curr[cpu]
    const outerPicking = this.pickingCpu
    this.pickingCpu = cpu
    const next = this.pickNextTask(cpu, prev)
    this.pickingCpu = outerPicking
    // as __schedule(): the flag is cleared after the pick, so reschedules raised while picking
    // (update_curr finding the slice over) do not trigger another round
    this.needResched[cpu] = 0
    this.needReschedLazy[cpu] = 0
    this.preemptPoint[cpu] = 0
    if (this.rec !== null) this.rec.schedule(cpu, prev, next, this.yielding)
    if (next === prev) {
      if (prev !== NIL && this.schedStall[cpu] > 0) {
        // nothing switched: the pick's own overhead stalls the task that keeps running
        const stall = this.schedStall[cpu]
        this.schedStall[cpu] = 0
        if (this.segStart[cpu] < this.now) {
          accountProgress(this, cpu, prev)
          this.segStart[cpu] = this.now
        }
        this.segStart[cpu] += stall
        this.pendingStall[cpu] += stall
      }
      this.thisCpu = prevThis
      return
    }
    // __schedule(SM_PREEMPT): the previous task is still runnable and did not yield
    const preempted = prev !== NIL && this.state[prev] === TASK_RUNNING && this.onRq[prev] !== 0 && !this.yielding
    if (prev !== NIL) this.switchOut(cpu, prev)
    this.curr[cpu] = next
    if (next === NIL) {
      if (this.mode[cpu] === CPU_BUSY) this.busyNs[cpu] += this.now - this.lastBusyStart[cpu]
      enterIdle(this, cpu)
    } else {
      if (this.mode[cpu] !== CPU_BUSY) {
        this.mode[cpu] = CPU_BUSY
        this.lastBusyStart[cpu] = this.now
        this.startTick(cpu)
        if (this.leavingIdle[cpu] !== 0) tickNohzIdleExit(this, cpu)
      }
      this.switchIn(cpu, next)
    }
    if (preempted && this.isFair(prev)) this.placement.taskPreempted?.(cpu, prev)
    if (this.rt.hasPushable(cpu)) this.fn.pushRtTasks(this, cpu)
    this.placement.afterSchedule?.(cpu)
    this.thisCpu = prevThis
  }

  /** pick_next_task(): RT first, then fair (newidle balance when empty), then idle. */
  private pickNextTask(cpu: number, prev: number): number {
    // balance_rt(): an RT prev that left lowers this CPU's priority: pull higher RT work
    if (prev !== NIL && !this.isFair(prev) && this.onRq[prev] === 0) this.fn.pullRtTask(this, cpu, this.rtPrio[prev])
    const fs = this.fairServer
    for (let guard = 0; guard < 1000; guard++) {
      if (this.rt.nrRunning[cpu] > 0 && !(fs !== null && fs.boosted(cpu) && this.cfsNrRunnable[cpu] > 0)) {
        const next = this.rt.pickTask(cpu)
        if (this.rec !== null) this.rec.pickRt(cpu, next)
        this.putPrevSetNext(cpu, prev, next)
        return next
      }
      if (this.cfsNrQueued[cpu] > 0) {
        const cfsPrev = this.cfsCurr[cpu]
        if (cfsPrev !== NIL && this.onRq[cfsPrev] !== 0) this.fn.updateCurr(this, cpu)
        const se = this.fn.pickNextEntity(this, cpu, true)
        if (se === NIL) continue // a delayed entity finished its dequeue; pick again
        if (this.rec !== null) this.rec.pickFair(cpu, se)
        this.putPrevSetNext(cpu, prev, se)
        return se
      }
      // nothing runnable: sched_balance_newidle()
      if (this.placement.newidleBalance(cpu) && this.nrRunning[cpu] > 0) continue
      if (this.rec !== null) this.rec.pickIdle(cpu)
      this.putPrevSetNext(cpu, prev, NIL)
      return NIL
    }
    throw new KernelInvariantError(`pick_next_task made no progress on CPU ${cpu}`)
  }

  /** put_prev_set_next_task() */
  putPrevSetNext(cpu: number, prev: number, next: number): void {
    if (prev === next) return
    // hrtick_clear() in __schedule(): the next fair task arms its own
    if (this.f.HRTICK) this.hrtickGen[cpu]++
    if (prev !== NIL) {
      if (this.isFair(prev)) {
        if (this.cfsCurr[cpu] === prev) putPrevEntity(this, cpu, prev)
      } else {
        this.rt.putPrev(cpu, prev)
      }
    }
    if (next !== NIL) {
      if (this.isFair(next)) setNextTaskFair(this, cpu, next, true)
      else this.rt.setNext(cpu, next)
    }
  }

  switchOut(cpu: number, prev: number): void {
    const before = this.remaining[prev]
    accountProgress(this, cpu, prev)
    // a batch switched out exactly as a syscall's work is done: that syscall completes when the
    // task runs again if the one-by-one run would have handled the switch first
    if (this.batchOp[prev] > 0 && this.remaining[prev] !== before) this.opPending[prev] = opEndPending(this, cpu, prev) ? 1 : 0
    this.runDoneGen[cpu]++
    this.pendingStall[cpu] = 0
    if (this.state[prev] === TASK_RUNNING) this.nrInvoluntarySwitches++
  }

  private switchIn(cpu: number, next: number): void {
    this.contextSwitches++
    this.nrSwitches[next]++
    const sw = Math.ceil(this.cfg.costs.contextSwitchWorkNs / this.cpuRate[cpu])
    this.sysNs[cpu] += sw
    const start = this.now + sw + this.schedStall[cpu]
    this.switchStart[cpu] = start
    this.schedStall[cpu] = 0
    this.segStart[cpu] = start
    this.pendingStall[cpu] = 0
    if (this.wakeTs[next] >= 0) {
      if (this.unmeasured[next] !== 0) {
        // a wakeup the tool does not time (schbench's usleep and lock waits): no sample
        this.unmeasured[next] = 0
      } else {
        const a = this.attrs[next]
        if (a.recordLatency) {
          const b = this.latency[next].record(start - this.wakeTs[next])
          if (this.latencyBatches !== null) this.latencyBatches.record(a.workload, b, start)
          // from try_to_wake_up (sched_waking), as the trace analyzer's wakeupLatencyUs
          if (this.wakeupLatency !== null) this.wakeupLatency[a.workload]?.record(start - this.ttwuAt[next])
        }
        if (this.rec !== null) this.rec.sample(next, this.wakeTs[next], start, cpu)
      }
      this.wakeTs[next] = -1
    }
    // another task ran here since `next` last did: its working set has to come back into the
    // caches and TLB, which slows its first microseconds (not scheduler time, not latency);
    // not when that task was its waker, whose data (the message it just wrote) is what it
    // reads: the cache locality NEXT_BUDDY and wake_affine bet on
    const last = this.lastTaskOn[cpu]
    if (last !== next) {
      this.lastTaskOn[cpu] = next
      if (last !== this.lastWaker[next]) this.segStart[cpu] += Math.ceil(this.cfg.costs.coldSwitchWorkNs / this.cpuRate[cpu])
    }
    armRunDone(this, cpu, next)
  }

  // =============================================================================================
  // Wakeups
  // =============================================================================================

  /**
   * try_to_wake_up(): make a sleeping task runnable. `latencyFrom` is the instant the
   * scheduling latency is measured from (timer expiry, or now for a wakeup by a task).
   */
  tryToWakeUp(p: number, wakeFlags: number, latencyFrom: number): boolean {
    if (this.state[p] !== TASK_SLEEPING) return false
    this.timerGen[p]++
    if (this.slackOn[p] !== 0) unlinkSlackTimer(this, p)
    this.state[p] = TASK_RUNNING
    this.wakeTs[p] = latencyFrom
    this.ttwuAt[p] = this.now
    this.nrWakeups[p]++
    this.wakeups++
    const waker = this.stepping
    this.lastWaker[p] = waker
    if (this.rec !== null) this.rec.wakeup(p, waker, latencyFrom)
    if (waker !== NIL) this.recordWakee(waker, p)
    let cpu = this.taskCpu[p]
    if (this.onRq[p] !== 0) {
      // ttwu_runnable(): still queued as sched_delayed, requeued in place (ENQUEUE_DELAYED) on
      // its CPU, no CPU selection; the RFC TTWU_DEQUEUE dequeues it and selects a CPU instead
      this.nrDelayedWoken++
      if (!this.f.TTWU_DEQUEUE) {
        enqueueTaskFair(this, cpu, p, ENQUEUE_DELAYED)
        this.wakeupPreempt(cpu, p, wakeFlags)
        return true
      }
      this.finishDelayedDequeue(cpu, p)
      this.onRq[p] = 0
    }
    wakeFlags |= WF_TTWU
    const target = this.selectTaskRq(p, cpu, wakeFlags)
    let enqFlags = ENQUEUE_WAKEUP
    if (target !== cpu) {
      wakeFlags |= WF_MIGRATED
      enqFlags |= ENQUEUE_MIGRATED
      this.setTaskCpu(p, target)
      cpu = target
    }
    if (this.f.TTWU_QUEUE && this.ttwuQueueCond(cpu)) {
      this.ttwuQueueWakelist(cpu, p, wakeFlags, enqFlags)
      return true
    }
    this.ttwuDoActivate(cpu, p, wakeFlags, enqFlags)
    return true
  }

  /** ttwu_do_activate(): enqueue the wakee and check whether it preempts. */
  private ttwuDoActivate(cpu: number, p: number, wakeFlags: number, enqFlags: number): void {
    this.activateTask(cpu, p, enqFlags)
    this.wakeupPreempt(cpu, p, wakeFlags)
    if (!this.isFair(p)) this.rt.taskWoken(cpu, p)
    else this.placement.taskWoken?.(cpu, p)
  }

  /**
   * ttwu_queue_cond(): hand the activation to the target CPU (its wake list, by IPI) when it
   * does not share our cache, or when it is idle and will have to wake up anyway.
   */
  private ttwuQueueCond(cpu: number): boolean {
    const me = this.thisCpu
    if (me < 0) return false
    if (this.topo.cpus[me].llc !== this.topo.cpus[cpu].llc) return true
    if (cpu === me) return false
    return this.nrRunning[cpu] === 0
  }

  private ttwuQueueWakelist(cpu: number, p: number, wakeFlags: number, enqFlags: number): void {
    if (this.rec !== null) this.rec.wakeList(cpu, p)
    this.wakeFlagsPending[p] = wakeFlags
    this.enqFlagsPending[p] = enqFlags
    this.wakeListNext[p] = NIL
    if (this.wakeListTail[cpu] === NIL) this.wakeListHead[cpu] = p
    else this.wakeListNext[this.wakeListTail[cpu]] = p
    this.wakeListTail[cpu] = p
    this.ttwuPending[cpu]++
    this.sendIpi(cpu)
  }

  /** sched_ttwu_pending(): the target CPU activates the tasks queued on its wake list. */
  flushWakeList(cpu: number): void {
    if (this.ttwuPending[cpu] === 0) return
    const prevThis = this.thisCpu
    this.thisCpu = cpu
    let p = this.wakeListHead[cpu]
    this.wakeListHead[cpu] = NIL
    this.wakeListTail[cpu] = NIL
    this.ttwuPending[cpu] = 0
    while (p !== NIL) {
      const next = this.wakeListNext[p]
      this.ttwuDoActivate(cpu, p, this.wakeFlagsPending[p], this.enqFlagsPending[p])
      p = next
    }
    this.thisCpu = prevThis
  }

  /**
   * select_task_rq(): the class chooses; a CPU the task may not use falls back to an allowed
   * one (select_fallback_rq: the first allowed CPU of prev's node, then any).
   */
  selectTaskRq(p: number, prevCpu: number, wakeFlags: number): number {
    let cpu = this.isFair(p)
      ? this.placement.selectTaskRq(p, prevCpu, wakeFlags, this.thisCpu)
      : this.fn.selectTaskRqRt(this, p, prevCpu, this.thisCpu)
    if (cpu < 0 || cpu >= this.ncpus || !this.cpuAllowed(p, cpu)) cpu = this.selectFallbackRq(p, prevCpu)
    if (this.rec !== null) this.rec.selected(p, prevCpu, wakeFlags, cpu)
    return cpu
  }

  private selectFallbackRq(p: number, prevCpu: number): number {
    const node = prevCpu >= 0 ? this.topo.cpus[prevCpu].node : -1
    let any = -1
    for (let c = 0; c < this.ncpus; c++) {
      if (!this.cpuAllowed(p, c)) continue
      if (this.topo.cpus[c].node === node) return c
      if (any < 0) any = c
    }
    return any < 0 ? 0 : any
  }

  /** record_wakee(): wakee flips feed wake_wide(). */
  private recordWakee(waker: number, wakee: number): void {
    if (this.now > this.wakeeFlipDecayTs[waker] + 1e9) {
      this.wakeeFlips[waker] >>= 1
      this.wakeeFlipDecayTs[waker] = this.now
    }
    if (this.lastWakee[waker] !== wakee) {
      this.lastWakee[waker] = wakee
      this.wakeeFlips[waker]++
    }
  }

  /** wakeup_preempt(): class precedence first, then the class's own rule. */
  wakeupPreempt(cpu: number, p: number, wakeFlags: number): void {
    const curr = this.curr[cpu]
    let why: number
    if (curr === NIL) {
      if (this.mode[cpu] !== CPU_BUSY) this.reschedCurr(cpu)
      why = WP_IDLE_CPU
    } else {
      const pRt = !this.isFair(p)
      const cRt = !this.isFair(curr)
      if (pRt && !cRt) {
        this.reschedCurr(cpu)
        why = WP_RT_PREEMPTS_FAIR
      } else if (pRt && cRt) {
        why = WP_RT_NOT_HIGHER
        if (this.rtPrio[p] > this.rtPrio[curr]) {
          this.reschedCurr(cpu)
          why = WP_RT_HIGHER_PRIO
        }
      } else if (!pRt && !cRt) {
        why = this.fn.checkPreemptWakeupFair(this, cpu, p, wakeFlags)
      } else {
        why = WP_FAIR_UNDER_RT
      }
    }
    if (this.rec !== null) this.rec.wakeupPreempt(cpu, p, curr, why)
  }

  /** wake_up_new_task(): first enqueue of a forked task. */
  wakeUpNewTask(p: number, parentCpu: number, startCpu: number): void {
    this.state[p] = TASK_RUNNING
    this.vlag[p] = 0
    this.vruntime[p] = 0
    this.action[p] = ACT_NONE
    let cpu: number
    // wake_up_new_task(): recent_used_cpu starts as task_cpu(), the forking CPU (sched_fork);
    // a task of the initial setup is taken to be forked on its start CPU
    this.recentUsedCpu[p] = parentCpu >= 0 ? parentCpu : startCpu
    if (startCpu >= 0 && this.cpuAllowed(p, startCpu)) cpu = startCpu
    else cpu = this.selectTaskRq(p, parentCpu >= 0 ? parentCpu : 0, WF_FORK)
    this.taskCpu[p] = cpu
    this.activateTask(cpu, p, ENQUEUE_INITIAL)
    this.wakeupPreempt(cpu, p, WF_FORK)
    if (!this.isFair(p)) this.rt.taskWoken(cpu, p)
  }

  // =============================================================================================
  // Timers, tick
  // =============================================================================================

  private startTick(cpu: number): void {
    if (this.tickArmed[cpu] !== 0) return
    this.tickArmed[cpu] = 1
    const tick = this.cfg.tickNs
    const next = (Math.floor(this.now / tick) + 1) * tick
    this.eq.pushKeyed(this.ncpus + cpu, next, EV_TICK, cpu, ++this.tickGen[cpu], this.now)
  }

  /** sched_tick() */
  schedulerTick(cpu: number): void {
    // PREEMPT_LAZY: a lazy reschedule still pending at the tick becomes a real one (it then
    // preempts kernel code too); one raised by this tick is acted on at its irq exit to user
    if (this.needReschedLazy[cpu] !== 0) this.reschedCurr(cpu)
    const curr = this.curr[cpu]
    if (curr !== NIL) {
      if (this.isFair(curr)) this.fn.taskTickFair(this, cpu, false)
      else this.rt.taskTick(cpu, curr)
    }
    if (this.rec !== null) this.rec.tick(cpu)
    this.placement.tick(cpu)
  }

  armHrtick(cpu: number, at: number): void {
    this.eq.pushKeyed(2 * this.ncpus + cpu, at, EV_HRTICK, cpu, ++this.hrtickGen[cpu], this.now)
  }

  armFairServer(cpu: number, at: number, gen: number): void {
    this.eq.pushKeyed(3 * this.ncpus + cpu, at, EV_FAIR_SERVER, cpu, gen, this.now)
  }

  /** Queue work on cpu's stopper: it preempts whatever runs there (after an IPI if remote). */
  queueStopWork(cpu: number, work: StopWork): boolean {
    if (this.stopWork[cpu] !== null) return false
    this.stopWork[cpu] = work
    this.eq.push(cpu === this.thisCpu ? this.now : this.now + this.cfg.costs.ipiNs, EV_STOPPER, cpu, 0)
    return true
  }

  /** Run `fn` at time `at` in no CPU's context (workload timers, instrumentation). */
  at(at: number, fn: () => void): void {
    let slot = this.freeCallbacks.pop()
    if (slot === undefined) {
      slot = this.callbacks.length
      this.callbacks.push(fn)
    } else {
      this.callbacks[slot] = fn
    }
    this.eq.push(Math.max(at, this.now), EV_CALLBACK, slot, 0)
  }

  // =============================================================================================
  // Task programs: the TaskContext a program's step() receives (programs.ts runs them)
  // =============================================================================================

  /** hrtimer slack of a task's sleeps: none for RT (hrtimer_nanosleep), 50 us by default otherwise. */
  timerSlack(t: number): number {
    if (!this.isFair(t)) return 0
    const own = this.attrs[t].timerSlackNs
    return own !== undefined ? own : this.cfg.timerSlackNs
  }

  cpuOf(task: number): number {
    return this.taskCpu[task]
  }

  unmeasuredWakeup(task: number): void { this.unmeasured[task] = 1 }
  run(task: number, workNs: number): void { terminal(this, task, ACT_RUN, workNs) }
  runKernel(task: number, workNs: number, pointEveryNs = 0): void {
    terminal(this, task, ACT_RUN_KERNEL, workNs)
    this.stepArg2 = pointEveryNs
  }
  runOps(task: number, ops: number, opNs: number): void {
    terminal(this, task, ACT_RUN_KERNEL, ops * opNs)
    this.stepArg2 = 0
    this.stepOp = opNs
  }
  runFor(task: number, wallNs: number): void { terminal(this, task, ACT_RUN_WALL, wallNs) }
  sleepUntil(task: number, absNs: number): void { terminal(this, task, ACT_SLEEP, absNs) }
  sleepFor(task: number, ns: number): void { terminal(this, task, ACT_SLEEP, this.now + ns) }
  block(task: number): void { terminal(this, task, ACT_BLOCK, 0) }
  yieldTask(task: number): void { terminal(this, task, ACT_YIELD, 0) }
  exit(task: number): void { terminal(this, task, ACT_EXIT, 0) }

  wake(target: number, flags: number): boolean {
    return this.tryToWakeUp(target, flags, this.now)
  }

  random(): number {
    return this.rng.next()
  }

  isSleeping(task: number): boolean {
    return this.state[task] === TASK_SLEEPING
  }

  fork(attrs: TaskAttrs, program: TaskProgram): number { return fork(this, attrs, program) }
  setAttrs(task: number, change: Partial<Pick<TaskAttrs, 'policy' | 'nice' | 'rtPriority' | 'sliceNs' | 'uclampMin' | 'uclampMax'>>): void { setAttrs(this, task, change) }
  setAffinity(task: number, cpus: readonly number[] | null): void { setAffinity(this, task, cpus) }
  runLeft(task: number): number { return runLeft(this, task) }
  setRunLeft(task: number, workNs: number): void { setRunLeft(this, task, workNs) }
  extendRun(task: number, workNs: number): void { extendRun(this, task, workNs) }
  runOpsLeft(task: number): number { return runOpsLeft(this, task) }
  opDoneNotBefore(): number { return this.opNotBefore }

  // =============================================================================================
  // Running: the event loop (events.ts) and what a run's host changes in it
  // =============================================================================================

  runUntil(endNs: number, stop: (() => boolean) | null = null, progress: ((now: number) => void) | null = null): number {
    return runUntil(this, endNs, stop, progress)
  }
  stallCpu(cpu: number, ns: number): void { stallCpu(this, cpu, ns) }
  setTimerDelay(meanNs: number, sigma: number): void { setTimerDelay(this, meanNs, sigma) }

  /**
   * The end of a discarded warm-up: every counter and histogram the result reports starts
   * again from zero (call right after runUntil, which brought the books up to date). The
   * model's own state (vruntimes, PELT, queues) is untouched.
   */
  resetStats(): void {
    this.warmupEvents += this.events
    this.events = 0
    this.contextSwitches = 0
    this.nrInvoluntarySwitches = 0
    this.nrIdleExits = 0
    this.nrStopperRuns = 0
    this.migrations = 0
    this.wakeups = 0
    this.nrDelayed = 0
    this.nrDelayedPicked = 0
    this.nrDelayedWoken = 0
    if (this.fairServer) this.fairServer.nrBoosts = 0
    for (const key of Object.keys(this.counters)) this.counters[key] = 0
    this.nrSwitches.fill(0)
    this.nrMigrations.fill(0)
    this.nrWakeups.fill(0)
    for (const h of this.latency) h.reset()
    if (this.wakeupLatency !== null) for (const h of this.wakeupLatency) h.reset()
    this.sumExecBase = this.sumExec.slice(0, this.ntasks)
    this.busyNs.fill(0)
    this.sysNs.fill(0)
  }

  get allExited(): boolean {
    return this.liveTasks === 0
  }

}




export { SCHED_BATCH, SCHED_RR }
