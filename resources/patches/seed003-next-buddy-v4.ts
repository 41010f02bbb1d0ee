/**
 * Seed 003 as a patch module: "Reimplement NEXT_BUDDY to align with EEVDF goals" v4 (Mel Gorman),
 * as posted. Written against 6.19 and tip, the kernels it was posted for; on older profiles it
 * changes nothing and says so. With the variant's NEXT_BUDDY flag on, it gives the same results,
 * byte for byte, as the built-in `next-buddy-v4` (NEXT_BUDDY + NB_POSTED).
 *
 * What the series changes, and where this module does it:
 * - check_preempt_wakeup_fair(): every wakeup that is not a short-slice one goes through
 *   __do_preempt_buddy(): a waker in task context that is no longer eligible is rescheduled; an
 *   existing buddy with an earlier deadline is kept; otherwise the wakee becomes the buddy, and
 *   a WF_SYNC wakeup preempts once the waker has run for the migration cost (a quarter of it
 *   when the wakeup chose this runqueue). Then pick_eevdf() decides as before, and RUN_TO_PARITY
 *   shortens curr's protection when the wakee did not preempt.
 * - pick_eevdf(): the buddy is taken first, for every caller: also for a wakeup's pick with
 *   protection off (tip's 7.0 fix gates it by protect; the posted series does not).
 */
import {
  definePatch, NIL, SCHED_BATCH, SCHED_IDLE, WF_FORK, WF_RQ_SELECTED, WF_SYNC,
  WP_BATCH, WP_BUDDY_NO_PREEMPT, WP_BUDDY_RESCHED, WP_DELAYED, WP_IDLE_POLICY, WP_IDLE_POLICY_PREEMPTED,
  WP_NO_WAKEUP_PREEMPTION, WP_NOT_PICKED, WP_PICK, WP_RESCHED_PENDING, WP_SELF, WP_SHORT_NOT_PICKED, WP_SHORT_PREEMPT,
  type Sched
} from 'schedlab/patch'

// enum preempt_wakeup_action
const NONE = 0
const SHORT = 1
const PICK = 2
const RESCHED = 3
const NEXT = 4

/** preempt_sync(): honour WF_SYNC once the waker has run for a while. */
function preemptSync(s: Sched, se: number, pse: number, wakeFlags: number): number {
  let delta = s.now - s.task.execStart[se]
  if (delta < 0) delta = 0
  let threshold = s.migrationCostNs
  if (wakeFlags & WF_RQ_SELECTED) threshold = Math.floor(threshold / 4)
  return s.task.deadline[pse] < s.task.deadline[se] && delta >= threshold ? RESCHED : NONE
}

/** __do_preempt_buddy() as posted. */
function doPreemptBuddy(s: Sched, cpu: number, se: number, pse: number, wakeFlags: number): number {
  if ((wakeFlags & WF_FORK) || s.task.schedDelayed[pse]) return NONE
  if (s.inTask && !s.fn.entityEligible(cpu, se)) return RESCHED
  const next = s.rq.next[cpu]
  if (next !== NIL && next !== pse && s.task.deadline[next] < s.task.deadline[pse]) return NEXT
  s.rq.next[cpu] = pse
  if (wakeFlags & WF_SYNC) return preemptSync(s, se, pse, wakeFlags)
  return NEXT
}

/** set_short_buddy() (tip 2026), with seed 000/3's tie rule when that switch is on. */
function setShortBuddy(s: Sched, cpu: number, pse: number): void {
  const next = s.rq.next[cpu]
  if (next !== NIL && next !== pse) {
    if (s.task.slice[next] < s.task.slice[pse]) return
    if (s.feat.SS3_SHORT_BUDDY_TIE && s.task.slice[next] === s.task.slice[pse] && s.task.deadline[next] < s.task.deadline[pse]) return
  }
  s.rq.next[cpu] = pse
}

function preemptFair(s: Sched, cpu: number, se: number, p: number, action: number): void {
  const tip = s.profileAtLeast('tip-2026')
  if (action === SHORT || tip) s.fn.cancelProtectSlice(se)
  if (action === SHORT && tip) {
    setShortBuddy(s, cpu, p)
    if (s.rq.next[cpu] === se) s.rq.next[cpu] = NIL
  }
  s.fn.reschedCurrLazy(cpu)
}

export default definePatch({
  name: 'seed003-next-buddy-v4',
  description: 'NEXT_BUDDY reimplemented (v4 as posted): __do_preempt_buddy for every non-short wakeup, the buddy picked first inside pick_eevdf.',
  init(s) {
    if (!s.profileAtLeast('6.19')) s.warn('seed003-next-buddy-v4 is written against 6.19 and tip: on this profile it changes nothing')
  },
  hooks: {
    pickEevdf(s, orig, cpu, protect) {
      // the buddy first, whatever protect says (with protect, the model's own check does it)
      if (!protect && s.profileAtLeast('6.19') && s.feat.PICK_BUDDY && s.rq.nrQueued[cpu] !== 1) {
        const next = s.rq.next[cpu]
        if (next !== NIL && s.fn.entityEligible(cpu, next)) return next
      }
      return orig(cpu, protect)
    },
    checkPreemptWakeupFair(s, orig, cpu, p, wakeFlags) {
      if (!s.profileAtLeast('6.19')) return orig(cpu, p, wakeFlags)
      const t = s.task
      const f = s.feat
      const tip = s.profileAtLeast('tip-2026')
      const se = s.rq.curr[cpu]
      if (se === NIL || se === p) return WP_SELF
      if (s.rq.needResched[cpu] !== 0 && !(tip && f.PREEMPT_SHORT)) return WP_RESCHED_PENDING
      if (!f.WAKEUP_PREEMPTION) return WP_NO_WAKEUP_PREEMPTION
      const currIdle = t.policy[se] === SCHED_IDLE
      const pIdle = t.policy[p] === SCHED_IDLE
      if (currIdle && !pIdle) {
        preemptFair(s, cpu, se, p, SHORT)
        return WP_IDLE_POLICY_PREEMPTED
      }
      if (currIdle !== pIdle || pIdle) return WP_IDLE_POLICY
      if (t.policy[p] === SCHED_BATCH) return WP_BATCH
      if (tip && t.schedDelayed[p]) return WP_DELAYED
      s.fn.updateCurr(cpu)

      let action = PICK
      if (f.PREEMPT_SHORT && t.slice[p] < t.slice[se]) {
        action = SHORT
      } else {
        action = doPreemptBuddy(s, cpu, se, p, wakeFlags)
        if (action === NEXT) action = PICK
      }
      if (action === NONE) return WP_BUDDY_NO_PREEMPT
      if (action === RESCHED) {
        preemptFair(s, cpu, se, p, action)
        return WP_BUDDY_RESCHED
      }
      const nse = s.fn.pickEevdf(cpu, action !== SHORT)
      if (nse === p || (tip && action === SHORT && s.fn.entityEligible(cpu, p))) {
        preemptFair(s, cpu, se, p, action)
        return action === SHORT ? WP_SHORT_PREEMPT : WP_PICK
      }
      if (f.RUN_TO_PARITY) s.fn.updateProtectSlice(cpu, se)
      return action === SHORT ? WP_SHORT_NOT_PICKED : WP_NOT_PICKED
    }
  }
})
