import { isRtPolicy } from '../kernel/api'
import { TASK_DEAD, TASK_RUNNING, type Kernel } from '../kernel/core'

/**
 * A scheduler trace in ftrace text form (`trace-cmd report` / tracefs `trace` layout), which
 * Perfetto and traceshark open: sched_waking, sched_switch and sched_migrate_task lines in the
 * kernel's TP_printk formats (reference/workloads.md section 5).
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
}

export const DEFAULT_TRACE_LINES = 5_000_000

const NIL = -1

export function traceHeader(): string[] {
  return ['# tracer: nop', '#', '#           TASK-PID     CPU#  TIMESTAMP  FUNCTION', '#              | |         |      |         |']
}

export function attachTracer(k: Kernel, opts: TraceOptions): { lines(): number } {
  const max = opts.maxLines ?? DEFAULT_TRACE_LINES
  let lines = 0
  const last = new Int32Array(k.ncpus).fill(NIL)
  const put = (line: string): void => {
    if (lines > max) return
    if (lines === max) opts.emit(`# trace truncated after ${max} lines`)
    else opts.emit(line)
    lines++
  }
  for (const l of traceHeader()) opts.emit(l)

  const comm = (t: number): string => (t === NIL ? '<idle>' : k.attrs[t].name.slice(0, 15).replace(/\s/g, '_'))
  const pid = (t: number): number => (t === NIL ? 0 : t + 1)
  const prio = (t: number): number => (t === NIL ? 120 : isRtPolicy(k.policy[t]) ? 99 - k.rtPrio[t] : 120 + k.attrs[t].nice)
  const ts = (): string => (k.now / 1e9).toFixed(6).padStart(13)
  const head = (cpu: number, t: number): string => `${`${comm(t)}-${pid(t)}`.padStart(22)} [${String(cpu).padStart(3, '0')}] ${ts()}:`

  const schedule = k.schedule.bind(k)
  k.schedule = (cpu: number): void => {
    schedule(cpu)
    const next = k.curr[cpu]
    const prev = last[cpu]
    if (next === prev) return
    last[cpu] = next
    const st = prev === NIL ? 'R' : k.state[prev] === TASK_RUNNING ? 'R+' : k.state[prev] === TASK_DEAD ? 'X' : 'S'
    const prevComm = prev === NIL ? `swapper/${cpu}` : comm(prev)
    const nextComm = next === NIL ? `swapper/${cpu}` : comm(next)
    put(`${head(cpu, prev)} sched_switch: prev_comm=${prevComm} prev_pid=${pid(prev)} prev_prio=${prio(prev)} prev_state=${st} ==> next_comm=${nextComm} next_pid=${pid(next)} next_prio=${prio(next)}`)
  }

  const wake = k.tryToWakeUp.bind(k)
  k.tryToWakeUp = (p: number, flags: number, latencyFrom: number): boolean => {
    const waker = k.thisCpu >= 0 ? k.thisCpu : k.taskCpu[p]
    const ok = wake(p, flags, latencyFrom)
    if (ok) {
      const ctx = waker >= 0 ? last[waker] : NIL
      put(`${head(Math.max(0, waker), ctx)} sched_waking: comm=${comm(p)} pid=${pid(p)} prio=${prio(p)} target_cpu=${String(k.taskCpu[p]).padStart(3, '0')}`)
    }
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

  return { lines: () => Math.min(lines, max) }
}
