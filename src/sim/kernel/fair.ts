/**
 * The fair class (EEVDF), after kernel/sched/fair.c. One function per scheduling decision,
 * named as in the kernel so the two can be read side by side.
 *
 * Model notes (see docs/model.md for the full list):
 * - One cfs_rq per CPU (no cgroup hierarchy): task entities are the only entities.
 * - Weights are on the 1024 scale (scale_load_down applied), and calc_delta_fair is the exact
 *   truncating division of 64-bit tip kernels.
 * - The avg_vruntime reference point is zero_vruntime (6.19+), pulled to V whenever
 *   avg_vruntime() runs, for every profile: for 6.6-6.17's min_vruntime reference this only
 *   changes how the floor division rounds, never a decision by more than 1 ns of vruntime.
 * - Seed patch switches act here in exactly one place each; their names are those of
 *   src/sim/patches (SS1_..., DD_NEGLAG, NB_..., IDLE_SEQ, DECAY_LAG_...).
 */
import type { Kernel } from './sched'
import { NIL } from './eevdf-tree'
import { calcDeltaFair, floorDiv, truncDiv } from './weights'
import { P_6_12, P_6_17, P_6_19, P_TIP26 } from './features'
import { SCHED_BATCH, SCHED_IDLE, WF_FORK, WF_RQ_SELECTED, WF_SYNC } from './api'
import {
  WP_BATCH, WP_BUDDY_NO_PREEMPT, WP_BUDDY_RESCHED, WP_DELAYED, WP_FORK_OR_DELAYED, WP_IDLE_POLICY,
  WP_IDLE_POLICY_PREEMPTED, WP_NO_WAKEUP_PREEMPTION, WP_NOT_PICKED, WP_PICK, WP_RESCHED_PENDING, WP_SELF,
  WP_SHORT_NOT_PICKED, WP_SHORT_PREEMPT
} from './recording'

export {
  ENQUEUE_WAKEUP, ENQUEUE_RESTORE, ENQUEUE_MIGRATED, ENQUEUE_INITIAL, ENQUEUE_DELAYED,
  DEQUEUE_SLEEP, DEQUEUE_SAVE, DEQUEUE_SPECIAL, DEQUEUE_MIGRATING, DEQUEUE_DELAYED
} from '../../shared/patch-api'
import {
  ENQUEUE_WAKEUP, ENQUEUE_MIGRATED, ENQUEUE_INITIAL, ENQUEUE_DELAYED,
  DEQUEUE_SLEEP, DEQUEUE_SPECIAL, DEQUEUE_DELAYED
} from '../../shared/patch-api'

/** Outcome of the wakeup-preemption decision (the kernel's preempt_wakeup_action). */
const PREEMPT_WAKEUP_NONE = 0
const PREEMPT_WAKEUP_SHORT = 1
const PREEMPT_WAKEUP_PICK = 2
const PREEMPT_WAKEUP_RESCHED = 3
const PREEMPT_WAKEUP_NEXT = 4

const INF = Infinity

// ---------------------------------------------------------------------------------------------
// avg_vruntime, eligibility, lag
// ---------------------------------------------------------------------------------------------

// V, the zero-lag point. An entity i of weight w_i and vruntime v_i is owed the service
//   lag_i = w_i (V - v_i)
// and EEVDF keeps the lags of a queue summing to zero (the queue as a whole got what the ideal
// fluid scheduler would have given it):
//   Σ w_i (V - v_i) = 0   =>   V W = Σ w_i v_i   =>   V = Σ w_i v_i / W,   W = Σ w_i
// The v_i only grow, so Σ w_i v_i is large (the kernel's 64 bits would overflow); against any
// reference v0 (zero_vruntime) the same average is
//   V = Σ w_i (v0 + (v_i - v0)) / W = v0 + Σ w_i (v_i - v0) / W = v0 + S / W
// with S = Σ w_i (v_i - v0) (sumWVruntime) and W (sumWeight) kept as entities enter and leave
// the tree (avgVruntimeAdd/Sub below); curr, out of the tree while it runs, is added on the fly
// (sumsWithCurr). Moving the reference by d changes every term by -w_i d:
//   S' = Σ w_i (v_i - (v0 + d)) = S - W d
// which is how avgVruntime() rebases v0 on V each time it runs, keeping S small.

/** __enqueue_entity's share of avg_vruntime_add: tree entities only, curr excluded. */
function avgVruntimeAdd(k: Kernel, cpu: number, se: number): void {
  const w = k.weight[se]
  k.sumWVruntime[cpu] += (k.vruntime[se] - k.zeroVruntime[cpu]) * w
  k.sumWeight[cpu] += w
}

function avgVruntimeSub(k: Kernel, cpu: number, se: number): void {
  const w = k.weight[se]
  k.sumWVruntime[cpu] -= (k.vruntime[se] - k.zeroVruntime[cpu]) * w
  k.sumWeight[cpu] -= w
}

// scratch results of sumsWithCurr (module-level so the hot path returns two values without allocating)
let accS = 0
let accW = 0

/** S and W over the tree plus curr when it is queued, relative to zero_vruntime. */
function sumsWithCurr(k: Kernel, cpu: number): void {
  const curr = k.cfsCurr[cpu]
  accS = k.sumWVruntime[cpu]
  accW = k.sumWeight[cpu]
  if (curr !== NIL && k.onRq[curr] !== 0) {
    const wc = k.weight[curr]
    accS += (k.vruntime[curr] - k.zeroVruntime[cpu]) * wc
    accW += wc
  }
}

/**
 * avg_vruntime(): V = v0 + S / W (derived above), the weighted average vruntime of the queue
 * including curr. The division rounds toward -infinity (for S < 0 too, where a plain integer
 * division would round up), so V never lies above the exact average. Pulls zero_vruntime to V
 * (S -= W * delta) so sums stay small.
 */
export function avgVruntime(k: Kernel, cpu: number): number {
  sumsWithCurr(k, cpu)
  const v0 = k.zeroVruntime[cpu]
  if (accW === 0) return v0
  const V = v0 + floorDiv(accS, accW)
  // update_zero_vruntime(): rebase the tree sums on V
  const delta = V - v0
  if (delta !== 0) {
    k.sumWVruntime[cpu] -= k.sumWeight[cpu] * delta
    k.zeroVruntime[cpu] = V
  }
  return V
}

/**
 * vruntime_eligible(): v <= V without the division's rounding. With W > 0,
 *   v <= v0 + S / W   <=>   (v - v0) W <= S
 * so an entity is eligible (lag >= 0) exactly when its weighted distance from v0 is at most S.
 */
export function vruntimeEligible(k: Kernel, cpu: number, v: number): boolean {
  sumsWithCurr(k, cpu)
  return accS >= (v - k.zeroVruntime[cpu]) * accW
}

export function entityEligible(k: Kernel, cpu: number, se: number): boolean {
  return vruntimeEligible(k, cpu, k.vruntime[se])
}

/** cfs_rq_min_slice(): the smallest slice among queued entities and curr; Infinity when empty. */
export function cfsRqMinSlice(k: Kernel, cpu: number): number {
  const curr = k.cfsCurr[cpu]
  let m = INF
  if (curr !== NIL && k.onRq[curr] !== 0) m = k.slice[curr]
  const root = k.tree.root[cpu]
  if (root !== NIL && k.tree.minSlice[root] < m) m = k.tree.minSlice[root]
  return m
}

/** cfs_rq_max_slice(): the largest slice among queued entities and curr; 0 when empty. */
export function cfsRqMaxSlice(k: Kernel, cpu: number): number {
  const curr = k.cfsCurr[cpu]
  let m = 0
  if (curr !== NIL && k.onRq[curr] !== 0) m = k.slice[curr]
  const root = k.tree.root[cpu]
  if (root !== NIL && k.tree.maxSlice[root] > m) m = k.tree.maxSlice[root]
  return m
}

/**
 * The lag clamp of entity_lag(), in virtual time: max(2 * slice, TICK_NSEC) until 6.19, the
 * queue's max slice + TICK_NSEC from "sched/fair: Fix lag clamp" (tip 2026, 7.0; also in 6.18.y
 * stable).
 *
 * Why a clamp, and why this size. In EEVDF proper (Stoica et al.) a client's lag stays within
 * the largest request of the queue, give or take one quantum: -r_max < lag < max(r_max, q).
 * V here, as in the kernel, is the weighted average of whoever is queued, not the fluid
 * scheduler's virtual time: it moves when entities join, leave or change weight, so V - v can
 * drift past what EEVDF allows, and an entity that slept with a large lag would claim (or pay
 * back) all of it at once. The stored lag is therefore bounded by
 * `limit` ns of the entity's own run time. vlag = V - v is the lag per unit of weight: the run
 * time it stands for is vlag * w / NICE_0_LOAD ns (vruntime advances by ns * NICE_0_LOAD / w), so
 *   |vlag * w / NICE_0_LOAD| <= limit   <=>   |vlag| <= limit * NICE_0_LOAD / w
 * which is calc_delta_fair(limit, se).
 * The older limit is the entity's own request (twice it, and at least a tick, the granularity at
 * which curr's overrun is noticed); the newer one is the queue's largest request plus a tick,
 * EEVDF's own bound: a short-slice entity waiting behind a long slice is owed up to that slice,
 * more than twice its own (why the model's invariant check holds queued lags to the clamp only
 * from the fix on: invariants.ts).
 */
export function lagLimit(k: Kernel, cpu: number, se: number): number {
  const limit = k.cfg.prof >= P_TIP26
    ? cfsRqMaxSlice(k, cpu) + k.cfg.tickNs
    : Math.max(2 * k.slice[se], k.cfg.tickNs)
  return calcDeltaFair(limit, k.weight[se])
}

/** entity_lag(): V - v clamped to the lag limit. */
export function entityLag(k: Kernel, cpu: number, se: number, V: number): number {
  const L = lagLimit(k, cpu, se)
  const lag = V - k.vruntime[se]
  return lag > L ? L : lag < -L ? -L : lag
}

/**
 * update_entity_lag(): store se's lag at dequeue time. With DD_NEGLAG (seed 002, merged in
 * tip 2026-04) a delayed entity's negative lag cannot grow while it waits and it cannot gain
 * positive lag with DELAY_ZERO. Returns whether the stored lag differs from V - v (the
 * entity must be re-placed).
 */
export function updateEntityLag(k: Kernel, cpu: number, se: number): boolean {
  const V = avgVruntime(k, cpu)
  let vlag = entityLag(k, cpu, se, V)
  const raw = vlag
  if (k.f.DD_NEGLAG && k.schedDelayed[se] !== 0) {
    if (vlag < k.vlag[se]) vlag = k.vlag[se]
    if (k.f.DELAY_ZERO && vlag > 0) vlag = 0
  }
  k.vlag[se] = vlag
  if (k.f.IDLE_SEQ) k.vlagSeq[se] = k.idleSeq[cpu]
  return k.f.DD_NEGLAG ? raw !== vlag : V - vlag !== k.vruntime[se]
}

// ---------------------------------------------------------------------------------------------
// Placement
// ---------------------------------------------------------------------------------------------

/**
 * Seed 000 patches 4-5 and their alternatives: what a waking entity keeps of its positive lag.
 * Runs on ENQUEUE_WAKEUP before the entity is placed (enqueue_task_fair's decay_entity_lag).
 */
export function decayEntityLag(k: Kernel, cpu: number, se: number, flags: number): void {
  const f = k.f
  if (f.IDLE_SEQ && k.vlagSeq[se] !== k.idleSeq[cpu]) {
    // Peter's idle_seq alternative: the queue emptied while se slept, its lag is stale.
    k.vlag[se] = 0
    return
  }
  if (!(f.SS4_DECAY_POS_LAG || f.SS5_RESET_LAG_IDLE || f.DECAY_LAG_WW || f.DECAY_LAG_LOADAVG || f.SSV2_RESET_LAG_IDLE)) return
  const vlag = k.vlag[se]
  if (vlag <= 0) return // negative lag implies delayed dequeue
  if (f.SS5_RESET_LAG_IDLE && k.curr[cpu] === NIL) {
    // "You can't claim any lag when waking on idle CPU" (the corrected version clears se->vlag)
    k.vlag[se] = 0
    return
  }
  if (flags & ENQUEUE_MIGRATED) return
  if (f.SSV2_RESET_LAG_IDLE && k.idleEnterTs[cpu] > k.execStart[se]) {
    // v2: the CPU went idle while se slept, so nobody could have been owed service
    k.vlag[se] = 0
    return
  }
  const sleep = k.now - k.execStart[se]
  if (sleep <= 0) return
  let decay: number
  if (f.DECAY_LAG_LOADAVG) {
    // v2 / reviewer alternative: rate from the queue's PELT load average, which over-estimates
    // rather than under-estimates the weight se competed with during its sleep
    if (f.SSV2_LAG_EXPIRE && sleep > LAG_EXPIRE_NS) decay = vlag
    else decay = floorDiv(sleep * 1024, k.cfsLoadAvg[cpu] + k.weight[se])
  } else if (f.DECAY_LAG_WW) {
    // reviewer alternative: had se stayed runnable it would have had a w/(W+w) share
    decay = floorDiv(sleep * 1024, k.cfsLoad[cpu] + k.weight[se])
  } else if (f.SS4_DECAY_POS_LAG) {
    decay = calcDeltaFair(sleep, k.weight[se])
  } else {
    return
  }
  k.vlag[se] = vlag - decay > 0 ? vlag - decay : 0
}

/** Seed 001 digest: positive lag is gone entirely after a sleep longer than 4 s. */
const LAG_EXPIRE_NS = 4_000_000_000

/** place_entity(): set vruntime and deadline of an entity joining the queue. */
export function placeEntity(k: Kernel, cpu: number, se: number, flags: number): void {
  const V = avgVruntime(k, cpu)
  const f = k.f
  if (k.customSlice[se] === 0) k.slice[se] = k.cfg.baseSliceNs
  let vslice = calcDeltaFair(k.slice[se], k.weight[se])
  let lag = 0
  const queued = k.cfg.prof >= P_6_12 ? k.cfsNrQueued[cpu] : k.cfsNrRunnable[cpu]
  if (f.PLACE_LAG && queued > 0 && k.vlag[se] !== 0) {
    lag = k.vlag[se]
    const curr = k.cfsCurr[cpu]
    let load = k.sumWeight[cpu]
    if (curr !== NIL && k.onRq[curr] !== 0) load += k.weight[curr]
    if (load === 0) load = 1
    // Inflate the lag so that, once se's own weight joins V, its realised lag equals vlag.
    // Placing se (weight w) at v = V - l in a queue of weight W (load) moves the average:
    //   V' = (W V + w (V - l)) / (W + w) = V - w l / (W + w)
    // so right after, se's lag is
    //   V' - v = l - w l / (W + w) = l W / (W + w)
    // smaller than l: se's own weight drags V towards it. Placing at l = vlag (W + w) / W gives
    //   V' - v = vlag (W + w) / W * W / (W + w) = vlag
    // The division truncates toward zero, as the kernel's does.
    lag = truncDiv(lag * (load + k.weight[se]), load)
  }
  k.vruntime[se] = V - lag
  if (f.PLACE_REL_DEADLINE && k.relDeadline[se] !== 0) {
    k.deadline[se] += k.vruntime[se]
    k.relDeadline[se] = 0
    return
  }
  if (f.PLACE_DEADLINE_INITIAL && (flags & ENQUEUE_INITIAL)) vslice = floorDiv(vslice, 2)
  k.deadline[se] = k.vruntime[se] + vslice
}

// ---------------------------------------------------------------------------------------------
// Runtime accounting
// ---------------------------------------------------------------------------------------------

/** update_deadline(): renew the request once vruntime passes the deadline. */
export function updateDeadline(k: Kernel, cpu: number, se: number): boolean {
  if (k.vruntime[se] < k.deadline[se]) return false
  if (k.customSlice[se] === 0) k.slice[se] = k.cfg.baseSliceNs
  k.deadline[se] = k.vruntime[se] + calcDeltaFair(k.slice[se], k.weight[se])
  if (k.cfg.prof >= P_6_19) avgVruntime(k, cpu)
  return true
}

/** update_curr(): charge the running entity for the time since exec_start. */
export function updateCurr(k: Kernel, cpu: number): void {
  const curr = k.cfsCurr[cpu]
  if (curr === NIL) return
  const delta = k.now - k.execStart[curr]
  if (delta <= 0) return
  k.execStart[curr] = k.now
  k.sumExec[curr] += delta
  if (k.fairServer !== null) k.fairServer.account(cpu, delta)
  k.vruntime[curr] += calcDeltaFair(delta, k.weight[curr])
  const resched = k.fn.updateDeadline(k, cpu, curr)
  if (k.cfsNrQueued[cpu] === 1) return
  const prof = k.cfg.prof
  if (prof >= P_6_17) {
    if (resched || !protectSlice(k, curr)) {
      k.reschedCurrLazy(cpu)
      clearBuddies(k, cpu, curr)
    }
  } else if (prof >= P_6_12) {
    // 6.12: also when a short wakeup cancelled the protection and curr is now ineligible
    // (did_preempt_short(), gated by PREEMPT_SHORT)
    if (resched || (k.f.PREEMPT_SHORT && k.vprot[curr] !== k.deadline[curr] && !k.fn.entityEligible(k, cpu, curr))) {
      k.reschedCurrLazy(cpu)
      clearBuddies(k, cpu, curr)
    }
  } else if (resched) {
    k.reschedCurrLazy(cpu)
    clearBuddies(k, cpu, curr)
  }
}

function clearBuddies(k: Kernel, cpu: number, se: number): void {
  if (k.cfsNext[cpu] === se) k.cfsNext[cpu] = NIL
}

// ---------------------------------------------------------------------------------------------
// Slice protection (vprot)
// ---------------------------------------------------------------------------------------------

/**
 * ineligible_vruntime() (tip 2026): the first vruntime at which curr stops being eligible,
 * computed over the tree (curr excluded): v0 + floor(S/W) + 1.
 */
export function ineligibleVruntime(k: Kernel, cpu: number): number {
  const w = k.sumWeight[cpu]
  const v0 = k.zeroVruntime[cpu]
  if (w === 0) return v0 + 1
  return v0 + floorDiv(k.sumWVruntime[cpu], w) + 1
}

/** protect_slice(): is curr still inside its protected run? */
export function protectSlice(k: Kernel, se: number): boolean {
  if (k.cfg.prof < P_6_17) return k.vprot[se] === k.deadline[se]
  return k.vruntime[se] < k.vprot[se]
}

export function cancelProtectSlice(k: Kernel, se: number): void {
  if (k.cfg.prof < P_6_17) {
    if (k.vprot[se] === k.deadline[se]) k.vprot[se] = k.deadline[se] + 1
    return
  }
  if (protectSlice(k, se)) k.vprot[se] = k.vruntime[se]
}

/** set_protect_slice(): at pick time, how long se may run before wakeups can preempt it. */
export function setProtectSlice(k: Kernel, cpu: number, se: number): void {
  const prof = k.cfg.prof
  const f = k.f
  if (prof < P_6_17) {
    // 6.6-6.12: protected until the deadline renews
    k.vprot[se] = k.deadline[se]
    return
  }
  let slice = f.RUN_TO_PARITY ? cfsRqMinSlice(k, cpu) : k.cfg.normBaseSliceNs
  if (slice > k.slice[se]) slice = k.slice[se]
  let vprot = k.deadline[se]
  if (slice !== k.slice[se]) {
    const byMinSlice = k.vruntime[se] + calcDeltaFair(slice, k.weight[se])
    if (f.SS1_VPROT_MINSLICE) {
      // seed 000/1: never beyond a min slice, then PREEMPT_SHORT further caps at ineligibility
      if (byMinSlice < vprot) vprot = byMinSlice
      if (f.PREEMPT_SHORT) {
        const iv = ineligibleVruntime(k, cpu)
        if (iv < vprot) vprot = iv
      }
    } else if (prof >= P_TIP26 && f.PREEMPT_SHORT) {
      const iv = ineligibleVruntime(k, cpu)
      if (iv < vprot) vprot = iv
    } else if (byMinSlice < vprot) {
      vprot = byMinSlice
    }
  }
  k.vprot[se] = vprot
  if (k.onSetProtect !== null) k.onSetProtect(cpu, se)
}

/** update_protect_slice(): a wakeup that did not preempt shortens curr's protection. */
export function updateProtectSlice(k: Kernel, cpu: number, se: number): void {
  const prof = k.cfg.prof
  if (prof < P_6_17) return
  const f = k.f
  let v = k.vruntime[se]
  if (prof >= P_TIP26 || f.SS2_ALIGN_UPDATE) {
    const V = avgVruntime(k, cpu)
    if (V < v) v = V
  }
  let slice = cfsRqMinSlice(k, cpu)
  if (f.SS2_ALIGN_UPDATE && !f.RUN_TO_PARITY) slice = k.cfg.normBaseSliceNs
  let vprot = v + calcDeltaFair(slice, k.weight[se])
  if (k.vprot[se] < vprot) vprot = k.vprot[se]
  if (f.SS2_ALIGN_UPDATE && f.PREEMPT_SHORT && slice !== k.slice[se]) {
    const iv = ineligibleVruntime(k, cpu)
    if (iv < vprot) vprot = iv
  }
  k.vprot[se] = vprot
}

// ---------------------------------------------------------------------------------------------
// Enqueue / dequeue
// ---------------------------------------------------------------------------------------------

export function enqueueTree(k: Kernel, cpu: number, se: number): void {
  avgVruntimeAdd(k, cpu, se)
  k.tree.insert(cpu, se)
}

export function dequeueTree(k: Kernel, cpu: number, se: number): void {
  k.tree.remove(cpu, se)
  avgVruntimeSub(k, cpu, se)
}

/** enqueue_entity() */
export function enqueueEntity(k: Kernel, cpu: number, se: number, flags: number): void {
  const isCurr = k.cfsCurr[cpu] === se
  if (isCurr) k.fn.placeEntity(k, cpu, se, flags)
  k.fn.updateCurr(k, cpu)
  k.hooks.enqueueEntityLoad(cpu, se, flags)
  if (!isCurr) k.fn.placeEntity(k, cpu, se, flags)
  k.cfsLoad[cpu] += k.weight[se]
  k.cfsNrQueued[cpu]++
  k.cfsTasksAdd(cpu, se)
  if (!isCurr) enqueueTree(k, cpu, se)
  k.onRq[se] = 1
}

/**
 * dequeue_entity(). Returns false when the entity stays queued as sched_delayed
 * (DELAY_DEQUEUE: an ineligible entity that goes to sleep keeps competing until its lag is
 * paid back or it is picked).
 */
export function dequeueEntity(k: Kernel, cpu: number, se: number, flags: number): boolean {
  const f = k.f
  k.fn.updateCurr(k, cpu)
  clearBuddies(k, cpu, se)
  if (!(flags & DEQUEUE_DELAYED)) {
    const sleep = (flags & DEQUEUE_SLEEP) !== 0 && (flags & DEQUEUE_SPECIAL) === 0
    if (f.DELAY_DEQUEUE && sleep && !k.fn.entityEligible(k, cpu, se)) {
      k.hooks.dequeueEntityLoad(cpu, se, flags, true)
      if (f.DD_NEGLAG) k.fn.updateEntityLag(k, cpu, se)
      k.schedDelayed[se] = 1
      k.nrDelayed++
      if (k.onDelayed !== null) k.onDelayed(cpu, se)
      if (k.rec !== null) k.rec.delayed(cpu, se)
      k.cfsNrRunnable[cpu]--
      return false
    }
  }
  k.hooks.dequeueEntityLoad(cpu, se, flags, false)
  k.fn.updateEntityLag(k, cpu, se)
  if (f.PLACE_REL_DEADLINE && !(flags & DEQUEUE_SLEEP)) {
    k.deadline[se] -= k.vruntime[se]
    k.relDeadline[se] = 1
  }
  if (se !== k.cfsCurr[cpu]) dequeueTree(k, cpu, se)
  k.onRq[se] = 0
  k.cfsLoad[cpu] -= k.weight[se]
  k.cfsNrQueued[cpu]--
  k.cfsTasksDel(cpu, se)
  if (flags & DEQUEUE_DELAYED) {
    k.schedDelayed[se] = 0
    // before the seed 002 fix (6.12 - 7.0) DELAY_ZERO acted here, after the lag update
    if (!f.DD_NEGLAG && f.DELAY_ZERO && k.vlag[se] > 0) k.vlag[se] = 0
  }
  if (k.cfsNrQueued[cpu] === 0) k.idleSeq[cpu]++
  return true
}

/** requeue_delayed_entity(): a delayed entity is woken while still queued. */
export function requeueDelayedEntity(k: Kernel, cpu: number, se: number): void {
  const f = k.f
  k.fn.updateCurr(k, cpu)
  let replace = false
  if (f.DD_NEGLAG) {
    replace = k.fn.updateEntityLag(k, cpu, se)
  } else if (f.DELAY_ZERO) {
    k.fn.updateEntityLag(k, cpu, se)
    if (k.vlag[se] > 0) {
      k.vlag[se] = 0
      replace = true
    }
  }
  if (replace) {
    const isCurr = se === k.cfsCurr[cpu]
    k.cfsNrQueued[cpu]--
    if (!isCurr) dequeueTree(k, cpu, se)
    k.fn.placeEntity(k, cpu, se, 0)
    if (!isCurr) enqueueTree(k, cpu, se)
    k.cfsNrQueued[cpu]++
  }
  k.hooks.requeueDelayedLoad(cpu, se)
  k.schedDelayed[se] = 0
  k.cfsNrRunnable[cpu]++
}

/** enqueue_task_fair(). The core has already set task_cpu. */
export function enqueueTaskFair(k: Kernel, cpu: number, p: number, flags: number): void {
  if (flags & ENQUEUE_DELAYED) {
    k.fn.requeueDelayedEntity(k, cpu, p)
    refreshRqMinSlice(k, cpu)
    if (k.onFairEnqueue !== null) k.onFairEnqueue(cpu, p, flags)
    return
  }
  if ((flags & ENQUEUE_WAKEUP) && k.onRq[p] === 0) k.fn.decayEntityLag(k, cpu, p, flags)
  k.fn.enqueueEntity(k, cpu, p, flags)
  // a delayed task moved by the balancer stays delayed: queued, not runnable
  if (k.schedDelayed[p] === 0 && k.cfsNrRunnable[cpu]++ === 0 && k.fairServer !== null) k.fairServer.start(cpu)
  refreshRqMinSlice(k, cpu)
  if (k.onFairEnqueue !== null) k.onFairEnqueue(cpu, p, flags)
  hrtickUpdate(k, cpu)
}

/** hrtick_update(): after an enqueue or dequeue, re-arm the hrtick of a running fair task. */
function hrtickUpdate(k: Kernel, cpu: number): void {
  const curr = k.curr[cpu]
  if (k.f.HRTICK && curr !== NIL && k.cfsCurr[cpu] === curr) hrtickStartFair(k, cpu, curr)
}

/**
 * dequeue_task_fair(). Returns false when the task stays queued as sched_delayed.
 */
export function dequeueTaskFair(k: Kernel, cpu: number, p: number, flags: number): boolean {
  const wasDelayed = k.schedDelayed[p] !== 0
  const done = k.fn.dequeueEntity(k, cpu, p, flags)
  if (done && !wasDelayed) k.cfsNrRunnable[cpu]--
  if (k.cfsNrQueued[cpu] === 0 && k.fairServer !== null) k.fairServer.stop(cpu)
  refreshRqMinSlice(k, cpu)
  if (done) hrtickUpdate(k, cpu)
  return done
}

/** SS6 (seed 000/6): the per-CPU cached min slice, refreshed after every fair enqueue/dequeue. */
export function refreshRqMinSlice(k: Kernel, cpu: number): void {
  k.rqMinSlice[cpu] = cfsRqMinSlice(k, cpu)
}

/** reweight_entity(): nice change of a task. */
export function reweightTask(k: Kernel, cpu: number, se: number, newWeight: number): void {
  const old = k.weight[se]
  if (old === newWeight) return
  if (k.onRq[se] === 0) {
    k.vlag[se] = truncDiv(k.vlag[se] * old, newWeight)
    if (k.relDeadline[se] !== 0) k.deadline[se] = truncDiv(k.deadline[se] * old, newWeight)
    k.weight[se] = newWeight
    return
  }
  const isCurr = se === k.cfsCurr[cpu]
  if (isCurr) k.fn.updateCurr(k, cpu)
  const V = avgVruntime(k, cpu)
  let vlag = entityLag(k, cpu, se, V)
  let drel = k.deadline[se] - V
  let vprotRel = k.vprot[se] - V
  const protectedNow = isCurr && protectSlice(k, se)
  if (!isCurr) dequeueTree(k, cpu, se)
  k.cfsLoad[cpu] -= old
  vlag = truncDiv(vlag * old, newWeight)
  drel = truncDiv(drel * old, newWeight)
  vprotRel = truncDiv(vprotRel * old, newWeight)
  k.weight[se] = newWeight
  k.cfsLoad[cpu] += newWeight
  k.vruntime[se] = V - vlag
  k.deadline[se] = V + drel
  if (protectedNow) k.vprot[se] = V + vprotRel
  if (!isCurr) enqueueTree(k, cpu, se)
}

// ---------------------------------------------------------------------------------------------
// Pick
// ---------------------------------------------------------------------------------------------

/**
 * pick_eevdf(): the eligible entity with the earliest deadline, O(log n) thanks to the
 * min_vruntime augmentation; curr competes with its own deadline and may be kept while its
 * slice is protected.
 */
export function pickEevdf(k: Kernel, cpu: number, protect: boolean): number {
  const tree = k.tree
  const f = k.f
  const prof = k.cfg.prof
  let curr = k.cfsCurr[cpu]
  if (k.cfsNrQueued[cpu] === 1) return curr !== NIL && k.onRq[curr] !== 0 ? curr : tree.first(cpu)
  if (curr !== NIL && k.onRq[curr] === 0) curr = NIL
  if (prof >= P_6_19 || f.NB_POSTED) {
    // the NEXT_BUDDY rework (6.19, and seed 003 as posted) moved the buddy check into
    // __pick_eevdf before the protection test, for every caller; the 7.0 fix (tip 2026)
    // gates it by protect, so a short wakeup's pick no longer returns an old buddy
    const next = k.cfsNext[cpu]
    const gate = prof >= P_TIP26 && !f.NB_POSTED ? protect : true
    if (f.PICK_BUDDY && gate && next !== NIL && k.fn.entityEligible(k, cpu, next)) return next
  }
  if (curr !== NIL && !k.fn.entityEligible(k, cpu, curr)) curr = NIL
  if (curr !== NIL && protect && (prof >= P_6_17 || f.RUN_TO_PARITY) && protectSlice(k, curr)) return curr
  let best = NIL
  const leftmost = tree.first(cpu)
  if (leftmost !== NIL && k.fn.entityEligible(k, cpu, leftmost)) {
    best = leftmost
  } else {
    let node = tree.root[cpu]
    while (node !== NIL) {
      const left = tree.left[node]
      if (left !== NIL && vruntimeEligible(k, cpu, tree.minV[left])) {
        node = left
        continue
      }
      if (k.fn.entityEligible(k, cpu, node)) {
        best = node
        break
      }
      node = tree.right[node]
    }
  }
  if (best === NIL || (curr !== NIL && k.deadline[curr] < k.deadline[best])) best = curr
  return best
}

/**
 * pick_next_entity(): pick_eevdf plus, before 6.19, the buddy check; a picked delayed entity
 * finishes its dequeue and NIL is returned so the caller picks again.
 */
export function pickNextEntity(k: Kernel, cpu: number, protect: boolean): number {
  let se = NIL
  const prof = k.cfg.prof
  if (prof < P_6_19 && !k.f.NB_POSTED) {
    const next = k.cfsNext[cpu]
    const buddyOk = prof >= P_6_17 ? k.f.PICK_BUDDY : k.f.NEXT_BUDDY
    if (buddyOk && next !== NIL && k.fn.entityEligible(k, cpu, next)) se = next
  }
  if (se === NIL) se = k.fn.pickEevdf(k, cpu, protect)
  if (se !== NIL && k.schedDelayed[se] !== 0) {
    k.delayedPicked(cpu, se)
    return NIL
  }
  return se
}

/** set_next_entity(): se becomes curr; its protection starts when `first`. */
export function setNextEntity(k: Kernel, cpu: number, se: number, first: boolean): void {
  clearBuddies(k, cpu, se)
  if (k.onRq[se] !== 0) {
    dequeueTree(k, cpu, se)
    k.hooks.setNextLoad(cpu, se)
  }
  k.cfsCurr[cpu] = se
  if (first && k.onRq[se] !== 0) k.fn.setProtectSlice(k, cpu, se)
  k.execStart[se] = k.now
  k.prevSumExec[se] = k.sumExec[se]
}

/** __set_next_task_fair() after set_next_entity(): a first pick arms the hrtick. */
export function setNextTaskFair(k: Kernel, cpu: number, p: number, first: boolean): void {
  setNextEntity(k, cpu, p, first)
  if (first && k.f.HRTICK) hrtickStartFair(k, cpu, p)
}

/** put_prev_entity(): curr goes back into the tree (if still queued). */
export function putPrevEntity(k: Kernel, cpu: number, se: number): void {
  if (k.onRq[se] !== 0) {
    k.fn.updateCurr(k, cpu)
    enqueueTree(k, cpu, se)
    k.hooks.putPrevLoad(cpu, se)
  }
  k.cfsCurr[cpu] = NIL
}

// ---------------------------------------------------------------------------------------------
// Wakeup preemption
// ---------------------------------------------------------------------------------------------

function isIdlePolicy(k: Kernel, t: number): boolean {
  return k.policy[t] === SCHED_IDLE
}

/**
 * set_preempt_buddy() (6.19 form): p becomes cfs_rq->next unless an existing buddy has an
 * earlier deadline. Returns whether p was set.
 */
function setPreemptBuddy(k: Kernel, cpu: number, pse: number): boolean {
  if (isIdlePolicy(k, pse)) return false
  const next = k.cfsNext[cpu]
  if (next !== NIL && next !== pse && k.deadline[next] < k.deadline[pse]) return false
  k.cfsNext[cpu] = pse
  return true
}

/** set_short_buddy() (tip 2026), with seed 000/3's tie rule as SS3_SHORT_BUDDY_TIE. */
function setShortBuddy(k: Kernel, cpu: number, pse: number): void {
  const next = k.cfsNext[cpu]
  if (next !== NIL && next !== pse) {
    if (k.slice[next] < k.slice[pse]) return
    if (k.f.SS3_SHORT_BUDDY_TIE && k.slice[next] === k.slice[pse] && k.deadline[next] < k.deadline[pse]) return
  }
  k.cfsNext[cpu] = pse
}

/** preempt_sync(): WF_SYNC is a hint; honour it once the waker has run for a while. */
function preemptSync(k: Kernel, se: number, pse: number, wakeFlags: number): number {
  let delta = k.now - k.execStart[se]
  if (delta < 0) delta = 0
  let thr = k.cfg.migrationCostNs
  if (wakeFlags & WF_RQ_SELECTED) thr = Math.floor(thr / 4)
  if (k.deadline[pse] < k.deadline[se] && delta >= thr) return PREEMPT_WAKEUP_RESCHED
  return PREEMPT_WAKEUP_NONE
}

/**
 * __do_preempt_buddy() as posted in "Reimplement NEXT_BUDDY to align with EEVDF goals" v4
 * (seed 003, NB_POSTED): runs for every non-short wakeup.
 */
function doPreemptBuddyPosted(k: Kernel, cpu: number, se: number, pse: number, wakeFlags: number): number {
  if ((wakeFlags & WF_FORK) || k.schedDelayed[pse] !== 0) return PREEMPT_WAKEUP_NONE
  // only a waker in task context, not an interrupt's wakeup (in_task())
  if (k.inTask && !k.fn.entityEligible(k, cpu, se)) return PREEMPT_WAKEUP_RESCHED
  const next = k.cfsNext[cpu]
  if (next !== NIL && next !== pse && k.deadline[next] < k.deadline[pse]) return PREEMPT_WAKEUP_NEXT
  k.cfsNext[cpu] = pse
  if (wakeFlags & WF_SYNC) return preemptSync(k, se, pse, wakeFlags)
  return PREEMPT_WAKEUP_NEXT
}

/**
 * check_preempt_wakeup_fair(): should the waking fair task p preempt the running fair task?
 * Mainline 6.19 flow, with the 6.6-6.17 and tip-2026 differences and seed 003's NEXT_BUDDY
 * reimplementation (NB_POSTED as posted, NB_MERGED as restructured by the maintainer with the
 * later-reverted "waker no longer eligible" reschedule).
 * Returns why it decided (a WP_* code of ./recording, for the decision recorder).
 */
export function checkPreemptWakeupFair(k: Kernel, cpu: number, p: number, wakeFlags: number): number {
  const f = k.f
  const prof = k.cfg.prof
  const tip = prof >= P_TIP26
  const se = k.curr[cpu]
  if (se === NIL || se === p) return WP_SELF
  if (k.needResched[cpu] !== 0 && !(tip && f.PREEMPT_SHORT)) return WP_RESCHED_PENDING
  if (!f.WAKEUP_PREEMPTION) return WP_NO_WAKEUP_PREEMPTION
  const newBuddy = prof >= P_6_19 || f.NB_POSTED || f.NB_MERGED
  if (!newBuddy && f.NEXT_BUDDY && !(wakeFlags & WF_FORK) && k.schedDelayed[p] === 0) k.cfsNext[cpu] = p

  const currIdle = isIdlePolicy(k, se)
  const pIdle = isIdlePolicy(k, p)
  if (currIdle && !pIdle) {
    preemptFair(k, cpu, se, p, PREEMPT_WAKEUP_SHORT)
    return WP_IDLE_POLICY_PREEMPTED
  }
  if (currIdle !== pIdle || pIdle) return WP_IDLE_POLICY
  if (k.policy[p] === SCHED_BATCH) return WP_BATCH
  if (tip && k.schedDelayed[p] !== 0) return WP_DELAYED
  k.fn.updateCurr(k, cpu)

  let action = PREEMPT_WAKEUP_PICK
  if (prof >= P_6_12 && f.PREEMPT_SHORT && k.slice[p] < k.slice[se] && (prof !== P_6_12 || doPreemptShort(k, cpu, p, se))) {
    action = PREEMPT_WAKEUP_SHORT
  } else if (f.NB_POSTED) {
    action = doPreemptBuddyPosted(k, cpu, se, p, wakeFlags)
    if (action === PREEMPT_WAKEUP_NEXT) action = PREEMPT_WAKEUP_PICK
  } else if (prof >= P_6_19 || f.NB_MERGED) {
    if ((wakeFlags & WF_FORK) || k.schedDelayed[p] !== 0) return WP_FORK_OR_DELAYED
    if (f.NB_MERGED && k.inTask && !k.fn.entityEligible(k, cpu, se)) action = PREEMPT_WAKEUP_RESCHED
    else if (f.NEXT_BUDDY && setPreemptBuddy(k, cpu, p) && (wakeFlags & WF_SYNC)) action = preemptSync(k, se, p, wakeFlags)
  }
  if (action === PREEMPT_WAKEUP_NONE) return WP_BUDDY_NO_PREEMPT
  if (action === PREEMPT_WAKEUP_RESCHED) {
    preemptFair(k, cpu, se, p, action)
    return WP_BUDDY_RESCHED
  }

  // 6.12 cancelled the protection before the pick, for good
  if (prof === P_6_12 && action === PREEMPT_WAKEUP_SHORT) cancelProtectSlice(k, se)
  const nse = k.fn.pickEevdf(k, cpu, action !== PREEMPT_WAKEUP_SHORT)
  if (nse === p || (tip && action === PREEMPT_WAKEUP_SHORT && k.fn.entityEligible(k, cpu, p))) {
    preemptFair(k, cpu, se, p, action)
    return action === PREEMPT_WAKEUP_SHORT ? WP_SHORT_PREEMPT : WP_PICK
  }
  if (prof === P_6_17) {
    if (f.RUN_TO_PARITY && action === PREEMPT_WAKEUP_SHORT) k.fn.updateProtectSlice(k, cpu, se)
  } else if (prof >= P_6_19 || f.NB_POSTED) {
    if (f.RUN_TO_PARITY) k.fn.updateProtectSlice(k, cpu, se)
  }
  return action === PREEMPT_WAKEUP_SHORT ? WP_SHORT_NOT_PICKED : WP_NOT_PICKED
}

function preemptFair(k: Kernel, cpu: number, se: number, p: number, action: number): void {
  const tip = k.cfg.prof >= P_TIP26
  if (action === PREEMPT_WAKEUP_SHORT || tip) cancelProtectSlice(k, se)
  if (action === PREEMPT_WAKEUP_SHORT && tip) {
    setShortBuddy(k, cpu, p)
    // 7.0 fix of the NEXT_BUDDY rework: the preempted curr is no buddy any more
    clearBuddies(k, cpu, se)
  }
  k.reschedCurrLazy(cpu)
}

/**
 * do_preempt_short() (6.12): a shorter-slice wakee may cancel curr's protection only if it is
 * eligible and has the earlier deadline, or curr is no longer eligible.
 */
function doPreemptShort(k: Kernel, cpu: number, pse: number, se: number): boolean {
  if (!k.fn.entityEligible(k, cpu, pse)) return false
  return k.deadline[pse] < k.deadline[se] || !k.fn.entityEligible(k, cpu, se)
}

// ---------------------------------------------------------------------------------------------
// Tick, hrtick, yield
// ---------------------------------------------------------------------------------------------

/** task_tick_fair() / entity_tick(). `queued` = this tick is the hrtick expiry. */
export function taskTickFair(k: Kernel, cpu: number, queued: boolean): void {
  k.fn.updateCurr(k, cpu)
  const curr = k.cfsCurr[cpu]
  if (curr !== NIL) k.hooks.tickLoad(cpu, curr)
  if (k.cfg.prof >= P_6_19) avgVruntime(k, cpu)
  if (queued) k.reschedCurrLazy(cpu)
}

/** hrtick_start_fair(): arm a timer at the end of curr's slice. */
export function hrtickStartFair(k: Kernel, cpu: number, p: number): void {
  if (k.cfsNrQueued[cpu] <= 1) return
  const ran = k.sumExec[p] - k.prevSumExec[p] + (k.cfsCurr[cpu] === p ? k.now - k.execStart[p] : 0)
  const delta = k.slice[p] - ran
  if (delta < 0) {
    if (k.curr[cpu] === p) k.reschedCurr(cpu)
    return
  }
  k.armHrtick(cpu, k.now + Math.max(delta, 10_000))
}

/**
 * yield_task_fair(): until 6.17 the yielding task only gets the next slice (deadline +=
 * vslice); from 6.19 an eligible one also forfeits the rest of its request (vruntime jumps to
 * its deadline, then the deadline is renewed).
 */
export function yieldTaskFair(k: Kernel, cpu: number, p: number): void {
  if (k.nrRunning[cpu] <= 1) return
  clearBuddies(k, cpu, p)
  k.fn.updateCurr(k, cpu)
  if (k.cfg.prof < P_6_19) {
    k.deadline[p] += calcDeltaFair(k.slice[p], k.weight[p])
    return
  }
  if (k.fn.entityEligible(k, cpu, p)) {
    k.vruntime[p] = k.deadline[p]
    k.fn.updateDeadline(k, cpu, p)
  }
}

/** Snapshot used by the debug invariant checker: V recomputed from scratch. */
export function recomputeAvg(k: Kernel, cpu: number): { s: number; w: number } {
  let s = 0
  let w = 0
  const v0 = k.zeroVruntime[cpu]
  k.tree.forEach(cpu, (n) => {
    s += (k.vruntime[n] - v0) * k.weight[n]
    w += k.weight[n]
  })
  return { s, w }
}
