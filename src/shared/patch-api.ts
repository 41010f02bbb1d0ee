/**
 * The patch module API: what a researcher's own scheduler change sees of the kernel model.
 *
 * A patch module is a TypeScript (or JavaScript) file whose default export is a `Patch`: a name,
 * optional `sched_feat`-style flags and numeric parameters of its own, and hooks on the model's
 * scheduling functions, named as the model names them after kernel/sched/fair.c and rt.c
 * (`placeEntity` is place_entity(), `pickEevdf` is pick_eevdf(), ...). A hook replaces the
 * function for the whole run and receives the original, so it can wrap it (do something, then
 * call `orig`) or rewrite it.
 *
 *     import { definePatch, ENQUEUE_WAKEUP } from 'schedlab/patch'
 *     export default definePatch({
 *       name: 'half-lag',
 *       params: { keep: { default: 0.5, min: 0, max: 1, doc: 'share of the lag a wakee keeps' } },
 *       hooks: {
 *         placeEntity(s, orig, cpu, se, flags) {
 *           if (flags & ENQUEUE_WAKEUP) s.task.vlag[se] = Math.trunc(s.task.vlag[se] * s.params.keep)
 *           orig(cpu, se, flags)
 *         }
 *       }
 *     })
 *
 * This file is the module `schedlab/patch` as the workbench's editor and `schedlab patch check`
 * know it, so it holds only types and constants. Units: time in integer nanoseconds, virtual
 * time (vruntime, deadline, vlag) in nanoseconds of a nice-0 task, weights on the 1024 scale,
 * PELT signals on the 1024 capacity scale. Task ids are the model's entity ids (`se`, `p`):
 * 0 .. s.ntasks - 1; CPU ids 0 .. s.ncpus - 1; -1 (`NIL`) is "none".
 */

/** No task / no entity (the kernel's NULL). */
export const NIL = -1

// enqueue_entity() / dequeue_entity() flags
export const ENQUEUE_WAKEUP = 0x01
export const ENQUEUE_RESTORE = 0x02
export const ENQUEUE_MIGRATED = 0x40
export const ENQUEUE_INITIAL = 0x80
export const ENQUEUE_DELAYED = 0x200
export const DEQUEUE_SLEEP = 0x01
export const DEQUEUE_SAVE = 0x02
export const DEQUEUE_SPECIAL = 0x10
export const DEQUEUE_MIGRATING = 0x100
export const DEQUEUE_DELAYED = 0x200

// try_to_wake_up() / select_task_rq() wake flags
export const WF_EXEC = 0x02
export const WF_FORK = 0x04
export const WF_TTWU = 0x08
export const WF_SYNC = 0x10
export const WF_MIGRATED = 0x20
export const WF_CURRENT_CPU = 0x40
export const WF_RQ_SELECTED = 0x80

// scheduling policies (task.policy)
export const SCHED_NORMAL = 0
export const SCHED_FIFO = 1
export const SCHED_RR = 2
export const SCHED_BATCH = 3
export const SCHED_IDLE = 5

// sched_domain flags (SchedDomain.flags)
export const SD_BALANCE_NEWIDLE = 1 << 0
export const SD_BALANCE_EXEC = 1 << 1
export const SD_BALANCE_FORK = 1 << 2
export const SD_BALANCE_WAKE = 1 << 3
export const SD_WAKE_AFFINE = 1 << 4
export const SD_ASYM_CPUCAPACITY = 1 << 5
export const SD_ASYM_CPUCAPACITY_FULL = 1 << 6
export const SD_SHARE_CPUCAPACITY = 1 << 7
export const SD_CLUSTER = 1 << 8
export const SD_SHARE_LLC = 1 << 9
export const SD_SERIALIZE = 1 << 10
export const SD_ASYM_PACKING = 1 << 11
export const SD_PREFER_SIBLING = 1 << 12
export const SD_OVERLAP = 1 << 13
export const SD_NUMA = 1 << 14

// the balancing CPU's state (schedBalanceRq's `idle`, LbEnv.idle)
export const CPU_NOT_IDLE = 0
export const CPU_IDLE = 1
export const CPU_NEWLY_IDLE = 2

/**
 * What checkPreemptWakeupFair returns: why it preempted or not (the explanation's reason
 * codes, docs/explain.md). A hook that rewrites it returns one of these.
 */
/** The wakee is the current task (a wakeup of a task still queued as running). */
export const WP_SELF = 6
/** A reschedule is already pending on that CPU: nothing more to decide. */
export const WP_RESCHED_PENDING = 7
/** The WAKEUP_PREEMPTION sched_feat is off. */
export const WP_NO_WAKEUP_PREEMPTION = 8
/** The current task is SCHED_IDLE and the wakee is not: preempt. */
export const WP_IDLE_POLICY_PREEMPTED = 9
/** SCHED_IDLE wakee, or one of the two SCHED_IDLE and not the other: no preemption. */
export const WP_IDLE_POLICY = 10
/** SCHED_BATCH wakees never preempt at wakeup. */
export const WP_BATCH = 11
/** The wakee is still sched_delayed (tip 2026): it does not preempt. */
export const WP_DELAYED = 12
/** A fork, or a delayed wakee, in the 6.19 NEXT_BUDDY form: no preemption check. */
export const WP_FORK_OR_DELAYED = 13
/** The NEXT_BUDDY rework decided not to preempt (preempt_sync: the waker has not run long enough, or a later deadline). */
export const WP_BUDDY_NO_PREEMPT = 14
/** The NEXT_BUDDY rework rescheduled (preempt_sync honoured WF_SYNC, or the current task is no longer eligible). */
export const WP_BUDDY_RESCHED = 15
/** PREEMPT_SHORT: a wakee with a shorter slice preempted, cancelling the current task's protection. */
export const WP_SHORT_PREEMPT = 16
/** pick_eevdf() would pick the wakee (eligible, earliest deadline): preempt. */
export const WP_PICK = 17
/** PREEMPT_SHORT applied but pick_eevdf() still did not choose the wakee. */
export const WP_SHORT_NOT_PICKED = 18
/** pick_eevdf() did not choose the wakee (the recorder tells why: protection, eligibility or deadline). */
export const WP_NOT_PICKED = 19

/** Per-task state (index: the task id). Arrays may be written where the doc says so. */
export interface TaskState {
  /** TASK_NEW 0, TASK_RUNNING 1 (runnable or running), TASK_SLEEPING 2, TASK_DEAD 3. Read only. */
  readonly state: Uint8Array
  /** SCHED_NORMAL, SCHED_FIFO, ... Read only (use the workload's policy). */
  readonly policy: Uint8Array
  /** task_cpu(): the CPU the task is on or last ran on. Read only. */
  readonly cpu: Int32Array
  /** se->on_rq: 1 while queued (curr included). Read only. */
  readonly onRq: Uint8Array
  /** RT priority (1-99) of FIFO/RR tasks. Read only. */
  readonly rtPrio: Int32Array
  /** se->load.weight (1024 = nice 0). Read only (reweighting is the core's). */
  readonly weight: Float64Array
  /** se->vruntime. Writable where the kernel writes it (placement), with the tree's rules: never for a queued entity other than curr. */
  readonly vruntime: Float64Array
  /** se->deadline (virtual). Writable like vruntime. */
  readonly deadline: Float64Array
  /** se->vlag: the lag stored at dequeue, applied at placement. Writable. */
  readonly vlag: Float64Array
  /** se->vprot: the vruntime up to which curr's slice is protected (RUN_TO_PARITY). Writable. */
  readonly vprot: Float64Array
  /** se->slice, ns. Writable. */
  readonly slice: Float64Array
  /** se->custom_slice: 1 when the task set its own slice (sched_attr.sched_runtime). Read only. */
  readonly customSlice: Uint8Array
  /** se->sched_delayed: 1 while dequeue is delayed (DELAY_DEQUEUE). Read only. */
  readonly schedDelayed: Uint8Array
  /** se->exec_start, ns. */
  readonly execStart: Float64Array
  /** se->sum_exec_runtime, ns. */
  readonly sumExec: Float64Array
  /** se->prev_sum_exec_runtime: sum_exec_runtime when the task was last picked, ns. */
  readonly prevSumExec: Float64Array
  /** Number of CPUs the task may run on. Read only. */
  readonly nrCpusAllowed: Int32Array
  /** uclamp_min / uclamp_max requests (0-1024). Read only. */
  readonly uclampMin: Int32Array
  readonly uclampMax: Int32Array
  /** p->wake_cpu's recent_used_cpu. Read only. */
  readonly recentUsedCpu: Int32Array
  /** PELT of the task's entity: se->avg.util_avg, load_avg, runnable_avg; util_est. Read only. */
  readonly utilAvg: Float64Array
  readonly loadAvg: Float64Array
  readonly runnableAvg: Float64Array
  readonly utilEst: Float64Array
  /** May the task run on the CPU (its affinity)? */
  allowed(task: number, cpu: number): boolean
  /** The task's name as results show it ("cyclictest-0"). */
  name(task: number): string
  /** The task's workload's name. */
  workload(task: number): string
}

/**
 * Per-CPU state (index: the CPU id): the rq and its single cfs_rq. "Read only" fields may be
 * written by a hook that ports kernel code doing the same (requeue_delayed_entity() lowers and
 * restores nr_queued around a placement), keeping the queue's invariants as that code does.
 */
export interface RqState {
  /** rq->curr: the running task, NIL when idle. Read only. */
  readonly curr: Int32Array
  /** rq->nr_running (all classes). Read only. */
  readonly nrRunning: Int32Array
  /** cfs_rq->curr: the fair entity being run (may be NIL or a non-queued entity). Read only. */
  readonly cfsCurr: Int32Array
  /** cfs_rq->next: the buddy pick_eevdf() prefers (NEXT_BUDDY). Writable (NIL clears it). */
  readonly next: Int32Array
  /** cfs_rq->nr_queued (h_nr_queued: fair entities queued, delayed ones included). Read only. */
  readonly nrQueued: Int32Array
  /** cfs_rq->h_nr_runnable: queued fair entities that are not delayed. Read only. */
  readonly nrRunnable: Int32Array
  /** cfs_rq->load.weight: sum of the queued entities' weights. Read only. */
  readonly load: Float64Array
  /** cfs_rq->zero_vruntime, sum_w_vruntime (relative to it) and sum_weight: avg_vruntime's terms, tree only. Read only. */
  readonly zeroVruntime: Float64Array
  readonly sumWVruntime: Float64Array
  readonly sumWeight: Float64Array
  /** need_resched: set on the CPU. Read only (use s.fn.reschedCurr). */
  readonly needResched: Uint8Array
  /** capacity_orig (arch_scale_cpu_capacity) and capacity_of() (after RT/IRQ pressure). Read only. */
  readonly capacityOrig: Int32Array
  readonly capacity: Float64Array
  /** cfs_rq PELT: util_avg, load_avg, runnable_avg; util_est of the queued tasks. Read only. */
  readonly utilAvg: Float64Array
  readonly loadAvg: Float64Array
  readonly runnableAvg: Float64Array
  readonly utilEst: Float64Array
  /** rq->avg_idle, ns. Read only. */
  readonly avgIdle: Float64Array
  /** idle_cpu(): no task running or queued, and no wakeup pending. */
  idle(cpu: number): boolean
}

/** The fair class's augmented rbtree of one CPU (curr is not in it, as in the kernel). */
export interface EevdfTreeView {
  /** The entity with the smallest vruntime (the tree is ordered by vruntime), NIL when empty. */
  first(cpu: number): number
  /** The root entity, NIL when empty. */
  root(cpu: number): number
  left(se: number): number
  right(se: number): number
  /** The subtree's min vruntime (the min_vruntime augmentation pick_eevdf descends with). */
  minVruntime(se: number): number
  /** Every entity of the tree in vruntime order. */
  forEach(cpu: number, fn: (se: number) => void): void
}

/** A sched domain of one CPU (read only). */
export interface SchedDomain {
  /** Topology level: SMT, CLS, MC, PKG, NODE, NUMA. */
  readonly name: string
  /** Depth in the CPU's chain, 0 = lowest. */
  readonly level: number
  /** The CPU whose domain this is. */
  readonly cpu: number
  /** SD_* flags. */
  readonly flags: number
  /** The CPUs it spans, and a 0/1 mask by CPU id. */
  readonly span: ArrayLike<number>
  readonly spanMask: ArrayLike<number>
  readonly spanWeight: number
  readonly parent: SchedDomain | null
  readonly child: SchedDomain | null
  /** groups[0] holds `cpu`. */
  readonly groups: readonly SchedGroup[]
  readonly imbalancePct: number
  readonly nrBalanceFailed: number
  readonly balanceInterval: number
  readonly maxNewidleLbCost: number
}

export interface SchedGroup {
  readonly cpus: ArrayLike<number>
  readonly mask: ArrayLike<number>
  readonly weight: number
  readonly firstCpu: number
  readonly flags: number
}

/** struct lb_env of one sched_balance_rq() pass (read only but for `imbalance` and `flags`). */
export interface LbEnv {
  readonly sd: SchedDomain
  readonly dstCpu: number
  readonly srcCpu: number
  /** CPU_NOT_IDLE, CPU_IDLE or CPU_NEWLY_IDLE. */
  readonly idle: number
  imbalance: number
  /** migrate_load 0, migrate_util 1, migrate_task 2, migrate_misfit 3. */
  readonly migrationType: number
  flags: number
  readonly loop: number
  readonly loopMax: number
}

/**
 * The model's functions as a patch calls them: each hookable one through the run's table (a
 * hook of this or another patch is what runs), and the helpers patches need to rewrite one.
 */
export interface SchedFunctions extends HookedFunctions {
  /** avg_vruntime(): V of the CPU's queue, curr included (rebases zero_vruntime, as the kernel). */
  avgVruntime(cpu: number): number
  /** vruntime_eligible(): v <= V, exactly. */
  vruntimeEligible(cpu: number, v: number): boolean
  /** entity_lag(): V - v of se clamped to the lag limit. */
  entityLag(cpu: number, se: number, V: number): number
  /** The lag clamp of entity_lag(), virtual ns. */
  lagLimit(cpu: number, se: number): number
  /** calc_delta_fair(): delta ns of wall time in se's virtual time. */
  calcDeltaFair(delta: number, weight: number): number
  /** cfs_rq_min_slice() / cfs_rq_max_slice(): over curr and the queue; Infinity / 0 when empty. */
  cfsRqMinSlice(cpu: number): number
  cfsRqMaxSlice(cpu: number): number
  /** protect_slice() / cancel_protect_slice() of curr. */
  protectSlice(se: number): boolean
  cancelProtectSlice(se: number): void
  /** resched_curr() and resched_curr_lazy(): ask the CPU to reschedule. */
  reschedCurr(cpu: number): void
  reschedCurrLazy(cpu: number): void
  /** __enqueue_entity() / __dequeue_entity(): into / out of the tree with avg_vruntime's sums. */
  enqueueTree(cpu: number, se: number): void
  dequeueTree(cpu: number, se: number): void
  /** The sched domains of a CPU, lowest first (empty on a single CPU). */
  domains(cpu: number): readonly SchedDomain[]
  /** The LLC's domain of a CPU (sd_llc), null on a single CPU. */
  sdLlc(cpu: number): SchedDomain | null
  /** ineligible_vruntime() (tip 2026): the first vruntime at which curr is no longer eligible. */
  ineligibleVruntime(cpu: number): number
  /**
   * pick_next_entity()'s end for a picked entity that is sched_delayed: finish its dequeue
   * (dequeue_entities(rq, se, DEQUEUE_SLEEP | DEQUEUE_DELAYED)); the caller then picks again.
   */
  dequeueDelayed(cpu: number, se: number): void
}

/** The hookable functions in the form a patch calls them (no kernel argument). */
export interface HookedFunctions {
  updateCurr(cpu: number): void
  updateDeadline(cpu: number, se: number): boolean
  entityEligible(cpu: number, se: number): boolean
  updateEntityLag(cpu: number, se: number): boolean
  decayEntityLag(cpu: number, se: number, flags: number): void
  placeEntity(cpu: number, se: number, flags: number): void
  setProtectSlice(cpu: number, se: number): void
  updateProtectSlice(cpu: number, se: number): void
  enqueueEntity(cpu: number, se: number, flags: number): void
  dequeueEntity(cpu: number, se: number, flags: number): boolean
  requeueDelayedEntity(cpu: number, se: number): void
  pickEevdf(cpu: number, protect: boolean): number
  pickNextEntity(cpu: number, protect: boolean): number
  checkPreemptWakeupFair(cpu: number, p: number, wakeFlags: number): number
  taskTickFair(cpu: number, queued: boolean): void
  yieldTaskFair(cpu: number, p: number): void
  selectTaskRqFair(p: number, prevCpu: number, wakeFlags: number, thisCpu: number): number
  wakeWide(p: number, cpu: number): boolean
  wakeAffine(sd: SchedDomain, p: number, thisCpu: number, prevCpu: number, sync: boolean): number
  selectIdleSibling(p: number, prev: number, target: number, wakeup: boolean): number
  selectIdleCpu(p: number, sd: SchedDomain, hasIdleCore: boolean, target: number): number
  selectIdleCapacity(p: number, sd: SchedDomain, target: number): number
  schedBalanceRq(dstCpu: number, sd: SchedDomain, idle: number, cont: { value: boolean }): number
  findBusiestQueue(env: LbEnv, group: SchedGroup): number
  canMigrateTask(env: LbEnv, p: number): boolean
  needActiveBalance(env: LbEnv): boolean
  schedBalanceNewidle(cpu: number): boolean
  checkUpdateOverutilized(cpu: number): void
  selectTaskRqRt(p: number, prevCpu: number, thisCpu: number): number
  findLowestRq(p: number, thisCpu: number): number
  pushRtTasks(cpu: number): void
  pullRtTask(cpu: number, prevPrio: number): void
}

export type HookName = keyof HookedFunctions

/** A hook: replaces the function `N` for the run; `orig` is what it replaced. */
export type Hook<N extends HookName> = HookedFunctions[N] extends (...args: infer A) => infer R
  ? (s: Sched, orig: (...args: A) => R, ...args: A) => R
  : never

export type Hooks = { [N in HookName]?: Hook<N> }

/** The kernel model as a patch sees it during a run (one per simulated kernel). */
export interface Sched {
  /** The simulated clock, ns. */
  readonly now: number
  readonly ncpus: number
  /** Tasks created so far (ids 0 .. ntasks - 1). */
  readonly ntasks: number
  /** The kernel profile: "6.6", "6.12", "6.17", "6.19" or "tip-2026". */
  readonly profile: string
  /** Is the profile this one or a later one (profileAtLeast('6.19') on 6.19 and tip-2026)? */
  profileAtLeast(profile: '6.6' | '6.12' | '6.17' | '6.19' | 'tip-2026'): boolean
  readonly hz: number
  readonly tickNs: number
  /** sysctl_sched_base_slice after CPU-count scaling, and unscaled. */
  readonly baseSliceNs: number
  readonly normBaseSliceNs: number
  /** sysctl_sched_migration_cost. */
  readonly migrationCostNs: number
  /** sched_feat flags and patch switches of this variant, this patch's own flags among them. Read only. */
  readonly feat: Readonly<Record<string, boolean>>
  /** This patch's parameters: each declared one, at the variant's value or its default. */
  readonly params: Readonly<Record<string, number>>
  /** The run's seeded random source, in [0, 1): use it, never Math.random, for reproducible runs. */
  random(): number
  /** Wakeups on this CPU's behalf (try_to_wake_up's this_cpu), -1 outside a CPU's work. */
  readonly thisCpu: number
  /** in_task(): the current work is a task's (a waker in task context), not an interrupt's. */
  readonly inTask: boolean
  /** Is the task in the fair class (SCHED_NORMAL, BATCH, IDLE)? */
  isFair(task: number): boolean
  readonly task: TaskState
  readonly rq: RqState
  readonly tree: EevdfTreeView
  /** The model's functions (hooked ones through the run's table). */
  readonly fn: SchedFunctions
  /** Count something: the counts appear in the run's result (variants[].counters, "patch.NAME"). */
  count(name: string, by?: number): void
  /** A warning in the run's result (each text once). */
  warn(text: string): void
}

/** A flag of the patch's own, as sched_feat flags are: `s.feat.NAME`; variants set it in "features". */
export interface PatchFeature {
  default: boolean
  doc?: string
}

/** A numeric parameter: `s.params.NAME`; variants set it in "patchParams", `--set` and sweeps reach it. */
export interface PatchParam {
  default: number
  min?: number
  max?: number
  /** Whole numbers only. */
  integer?: boolean
  doc?: string
}

export interface Patch {
  /** The name variants and results use (letters, digits, '-', '_', '.'). */
  name: string
  /** One line: what the patch changes. */
  description?: string
  /** Its own sched_feat-style flags (UPPER_CASE names). */
  features?: Record<string, PatchFeature>
  /** Its own numeric parameters (camelCase names). */
  params?: Record<string, PatchParam>
  /** Called once per run before the first event (e.g. to size per-task arrays). */
  init?(s: Sched): void
  hooks: Hooks
}

/** Identity, for the editor's types: `export default definePatch({ ... })`. */
export type DefinePatch = <P extends Patch>(patch: P) => P

/**
 * `export default definePatch({ ... })`: returns its argument; it only gives the editor the
 * patch's types. Provided by the runtime that loads a patch module.
 */
export declare const definePatch: DefinePatch
