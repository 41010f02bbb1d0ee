/**
 * Every function a patch module may hook: its kernel counterpart, where the model calls it, its
 * arguments and what a hook may change. docs/patches.md's hook reference is generated from
 * this table (scripts/docs-patches.mts), and `schedlab patch check` and the editor check hook
 * names against it.
 */
import type { HookName } from '../../shared/patch-api'

export interface HookPoint {
  name: HookName
  /** The kernel function it models, with its file. */
  kernel: string
  /** Arguments as the hook receives them after (s, orig). */
  args: string
  returns: string
  /** What the function decides, in a sentence or two. */
  doc: string
  /** What a hook may change, and what the caller relies on. */
  contract: string
  /** The model's file that holds the original. */
  file: string
  /** The first argument of the model's own function: the kernel, or the fair scheduler's state. */
  on: 'kernel' | 'fair'
}

export const HOOK_POINTS: readonly HookPoint[] = [
  {
    name: 'updateCurr', kernel: 'update_curr() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu', returns: 'void',
    doc: 'Charges the CPU\'s running fair entity for the time since exec_start: sum_exec_runtime, vruntime, the deadline\'s renewal, and the reschedule once the slice is used or protection ends.',
    contract: 'Called 3-4 times per context switch: keep it cheap. It must leave exec_start at now when it charged.'
  },
  {
    name: 'updateDeadline', kernel: 'update_deadline() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se', returns: 'boolean: the request was renewed',
    doc: 'Renews se\'s request (deadline = vruntime + vslice) once vruntime has passed the deadline.',
    contract: 'May change se\'s slice and deadline. Returning true makes update_curr reschedule.'
  },
  {
    name: 'entityEligible', kernel: 'entity_eligible() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se', returns: 'boolean',
    doc: 'Is se eligible: its vruntime at or before the queue\'s weighted average V (lag >= 0)? pick_eevdf\'s descent of the tree uses vruntime_eligible() on subtree minima, which this hook does not change.',
    contract: 'Must not change state. Called in every pick and preemption check.'
  },
  {
    name: 'updateEntityLag', kernel: 'update_entity_lag() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se', returns: 'boolean: the stored lag differs from V - vruntime (the entity must be placed again)',
    doc: 'Stores se\'s lag (V - vruntime, clamped) in vlag when it leaves the queue, and when a delayed entity is requeued.',
    contract: 'May change se\'s vlag. The return value matters when a delayed entity is woken (requeueDelayedEntity).'
  },
  {
    name: 'decayEntityLag', kernel: 'the wakeup\'s lag decay of seed 000 patches 4-5 (enqueue_task_fair)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se, flags', returns: 'void',
    doc: 'Runs on a wakeup enqueue before placement: what a waking entity keeps of its positive lag. The model as it is keeps all of it (mainline); seed 000\'s patches and the reviewers\' alternatives decay it.',
    contract: 'May change se\'s vlag.'
  },
  {
    name: 'placeEntity', kernel: 'place_entity() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se, flags (ENQUEUE_*)', returns: 'void',
    doc: 'Sets vruntime and deadline of an entity joining the queue: vruntime = V - lag (the stored lag inflated by the queue\'s weight, PLACE_LAG), deadline = vruntime + vslice (half for a new task with PLACE_DEADLINE_INITIAL).',
    contract: 'Must set se\'s vruntime and deadline. The entity is not in the tree yet (enqueueEntity inserts it after).'
  },
  {
    name: 'setProtectSlice', kernel: 'set_protect_slice() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se', returns: 'void',
    doc: 'At a pick, how far se may run before wakeups can preempt it (vprot): to the deadline, or a minimum slice with RUN_TO_PARITY (6.17+).',
    contract: 'Sets se\'s vprot.'
  },
  {
    name: 'updateProtectSlice', kernel: 'update_protect_slice() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se', returns: 'void',
    doc: 'A wakeup that did not preempt shortens the running entity\'s protection.',
    contract: 'May lower se\'s vprot.'
  },
  {
    name: 'enqueueEntity', kernel: 'enqueue_entity() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se, flags (ENQUEUE_*)', returns: 'void',
    doc: 'Adds se to the CPU\'s cfs_rq: update_curr, PELT, placement, load and counts, the tree.',
    contract: 'A hook must call orig (the queue\'s bookkeeping is in it); it may change se\'s state before or after.'
  },
  {
    name: 'dequeueEntity', kernel: 'dequeue_entity() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se, flags (DEQUEUE_*)', returns: 'boolean: false when the entity stays queued as sched_delayed',
    doc: 'Removes se from the cfs_rq, storing its lag; with DELAY_DEQUEUE an ineligible sleeper stays queued (delayed) until its lag is paid or it is picked.',
    contract: 'A hook must call orig for the bookkeeping; it may change vlag after it.'
  },
  {
    name: 'requeueDelayedEntity', kernel: 'requeue_delayed_entity() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, se', returns: 'void',
    doc: 'A delayed entity is woken while still queued: its lag is updated (DELAY_ZERO drops positive lag) and it is placed again when the lag changed.',
    contract: 'A hook must call orig, or do what it does: clear sched_delayed and count the entity runnable again.'
  },
  {
    name: 'pickEevdf', kernel: 'pick_eevdf() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, protect', returns: 'the picked entity, or NIL',
    doc: 'The eligible entity with the earliest deadline; curr competes with its own deadline and is kept while its slice is protected (protect); the NEXT_BUDDY buddy first where the profile checks it here (6.19+).',
    contract: 'Must not change the tree. The picked entity must be queued (curr or in the tree). Also called by checkPreemptWakeupFair to decide whether a wakee preempts.'
  },
  {
    name: 'pickNextEntity', kernel: 'pick_next_entity() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, protect', returns: 'the entity to run next, or NIL (a picked delayed entity finished its dequeue: pick again)',
    doc: 'The schedule()\'s fair pick: the buddy before 6.19, then pick_eevdf; a picked delayed entity finishes its dequeue.',
    contract: 'Returns a queued entity or NIL.'
  },
  {
    name: 'checkPreemptWakeupFair', kernel: 'check_preempt_wakeup_fair() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, p (the wakee), wakeFlags (WF_*)', returns: 'a WP_* reason code (why it preempted or not)',
    doc: 'Should the woken fair task p preempt the CPU\'s running fair task? NEXT_BUDDY, PREEMPT_SHORT (a shorter slice cancels the protection), WF_SYNC, then pick_eevdf: p preempts when it would be picked.',
    contract: 'Preempting is s.fn.reschedCurrLazy(cpu) (or reschedCurr); it may set the buddy (s.rq.next) and cancel protection. Return a WP_* code (the explanation shows it).'
  },
  {
    name: 'taskTickFair', kernel: 'task_tick_fair() / entity_tick() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, queued (this tick is the hrtick\'s expiry)', returns: 'void',
    doc: 'The scheduler tick for a running fair task: update_curr (which reschedules at the slice\'s end), PELT.',
    contract: 'Call orig for the accounting.'
  },
  {
    name: 'yieldTaskFair', kernel: 'yield_task_fair() (fair.c)', file: 'src/sim/kernel/fair.ts', on: 'kernel',
    args: 'cpu, p', returns: 'void',
    doc: 'sched_yield() of a fair task: until 6.17 it gets the next slice (deadline += vslice); from 6.19 an eligible one forfeits the rest of its request.',
    contract: 'May change p\'s vruntime (p is curr, not in the tree) and deadline.'
  },
  {
    name: 'selectTaskRqFair', kernel: 'select_task_rq_fair() (fair.c)', file: 'src/sim/kernel/select.ts', on: 'fair',
    args: 'p, prevCpu, wakeFlags (WF_*), thisCpu (the waker\'s CPU)', returns: 'the CPU p is enqueued on',
    doc: 'Where a waking or forked fair task goes: EAS on asymmetric systems, wake_affine between the waker\'s and the previous CPU, then select_idle_sibling (or the slow path for forks and SD_BALANCE_WAKE).',
    contract: 'Must return a CPU p is allowed on (s.task.allowed).'
  },
  {
    name: 'wakeWide', kernel: 'wake_wide() (fair.c)', file: 'src/sim/kernel/select.ts', on: 'fair',
    args: 'p, cpu (the waker\'s CPU)', returns: 'boolean: spread the wakee (no affine wakeup)',
    doc: 'The waker/wakee flip counts say the two serve many partners: do not pull p to the waker.',
    contract: 'Must not change state.'
  },
  {
    name: 'wakeAffine', kernel: 'wake_affine() (fair.c)', file: 'src/sim/kernel/select.ts', on: 'fair',
    args: 'sd, p, thisCpu, prevCpu, sync', returns: 'the target CPU: thisCpu or prevCpu',
    doc: 'Between the waker\'s CPU and p\'s previous CPU: WA_IDLE, then WA_WEIGHT\'s load comparison.',
    contract: 'Return thisCpu or prevCpu; select_idle_sibling searches around it.'
  },
  {
    name: 'selectIdleSibling', kernel: 'select_idle_sibling() (fair.c)', file: 'src/sim/kernel/select.ts', on: 'fair',
    args: 'p, prev, target, wakeup (false for the fair push\'s search)', returns: 'the CPU',
    doc: 'An idle CPU near target: target itself, prev, recent_used_cpu, then a scan of the LLC (select_idle_cpu, or select_idle_capacity on asymmetric systems).',
    contract: 'Must return a CPU p is allowed on.'
  },
  {
    name: 'selectIdleCpu', kernel: 'select_idle_cpu() (fair.c)', file: 'src/sim/kernel/select.ts', on: 'fair',
    args: 'p, sd (the LLC), hasIdleCore, target', returns: 'an idle CPU, or -1',
    doc: 'The LLC scan for an idle CPU (or idle core), bounded by SIS_UTIL\'s budget.',
    contract: 'Return an allowed CPU or -1.'
  },
  {
    name: 'selectIdleCapacity', kernel: 'select_idle_capacity() (fair.c)', file: 'src/sim/kernel/select.ts', on: 'fair',
    args: 'p, sd, target', returns: 'a CPU, or -1',
    doc: 'On asymmetric-capacity systems: an idle CPU that fits p\'s utilization (with uclamp), else the best misfit.',
    contract: 'Return an allowed CPU or -1.'
  },
  {
    name: 'schedBalanceRq', kernel: 'sched_balance_rq() (fair.c, load_balance() before 6.10)', file: 'src/sim/kernel/balance.ts', on: 'fair',
    args: 'dstCpu, sd, idle (CPU_NOT_IDLE/CPU_IDLE/CPU_NEWLY_IDLE), cont ({ value }: set false to stop balancing higher domains)', returns: 'number of tasks pulled',
    doc: 'One load-balancing pass of dstCpu at domain sd: find the busiest group and queue, the imbalance, detach and attach tasks, active balance.',
    contract: 'Tasks are moved through orig; a hook can skip the pass (return 0) or adjust around it.'
  },
  {
    name: 'findBusiestQueue', kernel: 'sched_balance_find_src_rq() (fair.c, find_busiest_queue())', file: 'src/sim/kernel/balance.ts', on: 'fair',
    args: 'env, group', returns: 'the source CPU, or -1',
    doc: 'The runqueue of the busiest group to pull from, by the migration type.',
    contract: 'Return a CPU of the group, or -1.'
  },
  {
    name: 'canMigrateTask', kernel: 'can_migrate_task() (fair.c)', file: 'src/sim/kernel/balance.ts', on: 'fair',
    args: 'env, p', returns: 'boolean',
    doc: 'May the balancer move p from env.srcCpu to env.dstCpu: affinity, running, cache hotness (task_hot), delayed dequeue.',
    contract: 'Must not move p. May set env.flags as the kernel does (LBF_*).'
  },
  {
    name: 'needActiveBalance', kernel: 'need_active_balance() (fair.c)', file: 'src/sim/kernel/balance.ts', on: 'fair',
    args: 'env', returns: 'boolean',
    doc: 'After a pass that moved nothing: should the stopper push the running task (misfit, asym packing, repeated failures)?',
    contract: 'Must not change state.'
  },
  {
    name: 'schedBalanceNewidle', kernel: 'sched_balance_newidle() (fair.c)', file: 'src/sim/kernel/balance.ts', on: 'fair',
    args: 'cpu', returns: 'boolean: something was pulled (the CPU picks again)',
    doc: 'A CPU about to go idle looks for work in its domains, bounded by avg_idle against each domain\'s newidle cost (and NI_RANDOM\'s ratio in 6.19).',
    contract: 'Pulling is through schedBalanceRq.'
  },
  {
    name: 'checkUpdateOverutilized', kernel: 'check_update_overutilized_status() (fair.c)', file: 'src/sim/kernel/balance.ts', on: 'fair',
    args: 'cpu', returns: 'void',
    doc: 'Sets the root domain\'s overutilized state (which turns EAS off and balancing on) from the CPU\'s utilization.',
    contract: 'Call orig to keep EAS\'s state consistent.'
  },
  {
    name: 'selectTaskRqRt', kernel: 'select_task_rq_rt() (rt.c)', file: 'src/sim/kernel/rt.ts', on: 'kernel',
    args: 'p, prevCpu, thisCpu', returns: 'the CPU',
    doc: 'An RT task stays on its previous CPU unless a higher-or-equal priority RT task runs there (or it does not fit); then find_lowest_rq.',
    contract: 'Return an allowed CPU.'
  },
  {
    name: 'findLowestRq', kernel: 'find_lowest_rq() (rt.c)', file: 'src/sim/kernel/rt.ts', on: 'kernel',
    args: 'p, thisCpu', returns: 'a CPU of the lowest priority level, or -1',
    doc: 'cpupri_find\'s lowest-priority CPUs, preferring p\'s own CPU, then this CPU in a wake-affine domain, then a spread choice.',
    contract: 'Return an allowed CPU or -1.'
  },
  {
    name: 'pushRtTasks', kernel: 'push_rt_tasks() (rt.c)', file: 'src/sim/kernel/rt.ts', on: 'kernel',
    args: 'cpu', returns: 'void',
    doc: 'Moves waiting RT tasks of cpu to CPUs running lower-priority work.',
    contract: 'Moving is the core\'s: call orig, or skip it.'
  },
  {
    name: 'pullRtTask', kernel: 'pull_rt_task() (rt.c)', file: 'src/sim/kernel/rt.ts', on: 'kernel',
    args: 'cpu, prevPrio', returns: 'void',
    doc: 'cpu\'s priority dropped: take higher-priority RT work waiting elsewhere (or, with RT_PUSH_IPI, ask its CPU to push it).',
    contract: 'Moving is the core\'s: call orig, or skip it.'
  }
]

export const HOOK_NAMES: ReadonlySet<string> = new Set(HOOK_POINTS.map((h) => h.name))
