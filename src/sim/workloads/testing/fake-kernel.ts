import { isRtPolicy, type TaskAttrs, type TaskContext, type TaskProgram } from '../../kernel/api'
import { LogHistogram } from '../../metrics/histogram'
import type { WorkloadResult } from '../../../shared/result'
import type { WorkloadHost, WorkloadInstance } from '../types'

/**
 * A deliberately small kernel for unit-testing task programs without the real simulator:
 * per-CPU FIFO run queues, round-robin time slices, RT before fair, a fixed wakeup cost, work
 * scaled by CPU capacity. It checks the TaskProgram contract strictly (exactly one terminal
 * action per step, waking only sleeping tasks) so that program bugs surface here.
 */

export interface FakeOptions {
  capacities: number[]
  durationNs: number
  /** Delay from becoming runnable on an idle CPU to running. */
  wakeupNs?: number
  /** Round-robin slice among queued tasks of a CPU. */
  sliceNs?: number
}

type State = 'new' | 'runnable' | 'running' | 'sleeping' | 'blocked' | 'exited'

interface Task {
  id: number
  attrs: TaskAttrs
  program: TaskProgram
  state: State
  cpu: number
  /** Remaining wall time of the current run/runFor, ns (0 = needs a step). */
  remaining: number
  runToken: number
  wakeTime: number
  lat: LogHistogram
  cpuTime: number
  sliceStart: number
  cpusUsed: Set<number>
}

interface Cpu {
  current: number
  queue: number[]
  dispatching: boolean
}

interface Ev {
  t: number
  seq: number
  fn: () => void
}

export interface FakeRun {
  now: number
  workloads: WorkloadResult[]
  tasks: { name: string; workload: number; cpuTimeNs: number; latency: LogHistogram; state: string; cpus: number[] }[]
  warnings: string[]
  events: number
}

export class FakeKernel implements TaskContext {
  now = 0
  private readonly tasks: Task[] = []
  private readonly cpus: Cpu[]
  private readonly heap: Ev[] = []
  private seq = 0
  private actions = 0
  private stepping = -1
  private rng = 12345
  readonly warnings: string[] = []
  readonly wakeupNs: number
  readonly sliceNs: number
  events = 0

  constructor(readonly opts: FakeOptions) {
    this.cpus = opts.capacities.map(() => ({ current: -1, queue: [], dispatching: false }))
    this.wakeupNs = opts.wakeupNs ?? 0
    this.sliceNs = opts.sliceNs ?? 1_000_000
  }

  // ---- event queue
  private at(t: number, fn: () => void): void {
    const h = this.heap
    h.push({ t, seq: this.seq++, fn })
    let i = h.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (less(h[p], h[i])) break
      ;[h[p], h[i]] = [h[i], h[p]]
      i = p
    }
  }

  private pop(): Ev | undefined {
    const h = this.heap
    if (h.length === 0) return undefined
    const top = h[0]
    const last = h.pop() as Ev
    if (h.length > 0) {
      h[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < h.length && less(h[l], h[m])) m = l
        if (r < h.length && less(h[r], h[m])) m = r
        if (m === i) break
        ;[h[m], h[i]] = [h[i], h[m]]
        i = m
      }
    }
    return top
  }

  // ---- workload host
  host(workloadResults: LogHistogram[]): WorkloadHost {
    const self = this
    return {
      createTask: (attrs, program) => this.create(attrs, program, workloadResults),
      get ctx() {
        return self
      },
      ncpus: this.cpus.length,
      capacities: this.opts.capacities,
      durationNs: this.opts.durationNs,
      histogram: () => new LogHistogram(),
      warn: (m) => this.warnings.push(m)
    }
  }

  private wlHists: LogHistogram[] = []

  private create(attrs: TaskAttrs, program: TaskProgram, wl: LogHistogram[]): number {
    this.wlHists = wl
    const id = this.tasks.length
    this.tasks.push({ id, attrs: { ...attrs }, program, state: 'new', cpu: -1, remaining: 0, runToken: 0, wakeTime: -1, lat: new LogHistogram(), cpuTime: 0, sliceStart: 0, cpusUsed: new Set() })
    // The first start is not a wakeup to measure (cyclictest's first cycle is not a sample).
    this.at(Math.max(attrs.startNs, this.now), () => this.makeRunnable(id, -2, -1))
    return id
  }

  /** Run the workloads to the end of the duration or until all are done. */
  runAll(instances: WorkloadInstance[]): FakeRun {
    const hists = instances.map(() => new LogHistogram())
    const host = this.host(hists)
    instances.forEach((w) => w.setup(host))
    for (;;) {
      const ev = this.pop()
      if (!ev || ev.t > this.opts.durationNs) break
      this.now = ev.t
      this.events++
      ev.fn()
      if (instances.every((w) => w.done())) break
    }
    const workloads = instances.map((w, i) => {
      const out: WorkloadResult = { name: w.name, type: w.type, latencyUs: hists[i].summaryUs() }
      w.report(host, out)
      return out
    })
    return {
      now: this.now,
      workloads,
      tasks: this.tasks.map((t) => ({ name: t.attrs.name, workload: t.attrs.workload, cpuTimeNs: t.cpuTime, latency: t.lat, state: t.state, cpus: [...t.cpusUsed].sort() })),
      warnings: this.warnings,
      events: this.events
    }
  }

  // ---- scheduling
  private allowed(t: Task, cpu: number): boolean {
    return !t.attrs.cpus || t.attrs.cpus.includes(cpu)
  }

  private selectCpu(t: Task, from: number): number {
    const n = this.cpus.length
    const idle = (c: number): boolean => this.cpus[c].current < 0 && !this.cpus[c].dispatching && this.cpus[c].queue.length === 0
    if (t.cpu >= 0 && this.allowed(t, t.cpu) && idle(t.cpu)) return t.cpu
    for (let i = 0; i < n; i++) {
      const c = (Math.max(0, from) + i) % n
      if (this.allowed(t, c) && idle(c)) return c
    }
    let best = -1
    for (let c = 0; c < n; c++) {
      if (!this.allowed(t, c)) continue
      if (best < 0 || this.cpus[c].queue.length < this.cpus[best].queue.length) best = c
    }
    return best
  }

  private makeRunnable(id: number, wakeTime: number, from: number): void {
    const t = this.tasks[id]
    t.state = 'runnable'
    t.wakeTime = wakeTime >= 0 ? wakeTime : wakeTime === -2 ? -1 : this.now
    const cpu = this.selectCpu(t, from >= 0 ? from : t.cpu)
    t.cpu = cpu
    const c = this.cpus[cpu]
    c.queue.push(id)
    const cur = c.current >= 0 ? this.tasks[c.current] : undefined
    if (cur && isRtPolicy(t.attrs.policy) && !isRtPolicy(cur.attrs.policy)) this.preempt(cpu)
    else this.kick(cpu)
  }

  private kick(cpu: number): void {
    const c = this.cpus[cpu]
    if (c.current >= 0 || c.dispatching || c.queue.length === 0) return
    c.dispatching = true
    this.at(this.now + this.wakeupNs, () => {
      c.dispatching = false
      this.dispatch(cpu)
    })
  }

  private pickNext(c: Cpu): number {
    const rt = c.queue.findIndex((id) => isRtPolicy(this.tasks[id].attrs.policy))
    const i = rt >= 0 ? rt : 0
    return c.queue.splice(i, 1)[0]
  }

  private dispatch(cpu: number): void {
    const c = this.cpus[cpu]
    if (c.current >= 0 || c.queue.length === 0) return
    const id = this.pickNext(c)
    const t = this.tasks[id]
    c.current = id
    t.state = 'running'
    t.cpu = cpu
    t.cpusUsed.add(cpu)
    t.sliceStart = this.now
    if (t.wakeTime >= 0) {
      const lat = this.now - t.wakeTime
      t.lat.record(lat)
      if (t.attrs.recordLatency) this.wlHists[t.attrs.workload]?.record(lat)
      t.wakeTime = -1
    }
    if (t.remaining > 0) this.continueRun(t)
    else this.step(t)
  }

  private preempt(cpu: number): void {
    const c = this.cpus[cpu]
    const t = this.tasks[c.current]
    this.account(t)
    t.runToken++
    t.state = 'runnable'
    c.current = -1
    c.queue.push(t.id)
    this.dispatch(cpu)
  }

  private account(t: Task): void {
    const ran = this.now - t.sliceStart
    t.cpuTime += ran
    if (t.remaining > 0) t.remaining = Math.max(0, t.remaining - ran)
    t.sliceStart = this.now
  }

  private continueRun(t: Task): void {
    const token = ++t.runToken
    const c = this.cpus[t.cpu]
    const slice = c.queue.length > 0 ? Math.min(this.sliceNs, t.remaining) : t.remaining
    this.at(this.now + slice, () => {
      if (t.runToken !== token || t.state !== 'running') return
      this.account(t)
      if (t.remaining > 0) {
        // Slice over with others waiting: round robin.
        if (c.queue.length > 0) this.preempt(t.cpu)
        else this.continueRun(t)
        return
      }
      this.step(t)
    })
  }

  private step(t: Task): void {
    this.actions = 0
    this.stepping = t.id
    t.program.step(t.id, this)
    this.stepping = -1
    if (this.actions !== 1) throw new Error(`task ${t.attrs.name}: step ended with ${this.actions} terminal actions (exactly one expected)`)
  }

  private terminal(task: number): Task {
    if (task !== this.stepping) throw new Error(`terminal action for task ${task} outside its own step`)
    this.actions++
    return this.tasks[task]
  }

  private leaveCpu(t: Task, state: State): void {
    this.account(t)
    const cpu = t.cpu
    t.state = state
    t.runToken++
    this.cpus[cpu].current = -1
    // The next task is picked after the current step returns.
    this.at(this.now, () => this.dispatch(cpu))
  }

  // ---- TaskContext
  cpuOf(task: number): number {
    return this.tasks[task].cpu
  }

  run(task: number, workNs: number): void {
    const t = this.terminal(task)
    t.remaining = Math.max(1, Math.ceil((workNs * 1024) / this.opts.capacities[t.cpu]))
    t.sliceStart = this.now
    this.continueRun(t)
  }

  runFor(task: number, wallNs: number): void {
    const t = this.terminal(task)
    t.remaining = Math.max(1, Math.round(wallNs))
    t.sliceStart = this.now
    this.continueRun(t)
  }

  sleepUntil(task: number, absNs: number): void {
    const t = this.terminal(task)
    this.leaveCpu(t, 'sleeping')
    const when = Math.max(absNs, this.now)
    this.at(when, () => this.makeRunnable(t.id, absNs, -1))
  }

  sleepFor(task: number, ns: number): void {
    this.sleepUntil(task, this.now + ns)
  }

  block(task: number): void {
    const t = this.terminal(task)
    this.leaveCpu(t, 'blocked')
  }

  yieldTask(task: number): void {
    const t = this.terminal(task)
    this.account(t)
    t.runToken++
    t.state = 'runnable'
    const c = this.cpus[t.cpu]
    c.current = -1
    c.queue.push(t.id)
    this.at(this.now, () => this.dispatch(t.cpu))
  }

  exit(task: number): void {
    const t = this.terminal(task)
    this.leaveCpu(t, 'exited')
    t.program.exited?.(task, this)
  }

  wake(target: number, _flags: number): boolean {
    const t = this.tasks[target]
    if (t.state !== 'blocked') return false
    t.state = 'runnable'
    const from = this.stepping >= 0 ? this.tasks[this.stepping].cpu : -1
    this.makeRunnable(target, this.now, from)
    return true
  }

  fork(attrs: TaskAttrs, program: TaskProgram): number {
    return this.create({ ...attrs, startNs: this.now }, program, this.wlHists)
  }

  setAttrs(task: number, change: Partial<TaskAttrs>): void {
    Object.assign(this.tasks[task].attrs, change)
  }

  setAffinity(task: number, cpus: readonly number[] | null): void {
    this.tasks[task].attrs.cpus = cpus
  }

  random(): number {
    this.rng = (this.rng * 1103515245 + 12345) % 2147483648
    return this.rng / 2147483648
  }

  isSleeping(task: number): boolean {
    const s = this.tasks[task].state
    return s === 'sleeping' || s === 'blocked'
  }

  attrsOf(task: number): TaskAttrs {
    return this.tasks[task].attrs
  }
}

function less(a: Ev, b: Ev): boolean {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq)
}

/** Run workload instances on the fake kernel. */
export function runFake(instances: WorkloadInstance[], opts: FakeOptions): FakeRun {
  return new FakeKernel(opts).runAll(instances)
}
