/**
 * Seed 002 as a patch module: "[PATCH v2] sched: fair: Prevent negative lag increase during
 * delayed dequeue" (Vincent Guittot). The built-in switch `dd-neglag` (DD_NEGLAG) does the same
 * inside the model; this module is the same change written against the patch API, and gives the
 * same results byte for byte (src/services/seed-patch-modules.test.ts).
 *
 * What the kernel patch does, hunk by hunk:
 * 1. update_entity_lag(): a delayed entity's negative lag may not grow while it waits (its
 *    stored lag is a floor), and with DELAY_ZERO it gains no positive lag; it returns whether
 *    the stored lag differs from V - vruntime, so its callers know the entity must be placed
 *    again.
 * 2. dequeue_entity(): an entity that is delayed stores its lag at that moment.
 * 3. finish_delayed_dequeue_entity(): the DELAY_ZERO clearing moved into update_entity_lag().
 * 4. requeue_delayed_entity(): places the entity again whenever update_entity_lag() says so.
 */
import { definePatch, DEQUEUE_DELAYED } from 'schedlab/patch'

export default definePatch({
  name: 'seed002-dd-neglag',
  description: 'A delayed entity\'s negative lag cannot grow while it waits; DELAY_ZERO drops its positive lag; re-placed when its lag changed.',
  hooks: {
    // hunk 1
    updateEntityLag(s, orig, cpu, se) {
      const before = s.task.vlag[se]
      orig(cpu, se) // stores V - vruntime, clamped to the lag limit
      const raw = s.task.vlag[se]
      if (s.task.schedDelayed[se] === 0) return false
      let vlag = raw
      if (vlag < before) vlag = before
      if (s.feat.DELAY_ZERO && vlag > 0) vlag = 0
      s.task.vlag[se] = vlag
      return raw !== vlag
    },
    // hunk 2: the entity has just become delayed (dequeue_entity returned false); nothing
    // between the kernel's update_entity_lag() call and this point moves V or the entity
    dequeueEntity(s, orig, cpu, se, flags) {
      const done = orig(cpu, se, flags)
      if (!done && (flags & DEQUEUE_DELAYED) === 0) s.task.vlag[se] = s.fn.entityLag(cpu, se, s.fn.avgVruntime(cpu))
      return done
    },
    // hunk 3 needs no code here: once hunk 1 has applied DELAY_ZERO, the model's own clearing
    // at the end of a delayed dequeue finds no positive lag left.
    // hunk 4
    requeueDelayedEntity(s, orig, cpu, se) {
      s.fn.updateCurr(cpu)
      if (s.fn.updateEntityLag(cpu, se)) {
        const isCurr = se === s.rq.cfsCurr[cpu]
        s.rq.nrQueued[cpu]--
        if (!isCurr) s.fn.dequeueTree(cpu, se)
        s.fn.placeEntity(cpu, se, 0)
        if (!isCurr) s.fn.enqueueTree(cpu, se)
        s.rq.nrQueued[cpu]++
      }
      // the rest (PELT, sched_delayed, the runnable count) is the model's; with DELAY_ZERO its
      // own lag update finds the lag already settled
      orig(cpu, se)
    }
  }
})
