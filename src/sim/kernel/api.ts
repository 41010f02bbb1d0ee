/**
 * The contract between workload generators and the modeled kernel.
 *
 * A workload creates tasks (TaskAttrs + a TaskProgram). The kernel runs them like a real
 * thread: whenever a task is on a CPU and has nothing left to do, the kernel calls
 * `program.step(task, k)`; the program then performs any number of side effects
 * (waking other tasks, recording metrics) and finishes with exactly one *terminal action*:
 * `run`, `runFor`, `sleepUntil`, `sleepFor`, `block`, `yieldTask` or `exit`.
 *
 * Time is integer nanoseconds. Work (`run`) is expressed in nanoseconds at capacity 1024 and
 * the maximum frequency, so the same work takes longer on a smaller or slower CPU.
 */

import { SCHED_BATCH, SCHED_FIFO, SCHED_IDLE, SCHED_NORMAL, SCHED_RR } from '../../shared/patch-api'

export { SCHED_BATCH, SCHED_FIFO, SCHED_IDLE, SCHED_NORMAL, SCHED_RR }

export type PolicyName = 'other' | 'batch' | 'idle' | 'fifo' | 'rr'

export function policyFromName(name: PolicyName | undefined): number {
  switch (name) {
    case 'fifo': return SCHED_FIFO
    case 'rr': return SCHED_RR
    case 'batch': return SCHED_BATCH
    case 'idle': return SCHED_IDLE
    default: return SCHED_NORMAL
  }
}

export function isRtPolicy(policy: number): boolean {
  return policy === SCHED_FIFO || policy === SCHED_RR
}

/** Wake flags, with the kernel's values where it defines them. */
export { WF_EXEC, WF_FORK, WF_TTWU, WF_SYNC, WF_MIGRATED, WF_CURRENT_CPU, WF_RQ_SELECTED } from '../../shared/patch-api'

export interface TaskAttrs {
  /** Thread name as in traces, e.g. "cyclictest-0". */
  name: string
  /** Index of the owning workload in the scenario. */
  workload: number
  policy: number
  /** Nice value for fair policies (-20..19). */
  nice: number
  /** RT priority 1..99 for FIFO/RR. */
  rtPriority: number
  /** Custom slice in ns for fair tasks (sched_attr.sched_runtime); 0 = base slice. */
  sliceNs: number
  /** Allowed CPUs; null = all. */
  cpus: readonly number[] | null
  uclampMin: number
  uclampMax: number
  /** Time of the fork (the task first becomes runnable). */
  startNs: number
  /** Whether wakeup latencies of this task count in its workload's latency distribution. */
  recordLatency: boolean
  /** A kernel thread (PF_KTHREAD), e.g. a per-CPU kworker. */
  kthread?: boolean
  /**
   * prctl(PR_SET_TIMERSLACK): how late an hrtimer sleep of this task may fire. Default: the
   * kernel's 50 us for fair policies (kernel.timerSlackUs), 0 for RT policies.
   */
  timerSlackNs?: number
}

export interface TaskProgram {
  /** The task is on a CPU and needs its next action. Must end with exactly one terminal action. */
  step(task: number, k: TaskContext): void
  /** Called once when the task exits (after its last action). Optional. */
  exited?(task: number, k: TaskContext): void
}

/** What a task program can do. Implemented by the kernel model. */
export interface TaskContext {
  /** Current simulated time, ns. */
  readonly now: number
  /** CPU the calling task runs on. */
  cpuOf(task: number): number
  /** Terminal: execute `workNs` of CPU work (ns at capacity 1024, max frequency). */
  run(task: number, workNs: number): void
  /**
   * Terminal: execute `workNs` of CPU work in kernel mode (a syscall's work, a kernel thread's
   * section). Under preempt none/voluntary a reschedule waits for its end; under voluntary also
   * for the next of its might_resched() points, one every `pointEveryNs` of work (0: none).
   */
  runKernel(task: number, workNs: number, pointEveryNs?: number): void
  /**
   * Terminal: `ops` consecutive operations of `opNs` CPU work each that wake and block no one,
   * run as one (a coalesced batch); like run(task, ops * opNs), but its completion is ordered
   * among simultaneous events as the last operation's would be.
   */
  runOps(task: number, ops: number, opNs: number): void
  /** Terminal: stay busy for `wallNs` of wall time whatever the CPU speed (rt-app `runtime`). */
  runFor(task: number, wallNs: number): void
  /** Terminal: sleep on an hrtimer until `absNs`; latency is measured from `absNs`. */
  sleepUntil(task: number, absNs: number): void
  /** Terminal: relative sleep. */
  sleepFor(task: number, ns: number): void
  /** Terminal: sleep until another task wakes this one with `wake`. */
  block(task: number): void
  /**
   * The task's next wakeup is not a sample of its workload's latency: the tool being modeled
   * does not time it (schbench times only the message thread's wakeups, not its workers'
   * usleep or lock waits). Call before the sleep or block.
   */
  unmeasuredWakeup(task: number): void
  /** Terminal: sched_yield(). */
  yieldTask(task: number): void
  /** Terminal: the task exits. */
  exit(task: number): void
  /**
   * Wake a task blocked with `block` (try_to_wake_up from the calling task's CPU).
   * Returns false when the target was not sleeping (the wakeup is a no-op, as in the kernel).
   * `flags` may carry WF_SYNC.
   */
  wake(target: number, flags: number): boolean
  /** Fork a new task from the calling task's CPU (WF_FORK placement). Returns its id. */
  fork(attrs: TaskAttrs, program: TaskProgram): number
  /** sched_setattr-like changes, applied at once (rt-app phase properties). */
  setAttrs(task: number, change: Partial<Pick<TaskAttrs, 'policy' | 'nice' | 'rtPriority' | 'sliceNs' | 'uclampMin' | 'uclampMax'>>): void
  /** sched_setaffinity. */
  setAffinity(task: number, cpus: readonly number[] | null): void
  /** Deterministic uniform random number in [0, 1) from the run's seeded PRNG. */
  random(): number
  /** True when the task is blocked or sleeping. */
  isSleeping(task: number): boolean
  /**
   * Work (ns at capacity 1024; wall ns for `runFor`) left in the task's current run action as
   * of now, its progress on a CPU included. 0 when it is not running an action.
   */
  runLeft(task: number): number
  /**
   * Change the work left in the task's current run action (a coalesced batch of operations
   * ends earlier than planned); its completion moves accordingly. Not for the calling task.
   */
  setRunLeft(task: number, workNs: number): void
  /**
   * Add `workNs` at the end of the task's current run action (a coalesced batch of operations
   * goes on longer than planned): the progress made so far and the end of every operation
   * already planned stay exactly where they were. Not for the calling task.
   */
  extendRun(task: number, workNs: number): void
  /**
   * Operations of the task's current runOps batch not completed yet as of now (the one in
   * flight included). One ending at this very instant counts as completed when the
   * one-by-one run would have handled its end before the event being handled now.
   */
  runOpsLeft(task: number): number
  /**
   * An instant before which the count the last runOpsLeft() returned cannot drop: its
   * operation in flight progressing from now at the fastest rate any CPU has (a lower bound,
   * whether the task runs or waits for a CPU); now when it may drop at once.
   */
  opDoneNotBefore(): number
}
