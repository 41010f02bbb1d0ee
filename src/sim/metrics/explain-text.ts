/**
 * Sentences for decision records: what a researcher reads in `schedlab explain`, the
 * workbench's explanation panel and the Perfetto annotations. One function per record kind;
 * virtual times (vruntime, deadline, lag, vprot) are given relative to the queue's V.
 */
import type { Kernel } from '../kernel/sched'
import { isRtPolicy, SCHED_BATCH, SCHED_IDLE } from '../kernel/api'
import { NIL } from '../kernel/eevdf-tree'
import { STOPPER_TASK, type Candidate, type DecisionRecord } from './recorder'

/** Absolute simulated time, seconds with microsecond digits. */
export function fmtT(ns: number): string {
  return `${(ns / 1e9).toFixed(6)} s`
}

/** A duration. */
export function fmtD(ns: number): string {
  const a = Math.abs(ns)
  if (a < 1000) return `${Math.round(ns)} ns`
  if (a < 1e6) return `${(ns / 1000).toFixed(1)} us`
  if (a < 1e9) return `${(ns / 1e6).toFixed(2)} ms`
  return `${(ns / 1e9).toFixed(3)} s`
}

/** A signed virtual-time offset (lag, deadline - V). */
export function fmtV(ns: number): string {
  return `${ns >= 0 ? '+' : '\u2212'}${fmtD(Math.abs(ns))}`
}

export class Namer {
  constructor(private k: Kernel) {}

  task(t: number, cpu = -1): string {
    if (t === NIL) return 'idle'
    if (t === STOPPER_TASK) return cpu >= 0 ? `migration/${cpu}` : 'the stopper'
    return this.k.attrs[t]?.name ?? `task ${t}`
  }

  /** "cyclictest-0 (SCHED_FIFO 50)" for RT tasks, the name alone otherwise. */
  withClass(t: number): string {
    const k = this.k
    if (t < 0) return this.task(t)
    const pol = k.policy[t]
    if (isRtPolicy(pol)) return `${this.task(t)} (${pol === 1 ? 'SCHED_FIFO' : 'SCHED_RR'} ${k.rtPrio[t]})`
    if (pol === SCHED_IDLE) return `${this.task(t)} (SCHED_IDLE)`
    if (pol === SCHED_BATCH) return `${this.task(t)} (SCHED_BATCH)`
    return this.task(t)
  }
}

const IDLE_TYPE_TEXT: Record<string, string> = { busy: 'periodic', idle: 'idle', newidle: 'newidle' }

function cand(r: DecisionRecord, t: number): Candidate | undefined {
  return r.cands?.find((c) => c.task === t)
}

/** Why a pick passed over `focus` (a candidate it did not choose). */
export function passedOverReason(r: DecisionRecord, focus: number): 'ineligible' | 'later-deadline' | 'protected' | 'buddy' | 'absent' | 'picked' | 'delayed' {
  if (r.task === focus) return 'picked'
  const c = cand(r, focus)
  if (!c) return 'absent'
  // asleep but still queued (DELAY_DEQUEUE): not waiting for the CPU
  if (c.delayed) return 'delayed'
  if (r.code === 'PICK_PROTECTED') return 'protected'
  if (r.code === 'PICK_BUDDY') return 'buddy'
  if (!c.eligible) return 'ineligible'
  return 'later-deadline'
}

function pickText(r: DecisionRecord, n: Namer, focus: number): string {
  const cpu = `CPU ${r.cpu}`
  const who = n.withClass(r.task)
  const V = r.V ?? 0
  const picked = cand(r, r.task)
  const dl = picked ? ` (deadline V${fmtV(picked.deadline - V)}, lag ${fmtV(picked.lag)})` : ''
  let s: string
  switch (r.code) {
    case 'PICK_RT': s = `${cpu} picked ${who}: RT tasks run before fair ones`; break
    case 'PICK_IDLE': return `${cpu} found nothing runnable, even after newidle balance, and goes idle`
    case 'PICK_ONLY': s = `${cpu} picked ${who}, its only runnable fair task`; break
    case 'PICK_FAIR_SERVER': s = `${cpu} picked fair ${who} over queued RT work: the fair deadline server is boosted`; break
    case 'PICK_BUDDY': s = `${cpu} picked ${who}, the next buddy a wakeup set, ahead of pick_eevdf's choice${dl}`; break
    case 'PICK_PROTECTED': {
      const vprot = picked?.vprot
      s = `${cpu} kept ${who} running: its slice is still protected (RUN_TO_PARITY${vprot !== undefined ? `, vprot V${fmtV(vprot - V)}` : ''})`
      break
    }
    case 'PICK_INELIGIBLE': s = `${cpu} picked ${who} although it is not eligible: no queued entity was${dl}`; break
    default: s = `${cpu} picked ${who}: eligible with the earliest deadline${dl}`
  }
  if (focus !== NIL && focus !== r.task) {
    const c = cand(r, focus)
    if (c) {
      const fn = n.task(focus)
      if (c.delayed) s += `; ${fn} is asleep, still queued as sched_delayed (lag ${fmtV(c.lag)})`
      else if (!c.eligible) s += `; ${fn} was not eligible (lag ${fmtV(c.lag)})`
      else if (r.code === 'PICK_PROTECTED' || r.code === 'PICK_BUDDY') s += `; ${fn} was eligible (lag ${fmtV(c.lag)}) but not considered`
      else s += `; ${fn} was eligible but its deadline V${fmtV(c.deadline - V)} is later`
    }
  }
  if ((r.cands?.length ?? 0) > 1 && r.code !== 'PICK_RT') s += ` [${r.cands!.length} queued]`
  return s
}

function selectText(r: DecisionRecord, n: Namer): string {
  const who = n.task(r.task)
  const c = r.cpu
  const prev = r.prev ?? -1
  const scanned = r.scanned !== undefined ? ` (${r.scanned} CPU${r.scanned === 1 ? '' : 's'} examined)` : ''
  const affine = r.affine !== undefined ? `wake_affine chose CPU ${r.affine} (${r.affine === prev ? 'prev' : 'the waker\u2019s'}) over CPU ${r.affine === prev ? r.from : prev}; ` : ''
  switch (r.code) {
    case 'SIS_WAKE_AFFINE_BUSY': return `wake_affine chose the waker\u2019s CPU ${c} over prev CPU ${prev}, and select_idle_sibling found no idle CPU${scanned}: ${who} was placed on busy CPU ${c}`
    case 'SIS_NO_IDLE': return `${affine}select_idle_sibling found no idle CPU${scanned}: ${who} stays on busy CPU ${c}`
    case 'SIS_WAKER_CPU_IDLE': return `wake_affine chose the waker\u2019s CPU ${c}, which is idle: ${who} goes there`
    case 'SIS_TARGET_IDLE': return `${affine}target CPU ${c} is idle: ${who} goes there (select_idle_sibling)`
    case 'SIS_PREV_IDLE': return `${affine}${who}'s previous CPU ${c} is idle and shares the cache: it goes there`
    case 'SIS_RECENT_IDLE': return `${affine}${who}'s recently used CPU ${c} is idle: it goes there`
    case 'SIS_IDLE_SCAN': return `${affine}the idle scan found idle CPU ${c}${scanned}: ${who} goes there`
    case 'SIS_CLUSTER_FALLBACK': return `${affine}no idle CPU in the cluster: ${who} falls back to CPU ${c}`
    case 'SIS_SLICE_CPU': return `${affine}no idle CPU: CPU ${c} was chosen because its queued slices are longer than ${who}'s (slice-aware selection)`
    case 'SEL_EAS': {
      const e = (r.energies ?? []).map((x) => `CPU ${x.cpu} +${Math.round(x.delta)}`).join(', ')
      return `find_energy_efficient_cpu placed ${who} on CPU ${c}${e ? ` (energy added: ${e})` : ''}`
    }
    case 'SEL_CURRENT_CPU': return `${who} was woken with WF_CURRENT_CPU: it goes to the waker's CPU ${c}`
    case 'SEL_FORK_IDLEST': return `fork placement: the idlest group and CPU is CPU ${c}`
    case 'SEL_AFFINITY': return `${who}'s affinity changed: it moves to CPU ${c}`
    case 'SEL_SLOW_PATH': return `the slow path (sched_balance_find_dst_cpu) chose CPU ${c} for ${who}`
    case 'SEL_THIN_IDLE': return `the thin selection (LB_PROMOTE) found idle CPU ${c} for ${who}`
    case 'SEL_THIN_PREV': return `the thin selection (LB_PROMOTE) found no idle CPU: ${who} stays on CPU ${c}`
    case 'SEL_PINNED': return `${who} may run on CPU ${c} only: no selection`
    case 'SEL_FALLBACK': return `select_fallback_rq: ${who} goes to allowed CPU ${c}`
    case 'SEL_RT_PREV': return `RT selection: ${who} stays on CPU ${c}, where it can run`
    case 'SEL_RT_LOWEST': return `RT selection: find_lowest_rq chose CPU ${c}, the lowest-priority CPU ${who} may use`
  }
  return `${who} placed on CPU ${c}`
}

function preemptText(r: DecisionRecord, n: Namer): string {
  const p = n.task(r.task)
  const curr = n.withClass(r.other)
  const c = `CPU ${r.cpu}`
  let s: string
  switch (r.code) {
    case 'WAKEUP_IDLE_CPU': s = `${c} had no running task: ${p} runs as soon as ${c} can`; break
    case 'WAKEUP_RT_PREEMPTS_FAIR': s = `${n.withClass(r.task)} preempts ${curr} on ${c}: RT before fair`; break
    case 'WAKEUP_RT_HIGHER_PRIO': s = `${n.withClass(r.task)} preempts the lower-priority ${curr}`; break
    case 'WAKEUP_RT_NOT_HIGHER': s = `${n.withClass(r.task)} does not preempt ${curr}: not a higher priority`; break
    case 'WAKEUP_FAIR_UNDER_RT': s = `${curr} runs on ${c}: a fair task cannot preempt it, ${p} waits until ${c} has no RT work`; break
    case 'WAKEUP_SELF': s = `${p} is already the running task on ${c}`; break
    case 'WAKEUP_RESCHED_PENDING': s = `a reschedule was already pending on ${c}`; break
    case 'WAKEUP_NO_PREEMPTION_FEATURE': s = `WAKEUP_PREEMPTION is off: ${p} does not preempt ${curr}`; break
    case 'WAKEUP_IDLE_POLICY_PREEMPTED': s = `${curr} is SCHED_IDLE: ${p} preempts it`; break
    case 'WAKEUP_IDLE_POLICY': s = `SCHED_IDLE on one side only (or the wakee): no wakeup preemption of ${curr}`; break
    case 'WAKEUP_BATCH': s = `${p} is SCHED_BATCH: it never preempts at wakeup`; break
    case 'WAKEUP_DELAYED_WAKEE': s = `${p} is still sched_delayed: it does not preempt ${curr}`; break
    case 'WAKEUP_FORK_OR_DELAYED': s = `a fork or a delayed wakee: no preemption check against ${curr}`; break
    case 'WAKEUP_BUDDY_NO_PREEMPT': s = `the NEXT_BUDDY rule decided not to preempt ${curr} (WF_SYNC not honoured yet)`; break
    case 'WAKEUP_SYNC': s = `WF_SYNC: ${curr} (the waker) has run long enough and ${p}'s deadline is earlier: preempt`; break
    case 'WAKEUP_CURR_INELIGIBLE': s = `${curr} is no longer eligible: reschedule (NEXT_BUDDY rework)`; break
    case 'WAKEUP_PREEMPT_SHORT':
      s = `${p}'s slice (${fmtD(r.pSlice ?? 0)}) is shorter than ${curr}'s (${fmtD(r.cSlice ?? 0)}): PREEMPT_SHORT cancels its protection and ${p} preempts`
      break
    case 'WAKEUP_PREEMPT': s = `${p} is eligible with an earlier deadline than ${curr}: it preempts on ${c}`; break
    case 'WAKEUP_NOT_ELIGIBLE': s = `${p} is not eligible (lag ${fmtV(r.pLag ?? 0)}): it cannot preempt ${curr} on ${c}`; break
    case 'WAKEUP_PROTECTED':
      s = `${curr} was protected until \u2248${fmtT(r.protectedUntilNs ?? r.at)} (vprot): ${p} does not preempt it`
      break
    case 'WAKEUP_PROTECTED_NO_SHORT':
      s = `${curr} was protected until \u2248${fmtT(r.protectedUntilNs ?? r.at)} (vprot); PREEMPT_SHORT is off, so ${p}'s shorter slice (${fmtD(r.pSlice ?? 0)} < ${fmtD(r.cSlice ?? 0)}) does not cancel it`
      break
    case 'WAKEUP_LATER_DEADLINE': {
      const best = r.picked !== undefined ? r.picked : r.other
      const bd = r.picked !== undefined ? r.bestDeadline : r.cDeadline
      const by = bd !== undefined && r.pDeadline !== undefined ? ` by ${fmtD(r.pDeadline - bd)}` : ''
      s = best === r.other
        ? `${p} is eligible but ${curr}'s deadline is earlier${by}: no preemption`
        : `${p} is eligible but does not preempt ${curr}: pick_eevdf prefers ${n.task(best)}, whose deadline is earlier${by}`
      break
    }
    default: s = `wakeup preemption of ${curr} by ${p}: ${r.code}`
  }
  if (r.lazyUntilNs !== undefined) s += `; the reschedule is lazy (PREEMPT_LAZY): it waits for the tick at ${fmtT(r.lazyUntilNs)}`
  return s
}

/** The sentence for one record; `focus` is the task being explained (NIL: none). */
export function describe(r: DecisionRecord, n: Namer, focus = NIL): string {
  const who = n.task(r.task, r.cpu)
  const c = `CPU ${r.cpu}`
  switch (r.kind) {
    case 'switch': {
      const prev = n.task(r.other, r.cpu)
      const why = r.code === 'SWITCH_PREEMPT' ? 'preempted' : r.code === 'SWITCH_YIELD' ? 'yielded' : r.code === 'SWITCH_EXIT' ? 'exited' : r.code === 'SWITCH_IDLE' ? 'idle' : 'went to sleep'
      if (r.task === NIL) return `${c} goes idle: ${prev} ${why}`
      return r.other === NIL ? `${c} switched from idle to ${who}` : `${c} switched from ${prev} (${why}, ${r.prevState}) to ${who}`
    }
    case 'pick': return pickText(r, n, focus)
    case 'wakeup': {
      const ready = r.readyNs !== undefined && r.readyNs !== r.at ? ` (runnable since ${fmtT(r.readyNs)})` : ''
      if (r.code === 'WAKEUP_DELAYED') return `${who} was woken while still queued on CPU ${r.prev} as sched_delayed (it had gone to sleep ineligible): requeued there${ready}`
      if (r.code === 'WAKEUP_BY_TASK') return `${who} was woken by ${n.task(r.other)} on ${c}`
      return `${who} was woken by its hrtimer on ${c}${ready}`
    }
    case 'timer': return `${who}'s hrtimer for ${fmtT(r.readyNs ?? r.at)} fired on ${c} ${fmtD(r.at - (r.readyNs ?? r.at))} late (timer slack)`
    case 'wakelist': return `TTWU_QUEUE: ${who}'s activation is queued on ${c}'s wake list${r.from !== undefined && r.from >= 0 ? ` by CPU ${r.from}` : ''}; ${c} enqueues it when the IPI arrives`
    case 'select': return selectText(r, n)
    case 'preempt': return preemptText(r, n)
    case 'resched':
      if (r.code === 'RESCHED_KERNEL_SECTION') return `${c} has a reschedule pending, but ${who} runs kernel code this preemption model does not preempt: it waits for the section's end (or a might_resched() point)`
      if (r.code === 'RESCHED_LAZY_KERNEL') return `${c} has a lazy reschedule pending (PREEMPT_LAZY): it is acted on when ${who} returns to user mode, or at the tick`
      if (r.code === 'PREEMPT_POINT') return `${who} reached a preemption point on ${c} (its kernel section ended, or might_resched()): the pending reschedule happens now`
      if (r.code === 'STOPPER_DEFERRED') return `${c}'s stopper waits for ${who}'s kernel section to end (the kernel is not preemptible)`
      if (r.code === 'RESCHED_LAZY') return `lazy reschedule of ${c} (PREEMPT_LAZY): it waits for the tick at ${fmtT(r.lazyUntilNs ?? r.at)}`
      if (r.code === 'RESCHED_IPI') return `reschedule IPI${r.from !== undefined && r.from >= 0 ? ` from CPU ${r.from}` : ''} to ${c}`
      return `${c} reschedules at once`
    case 'tick': {
      const base = `tick on ${c} (${who} running)`
      if (r.code === 'TICK_RESCHED') return `${base}: its slice is used up, reschedule`
      if (r.code === 'TICK_LAZY_PENDING') return `${base}: a lazy reschedule is pending`
      return base
    }
    case 'hrtick': return `hrtick on ${c}: ${who}'s slice ended, reschedule`
    case 'idle': return `${c} entered idle state ${r.stateName ?? r.state}`
    case 'idle-exit': return `${c} leaves idle state ${r.stateName ?? r.state}: it executes again at ${fmtT(r.untilNs ?? r.at)} (exit latency ${fmtD((r.untilNs ?? r.at) - r.at)})`
    case 'migrate': {
      const why = { MIGRATE_WAKEUP: 'wakeup placement', MIGRATE_BALANCE: 'load balance', MIGRATE_ACTIVE_BALANCE: 'active balance', MIGRATE_RT_PUSH: 'RT push', MIGRATE_RT_PULL: 'RT pull' }[r.code] ?? 'migration'
      return `${who} moved from CPU ${r.prev} to ${c} (${why})`
    }
    case 'lb-move': {
      const kind = r.code === 'LB_ACTIVE' ? 'active balance' : `${IDLE_TYPE_TEXT[r.idleType ?? ''] ?? r.idleType} balance over ${r.sd}`
      const mt = { LB_MOVE_LOAD: 'load', LB_MOVE_UTIL: 'utilization', LB_MOVE_TASK: 'task count', LB_MOVE_MISFIT: 'misfit task' }[r.code]
      return `${c}'s ${kind} pulled ${who} from CPU ${r.prev}${mt ? ` (imbalance in ${mt})` : ''}`
    }
    case 'balance': {
      const kind = `${c}'s ${IDLE_TYPE_TEXT[r.idleType ?? ''] ?? r.idleType} balance over ${r.sd}`
      if (r.code === 'LB_MOVED') return `${kind} moved ${r.moved} task${r.moved === 1 ? '' : 's'} from CPU ${r.prev}`
      if (r.code === 'LB_BALANCED') return `${kind} found the domain balanced`
      if (r.code === 'LB_NOTHING_MOVED') return `${kind} found CPU ${r.prev} busiest but moved nothing`
      if (r.code === 'LB_ALL_PINNED') return `${kind}: every candidate task is pinned away`
      return `${kind}: the busiest CPU's running task may not move here`
    }
    case 'rt-move': return `RT ${r.code === 'RT_PUSH' ? 'push' : 'pull'} moved ${n.withClass(r.task)} from CPU ${r.prev} to ${c}`
    case 'stopper': return `${c}'s stopper (active balance or migration) preempts ${n.task(r.other)}`
    case 'delayed':
      if (r.code === 'DELAYED_PICKED') return `${c} picked sched_delayed ${who}: its dequeue completes and the pick starts over`
      return `${who} went to sleep ineligible (lag ${fmtV(r.pLag ?? 0)}) and stays queued on ${c} as sched_delayed (DELAY_DEQUEUE)`
    case 'sample': return `${who} runs on ${c} at ${fmtT(r.untilNs ?? r.at)}: ${fmtD((r.untilNs ?? r.at) - (r.readyNs ?? r.at))} after it became runnable`
  }
  return `${r.kind} ${r.code}`
}
