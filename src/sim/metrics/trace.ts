import { isRtPolicy } from '../kernel/api'
import { TASK_DEAD, TASK_RUNNING, TASK_SLEEPING, type Kernel } from '../kernel/sched'

/**
 * A scheduler trace in ftrace text form (`trace-cmd report` / tracefs `trace` layout), which
 * Perfetto, traceshark and `schedlab analyze` open: sched_waking, sched_switch,
 * sched_migrate_task, hrtimer_start / hrtimer_expire_entry / hrtimer_cancel lines in the
 * kernel's TP_printk formats (reference/workloads.md section 5), with nanosecond timestamps.
 *
 * It is written so that `schedlab analyze` of the trace reproduces the run's own figures:
 * - a sched_switch is stamped at the instant the next task starts to run in the model (after
 *   the modeled switch cost), which is where the model's latency ends; a real kernel stamps it
 *   a few microseconds earlier, before context_switch();
 * - a timer sleep shows as hrtimer_start (softexpires = the requested time, expires = plus the
 *   task's timer slack) in the sleeper's context, its expiry as hrtimer_expire_entry of
 *   hrtimer_wakeup right before the sched_waking, so latency counts from the requested time;
 * - sched_waking comes before the wakeup's placement (target_cpu is the task's previous CPU,
 *   as in the kernel) and the migration it causes;
 * - `finish()` appends `# schedlab:` lines: the run's span and each task's workload.
 *
 * It observes the kernel through its public entry points (schedule, try_to_wake_up,
 * set_task_cpu), wrapped on the instance before the run starts, so the model itself carries no
 * tracing code. A switch to the stopper (active balance) is not shown. Lines go to `emit` as
 * they happen (the caller streams them to a file); after `maxLines` the trace stops with a
 * note, so a long run cannot exhaust memory or disk.
 */

export interface TraceOptions {
  emit(line: string): void
  maxLines?: number
  /** The scenario's workloads (by TaskAttrs.workload index), for the closing task lines. */
  workloads?: readonly { name: string; type: string }[]
}

export interface Tracer {
  lines(): number
  /** Append the closing `# schedlab:` lines (span, tasks); call once after the run. */
  finish(endNs: number): void
}

export const DEFAULT_TRACE_LINES = 5_000_000

const NIL = -1

export function traceHeader(): string[] {
  return ['# tracer: nop', '#', '#           TASK-PID     CPU#  TIMESTAMP  FUNCTION', '#              | |         |      |         |']
}

/** Integer nanoseconds as seconds with 9 decimals, padded like ftrace's column. */
export function nsTimestamp(ns: number): string {
  const v = Math.max(0, Math.round(ns))
  const sec = Math.floor(v / 1e9)
  return `${sec}.${String(v - sec * 1e9).padStart(9, '0')}`.padStart(16)
}

export function attachTracer(k: Kernel, opts: TraceOptions): Tracer {
  const max = opts.maxLines ?? DEFAULT_TRACE_LINES
  let lines = 0
  const last = new Int32Array(k.ncpus).fill(NIL)
  // per task: timerGen as last seen (a sleep that arms the task's timer moves it on), and
  // whether an hrtimer_start is outstanding
  let armedGen = new Int32Array(64)
  let pending = new Uint8Array(64)
  const grow = (t: number): void => {
    if (t < armedGen.length) return
    const n = Math.max(t + 1, armedGen.length * 2)
    const g = new Int32Array(n)
    g.set(armedGen)
    armedGen = g
    const q = new Uint8Array(n)
    q.set(pending)
    pending = q
  }
  const put = (line: string): void => {
    if (lines > max) return
    if (lines === max) opts.emit(`# trace truncated after ${max} lines`)
    else opts.emit(line)
    lines++
  }
  for (const l of traceHeader()) opts.emit(l)
  opts.emit(`#P:${k.ncpus}`)

  const comm = (t: number): string => (t === NIL ? '<idle>' : k.attrs[t].name.slice(0, 15).replace(/\s/g, '_'))
  const pid = (t: number): number => (t === NIL ? 0 : t + 1)
  const prio = (t: number): number => (t === NIL ? 120 : isRtPolicy(k.policy[t]) ? 99 - k.rtPrio[t] : 120 + k.attrs[t].nice)
  const head = (cpu: number, t: number, at = k.now): string => `${`${comm(t)}-${pid(t)}`.padStart(22)} [${String(cpu).padStart(3, '0')}] ${nsTimestamp(at)}:`
  const timer = (t: number): string => (0xffff0000 + t).toString(16).padStart(16, '0')

  const schedule = k.schedule.bind(k)
  k.schedule = (cpu: number): void => {
    const sleeper = k.curr[cpu]
    if (sleeper !== NIL) grow(sleeper)
    if (sleeper !== NIL && k.state[sleeper] === TASK_SLEEPING && k.timerGen[sleeper] !== armedGen[sleeper]) {
      // a timed sleep: its hrtimer was armed just now
      armedGen[sleeper] = k.timerGen[sleeper]
      pending[sleeper] = 1
      const soft = k.timerAt[sleeper]
      put(`${head(cpu, sleeper)} hrtimer_start: hrtimer=${timer(sleeper)} function=hrtimer_wakeup expires=${Math.round(soft + k.timerSlack(sleeper))} softexpires=${Math.round(soft)} mode=ABS`)
    }
    schedule(cpu)
    const next = k.curr[cpu]
    const prev = last[cpu]
    if (next === prev) return
    last[cpu] = next
    const st = prev === NIL ? 'R' : k.state[prev] === TASK_RUNNING ? 'R+' : k.state[prev] === TASK_DEAD ? 'X' : 'S'
    const prevComm = prev === NIL ? `swapper/${cpu}` : comm(prev)
    const nextComm = next === NIL ? `swapper/${cpu}` : comm(next)
    const at = next === NIL ? k.now : k.switchStart[cpu]
    put(`${head(cpu, prev, at)} sched_switch: prev_comm=${prevComm} prev_pid=${pid(prev)} prev_prio=${prio(prev)} prev_state=${st} ==> next_comm=${nextComm} next_pid=${pid(next)} next_prio=${prio(next)}`)
  }

  const wake = k.tryToWakeUp.bind(k)
  k.tryToWakeUp = (p: number, flags: number, latencyFrom: number): boolean => {
    if (k.state[p] !== TASK_SLEEPING) return wake(p, flags, latencyFrom)
    const waker = k.thisCpu >= 0 ? k.thisCpu : k.taskCpu[p]
    const cpu = Math.max(0, waker)
    const ctx = waker >= 0 ? last[waker] : NIL
    grow(p)
    const timed = pending[p] === 1
    if (timed && latencyFrom === k.timerAt[p]) put(`${head(cpu, ctx)} hrtimer_expire_entry: hrtimer=${timer(p)} function=hrtimer_wakeup now=${Math.round(k.now)}`)
    else if (timed) put(`${head(cpu, ctx)} hrtimer_cancel: hrtimer=${timer(p)}`)
    put(`${head(cpu, ctx)} sched_waking: comm=${comm(p)} pid=${pid(p)} prio=${prio(p)} target_cpu=${String(Math.max(0, k.taskCpu[p])).padStart(3, '0')}`)
    const ok = wake(p, flags, latencyFrom)
    // try_to_wake_up moves timerGen on: the sleep's timer is spent
    armedGen[p] = k.timerGen[p]
    pending[p] = 0
    return ok
  }

  const setCpu = k.setTaskCpu.bind(k)
  k.setTaskCpu = (p: number, cpu: number): void => {
    const from = k.taskCpu[p]
    setCpu(p, cpu)
    if (from >= 0 && from !== cpu) {
      const here = k.thisCpu >= 0 ? k.thisCpu : cpu
      put(`${head(here, last[here])} sched_migrate_task: comm=${comm(p)} pid=${pid(p)} prio=${prio(p)} orig_cpu=${from} dest_cpu=${cpu}`)
    }
  }

  return {
    lines: () => Math.min(lines, max),
    finish(endNs: number): void {
      opts.emit(`# schedlab: span start=${nsTimestamp(0).trim()} end=${nsTimestamp(endNs).trim()}`)
      for (let t = 0; t < k.ntasks; t++) {
        const a = k.attrs[t]
        const w = opts.workloads?.[a.workload]
        if (!w) continue
        opts.emit(`# schedlab: task pid=${pid(t)} latency=${a.recordLatency ? 1 : 0} type=${w.type} workload=${w.name}`)
      }
    }
  }
}
