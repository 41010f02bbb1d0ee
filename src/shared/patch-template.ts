/**
 * The text of a new patch module (`schedlab patch new`, the workbench's Patches panel): a
 * working patch that shows the parts of one (a hook wrapping the original, a flag, a parameter).
 */

/** A new patch module's text: a working pass-through on placeEntity, and where to go from there. */
export function patchTemplate(name: string): string {
  return `/**
 * ${name}: what this patch changes, in a sentence (it shows in the workbench and in results).
 *
 * A patch module hooks the model's scheduling functions, named after kernel/sched/fair.c and
 * rt.c (docs/patches.md lists them all with their kernel counterparts). A hook replaces the
 * function for the whole run and receives the original (orig): wrap it, or rewrite it.
 * Time is in integer nanoseconds; s.task, s.rq and s.tree are the model's state, s.fn its
 * functions. Use s.random(), never Math.random or clocks, and the run stays reproducible.
 */
import { definePatch, ENQUEUE_WAKEUP } from 'schedlab/patch'

export default definePatch({
  name: '${name}',
  description: 'Scale the lag a waking task keeps by a factor',
  // flags of your own, set per variant in "features" (e.g. { "${flagOf(name)}": false })
  features: {
    ${flagOf(name)}: { default: true, doc: 'apply this patch' }
  },
  // parameters, set per variant in "patchParams": { "${name}": { "keep": 0.5 } }; --set and sweeps reach them
  params: {
    keep: { default: 1, min: 0, max: 1, doc: 'share of its lag a waking task keeps' }
  },
  hooks: {
    // place_entity(): vruntime and deadline of an entity joining the queue
    placeEntity(s, orig, cpu, se, flags) {
      if (s.feat.${flagOf(name)} && (flags & ENQUEUE_WAKEUP) !== 0) {
        s.task.vlag[se] = Math.trunc(s.task.vlag[se] * s.params.keep)
      }
      orig(cpu, se, flags)
    }
  }
})
`
}

export function flagOf(name: string): string {
  const f = name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '')
  return /^[A-Z]/.test(f) ? f : `P_${f}`
}
