/**
 * The seam between the kernel model and the decision recorder (src/sim/metrics/recorder.ts).
 *
 * The kernel holds `rec: KernelRecorder | null`, null unless someone asked for explanations or
 * a Perfetto trace. Every decision point tests it once (`if (k.rec !== null) k.rec.x(...)`) and
 * passes plain numbers: nothing is computed or allocated for the recorder when it is off. The
 * recorder reads what else it needs from the kernel's arrays, read-only, at the moment of the
 * call: what it records never changes what the model does.
 *
 * The WP_* values are the outcomes of wakeup_preempt() (core.ts wakeupPreempt and fair.ts
 * checkPreemptWakeupFair return them); docs/explain.md documents the reason code each maps to.
 * Those of the fair class are part of the patch module API (src/shared/patch-api.ts).
 */

/** The wakee found its CPU without a current task (idle, or exiting idle): it runs as soon as the CPU can. */
export const WP_IDLE_CPU = 1
/** An RT wakee preempts a fair (or idle-class) current task: class precedence. */
export const WP_RT_PREEMPTS_FAIR = 2
/** An RT wakee of higher priority preempts the running RT task. */
export const WP_RT_HIGHER_PRIO = 3
/** An RT wakee whose priority is not above the running RT task's waits. */
export const WP_RT_NOT_HIGHER = 4
/** A fair wakee cannot preempt an RT (or stopper) task. */
export const WP_FAIR_UNDER_RT = 5
export {
  WP_SELF, WP_RESCHED_PENDING, WP_NO_WAKEUP_PREEMPTION, WP_IDLE_POLICY_PREEMPTED, WP_IDLE_POLICY, WP_BATCH, WP_DELAYED,
  WP_FORK_OR_DELAYED, WP_BUDDY_NO_PREEMPT, WP_BUDDY_RESCHED, WP_SHORT_PREEMPT, WP_PICK, WP_SHORT_NOT_PICKED, WP_NOT_PICKED
} from '../../shared/patch-api'

/** Load-balance outcomes passed to KernelRecorder.balanced (sched_balance_rq's exits). */
export const LB_BALANCED = 0
export const LB_ALL_PINNED = 1
export const LB_ONE_PINNED = 2
export const LB_DONE = 3

/** What the kernel tells the recorder, at the kernel's own decision points. */
export interface KernelRecorder {
  /** __schedule() picked `next` on cpu (it may be prev: nothing switches). Before the switch. */
  schedule(cpu: number, prev: number, next: number, yielding: boolean): void
  /** pick_next_entity() chose se; curr and the tree are as the pick saw them. */
  pickFair(cpu: number, se: number): void
  /** The RT class supplied the next task (pick_task_rt). */
  pickRt(cpu: number, p: number): void
  /** Nothing runnable after newidle balance: the CPU goes idle. */
  pickIdle(cpu: number): void
  /** A sched_delayed entity was picked: its dequeue finishes (pick_next_entity). */
  delayedPicked(cpu: number, se: number): void
  /** dequeue_entity(): an ineligible task went to sleep and stays queued as sched_delayed. */
  delayed(cpu: number, se: number): void
  /** try_to_wake_up() of p: runnable from `latencyFrom` (the hrtimer's requested expiry, or now). */
  wakeup(p: number, waker: number, latencyFrom: number): void
  /** TTWU_QUEUE: the activation of p goes to cpu's wake list (done by its IPI). */
  wakeList(cpu: number, p: number): void
  /** select_task_rq_fair() chose cpu; `scanned` CPUs were examined; recent_used_cpu before the call. */
  selectFair(p: number, prevCpu: number, thisCpu: number, wakeFlags: number, cpu: number, scanned: number, recentBefore: number): void
  /** wake_affine() chose between this CPU and prev. */
  wakeAffine(p: number, thisCpu: number, prevCpu: number, target: number): void
  /** find_energy_efficient_cpu() evaluated cpu: the energy the task would add there (NaN: not evaluated), its fitness. */
  feecCandidate(p: number, cpu: number, energyDelta: number, fits: number): void
  /** select_task_rq() result for any class (after the fallback). */
  selected(p: number, prevCpu: number, wakeFlags: number, cpu: number): void
  /** wakeup_preempt() of p against curr on cpu, with its outcome (WP_*). After the decision. */
  wakeupPreempt(cpu: number, p: number, curr: number, why: number): void
  /** resched_curr() / resched_curr_lazy() on cpu: `lazy` when it waits for the tick. */
  resched(cpu: number, lazy: boolean): void
  /**
   * A pending reschedule is not acted on yet: the CPU runs kernel code that this preemption
   * model does not preempt (none, voluntary; lazy only at the return to user mode).
   */
  reschedDeferred(cpu: number): void
  /** The running task reached a preemption point (its kernel section ended, might_resched()): the pending reschedule happens now. */
  preemptionPoint(cpu: number): void
  /** The stopper waits for the running kernel section to end (a non-preemptible kernel). */
  stopperDeferred(cpu: number): void
  /** sched_tick() ran on cpu (after the class tick and the lazy reschedule check). */
  tick(cpu: number): void
  /** The hrtick expired on cpu (the fair slice end). */
  hrtick(cpu: number): void
  /** The CPU enters idle state `state` (index into its cluster's idle states). */
  idleEnter(cpu: number, state: number): void
  /** The CPU leaves its idle state; it can execute again at readyAt. */
  idleExit(cpu: number, readyAt: number): void
  /** p's hrtimer fires on cpu (requested for requestedNs; the slack makes it late). */
  timerFired(p: number, cpu: number, requestedNs: number): void
  /** set_task_cpu() moved p between CPUs. */
  migrate(p: number, from: number, to: number): void
  /** The load balancer detached p from src toward dst (idle type, domain name, migration type, active balance). */
  lbMove(p: number, src: number, dst: number, idleType: number, sd: string, migrationType: number, active: boolean): void
  /** sched_balance_rq() on dst over domain sd ended (LB_*), having moved `moved` tasks; busiest is the last source (-1: none). */
  balanced(dst: number, sd: string, idleType: number, outcome: number, moved: number, busiest: number): void
  /** RT push (push true) or pull of p from src to dst. */
  rtMove(p: number, src: number, dst: number, push: boolean): void
  /** The stopper preempts prev on cpu (active balance, affinity change). */
  stopper(cpu: number, prev: number): void
  /** A latency sample of p: runnable at readyNs, running at ranNs on cpu. */
  sample(p: number, readyNs: number, ranNs: number, cpu: number): void
}
