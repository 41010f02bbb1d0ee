/**
 * The scheduler events schedlab reads from a trace, whatever it came from (ftrace text from
 * tracefs, `trace-cmd report` or our simulator, or tracefs' binary ring buffer). Times are
 * integer-valued nanoseconds on the trace's clock; `pid` and `comm` are the context the event
 * fired in (the task running on `cpu`, 0 for the idle task).
 */

interface EventBase {
  ts: number
  cpu: number
  pid: number
  comm: string
}

export interface SwitchEvent extends EventBase {
  type: 'sched_switch'
  prevComm: string
  prevPid: number
  prevPrio: number
  /** The kernel's letters: R, R+ (preempted), S, D, ... */
  prevState: string
  nextComm: string
  nextPid: number
  nextPrio: number
}

export interface WakeEvent extends EventBase {
  type: 'sched_waking' | 'sched_wakeup' | 'sched_wakeup_new'
  taskComm: string
  taskPid: number
  prio: number
  targetCpu: number
}

export interface MigrateEvent extends EventBase {
  type: 'sched_migrate_task'
  taskComm: string
  taskPid: number
  prio: number
  origCpu: number
  destCpu: number
}

/** A new task or thread (clone): how the runner follows its workloads' children. */
export interface ForkEvent extends EventBase {
  type: 'sched_process_fork'
  parentComm: string
  parentPid: number
  childComm: string
  childPid: number
}

export interface HrtimerStartEvent extends EventBase {
  type: 'hrtimer_start'
  timer: string
  function: string
  /** Hard expiry (requested time + timer slack), ns. */
  expires: number
  /** The requested expiry, ns: what cyclictest and the simulator count latency from. */
  softexpires: number
}

export interface HrtimerExpireEvent extends EventBase {
  type: 'hrtimer_expire_entry'
  timer: string
  function: string
  /** The hrtimer base's time when the handler ran, ns (ts when absent). */
  now: number
}

export interface HrtimerCancelEvent extends EventBase {
  type: 'hrtimer_cancel'
  timer: string
}

export type SchedEvent = SwitchEvent | WakeEvent | MigrateEvent | ForkEvent | HrtimerStartEvent | HrtimerExpireEvent | HrtimerCancelEvent

/** The event names the analyzer understands (the runner enables these, plus sched_wakeup). */
export const SCHED_EVENT_NAMES = ['sched_switch', 'sched_waking', 'sched_wakeup', 'sched_wakeup_new', 'sched_migrate_task', 'sched_process_fork', 'hrtimer_start', 'hrtimer_expire_entry', 'hrtimer_cancel'] as const

/** The handler of an hrtimer sleep (clock_nanosleep, poll/select timeouts): its expiry wakes its starter. */
export const SLEEPER_FUNCTION = 'hrtimer_wakeup'

/**
 * What our own traces say about themselves in `# schedlab:` comment lines: the span of the run
 * (so busy percentages use the run's length, not the first and last event), and for each task
 * its workload and whether the run counts its latency.
 */
export type TraceMeta =
  | { type: 'span'; startNs: number; endNs: number }
  | { type: 'task'; pid: number; workload: string; workloadType?: string; recordLatency: boolean }
  | { type: 'cpus'; count: number }
