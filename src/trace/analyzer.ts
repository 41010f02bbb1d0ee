import { LogHistogram } from '../sim/metrics/histogram'
import type { CpuResult, TaskResult, TraceSummary, VariantResult, WorkloadResult } from '../shared/result'
import { SLEEPER_FUNCTION, type SchedEvent, type TraceMeta } from './events'
import type { ReadStats, TraceSink } from './reader'
import { WorstWindows } from './worst-window'

/**
 * Scheduling figures from a stream of sched and hrtimer events, in the simulator's result
 * form, so a real trace and a simulated run are read the same way.
 *
 * Latency (`latencyUs`) runs from the instant a task became runnable to its switch-in. For a
 * task woken by the expiry of its own hrtimer sleep (clock_nanosleep: cyclictest, rt-app
 * timers, periodic loads), that instant is the *requested* expiry (`softexpires` of the
 * hrtimer_start the task issued), as cyclictest and the simulator count it: the timer slack
 * and the interrupt are part of the latency. Otherwise it is the sched_waking.
 * `wakeupLatencyUs` always runs from sched_waking. A sched_waking of a task that is still on
 * a CPU (it had not switched out yet) is no wakeup; a new task's first run is no sample
 * (neither counts in the simulator).
 *
 * CPU time is the sum of the intervals between a task's switch-in and switch-out; a CPU is
 * busy while anything but its idle task (pid 0) runs there.
 */

export interface WorkloadPattern {
  name: string
  regex: RegExp
}

export interface AnalyzeOptions {
  /** The variant's name in the result (the trace file's name). */
  name?: string
  /** `--workload NAME=REGEX`: tasks whose comm or "comm-tid" matches form workload NAME. */
  workloads?: WorkloadPattern[]
  /**
   * The runner's workload processes: pid -> workload. Their children and threads (followed
   * through sched_process_fork) belong to it; the root itself only starts the workload and
   * waits for it (cyclictest's main thread, hackbench's parent), so its latency is not counted.
   */
  roots?: ReadonlyMap<number, { workload: string; type: string }>
  /** Only tasks of `roots` or of the trace's own task lines form workloads; the rest stay in tasks[]. */
  onlyAssigned?: boolean
  /**
   * How long after its hrtimer's expiry a task's sched_waking still counts from the requested
   * expiry (the waking follows in the same interrupt; anything later is another wakeup).
   */
  timerWakeWindowNs?: number
  /** Keep the per-CPU timeline around each workload's maximum (`timelines` in the result; the workbench shows it). */
  timelines?: boolean
  /** Most tasks (distinct pids) the analysis follows; an event naming one more is a malformed line. Default MAX_TRACE_TASKS. */
  maxTasks?: number
}

/**
 * Largest CPU id a trace may name (the kernel's largest NR_CPUS is 8192): a line naming a higher
 * one, or a `#P:` header above the count, is a malformed line. The analyzer keeps a little state
 * per CPU up to the largest id seen, so an id of 99999999 must not reach it.
 */
export const MAX_TRACE_CPUS = 8192

/**
 * Default of the most tasks one trace may hold (and of task lines and pending sleeper timers):
 * each costs a few hundred bytes (its latency histograms, 40 KB, only once it has many samples).
 */
export const MAX_TRACE_TASKS = 200_000

/**
 * Samples of one task: kept as a list until there are SAMPLES_INLINE, then in a histogram
 * (20 KB each). Most tasks of a busy trace wake a few times; a histogram per task made 100,000
 * tasks cost 4 GB. The figures are the same either way (sums of integer nanoseconds are exact).
 */
const SAMPLES_INLINE = 512

class Samples {
  private vals: number[] | null = []
  private hist: LogHistogram | null = null

  record(v: number): void {
    if (this.hist) {
      this.hist.record(v)
      return
    }
    this.vals!.push(v)
    if (this.vals!.length >= SAMPLES_INLINE) {
      this.hist = new LogHistogram()
      for (const x of this.vals!) this.hist.record(x)
      this.vals = null
    }
  }

  addTo(h: LogHistogram): void {
    if (this.hist) h.merge(this.hist)
    else for (const x of this.vals!) h.record(x)
  }

  summaryUs(): ReturnType<LogHistogram['summaryUs']> {
    if (this.hist) return this.hist.summaryUs()
    SCRATCH.reset()
    this.addTo(SCRATCH)
    return SCRATCH.summaryUs()
  }
}

const SCRATCH = new LogHistogram()

const DEFAULT_TIMER_WAKE_WINDOW_NS = 1_000_000

/** A workload name from a comm: "cyclictest-0" -> "cyclictest", "kworker/1:2" -> "kworker". */
export function commGroup(comm: string): string {
  const g = comm.replace(/(?:[-_/:.]?\d+)+$/, '')
  return g === '' ? comm : g
}

/** Parse `NAME=REGEX` (the CLI's --workload). */
export function parseWorkloadPattern(arg: string): WorkloadPattern | string {
  const eq = arg.indexOf('=')
  if (eq <= 0 || eq === arg.length - 1) return `expected NAME=REGEX, got "${arg}"`
  const name = arg.slice(0, eq)
  try {
    return { name, regex: new RegExp(arg.slice(eq + 1)) }
  } catch (e) {
    return `${name}: invalid regular expression: ${(e as Error).message}`
  }
}

/** runStart / busySince of what was already running when the trace began. */
const FROM_START = Number.NEGATIVE_INFINITY

class TaskStat {
  comm: string
  running = -1
  runStart = 0
  cpuNs = 0
  /** Intervals that began at the span's start, whose ends were added to cpuNs (start subtracted at the end). */
  fromStart = 0
  switches = 0
  wakeups = 0
  migrations = 0
  /** Pending sample: runnable since (latency), woken at (wakeup latency); -1 when none. */
  pendFrom = -1
  pendWake = -1
  timerSoft = -1
  timerFiredAt = -1
  lastCpu = -1
  lat: Samples | null = null
  wlat: Samples | null = null
  constructor(readonly pid: number, comm: string) {
    this.comm = comm
  }
}

class CpuStat {
  /** pid running, -1 before the first event seen here. */
  curr = -1
  busySince = -1
  /** Since when the idle task runs here (timelines), -1 when it does not. */
  idleSince = -1
  busyNs = 0
  fromStart = 0
}

export type TraceVariantResult = VariantResult & { trace: TraceSummary }

export class TraceAnalyzer implements TraceSink {
  private readonly tasks = new Map<number, TaskStat>()
  private readonly cpus: CpuStat[] = []
  private readonly timers = new Map<string, { pid: number; soft: number }>()
  private readonly metaTasks = new Map<number, Extract<TraceMeta, { type: 'task' }>>()
  private span: { startNs: number; endNs: number } | null = null
  private ncpusMeta = 0
  private firstTs = Infinity
  private lastTs = -Infinity
  private nEvents = 0
  private nSwitches = 0
  private nMigrations = 0
  private nWakeups = 0
  private sawSleeperTimer = false
  private nInferred = 0
  private readonly window: number
  private readonly worst: WorstWindows | null
  private readonly maxTasks: number

  constructor(private readonly opts: AnalyzeOptions = {}) {
    this.window = opts.timerWakeWindowNs ?? DEFAULT_TIMER_WAKE_WINDOW_NS
    this.maxTasks = opts.maxTasks ?? MAX_TRACE_TASKS
    this.worst = opts.timelines ? new WorstWindows() : null
    for (const [pid, r] of opts.roots ?? []) this.metaTasks.set(pid, { type: 'task', pid, workload: r.workload, workloadType: r.type, recordLatency: false })
  }

  /** Every task assigned to a workload (the trace's task lines, the roots and their children). */
  assignments(): ReadonlyMap<number, Extract<TraceMeta, { type: 'task' }>> {
    return this.metaTasks
  }

  private task(pid: number, comm: string): TaskStat {
    let t = this.tasks.get(pid)
    if (!t) {
      t = new TaskStat(pid, comm)
      this.tasks.set(pid, t)
    }
    return t
  }

  private cpu(id: number): CpuStat {
    while (this.cpus.length <= id) this.cpus.push(new CpuStat())
    return this.cpus[id]
  }

  /** The first event on a CPU: its context is what ran there since the trace began. */
  private firstOnCpu(c: CpuStat, cpu: number, pid: number, comm: string, ts: number): void {
    c.curr = pid
    if (pid === 0) {
      c.idleSince = ts
      return
    }
    c.busySince = FROM_START
    const t = this.task(pid, comm)
    if (t.running < 0) {
      t.running = cpu
      t.runStart = FROM_START
      t.lastCpu = cpu
    }
  }

  /** cpu switches from what runs there to `next` at ts. */
  private switchTo(c: CpuStat, cpu: number, next: number, nextComm: string, ts: number): void {
    const prev = c.curr
    if (this.worst) {
      if (prev === 0 && c.idleSince >= 0) this.worst.span(cpu, null, c.idleSince, ts)
      else if (prev > 0) {
        const p = this.task(prev, '')
        if (p.running === cpu) this.worst.span(cpu, taskName(p), p.runStart === FROM_START ? this.firstTs : p.runStart, ts)
      }
    }
    c.idleSince = next === 0 ? ts : -1
    if (prev > 0) {
      const p = this.task(prev, '')
      if (p.running === cpu) {
        if (p.runStart === FROM_START) {
          p.cpuNs += ts
          p.fromStart++
        } else p.cpuNs += Math.max(0, ts - p.runStart)
        p.running = -1
      }
      p.lastCpu = cpu
      if (c.busySince === FROM_START) {
        c.busyNs += ts
        c.fromStart++
      } else if (c.busySince >= 0) c.busyNs += Math.max(0, ts - c.busySince)
    }
    c.curr = next
    c.busySince = next !== 0 ? ts : -1
    if (next === 0) return
    const n = this.task(next, nextComm)
    if (nextComm) n.comm = nextComm
    n.switches++
    this.nSwitches++
    n.running = cpu
    n.runStart = ts
    n.lastCpu = cpu
    if (n.pendFrom >= 0) {
      if (this.worst && this.counted(n)) {
        const g = this.group(n)
        if (g) this.worst.sample(g.name, n.pid, taskName(n), cpu, Math.min(n.pendFrom, ts), ts)
      }
      ;(n.lat ??= new Samples()).record(Math.max(0, ts - n.pendFrom))
      ;(n.wlat ??= new Samples()).record(Math.max(0, ts - n.pendWake))
      n.pendFrom = -1
      n.pendWake = -1
    }
    n.timerFiredAt = -1
  }

  meta(m: TraceMeta): string | undefined {
    if (m.type === 'span') this.span = { startNs: m.startNs, endNs: m.endNs }
    else if (m.type === 'cpus') {
      if (m.count > MAX_TRACE_CPUS) return `${m.count} CPUs: more than the ${MAX_TRACE_CPUS} a trace may have`
      this.ncpusMeta = Math.max(this.ncpusMeta, m.count)
    } else {
      if (!this.metaTasks.has(m.pid) && this.metaTasks.size >= this.maxTasks) return `more than ${this.maxTasks} task lines (the limit of tasks in one trace)`
      this.metaTasks.set(m.pid, m)
    }
    return undefined
  }

  /** Why the analysis refuses `e` (a limit), or null: checked before any state changes. */
  private refusal(e: SchedEvent): string | null {
    if (!(e.cpu >= 0 && e.cpu < MAX_TRACE_CPUS)) return `CPU ${e.cpu}: above the largest CPU id a trace may name (${MAX_TRACE_CPUS - 1})`
    if (this.tasks.size + 4 < this.maxTasks) return null
    const fresh = new Set<number>()
    const note = (pid: number): void => {
      if (pid !== 0 && !this.tasks.has(pid)) fresh.add(pid)
    }
    note(e.pid)
    if (e.type === 'sched_switch') {
      note(e.prevPid)
      note(e.nextPid)
    } else if (e.type === 'sched_waking' || e.type === 'sched_wakeup' || e.type === 'sched_wakeup_new' || e.type === 'sched_migrate_task') note(e.taskPid)
    if (this.tasks.size + fresh.size > this.maxTasks) return `more than ${this.maxTasks} tasks (the limit of tasks in one trace)`
    if (e.type === 'sched_process_fork' && this.metaTasks.size >= this.maxTasks && this.metaTasks.has(e.parentPid)) return `more than ${this.maxTasks} tasks (the limit of tasks in one trace)`
    if (e.type === 'hrtimer_start' && this.timers.size >= this.maxTasks && !this.timers.has(e.timer)) return `more than ${this.maxTasks} pending hrtimers`
    return null
  }

  event(e: SchedEvent): string | undefined {
    const refused = this.refusal(e)
    if (refused) return refused
    this.nEvents++
    const ts = e.ts
    if (ts < this.firstTs) this.firstTs = ts
    if (ts > this.lastTs) this.lastTs = ts
    const c = this.cpu(e.cpu)
    // every event fires in the context of the task running on its CPU: one that is not the
    // task we think runs there means switches the trace does not show (lost events, or tasks
    // whose own events a kernel does not record): infer the switch at this event
    if (c.curr === -1) this.firstOnCpu(c, e.cpu, e.pid, e.comm, ts)
    else if (e.pid !== c.curr) {
      this.nInferred++
      this.switchTo(c, e.cpu, e.pid, e.comm, ts)
    }
    switch (e.type) {
      case 'sched_switch': {
        if (e.prevPid !== 0) this.task(e.prevPid, e.prevComm).comm = e.prevComm
        this.switchTo(c, e.cpu, e.nextPid, e.nextComm, ts)
        return
      }
      case 'sched_waking':
      case 'sched_wakeup': {
        const t = this.task(e.taskPid, e.taskComm)
        // sched_wakeup after its sched_waking (or of a task on a CPU) adds nothing
        if (t.running >= 0 || t.pendWake >= 0) return
        t.wakeups++
        this.nWakeups++
        const byTimer = t.timerFiredAt >= 0 && ts - t.timerFiredAt <= this.window
        t.pendFrom = byTimer ? Math.min(t.timerSoft, ts) : ts
        t.pendWake = ts
        t.timerFiredAt = -1
        return
      }
      case 'sched_wakeup_new': {
        const t = this.task(e.taskPid, e.taskComm)
        if (e.targetCpu >= 0) t.lastCpu = e.targetCpu
        return
      }
      case 'sched_migrate_task': {
        const t = this.task(e.taskPid, e.taskComm)
        t.migrations++
        this.nMigrations++
        t.lastCpu = e.destCpu
        return
      }
      case 'sched_process_fork': {
        const parent = this.metaTasks.get(e.parentPid)
        if (parent && !this.metaTasks.has(e.childPid) && this.metaTasks.size < this.maxTasks) this.metaTasks.set(e.childPid, { ...parent, pid: e.childPid, recordLatency: true })
        return
      }
      case 'hrtimer_start': {
        if (e.pid === 0 || !isSleeperFunction(e.function)) return
        this.sawSleeperTimer = true
        this.timers.set(e.timer, { pid: e.pid, soft: e.softexpires })
        return
      }
      case 'hrtimer_expire_entry': {
        const x = this.timers.get(e.timer)
        if (!x) return
        this.timers.delete(e.timer)
        const t = this.tasks.get(x.pid)
        if (!t) return
        t.timerSoft = x.soft
        t.timerFiredAt = ts
        return
      }
      case 'hrtimer_cancel':
        this.timers.delete(e.timer)
        return
    }
  }

  /** The result, in the simulator's `VariantResult` form with a `trace` summary. */
  finish(read?: ReadStats, wallMs = 0): TraceVariantResult {
    const haveEvents = this.nEvents > 0
    const start = this.span?.startNs ?? (haveEvents ? this.firstTs : 0)
    const end = Math.max(start, this.span?.endNs ?? (haveEvents ? this.lastTs : 0))
    const spanNs = Math.max(1, end - start)
    const tasks = [...this.tasks.values()].filter((t) => t.pid !== 0).sort((a, b) => a.pid - b.pid)
    const cpuNs = (t: TaskStat): number => {
      let ns = t.cpuNs - t.fromStart * start
      if (t.running >= 0) ns += Math.max(0, end - (t.runStart === FROM_START ? start : t.runStart))
      return Math.max(0, ns)
    }

    const counted = (t: TaskStat): boolean => this.counted(t)
    const groups = new Map<string, { type: string; members: TaskStat[] }>()
    for (const t of tasks) {
      const wg = this.group(t)
      if (!wg) continue
      let g = groups.get(wg.name)
      if (!g) groups.set(wg.name, (g = { type: wg.type, members: [] }))
      g.members.push(t)
    }
    const order = (name: string): number => {
      const i = this.opts.workloads?.findIndex((w) => w.name === name) ?? -1
      return i >= 0 ? i : Infinity
    }
    const workloads: WorkloadResult[] = [...groups.entries()]
      .map(([name, g]) => {
        const lat = new LogHistogram()
        const wlat = new LogHistogram()
        let ns = 0
        for (const t of g.members) {
          ns += cpuNs(t)
          if (!counted(t)) continue
          t.lat?.addTo(lat)
          t.wlat?.addTo(wlat)
        }
        const w: WorkloadResult = {
          name,
          type: g.type,
          latencyUs: lat.summaryUs(),
          latencyHist: lat.dataUs(),
          wakeupLatencyUs: wlat.summaryUs(),
          extra: { tasks: g.members.length, cpuTimeMs: r3(ns / 1e6) }
        }
        return w
      })
      .sort((a, b) => order(a.name) - order(b.name) || (this.metaOrder(a.name) - this.metaOrder(b.name)) || b.latencyUs.count - a.latencyUs.count || a.name.localeCompare(b.name))

    const workloadOf = new Map<number, string>()
    for (const [name, g] of groups) for (const t of g.members) workloadOf.set(t.pid, name)
    const taskResults: TaskResult[] = tasks.map((t) => ({
      name: taskName(t),
      comm: t.comm,
      tid: t.pid,
      workload: workloadOf.get(t.pid) ?? '',
      cpuTimeMs: r3(cpuNs(t) / 1e6),
      latencyUs: ((counted(t) && t.lat) || EMPTY).summaryUs(),
      wakeupLatencyUs: ((counted(t) && t.wlat) || EMPTY).summaryUs(),
      migrations: t.migrations,
      contextSwitches: t.switches,
      wakeups: t.wakeups,
      lastCpu: t.lastCpu
    }))

    const ncpus = Math.max(this.ncpusMeta, this.cpus.length)
    const cpus: CpuResult[] = []
    for (let id = 0; id < ncpus; id++) {
      const c = this.cpus[id]
      let busy = 0
      if (c) {
        busy = c.busyNs - c.fromStart * start
        if (c.curr > 0) busy += Math.max(0, end - (c.busySince === FROM_START ? start : c.busySince))
        busy = Math.max(0, busy)
      }
      cpus.push({ id, cluster: '', busyPct: r3(Math.min(100, (busy / spanNs) * 100)) })
    }

    const trace: TraceSummary = {
      timerLatency: this.sawSleeperTimer,
      inferredSwitches: this.nInferred,
      spanMs: r3((end - start) / 1e6),
      events: this.nEvents,
      ...(read ? { lines: read.lines, otherEvents: read.otherEvents, malformed: read.malformed, malformedExamples: read.malformedExamples, lostEvents: read.lostEvents } : {})
    }
    const warnings: string[] = []
    if (read && read.malformed > 0) warnings.push(`${read.malformed} malformed line(s) skipped (first at line ${read.malformedExamples[0]?.line}: ${read.malformedExamples[0]?.reason})`)
    if (read && read.lostEvents > 0) warnings.push(`the kernel lost ${read.lostEvents} event(s) (ring buffer overrun): figures near the gaps are incomplete`)
    if (!haveEvents) warnings.push('no sched events in the trace')
    if (this.nInferred > 0) warnings.push(`${this.nInferred} switch(es) were missing from the trace (lost events, or tasks whose own events the kernel does not record) and were inferred from the context of the next event on the CPU`)
    return {
      name: this.opts.name ?? 'trace',
      seed: 0,
      stats: {
        events: this.nEvents,
        wallMs: Math.round(wallMs),
        simulatedMs: r3((end - start) / 1e6),
        contextSwitches: this.nSwitches,
        migrations: this.nMigrations,
        wakeups: this.nWakeups,
        sysPct: 0
      },
      workloads,
      tasks: taskResults,
      cpus,
      unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } },
      warnings,
      trace,
      ...(this.worst ? { timelines: this.timelines(end, workloadOf, workloads) } : {})
    }
  }

  /** The windows around each workload's maximum, what still runs at the end closed there. */
  private timelines(end: number, workloadOf: ReadonlyMap<number, string>, workloads: WorkloadResult[]) {
    const open: { cpu: number; task: string | null; startNs: number; endNs: number }[] = []
    this.cpus.forEach((c, cpu) => {
      if (c.curr === 0 && c.idleSince >= 0) open.push({ cpu, task: null, startNs: c.idleSince, endNs: end })
      else if (c.curr > 0) {
        const t = this.task(c.curr, '')
        if (t.running === cpu) open.push({ cpu, task: taskName(t), startNs: t.runStart === FROM_START ? this.firstTs : t.runStart, endNs: end })
      }
    })
    // a task may be known as uncounted only after its samples (its meta line, or its root, came later)
    const countedOf = (pid: number): string | undefined => (this.countedPid(pid) ? workloadOf.get(pid) : undefined)
    return this.worst!.finish(open, countedOf, workloads.map((w) => ({ name: w.name, maxUs: w.latencyUs.max, count: w.latencyUs.count })))
  }

  /** Our own traces mark tasks whose latency the run does not count (hogs, noise threads). */
  private counted(t: TaskStat): boolean {
    return this.countedPid(t.pid)
  }

  private countedPid(pid: number): boolean {
    return this.metaTasks.get(pid)?.recordLatency !== false
  }

  /** The workload a task belongs to: the trace's task lines or the runner's, a --workload pattern, else its comm. */
  private group(t: TaskStat): { name: string; type: string } | null {
    const m = this.metaTasks.get(t.pid)
    if (m) return { name: m.workload, type: m.workloadType ?? 'trace' }
    if (this.opts.onlyAssigned) return null
    const p = this.opts.workloads?.find((w) => w.regex.test(t.comm) || w.regex.test(`${t.comm}-${t.pid}`))
    return { name: p ? p.name : commGroup(t.comm), type: 'trace' }
  }

  private metaOrder(name: string): number {
    for (const m of this.metaTasks.values()) if (m.workload === name) return m.pid
    return Infinity
  }
}

const EMPTY = new LogHistogram()

/** A task as the results name it. */
function taskName(t: TaskStat): string {
  return `${t.comm}-${t.pid}`
}

function isSleeperFunction(fn: string): boolean {
  // without symbols (trace-cmd without kallsyms) the handler prints as an address
  return fn === '' || fn.startsWith(SLEEPER_FUNCTION) || /^(0x)?[0-9a-f]+$/i.test(fn)
}

function r3(x: number): number {
  return Math.round(x * 1000) / 1000
}
