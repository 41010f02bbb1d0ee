/**
 * The decision recorder: what the modeled kernel decided at each of its decision points, and
 * why, with the facts a researcher needs to check it (the pick's candidates with vruntime,
 * deadline, lag, slice and eligibility; the wakeup-preemption outcome; the CPU selection path;
 * what the load balancer moved). Fed by the kernel through KernelRecorder
 * (src/sim/kernel/recording.ts); it only reads the kernel's state, so a run with a recorder
 * gives the same results as one without.
 *
 * Memory is bounded two ways: records are kept only from `startNs` to `stopNs` (explain's
 * second pass arms it around one sample found by its first pass), and within that, only the
 * last `windowNs` of simulated time and at most `maxRecords` records (a ring). A `sink` sees
 * every record as it is made (the Perfetto writer streams them to a file instead).
 *
 * Reason codes are strings documented in docs/explain.md, each with the kernel function whose
 * decision it names.
 */
import type { Kernel } from '../kernel/sched'
import { CPU_BUSY, TASK_DEAD, TASK_RUNNING } from '../kernel/sched'
import { NIL } from '../kernel/eevdf-tree'
import { floorDiv } from '../kernel/weights'
import { isRtPolicy, WF_CURRENT_CPU, WF_FORK, WF_SYNC, WF_TTWU } from '../kernel/api'
import { P_6_17, P_6_19 } from '../kernel/features'
import { protectSlice } from '../kernel/fair'
import { FairSched } from '../kernel/fair-sched'
import { idleStatesOf } from '../kernel/topology'
import * as W from '../kernel/recording'

export type RecordKind =
  | 'switch' | 'pick' | 'wakeup' | 'wakelist' | 'select' | 'preempt' | 'resched' | 'tick' | 'hrtick'
  | 'idle' | 'idle-exit' | 'timer' | 'migrate' | 'balance' | 'lb-move' | 'rt-move' | 'stopper' | 'delayed' | 'sample'

/** A fair entity as a pick saw it (times in ns; vruntime, deadline, lag and vprot are virtual). */
export interface Candidate {
  task: number
  vruntime: number
  deadline: number
  /** V - vruntime: positive = owed service (eligible), negative = ahead of its share. */
  lag: number
  slice: number
  eligible: boolean
  /** The current task (competes from outside the tree). */
  curr?: boolean
  /** Its protected run ends at this vruntime (curr only, while protected). */
  vprot?: number
  delayed?: boolean
}

export interface EnergyCandidate {
  cpu: number
  /** Energy the task adds on this CPU (the energy model's units); NaN when not evaluated. */
  delta: number
  fits: number
}

/** One recorded decision or event. `task` is its subject, `other` the second task involved. */
export interface DecisionRecord {
  at: number
  cpu: number
  kind: RecordKind
  code: string
  task: number
  other: number
  /** switch: the state prev left in (R+ preempted, R yielded, S slept, X exited). */
  prevState?: string
  /** pick: the queue's V and the candidates (earliest deadline first, capped). */
  V?: number
  cands?: Candidate[]
  /** wakeup: the instant latency counts from; timer: the requested expiry; sample: ready. */
  readyNs?: number
  /** sample: when it ran. idle-exit: when the CPU can execute again. */
  untilNs?: number
  /** select: prev CPU, the waker's CPU, CPUs examined, the wake_affine choice, EAS candidates. */
  prev?: number
  from?: number
  scanned?: number
  affine?: number
  energies?: EnergyCandidate[]
  /** select: a WF_SYNC wakeup (the waker is about to sleep). */
  sync?: boolean
  /** preempt: facts about the wakee (p*) and the current task (c*). */
  pLag?: number
  pDeadline?: number
  pSlice?: number
  pEligible?: boolean
  cVruntime?: number
  cDeadline?: number
  cSlice?: number
  cVprot?: number
  cEligible?: boolean
  /** preempt: the entity pick_eevdf() would run instead of the wakee, and its deadline. */
  picked?: number
  bestDeadline?: number
  /** Wall-clock estimate of when curr's protection ends, if it keeps running. */
  protectedUntilNs?: number
  /** A reschedule waits for the next tick (PREEMPT_LAZY), at this time. */
  lazyUntilNs?: number
  /** idle: state index and name. */
  state?: number
  stateName?: string
  /** balance / lb-move: domain, idle type (busy|idle|newidle), tasks moved, source CPU. */
  sd?: string
  idleType?: string
  moved?: number
}

export interface RecorderOptions {
  /** Record from this simulated time on (before it only the CPUs' current tasks are tracked). */
  startNs?: number
  /** Stop recording after this time. */
  stopNs?: number
  /** Keep only the last windowNs of records (ring by time). */
  windowNs?: number
  /** Keep at most this many records (oldest dropped first). */
  maxRecords?: number
  /** Keep records in memory (default true); false with a sink streams them only. */
  keep?: boolean
  /** Every record, as it is made. */
  sink?: (r: DecisionRecord) => void
  /** Pick candidates listed per pick (earliest deadlines first; the picked, curr and focus always). */
  maxCandidates?: number
  /** A task always listed among the candidates of the picks it takes part in (explain's subject). */
  focusTask?: number
  /** Called for every latency sample, recording or not (explain finds its sample with it). */
  onSample?: (p: number, readyNs: number, ranNs: number, cpu: number) => void
}

/** What a CPU was doing when recording started (the timeline's first slice). */
export interface CpuStart {
  task: number
  since: number
  idleState: number
}

const IDLE_TYPES = ['busy', 'idle', 'newidle']
const MIGRATE_CODES = ['LB_MOVE_LOAD', 'LB_MOVE_UTIL', 'LB_MOVE_TASK', 'LB_MOVE_MISFIT']
const LB_CODES = ['LB_BALANCED', 'LB_ALL_PINNED', 'LB_ONE_PINNED', 'LB_MOVED']

/** A pseudo task id for the stopper (migration/N) in switch records. */
export const STOPPER_TASK = -2

export class Recorder implements W.KernelRecorder {
  readonly records: DecisionRecord[] = []
  /** Index of the oldest kept record (the ring's head). */
  private head = 0
  private readonly startNs: number
  private readonly stopNs: number
  private readonly windowNs: number
  private readonly maxRecords: number
  private readonly keep: boolean
  private readonly sink: ((r: DecisionRecord) => void) | null
  private readonly maxCands: number
  focusTask: number
  private readonly onSampleCb: ((p: number, readyNs: number, ranNs: number, cpu: number) => void) | null
  /** Per CPU: the running task (NIL idle) and since when, and the idle state; kept even before startNs. */
  readonly runTask: Int32Array
  readonly runSince: Float64Array
  readonly idleNow: Int32Array
  /** The CPUs' state when the kept records begin. */
  readonly base: CpuStart[]
  private baseTaken = false
  private readonly fs: FairSched | null
  private readonly stateNames: string[][]
  /** Detail gathered by select_task_rq_fair's hooks for the select record that follows. */
  private pendAffine = -1
  private pendEnergies: EnergyCandidate[] | null = null
  private pendFair: { p: number; code: string; scanned: number; from: number } | null = null
  /** What the next migration is part of (set by the hook that starts it). */
  private moveCode = ''
  dropped = 0
  /** Per CPU: the last deferred-reschedule record, and whether its deferral is still open. */
  private readonly lastDeferred: (DecisionRecord | null)[]
  private readonly deferOpen: Uint8Array

  constructor(readonly k: Kernel, opts: RecorderOptions = {}) {
    this.startNs = opts.startNs ?? 0
    this.stopNs = opts.stopNs ?? Infinity
    this.windowNs = opts.windowNs ?? Infinity
    this.maxRecords = opts.maxRecords ?? 2_000_000
    this.keep = opts.keep ?? true
    this.sink = opts.sink ?? null
    this.maxCands = opts.maxCandidates ?? 12
    this.focusTask = opts.focusTask ?? NIL
    this.onSampleCb = opts.onSample ?? null
    const n = k.ncpus
    this.runTask = new Int32Array(n).fill(NIL)
    this.runSince = new Float64Array(n)
    this.idleNow = new Int32Array(n)
    for (let c = 0; c < n; c++) {
      this.runTask[c] = k.curr[c]
      this.idleNow[c] = k.curr[c] === NIL ? k.idleState[c] : -1
    }
    this.base = []
    this.lastDeferred = new Array<DecisionRecord | null>(n).fill(null)
    this.deferOpen = new Uint8Array(n)
    this.fs = k.placement instanceof FairSched ? k.placement : null
    this.stateNames = k.topo.cpus.map((_, c) => idleStatesOf(k.topo, c).map((s) => s.name))
  }

  /** Install on the kernel (after FairSched.install, before the run). */
  static attach(k: Kernel, opts: RecorderOptions = {}): Recorder {
    const r = new Recorder(k, opts)
    k.rec = r
    return r
  }

  /** Kept records, oldest first. */
  kept(): DecisionRecord[] {
    return this.head === 0 ? this.records : this.records.slice(this.head)
  }

  /** Names of cpu's idle states, by index. */
  idleStateNames(cpu: number): string[] {
    return this.stateNames[cpu]
  }

  /** The CPUs' state at the first kept record. */
  startState(): CpuStart[] {
    if (!this.baseTaken) this.takeBase()
    return this.base
  }

  private get on(): boolean {
    const now = this.k.now
    return now >= this.startNs && now <= this.stopNs
  }

  private takeBase(): void {
    this.baseTaken = true
    for (let c = 0; c < this.k.ncpus; c++) this.base.push({ task: this.runTask[c], since: this.runSince[c], idleState: this.idleNow[c] })
  }

  private push(r: DecisionRecord): void {
    if (!this.baseTaken) this.takeBase()
    if (this.sink !== null) this.sink(r)
    if (!this.keep) return
    const recs = this.records
    recs.push(r)
    // the ring: drop what is older than the window, or beyond the count limit
    const oldest = r.at - this.windowNs
    while (this.head < recs.length && (recs.length - this.head > this.maxRecords || recs[this.head].at < oldest)) {
      this.advanceBase(recs[this.head])
      this.head++
      this.dropped++
    }
    if (this.head > 65536 && this.head * 2 > recs.length) {
      recs.splice(0, this.head)
      this.head = 0
    }
  }

  /** A record leaves the ring: the state at the ring's start moves past it. */
  private advanceBase(r: DecisionRecord): void {
    const b = this.base[r.cpu]
    if (!b) return
    if (r.kind === 'switch') {
      b.task = r.task
      b.since = r.at
      if (r.task !== NIL) b.idleState = -1
    } else if (r.kind === 'stopper') {
      b.task = STOPPER_TASK
      b.since = r.at
    } else if (r.kind === 'idle') {
      b.idleState = r.state ?? 0
    }
  }

  private rec(kind: RecordKind, cpu: number, code: string, task: number, other: number): DecisionRecord {
    return { at: this.k.now, cpu, kind, code, task, other }
  }

  // ---- read-only views of the fair class -------------------------------------------------------

  /** avg_vruntime() without its rebase of zero_vruntime (which would change later rounding). */
  private V(cpu: number): number {
    const k = this.k
    let s = k.sumWVruntime[cpu]
    let w = k.sumWeight[cpu]
    const curr = k.cfsCurr[cpu]
    if (curr !== NIL && k.onRq[curr] !== 0) {
      s += (k.vruntime[curr] - k.zeroVruntime[cpu]) * k.weight[curr]
      w += k.weight[curr]
    }
    return w === 0 ? k.zeroVruntime[cpu] : k.zeroVruntime[cpu] + floorDiv(s, w)
  }

  /** vruntime_eligible() with the same exact arithmetic. */
  private eligible(cpu: number, v: number): boolean {
    const k = this.k
    let s = k.sumWVruntime[cpu]
    let w = k.sumWeight[cpu]
    const curr = k.cfsCurr[cpu]
    if (curr !== NIL && k.onRq[curr] !== 0) {
      s += (k.vruntime[curr] - k.zeroVruntime[cpu]) * k.weight[curr]
      w += k.weight[curr]
    }
    return s >= (v - k.zeroVruntime[cpu]) * w
  }

  private candidate(cpu: number, se: number, V: number, isCurr: boolean): Candidate {
    const k = this.k
    const c: Candidate = {
      task: se, vruntime: k.vruntime[se], deadline: k.deadline[se], lag: V - k.vruntime[se], slice: k.slice[se],
      eligible: this.eligible(cpu, k.vruntime[se])
    }
    if (isCurr) {
      c.curr = true
      if (protectSlice(k, se)) c.vprot = k.vprot[se]
    }
    if (k.schedDelayed[se] !== 0) c.delayed = true
    return c
  }

  /** The fair queue of cpu as a pick sees it: curr (if queued) and the tree, earliest deadline first. */
  candidates(cpu: number, must: number): { V: number; cands: Candidate[] } {
    const k = this.k
    const V = this.V(cpu)
    const all: Candidate[] = []
    const curr = k.cfsCurr[cpu]
    if (curr !== NIL && k.onRq[curr] !== 0) all.push(this.candidate(cpu, curr, V, true))
    k.tree.forEach(cpu, (n) => {
      all.push(this.candidate(cpu, n, V, false))
    })
    all.sort((a, b) => a.deadline - b.deadline || a.task - b.task)
    if (all.length <= this.maxCands) return { V, cands: all }
    const keepers = all.filter((c, i) => i < this.maxCands - 3 || c.curr || c.task === must || c.task === this.focusTask)
    return { V, cands: keepers }
  }

  /** Wall time until curr's vruntime reaches vprot, if it keeps running: now + (vprot - v) * w / 1024. */
  private protectedUntil(se: number): number {
    const k = this.k
    const dv = k.vprot[se] - k.vruntime[se]
    return k.now + Math.max(0, Math.ceil((dv * k.weight[se]) / 1024))
  }

  private nextTick(): number {
    const tick = this.k.cfg.tickNs
    return (Math.floor(this.k.now / tick) + 1) * tick
  }

  // ---- KernelRecorder ------------------------------------------------------------------------------

  schedule(cpu: number, prev: number, next: number, yielding: boolean): void {
    const k = this.k
    // after the stopper the kernel's prev is NIL; what the CPU ran was the stopper
    const shown = this.runTask[cpu] === STOPPER_TASK ? STOPPER_TASK : prev
    if (next === shown) return
    this.runTask[cpu] = next
    this.runSince[cpu] = k.now
    if (next !== NIL) this.idleNow[cpu] = -1
    if (!this.on) return
    let st = 'R'
    let code = 'SWITCH_IDLE'
    if (shown === STOPPER_TASK) {
      st = 'S'
      code = 'SWITCH_SLEEP'
      prev = STOPPER_TASK
    } else if (prev !== NIL) {
      const runnable = k.state[prev] === TASK_RUNNING && k.onRq[prev] !== 0
      st = runnable ? (yielding ? 'R' : 'R+') : k.state[prev] === TASK_DEAD ? 'X' : 'S'
      code = runnable ? (yielding ? 'SWITCH_YIELD' : 'SWITCH_PREEMPT') : st === 'X' ? 'SWITCH_EXIT' : 'SWITCH_SLEEP'
    }
    const r = this.rec('switch', cpu, code, next, prev)
    r.prevState = st
    this.push(r)
  }

  pickFair(cpu: number, se: number): void {
    if (!this.on) return
    const k = this.k
    const curr = k.cfsCurr[cpu]
    const currQueued = curr !== NIL && k.onRq[curr] !== 0
    let code: string
    if (k.rt.nrRunning[cpu] > 0) code = 'PICK_FAIR_SERVER'
    else if (k.cfsNrQueued[cpu] === 1) code = 'PICK_ONLY'
    else if (se === k.cfsNext[cpu] && this.buddyPickable()) code = 'PICK_BUDDY'
    else if (se === curr && currQueued && protectSlice(k, se) && (k.cfg.prof >= P_6_17 || k.f.RUN_TO_PARITY)) code = 'PICK_PROTECTED'
    else if (!this.eligible(cpu, k.vruntime[se])) code = 'PICK_INELIGIBLE'
    else code = 'PICK_EEVDF'
    const r = this.rec('pick', cpu, code, se, currQueued ? curr : NIL)
    const { V, cands } = this.candidates(cpu, se)
    r.V = V
    r.cands = cands
    this.push(r)
  }

  private buddyPickable(): boolean {
    const k = this.k
    if (k.cfg.prof >= P_6_19 || k.f.NB_POSTED) return k.f.PICK_BUDDY === true
    return k.cfg.prof >= P_6_17 ? k.f.PICK_BUDDY === true : k.f.NEXT_BUDDY === true
  }

  pickRt(cpu: number, p: number): void {
    if (!this.on) return
    this.push(this.rec('pick', cpu, 'PICK_RT', p, this.k.curr[cpu]))
  }

  pickIdle(cpu: number): void {
    if (!this.on) return
    this.push(this.rec('pick', cpu, 'PICK_IDLE', NIL, this.k.curr[cpu]))
  }

  delayedPicked(cpu: number, se: number): void {
    if (!this.on) return
    this.push(this.rec('delayed', cpu, 'DELAYED_PICKED', se, NIL))
  }

  delayed(cpu: number, se: number): void {
    if (!this.on) return
    const r = this.rec('delayed', cpu, 'DELAYED_DEQUEUE', se, NIL)
    r.pLag = this.V(cpu) - this.k.vruntime[se]
    this.push(r)
  }

  wakeup(p: number, waker: number, latencyFrom: number): void {
    if (!this.on) return
    const k = this.k
    // still queued: it went to sleep ineligible and stayed as sched_delayed (DELAY_DEQUEUE)
    const code = k.onRq[p] !== 0 ? 'WAKEUP_DELAYED' : waker !== NIL ? 'WAKEUP_BY_TASK' : 'WAKEUP_TIMER'
    const r = this.rec('wakeup', k.thisCpu >= 0 ? k.thisCpu : k.taskCpu[p], code, p, waker)
    r.readyNs = latencyFrom
    r.prev = k.taskCpu[p]
    this.push(r)
  }

  wakeList(cpu: number, p: number): void {
    if (!this.on) return
    const r = this.rec('wakelist', cpu, 'TTWU_QUEUE', p, NIL)
    r.from = this.k.thisCpu
    this.push(r)
  }

  wakeAffine(_p: number, _thisCpu: number, _prevCpu: number, target: number): void {
    this.pendAffine = target
  }

  feecCandidate(_p: number, cpu: number, energyDelta: number, fits: number): void {
    if (!this.on) return
    ;(this.pendEnergies ??= []).push({ cpu, delta: energyDelta, fits })
  }

  selectFair(p: number, prevCpu: number, thisCpu: number, wakeFlags: number, cpu: number, scanned: number, recentBefore: number): void {
    const affine = this.pendAffine
    this.pendAffine = -1
    if (!this.on) {
      this.pendEnergies = null
      return
    }
    this.pendFair = { p, code: this.fairSelectCode(prevCpu, thisCpu, wakeFlags, cpu, recentBefore, affine), scanned, from: affine }
  }

  /** Which path of select_task_rq_fair() produced cpu (read from the state it just examined). */
  private fairSelectCode(prevCpu: number, thisCpu: number, wakeFlags: number, cpu: number, recent: number, affine: number): string {
    const k = this.k
    const fs = this.fs
    const f = k.f
    if (wakeFlags & WF_FORK) return 'SEL_FORK_IDLEST'
    if (!(wakeFlags & WF_TTWU)) return 'SEL_AFFINITY'
    if (f.LB_PROMOTE && f.LBP5_THIN_SELECT) return k.idleCpu(cpu) ? 'SEL_THIN_IDLE' : 'SEL_THIN_PREV'
    if (wakeFlags & WF_CURRENT_CPU && cpu === thisCpu) return 'SEL_CURRENT_CPU'
    if (this.pendEnergies !== null || (fs !== null && fs.eas && !fs.d.rd.overutilized)) return 'SEL_EAS'
    if (f.LB_PROMOTE && f.ALT_LBP_SLOW_WAKE) return 'SEL_SLOW_PATH'
    const idle = k.idleCpu(cpu) || k.schedIdleCpu(cpu)
    const target = affine >= 0 ? affine : prevCpu
    if (idle) {
      if (cpu === target) return affine === thisCpu && thisCpu !== prevCpu ? 'SIS_WAKER_CPU_IDLE' : 'SIS_TARGET_IDLE'
      if (cpu === prevCpu) return 'SIS_PREV_IDLE'
      if (cpu === recent) return 'SIS_RECENT_IDLE'
      return 'SIS_IDLE_SCAN'
    }
    if (cpu === target) return affine === thisCpu && thisCpu !== prevCpu ? 'SIS_WAKE_AFFINE_BUSY' : 'SIS_NO_IDLE'
    if (cpu === prevCpu || cpu === recent) return 'SIS_CLUSTER_FALLBACK'
    return 'SIS_SLICE_CPU'
  }

  selected(p: number, prevCpu: number, wakeFlags: number, cpu: number): void {
    const pend = this.pendFair
    this.pendFair = null
    const energies = this.pendEnergies
    this.pendEnergies = null
    if (cpu !== prevCpu && prevCpu >= 0) this.moveCode = 'MIGRATE_WAKEUP'
    if (!this.on) return
    const k = this.k
    let code: string
    if (pend !== null && pend.p === p) code = pend.code
    else if (!isRtPolicy(k.policy[p])) code = k.nrCpusAllowed[p] <= 1 ? 'SEL_PINNED' : 'SEL_FALLBACK'
    else code = cpu === prevCpu ? 'SEL_RT_PREV' : 'SEL_RT_LOWEST'
    const r = this.rec('select', cpu, code, p, NIL)
    r.prev = prevCpu
    r.from = k.thisCpu
    if (pend !== null) {
      r.scanned = pend.scanned
      if (pend.from >= 0) r.affine = pend.from
    }
    if (energies !== null) r.energies = energies
    if (wakeFlags & WF_SYNC) r.sync = true
    this.push(r)
  }

  wakeupPreempt(cpu: number, p: number, curr: number, why: number): void {
    if (!this.on) return
    const k = this.k
    let code = WP_CODES[why] ?? 'WAKEUP_UNKNOWN'
    const r = this.rec('preempt', cpu, code, p, curr)
    const fairPair = curr !== NIL && !isRtPolicy(k.policy[p]) && !isRtPolicy(k.policy[curr]) && k.cfsCurr[cpu] === curr
    if (!isRtPolicy(k.policy[p]) && k.onRq[p] !== 0) {
      const V = this.V(cpu)
      r.pLag = V - k.vruntime[p]
      r.pDeadline = k.deadline[p]
      r.pSlice = k.slice[p]
      r.pEligible = this.eligible(cpu, k.vruntime[p])
    }
    if (fairPair) {
      r.cVruntime = k.vruntime[curr]
      r.cDeadline = k.deadline[curr]
      r.cSlice = k.slice[curr]
      r.cEligible = this.eligible(cpu, k.vruntime[curr])
      if (protectSlice(k, curr)) {
        r.cVprot = k.vprot[curr]
        r.protectedUntilNs = this.protectedUntil(curr)
      }
    }
    if (why === W.WP_NOT_PICKED || why === W.WP_SHORT_NOT_PICKED) {
      // pick_eevdf() kept another entity: say which of its rules stood in the way
      if (r.pEligible === false) code = 'WAKEUP_NOT_ELIGIBLE'
      else if (r.cVprot !== undefined && r.cEligible && why === W.WP_NOT_PICKED) {
        code = k.f.PREEMPT_SHORT || !(k.slice[p] < k.slice[curr]) ? 'WAKEUP_PROTECTED' : 'WAKEUP_PROTECTED_NO_SHORT'
      } else code = 'WAKEUP_LATER_DEADLINE'
      r.code = code
      // the entity pick_eevdf() prefers (a pure read of the queue)
      const best = k.fn.pickEevdf(k, cpu, why === W.WP_NOT_PICKED)
      if (best !== NIL && best !== p) {
        r.picked = best
        r.bestDeadline = k.deadline[best]
      }
    } else if (why === W.WP_BUDDY_RESCHED) {
      r.code = r.cEligible === false ? 'WAKEUP_CURR_INELIGIBLE' : 'WAKEUP_SYNC'
    }
    if (k.needReschedLazy[cpu] !== 0 && k.needResched[cpu] === 0) r.lazyUntilNs = this.nextTick()
    this.push(r)
  }

  resched(cpu: number, lazy: boolean): void {
    if (!this.on) return
    const k = this.k
    let code: string
    if (lazy) code = 'RESCHED_LAZY'
    else if (k.needResched[cpu] !== 0 && k.mode[cpu] === CPU_BUSY) code = 'RESCHED_PENDING'
    else code = cpu === k.thisCpu ? 'RESCHED_LOCAL' : 'RESCHED_IPI'
    if (code === 'RESCHED_PENDING') return
    const r = this.rec('resched', cpu, code, k.curr[cpu], NIL)
    r.from = k.thisCpu
    if (lazy) r.lazyUntilNs = this.nextTick()
    this.push(r)
  }

  reschedDeferred(cpu: number): void {
    if (!this.on) return
    const k = this.k
    if (k.needResched[cpu] === 0 && k.needReschedLazy[cpu] === 0) return
    const code = k.needResched[cpu] === 0 ? 'RESCHED_LAZY_KERNEL' : 'RESCHED_KERNEL_SECTION'
    const last = this.lastDeferred[cpu]
    // one record per section: the reschedule stays deferred until its preemption point
    if (last !== null && last.code === code && last.task === k.curr[cpu] && this.deferOpen[cpu] !== 0) return
    const r = this.rec('resched', cpu, code, k.curr[cpu], NIL)
    r.from = k.thisCpu
    this.lastDeferred[cpu] = r
    this.deferOpen[cpu] = 1
    this.push(r)
  }

  preemptionPoint(cpu: number): void {
    this.deferOpen[cpu] = 0
    if (!this.on) return
    this.push(this.rec('resched', cpu, 'PREEMPT_POINT', this.k.curr[cpu], NIL))
  }

  stopperDeferred(cpu: number): void {
    if (!this.on) return
    this.push(this.rec('resched', cpu, 'STOPPER_DEFERRED', this.k.curr[cpu], NIL))
  }

  tick(cpu: number): void {
    if (!this.on) return
    const k = this.k
    const curr = k.curr[cpu]
    const code = k.needResched[cpu] !== 0 ? 'TICK_RESCHED' : k.needReschedLazy[cpu] !== 0 ? 'TICK_LAZY_PENDING' : 'TICK'
    const r = this.rec('tick', cpu, code, curr, NIL)
    if (curr !== NIL && k.cfsCurr[cpu] === curr) {
      r.cVruntime = k.vruntime[curr]
      r.cDeadline = k.deadline[curr]
      r.cSlice = k.slice[curr]
      if (protectSlice(k, curr)) r.cVprot = k.vprot[curr]
    }
    this.push(r)
  }

  hrtick(cpu: number): void {
    if (!this.on) return
    this.push(this.rec('hrtick', cpu, 'HRTICK', this.k.curr[cpu], NIL))
  }

  idleEnter(cpu: number, state: number): void {
    this.idleNow[cpu] = state
    if (!this.on) return
    const r = this.rec('idle', cpu, 'IDLE_ENTER', NIL, NIL)
    r.state = state
    r.stateName = this.stateNames[cpu][state]
    this.push(r)
  }

  idleExit(cpu: number, readyAt: number): void {
    const state = this.idleNow[cpu]
    if (!this.on) return
    const r = this.rec('idle-exit', cpu, 'IDLE_EXIT', NIL, NIL)
    r.untilNs = readyAt
    r.state = state
    r.stateName = this.stateNames[cpu][state]
    this.push(r)
  }

  timerFired(p: number, cpu: number, requestedNs: number): void {
    if (!this.on) return
    const r = this.rec('timer', cpu, 'TIMER_FIRED', p, NIL)
    r.readyNs = requestedNs
    this.push(r)
  }

  migrate(p: number, from: number, to: number): void {
    const code = this.moveCode || 'MIGRATE'
    this.moveCode = ''
    if (!this.on) return
    const r = this.rec('migrate', to, code, p, NIL)
    r.prev = from
    this.push(r)
  }

  lbMove(p: number, src: number, dst: number, idleType: number, sd: string, migrationType: number, active: boolean): void {
    this.moveCode = active ? 'MIGRATE_ACTIVE_BALANCE' : 'MIGRATE_BALANCE'
    if (!this.on) return
    const r = this.rec('lb-move', dst, active ? 'LB_ACTIVE' : MIGRATE_CODES[migrationType] ?? 'LB_MOVE', p, NIL)
    r.prev = src
    r.sd = sd
    r.idleType = IDLE_TYPES[idleType] ?? String(idleType)
    this.push(r)
  }

  balanced(dst: number, sd: string, idleType: number, outcome: number, moved: number, busiest: number): void {
    if (!this.on) return
    const code = outcome === W.LB_DONE ? (moved > 0 ? 'LB_MOVED' : 'LB_NOTHING_MOVED') : LB_CODES[outcome]
    const r = this.rec('balance', dst, code, NIL, NIL)
    r.sd = sd
    r.idleType = IDLE_TYPES[idleType] ?? String(idleType)
    r.moved = moved
    r.prev = busiest
    this.push(r)
  }

  rtMove(p: number, src: number, dst: number, push: boolean): void {
    this.moveCode = push ? 'MIGRATE_RT_PUSH' : 'MIGRATE_RT_PULL'
    if (!this.on) return
    const r = this.rec('rt-move', dst, push ? 'RT_PUSH' : 'RT_PULL', p, NIL)
    r.prev = src
    this.push(r)
  }

  stopper(cpu: number, prev: number): void {
    this.runTask[cpu] = STOPPER_TASK
    this.runSince[cpu] = this.k.now
    if (!this.on) return
    this.push(this.rec('stopper', cpu, 'STOPPER', STOPPER_TASK, prev))
  }

  sample(p: number, readyNs: number, ranNs: number, cpu: number): void {
    if (this.onSampleCb !== null) this.onSampleCb(p, readyNs, ranNs, cpu)
    if (!this.on) return
    const r = this.rec('sample', cpu, 'LATENCY', p, NIL)
    r.readyNs = readyNs
    r.untilNs = ranNs
    this.push(r)
  }
}

/** Reason codes of the WP_* outcomes (docs/explain.md). */
const WP_CODES: Record<number, string> = {
  [W.WP_IDLE_CPU]: 'WAKEUP_IDLE_CPU',
  [W.WP_RT_PREEMPTS_FAIR]: 'WAKEUP_RT_PREEMPTS_FAIR',
  [W.WP_RT_HIGHER_PRIO]: 'WAKEUP_RT_HIGHER_PRIO',
  [W.WP_RT_NOT_HIGHER]: 'WAKEUP_RT_NOT_HIGHER',
  [W.WP_FAIR_UNDER_RT]: 'WAKEUP_FAIR_UNDER_RT',
  [W.WP_SELF]: 'WAKEUP_SELF',
  [W.WP_RESCHED_PENDING]: 'WAKEUP_RESCHED_PENDING',
  [W.WP_NO_WAKEUP_PREEMPTION]: 'WAKEUP_NO_PREEMPTION_FEATURE',
  [W.WP_IDLE_POLICY_PREEMPTED]: 'WAKEUP_IDLE_POLICY_PREEMPTED',
  [W.WP_IDLE_POLICY]: 'WAKEUP_IDLE_POLICY',
  [W.WP_BATCH]: 'WAKEUP_BATCH',
  [W.WP_DELAYED]: 'WAKEUP_DELAYED_WAKEE',
  [W.WP_FORK_OR_DELAYED]: 'WAKEUP_FORK_OR_DELAYED',
  [W.WP_BUDDY_NO_PREEMPT]: 'WAKEUP_BUDDY_NO_PREEMPT',
  [W.WP_BUDDY_RESCHED]: 'WAKEUP_SYNC',
  [W.WP_SHORT_PREEMPT]: 'WAKEUP_PREEMPT_SHORT',
  [W.WP_PICK]: 'WAKEUP_PREEMPT',
  [W.WP_SHORT_NOT_PICKED]: 'WAKEUP_LATER_DEADLINE',
  [W.WP_NOT_PICKED]: 'WAKEUP_LATER_DEADLINE'
}

/** Every reason code the recorder emits, by kind (docs/explain.md lists each; a test checks it). */
export function allReasonCodes(): string[] {
  return [
    'SWITCH_IDLE', 'SWITCH_PREEMPT', 'SWITCH_YIELD', 'SWITCH_SLEEP', 'SWITCH_EXIT',
    'PICK_FAIR_SERVER', 'PICK_ONLY', 'PICK_BUDDY', 'PICK_PROTECTED', 'PICK_INELIGIBLE', 'PICK_EEVDF', 'PICK_RT', 'PICK_IDLE',
    'DELAYED_PICKED', 'DELAYED_DEQUEUE',
    'WAKEUP_BY_TASK', 'WAKEUP_TIMER', 'WAKEUP_DELAYED', 'TTWU_QUEUE',
    'SEL_FORK_IDLEST', 'SEL_AFFINITY', 'SEL_SLOW_PATH', 'SEL_THIN_IDLE', 'SEL_THIN_PREV', 'SEL_CURRENT_CPU', 'SEL_EAS',
    'SIS_WAKER_CPU_IDLE', 'SIS_TARGET_IDLE', 'SIS_PREV_IDLE', 'SIS_RECENT_IDLE', 'SIS_IDLE_SCAN', 'SIS_WAKE_AFFINE_BUSY',
    'SIS_NO_IDLE', 'SIS_CLUSTER_FALLBACK', 'SIS_SLICE_CPU', 'SEL_PINNED', 'SEL_FALLBACK', 'SEL_RT_PREV', 'SEL_RT_LOWEST',
    ...new Set(Object.values(WP_CODES)),
    'WAKEUP_NOT_ELIGIBLE', 'WAKEUP_PROTECTED', 'WAKEUP_PROTECTED_NO_SHORT', 'WAKEUP_CURR_INELIGIBLE',
    'RESCHED_LAZY', 'RESCHED_LOCAL', 'RESCHED_IPI', 'RESCHED_KERNEL_SECTION', 'RESCHED_LAZY_KERNEL', 'PREEMPT_POINT', 'STOPPER_DEFERRED',
    'TICK', 'TICK_RESCHED', 'TICK_LAZY_PENDING', 'HRTICK',
    'IDLE_ENTER', 'IDLE_EXIT', 'TIMER_FIRED',
    'MIGRATE', 'MIGRATE_WAKEUP', 'MIGRATE_BALANCE', 'MIGRATE_ACTIVE_BALANCE', 'MIGRATE_RT_PUSH', 'MIGRATE_RT_PULL',
    ...MIGRATE_CODES, 'LB_ACTIVE', ...LB_CODES, 'LB_MOVED', 'LB_NOTHING_MOVED',
    'RT_PUSH', 'RT_PULL', 'STOPPER', 'LATENCY',
    // parts of a wait that explain's cause attribution names (src/sim/explain.ts)
    'TIMER_IRQ', 'SWITCH_COST',
    // an unreasonable-idle explanation's cause
    'IDLE_NO_BALANCE'
  ]
}
