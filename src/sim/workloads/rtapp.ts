import { isRtPolicy, policyFromName, SCHED_FIFO, type PolicyName, type TaskAttrs, type TaskContext, type TaskProgram } from '../kernel/api'
import type { RtAppEvent, RtAppProps, RtAppSpec, RtAppTask, RtAppWorkload } from '../scenario/workload-specs'
import type { WorkloadResult } from '../../shared/result'
import { delayNs } from './common'
import { Stat, US } from './stat'
import { Mutex, Semaphore, WaitQueue } from './sync'
import type { WorkloadHost, WorkloadInstance } from './types'

/**
 * The rt-app interpreter: each thread walks its phases and events as rt-app's thread_body and
 * run_event do (reference/workloads.md section 1), on the simulated kernel.
 *
 * Per loop iteration it keeps rt-app's log columns: wu_lat (timer wakeup latency summed over
 * the iteration, reset by a missed timer as rt-app does), slack (deadline minus the time the
 * timer was reached: last timer, or the sum with cumulative_slack), period (iteration length)
 * and run (time spent in run/runtime events).
 */

/** rt-app stops a task's forks at this count. */
export const FORKS_LIMIT = 1024
/** An iteration made only of non-blocking events (lock, signal, resume ...) still costs this. */
export const EMPTY_ITERATION_NS = 1000

/**
 * What the last terminal action started, finished at the thread's next step (Thread.resume).
 * One per thread, reused (a blocking step allocates nothing): CONT_LOCK and CONT_COND carry
 * contMutex, CONT_BARRIER contBarrier, CONT_TIMER contTNext.
 */
const CONT_NONE = 0
const CONT_RUN = 1
const CONT_TIMER = 2
const CONT_LOCK = 3
const CONT_COND = 4
const CONT_BARRIER = 5

interface Barrier {
  /** rt-app's counter: participants - 1 at start; 0 means the next arrival releases everyone. */
  waiting: number
  q: WaitQueue
}

class TimerState {
  init = false
  tNext = 0
}

interface SchedState {
  policy: number
  nice: number
  rtPriority: number
  sliceNs: number
  uclampMin: number
  uclampMax: number
}

class Instance {
  readonly mutexes = new Map<string, Mutex>()
  readonly conds = new Map<string, WaitQueue>()
  readonly sems = new Map<string, Semaphore>()
  readonly barriers = new Map<string, Barrier>()
  readonly suspended = new Map<string, WaitQueue>()
  readonly timers = new Map<string, TimerState>()
  readonly forks = new Map<string, number>()
  readonly threads: Thread[] = []
  readonly byTask = new Map<number, Thread>()
  nextIndex = 0
  forkRefusals = 0

  constructor(
    readonly spec: RtAppSpec,
    readonly workload: number,
    readonly prefix: string,
    readonly t0: number,
    readonly host: WorkloadHost,
    /** The workload's timerSlackUs (prctl), in ns; undefined = the kernel's default. */
    readonly timerSlackNs?: number
  ) {
    for (const [name, n] of Object.entries(spec.barriers)) this.barriers.set(name, { waiting: n - 1, q: new WaitQueue() })
  }

  /** The object named `key`, created on first use (a class, not a closure: nothing is allocated per call). */
  get<T>(m: Map<string, T>, key: string, Make: new () => T): T {
    let v = m.get(key)
    if (v === undefined) m.set(key, (v = new Make()))
    return v
  }

  mutex(name: string): Mutex {
    return this.get(this.mutexes, name, Mutex)
  }

  cond(name: string): WaitQueue {
    return this.get(this.conds, name, WaitQueue)
  }

  sem(name: string): Semaphore {
    return this.get(this.sems, name, Semaphore)
  }

  /** A fresh thread of task `def`: its attrs at creation and its program. */
  makeThread(def: RtAppTask, startNs: number, forkIndex?: number): { attrs: TaskAttrs; thread: Thread } {
    const index = this.nextIndex++
    const name = `${this.prefix}${def.name}-${index}${forkIndex !== undefined ? `-${forkIndex}` : ''}`
    const sched = schedOf(def.props)
    const thread = new Thread(this, def, name, this.t0 + Math.round(def.delayUs * US), sched, def.props.cpus ?? null)
    this.threads.push(thread)
    const attrs: TaskAttrs = {
      name,
      workload: this.workload,
      ...sched,
      cpus: def.props.cpus ?? null,
      startNs,
      recordLatency: true,
      ...(this.timerSlackNs !== undefined ? { timerSlackNs: this.timerSlackNs } : {})
    }
    return { attrs, thread }
  }
}

function schedOf(p: RtAppProps): SchedState {
  const policy = policyFromName(p.policy)
  const rt = isRtPolicy(policy)
  return {
    policy,
    nice: rt ? 0 : (p.priority ?? 0),
    rtPriority: rt ? (p.priority ?? 10) : 0,
    sliceNs: !rt && p.sliceUs ? Math.round(p.sliceUs * US) : 0,
    // RT tasks default to a uclamp_min of 1024 (sysctl_sched_uclamp_util_min_rt_default)
    uclampMin: p.uclampMin ?? (rt ? 1024 : 0),
    uclampMax: p.uclampMax ?? 1024
  }
}

/** Does a phase set scheduling attributes? Without any, applyProps() returns a copy of cur. */
function setsSched(p: RtAppProps): boolean {
  return p.policy !== undefined || p.priority !== undefined || p.sliceUs !== undefined || p.uclampMin !== undefined || p.uclampMax !== undefined
}

/** Phase properties applied on top of the current attributes (rt-app's set_thread_param). */
function applyProps(cur: SchedState, p: RtAppProps): SchedState {
  const next = { ...cur }
  if (p.policy !== undefined) next.policy = policyFromName(p.policy as PolicyName)
  const rt = isRtPolicy(next.policy)
  if (p.priority !== undefined) {
    if (rt) {
      next.rtPriority = p.priority
      next.nice = 0
    } else {
      next.nice = p.priority
      next.rtPriority = 0
    }
  } else if (p.policy !== undefined && rt !== isRtPolicy(cur.policy)) {
    next.rtPriority = rt ? 10 : 0
    next.nice = 0
  }
  if (p.sliceUs !== undefined && !rt) next.sliceNs = Math.round(p.sliceUs * US)
  if (rt) next.sliceNs = 0
  if (p.uclampMin !== undefined) next.uclampMin = p.uclampMin
  // a class change resets a uclamp_min the user never set to the class default
  else if (rt !== isRtPolicy(cur.policy) && cur.uclampMin === (rt ? 0 : 1024)) next.uclampMin = rt ? 1024 : 0
  if (p.uclampMax !== undefined) next.uclampMax = p.uclampMax
  return next
}

function sameSched(a: SchedState, b: SchedState): boolean {
  return a.policy === b.policy && a.nice === b.nice && a.rtPriority === b.rtPriority && a.sliceNs === b.sliceNs && a.uclampMin === b.uclampMin && a.uclampMax === b.uclampMax
}

class Thread implements TaskProgram {
  task = -1
  finished = false
  iterations = 0
  readonly stats = { wu_lat: new Stat(), slack: new Stat(), period: new Stat(), run: new Stat() }

  private phase = 0
  private phaseLoop = 0
  private threadLoop = 0
  private ev = 0
  private inIteration = false
  private acted = false
  private cont = CONT_NONE
  private contMutex: Mutex | null = null
  private contBarrier: Barrier | null = null
  private contTNext = 0
  private readonly uniqueTimers = new Map<string, TimerState>()
  // rt-app's per-iteration log data.
  private iterStart = 0
  private wuLat = 0
  private slack = 0
  private runNs = 0
  private runStart = 0
  /** Priority-inheritance boost in force (restored on unlock). */
  boostedBy: number = -1

  constructor(
    private readonly inst: Instance,
    private readonly def: RtAppTask,
    readonly name: string,
    /** rt-app's t_first: common t0 + the task's delay. */
    private readonly tFirst: number,
    public sched: SchedState,
    private cpus: readonly number[] | null
  ) {}

  step(task: number, k: TaskContext): void {
    if (this.cont !== CONT_NONE && !this.resume(task, k)) return
    const def = this.def
    for (;;) {
      if (this.threadLoop === def.loop) {
        this.finished = true
        return k.exit(task)
      }
      const ph = def.phases[this.phase]
      if (!this.inIteration) this.startIteration(task, k)
      if (this.ev >= ph.events.length) {
        const idle = !this.acted
        this.endIteration(k)
        // A loop of non-blocking events alone would spin without simulated time passing.
        if (idle) return k.run(task, EMPTY_ITERATION_NS)
        continue
      }
      const e = ph.events[this.ev++]
      if (this.exec(task, k, e)) {
        this.acted = true
        return
      }
    }
  }

  /** Finish what the last terminal action started. False if the task must block again. */
  private resume(task: number, k: TaskContext): boolean {
    switch (this.cont) {
      case CONT_RUN:
        this.runNs += k.now - this.runStart
        break
      case CONT_TIMER:
        this.wuLat += k.now - this.contTNext
        break
      case CONT_BARRIER:
        ;(this.contBarrier as Barrier).waiting++
        break
      case CONT_COND:
        // Woken by signal/broadcast: take the mutex again, as pthread_cond_wait returns with it.
        this.cont = CONT_LOCK
        return this.resume(task, k)
      case CONT_LOCK:
        if (!this.lock(task, k, this.contMutex as Mutex)) {
          k.block(task)
          return false
        }
        break
    }
    this.cont = CONT_NONE
    this.contMutex = null
    this.contBarrier = null
    return true
  }

  private startIteration(task: number, k: TaskContext): void {
    const ph = this.def.phases[this.phase]
    // Affinity: the phase's, else the task's, else all CPUs (rt-app's order of preference).
    const cpus = ph.props.cpus ?? this.def.props.cpus ?? null
    // (the same array as last time, the common case, needs no comparison by value)
    if (cpus !== this.cpus && String(cpus) !== String(this.cpus)) {
      this.cpus = cpus
      k.setAffinity(task, cpus)
    }
    if (setsSched(ph.props)) {
      const next = applyProps(this.sched, ph.props)
      if (!sameSched(next, this.sched)) {
        this.sched = next
        if (this.boostedBy < 0) k.setAttrs(task, next)
      }
    }
    this.inIteration = true
    this.acted = false
    this.iterStart = k.now
    this.wuLat = 0
    this.slack = 0
    this.runNs = 0
  }

  private endIteration(k: TaskContext): void {
    this.stats.period.add(k.now - this.iterStart)
    this.stats.wu_lat.add(this.wuLat)
    this.stats.slack.add(this.slack)
    this.stats.run.add(this.runNs)
    this.iterations++
    this.inIteration = false
    this.ev = 0
    const ph = this.def.phases[this.phase]
    if (++this.phaseLoop === ph.loop) {
      this.phaseLoop = 0
      if (++this.phase === this.def.phases.length) {
        this.phase = 0
        this.threadLoop++
      }
    }
  }

  /** Run one event. True when it ended the step with a terminal action. */
  private exec(task: number, k: TaskContext, e: RtAppEvent): boolean {
    const inst = this.inst
    switch (e.kind) {
      case 'run': {
        const work = Math.round((e.us * US * inst.spec.calibrationCapacity) / 1024)
        if (work <= 0) return false
        this.runStart = k.now
        this.cont = CONT_RUN
        k.run(task, work)
        return true
      }
      case 'runtime':
        if (e.us <= 0) return false
        this.runStart = k.now
        this.cont = CONT_RUN
        k.runFor(task, Math.round(e.us * US))
        return true
      case 'work':
        if (e.us <= 0) return false
        k.run(task, Math.max(1, Math.round(e.us * US)))
        return true
      case 'sleep':
        if (e.us <= 0) return false
        k.sleepFor(task, Math.round(e.us * US))
        return true
      case 'timer':
        return this.timer(task, k, e.unique ? this.get(this.uniqueTimers, e.ref) : this.get(inst.timers, e.ref), e.periodUs, e.absolute)
      case 'lock': {
        const m = inst.mutex(e.mutex)
        if (this.lock(task, k, m)) return false
        this.cont = CONT_LOCK
        this.contMutex = m
        k.block(task)
        return true
      }
      case 'unlock':
        this.unlock(task, k, inst.mutex(e.mutex))
        return false
      case 'signal':
        inst.cond(e.cond).wakeOne(k, 0)
        return false
      case 'broad':
        inst.cond(e.cond).wakeAll(k, 0)
        return false
      case 'sync':
      case 'wait': {
        if (e.kind === 'sync') inst.cond(e.cond).wakeOne(k, 0)
        const m = inst.mutex(e.mutex)
        this.unlock(task, k, m)
        inst.cond(e.cond).add(task)
        this.cont = CONT_COND
        this.contMutex = m
        k.block(task)
        return true
      }
      case 'barrier': {
        const b = inst.barriers.get(e.name) as Barrier
        if (b.waiting === 0) {
          b.q.wakeAll(k, 0)
          return false
        }
        b.waiting--
        b.q.add(task)
        this.cont = CONT_BARRIER
        this.contBarrier = b
        k.block(task)
        return true
      }
      case 'suspend':
        inst.get(inst.suspended, this.def.name, WaitQueue).add(task)
        k.block(task)
        return true
      case 'resume':
        inst.suspended.get(e.task)?.wakeAll(k, 0)
        return false
      case 'sem_post':
        inst.sem(e.sem).post(k)
        return false
      case 'sem_wait':
        if (inst.sem(e.sem).tryWait(task)) return false
        k.block(task)
        return true
      case 'yield':
        k.yieldTask(task)
        return true
      case 'fork':
        this.fork(k, e.task)
        return false
    }
  }

  private get(m: Map<string, TimerState>, ref: string): TimerState {
    return this.inst.get(m, ref, TimerState)
  }

  private timer(task: number, k: TaskContext, t: TimerState, periodUs: number, absolute: boolean): boolean {
    if (!t.init) {
      t.init = true
      t.tNext = this.tFirst
    }
    t.tNext += Math.round(periodUs * US)
    const slack = t.tNext - k.now
    this.slack = this.inst.spec.cumulativeSlack ? this.slack + slack : slack
    if (k.now < t.tNext) {
      this.cont = CONT_TIMER
      this.contTNext = t.tNext
      k.sleepUntil(task, t.tNext)
      return true
    }
    if (!absolute) t.tNext = k.now
    this.wuLat = 0
    return false
  }

  private lock(task: number, k: TaskContext, m: Mutex): boolean {
    if (m.tryLock(task)) return true
    if (this.inst.spec.piEnabled) this.inheritPriority(k, m)
    return false
  }

  /** rt_mutex priority inheritance: an RT waiter lends its priority to a lower-priority owner. */
  private inheritPriority(k: TaskContext, m: Mutex): void {
    const owner = this.inst.byTask.get(m.owner)
    if (!owner || !isRtPolicy(this.sched.policy)) return
    const ownerPrio = isRtPolicy(owner.sched.policy) ? owner.sched.rtPriority : 0
    if (this.sched.rtPriority <= ownerPrio || (owner.boostedBy >= 0 && owner.boostedBy >= this.sched.rtPriority)) return
    owner.boostedBy = this.sched.rtPriority
    k.setAttrs(owner.task, { policy: SCHED_FIFO, rtPriority: this.sched.rtPriority, nice: 0, sliceNs: 0 })
  }

  private unlock(task: number, k: TaskContext, m: Mutex): void {
    if (!m.unlock(task, k)) return
    if (this.boostedBy >= 0 && !this.holdsAny(task)) {
      this.boostedBy = -1
      k.setAttrs(task, this.sched)
    }
  }

  private holdsAny(task: number): boolean {
    for (const m of this.inst.mutexes.values()) if (m.owner === task) return true
    return false
  }

  private fork(k: TaskContext, target: string): void {
    const inst = this.inst
    const def = inst.spec.tasks.find((t) => t.name === target) as RtAppTask
    const n = inst.forks.get(target) ?? 0
    if (n >= FORKS_LIMIT) {
      if (inst.forkRefusals++ === 0) inst.host.warn(`${inst.prefix}${target} reached rt-app's fork limit (${FORKS_LIMIT}); further forks are skipped`)
      return
    }
    inst.forks.set(target, n + 1)
    const { attrs, thread } = inst.makeThread(def, k.now, n)
    thread.task = k.fork(attrs, thread)
    inst.byTask.set(thread.task, thread)
  }
}

export function createRtApp(spec: RtAppWorkload, index: number): WorkloadInstance {
  let inst: Instance | undefined
  return {
    name: spec.name,
    type: 'rt-app',
    setup(host: WorkloadHost): void {
      const t0 = delayNs(spec)
      // Thread names carry the workload name when several rt-app workloads could collide.
      const slack = spec.timerSlackUs !== undefined ? Math.round(spec.timerSlackUs * US) : undefined
      inst = new Instance(spec.rtapp, index, spec.name === 'rt-app' ? '' : `${spec.name}:`, t0, host, slack)
      for (const def of spec.rtapp.tasks) {
        for (let i = 0; i < def.instance; i++) {
          const { attrs, thread } = inst.makeThread(def, t0 + Math.round(def.delayUs * US))
          thread.task = host.createTask(attrs, thread, spec.startCpu)
          inst.byTask.set(thread.task, thread)
        }
      }
    },
    resetStats(): void {
      for (const t of inst?.threads ?? []) {
        t.iterations = 0
        for (const st of Object.values(t.stats)) st.reset()
      }
    },
    done: () => !!inst && inst.threads.every((t) => t.finished),
    report(_host: WorkloadHost, out: WorkloadResult): void {
      if (!inst) return
      out.threads = inst.threads.map((t) => ({
        name: t.name,
        iterations: t.iterations,
        metrics: {
          wu_lat: t.stats.wu_lat.summaryUs(),
          slack: t.stats.slack.summaryUs(),
          period: t.stats.period.summaryUs(),
          run: t.stats.run.summaryUs()
        }
      }))
      out.extra = {
        ...out.extra,
        threads: inst.threads.length,
        forks: [...inst.forks.values()].reduce((a, b) => a + b, 0),
        iterations: inst.threads.reduce((a, t) => a + t.iterations, 0)
      }
    }
  }
}
