/**
 * The kernel's event loop: events in time order (engine/event-queue.ts), stale ones dropped by
 * generation, each dispatched to its handler (a task's run done, the tick, the hrtick, an
 * hrtimer and its interrupt, an IPI, an idle exit, a fork, the stopper, the fair server's timer,
 * a callback); the reschedules an instant raised take effect once all its events are handled, as
 * at an interrupt's exit. vCPU stalls hold back a CPU's events until they end. Free functions
 * over the Kernel: nothing allocated per event.
 */
import {
  ACT_NONE, ACT_RUN_KERNEL, ACT_RUN_WALL, CPU_AWAKE_IDLE, CPU_BUSY, EV_CALLBACK, EV_FAIR_SERVER, EV_FORK, EV_HRTICK,
  EV_IDLE_EXIT, EV_IPI, EV_RUN_DONE, EV_STOPPER, EV_TICK, EV_TIMER, EV_TIMER_IRQ, type Kernel
} from './sched'
import { PREEMPT_FULL } from './features'
import { NIL } from './eevdf-tree'
import { enterIdle, exitIdle } from './idle'
import { onTimer, onTimerIrq, runSoftExpiredTimers } from './hrtimer'
import { accountProgress, armRunDone, batchPoint, batchReturn, runProgram } from './programs'
import { checkInvariants } from './invariants'

/**
 * Run until `endNs`, or until `stop()` says so (checked every few thousand events).
 * Returns the simulated end time.
 */
export function runUntil(k: Kernel, endNs: number, stop: (() => boolean) | null = null, progress: ((now: number) => void) | null = null): number {
  const eq = k.eq
  let sinceCheck = 0
  while (eq.size > 0) {
    if (eq.peekTime() > endNs) break
    eq.pop()
    const t = eq.popTime
    const kind = eq.popKind
    const target = eq.popTarget
    const gen = eq.popGen
    if (!isLive(k, kind, target, gen)) continue
    k.now = t
    eq.clock = t
    if (k.anyStall && deferWhileStalled(k, kind, target, gen)) continue
    k.events++
    dispatch(k, kind, target, gen)
    // like one interrupt handling every expired timer, all events of this instant are
    // processed before the reschedules they raised take effect
    if (k.localReschedN > 0 && !moreIrqWorkNow(k, t)) drainLocalResched(k)
    if (k.cfg.debug) checkInvariants(k)
    if (++sinceCheck >= 4096 || k.exitedSinceCheck) {
      k.exitedSinceCheck = false
      sinceCheck = 0
      if (progress) progress(k.now)
      if (stop && stop()) break
    }
  }
  if (eq.size === 0 || eq.peekTime() > endNs) k.now = Math.max(k.now, endNs)
  finish(k)
  return k.now
}

/**
 * A vCPU stall: `cpu` executes nothing for `ns` from now (the host runs something else). Its
 * task makes no progress, and its interrupts, IPIs, ticks and idle exits wait for the end.
 */
export function stallCpu(k: Kernel, cpu: number, ns: number): void {
  const from = k.stallUntil[cpu] > k.now ? k.stallUntil[cpu] : k.now
  k.stallUntil[cpu] = from + ns
  k.anyStall = true
  k.counters.vcpuStalls = (k.counters.vcpuStalls ?? 0) + 1
  k.counters.vcpuStalledMs = (k.counters.vcpuStalledMs ?? 0) + ns / 1e6
  const curr = k.curr[cpu]
  if (k.mode[cpu] === CPU_BUSY && curr !== NIL) {
    // steal time (PARAVIRT_TIME_ACCOUNTING): rq->clock_task skips it, the task is not charged
    const prevThis = k.thisCpu
    k.thisCpu = cpu
    if (k.isFair(curr)) k.fn.updateCurr(k, cpu)
    else k.rt.updateCurr(cpu)
    k.thisCpu = prevThis
    k.execStart[curr] = k.stallUntil[cpu]
    // wall time, like an interrupt that takes the CPU away from its task
    if (k.segStart[cpu] < k.now) k.segStart[cpu] = k.now
    k.segStart[cpu] += ns
    k.pendingStall[cpu] += ns
  } else if (k.mode[cpu] === CPU_AWAKE_IDLE && k.wakeDoneAt[cpu] < k.stallUntil[cpu]) {
    k.wakeDoneAt[cpu] = k.stallUntil[cpu]
  }
}

/** An event of a CPU in a vCPU stall is handled when the stall ends. */
export function deferWhileStalled(k: Kernel, kind: number, target: number, gen: number): boolean {
  let cpu = -1
  switch (kind) {
    case EV_TICK: case EV_IPI: case EV_IDLE_EXIT: case EV_HRTICK: case EV_STOPPER: case EV_FAIR_SERVER:
      cpu = target
      break
    case EV_TIMER: case EV_TIMER_IRQ:
      cpu = k.timerCpu[target]
      break
    default:
      return false
  }
  if (cpu < 0 || k.stallUntil[cpu] <= k.now) return false
  // an event posted under a slot goes back under it, so that a re-arm still replaces it
  const n = k.ncpus
  const slot = kind === EV_TICK ? n + target : kind === EV_HRTICK ? 2 * n + target : kind === EV_FAIR_SERVER ? 3 * n + target : kind === EV_TIMER ? 4 * n + target : -1
  if (slot >= 0) k.eq.pushKeyed(slot, k.stallUntil[cpu], kind, target, gen, k.now)
  else k.eq.push(k.stallUntil[cpu], kind, target, gen)
  return true
}

/** Stale events (cancelled by a generation bump) are dropped without counting. */
export function isLive(k: Kernel, kind: number, target: number, gen: number): boolean {
  switch (kind) {
    case EV_RUN_DONE: return gen === k.runDoneGen[target]
    case EV_TICK: return gen === k.tickGen[target]
    case EV_HRTICK: return gen === k.hrtickGen[target]
    case EV_FAIR_SERVER: return k.fairServer !== null && gen === k.fairServer.gen[target]
    case EV_TIMER:
    case EV_TIMER_IRQ: return gen === k.timerGen[target]
    default: return true
  }
}

export function dispatch(k: Kernel, kind: number, target: number, gen: number): void {
  switch (kind) {
    case EV_RUN_DONE: onRunDone(k, target); break
    case EV_TICK: onTick(k, target); break
    case EV_TIMER: onTimer(k, target, gen); break
    case EV_TIMER_IRQ: onTimerIrq(k, target); break
    case EV_IPI: onIpi(k, target); break
    case EV_IDLE_EXIT: onIdleExit(k, target); break
    case EV_HRTICK: onHrtick(k, target); break
    case EV_FORK: onFork(k, target); break
    case EV_STOPPER: onStopper(k, target); break
    case EV_CALLBACK: onCallback(k, target); break
    case EV_FAIR_SERVER: onFairServer(k, target); break
  }
}

/**
 * Is the next event another expired timer handled by an interrupt of a CPU waiting to
 * reschedule? One interrupt runs every expired hrtimer before the reschedule takes effect.
 */
export function moreIrqWorkNow(k: Kernel, t: number): boolean {
  const eq = k.eq
  if (eq.size === 0 || eq.peekTime() !== t || eq.peekKind() !== EV_TIMER_IRQ) return false
  return k.localReschedMark[k.timerCpu[eq.peekTarget()]] !== 0
}

export function drainLocalResched(k: Kernel): void {
  // schedule() may mark CPUs again (a pull or push preempting there): pop until empty
  while (k.localReschedN > 0) {
    const cpu = k.localResched[--k.localReschedN]
    k.localReschedMark[cpu] = 0
    const due = k.reschedDue(cpu)
    k.preemptPoint[cpu] = 0
    if (!due) {
      batchPoint(k, cpu)
      if (k.rec !== null) k.rec.reschedDeferred(cpu)
      continue
    }
    const m = k.mode[cpu]
    // an idle CPU still in its interrupt or idle exit schedules when that ends
    if (m === CPU_BUSY || (m === CPU_AWAKE_IDLE && k.wakeDoneAt[cpu] <= k.now)) k.schedule(cpu)
  }
}

export function onRunDone(k: Kernel, cpu: number): void {
  const t = k.curr[cpu]
  if (t === NIL) return
  if (k.pendingStall[cpu] > 0) {
    const stall = k.pendingStall[cpu]
    k.pendingStall[cpu] = 0
    // a batch stalled before its last syscall began: that syscall's end was posted when it
    // began, as one by one
    let at = k.now
    const op = k.batchOp[t]
    if (op > 0 && k.action[t] !== ACT_RUN_WALL) {
      const opDur = Math.ceil(op / k.cpuRate[cpu])
      if (k.lastStallAt[cpu] < k.now - opDur) at = k.now + stall - opDur
    }
    k.eq.pushKeyed(cpu, k.now + stall, EV_RUN_DONE, cpu, ++k.runDoneGen[cpu], at)
    return
  }
  if (k.pointAt[t] > 0 && k.action[t] === ACT_RUN_KERNEL) {
    accountProgress(k, cpu, t)
    if (k.remaining[t] >= 1) {
      if (k.batchOp[t] > 0) batchReturn(k, cpu, t)
      else mightResched(k, cpu, t)
      return
    }
  }
  k.remaining[t] = 0
  k.action[t] = ACT_NONE
  k.segStart[cpu] = k.now
  runProgram(k, cpu, t)
}

/** A might_resched() point inside a kernel section (PREEMPT_VOLUNTARY). */
export function mightResched(k: Kernel, cpu: number, t: number): void {
  const step = k.kernelPoint[t]
  let at = k.pointAt[t]
  while (at > 0 && at >= k.remaining[t] - 0.5) at -= step
  k.pointAt[t] = at > 0 ? at : 0
  if (k.stopDeferred[cpu] !== 0) {
    k.stopDeferred[cpu] = 0
    k.eq.push(k.now, EV_STOPPER, cpu, 0)
  }
  if (k.needResched[cpu] !== 0) k.schedule(cpu)
  else armRunDone(k, cpu, t)
}

export function onTick(k: Kernel, cpu: number): void {
  if (k.mode[cpu] !== CPU_BUSY) {
    k.tickArmed[cpu] = 0
    return
  }
  const prevThis = k.thisCpu
  k.thisCpu = cpu
  k.schedulerTick(cpu)
  k.thisCpu = prevThis
  if (k.slackHead[cpu] !== NIL) runSoftExpiredTimers(k, cpu, k.now)
  // the next tick stays on the jiffy grid, also after one delivered late (a vCPU stall)
  const tick = k.cfg.tickNs
  k.eq.pushKeyed(k.ncpus + cpu, (Math.floor(k.now / tick) + 1) * tick, EV_TICK, cpu, ++k.tickGen[cpu], k.now)
}

export function onHrtick(k: Kernel, cpu: number): void {
  const curr = k.curr[cpu]
  if (curr === NIL || !k.isFair(curr)) return
  const prevThis = k.thisCpu
  k.thisCpu = cpu
  if (k.rec !== null) k.rec.hrtick(cpu)
  k.fn.taskTickFair(k, cpu, true)
  k.thisCpu = prevThis
  if (k.slackHead[cpu] !== NIL) runSoftExpiredTimers(k, cpu, k.now)
}

/** Idle CPU finished its interrupt: run what was queued, or go back to idle. */
export function afterIdleIrq(k: Kernel, cpu: number): void {
  if (k.mode[cpu] !== CPU_AWAKE_IDLE) return
  k.flushWakeList(cpu)
  if (k.nrRunning[cpu] > 0 || k.needResched[cpu] !== 0) k.schedule(cpu)
  else enterIdle(k, cpu)
}

export function onIpi(k: Kernel, cpu: number): void {
  k.ipiPending[cpu] = 0
  if (k.mode[cpu] === CPU_BUSY) {
    k.flushWakeList(cpu)
    if (k.reschedDue(cpu)) k.schedule(cpu)
    else {
      if (k.needResched[cpu] !== 0) batchPoint(k, cpu)
      if (k.rec !== null) k.rec.reschedDeferred(cpu)
    }
    return
  }
  const ready = exitIdle(k, cpu)
  if (ready > k.now) k.eq.push(ready, EV_IDLE_EXIT, cpu, 0)
  else afterIdleIrq(k, cpu)
}

export function onIdleExit(k: Kernel, cpu: number): void {
  if (k.mode[cpu] !== CPU_AWAKE_IDLE) return
  if (k.wakeDoneAt[cpu] > k.now) {
    k.eq.push(k.wakeDoneAt[cpu], EV_IDLE_EXIT, cpu, 0)
    return
  }
  afterIdleIrq(k, cpu)
}

export function onFork(k: Kernel, task: number): void {
  const startCpu = k.timerCpu[task]
  k.wakeUpNewTask(task, -1, startCpu)
}

export function onStopper(k: Kernel, cpu: number): void {
  const work = k.stopWork[cpu]
  if (!work) return
  // an idle CPU runs its stopper once out of its idle state
  if (k.mode[cpu] !== CPU_BUSY) {
    const ready = exitIdle(k, cpu)
    if (ready > k.now) {
      k.eq.push(ready, EV_STOPPER, cpu, 0)
      return
    }
  }
  // without a preemptible kernel the stopper waits for the running kernel section's end
  if (k.mode[cpu] === CPU_BUSY && k.cfg.preemptModel < PREEMPT_FULL && k.inKernel(cpu)) {
    if (k.rec !== null) k.rec.stopperDeferred(cpu)
    k.stopDeferred[cpu] = 1
    batchPoint(k, cpu)
    return
  }
  k.stopWork[cpu] = null
  // the stopper task preempts whatever runs: put the current task back, run the work
  const prevThis = k.thisCpu
  k.thisCpu = cpu
  const prev = k.curr[cpu]
  if (k.rec !== null) k.rec.stopper(cpu, prev)
  if (prev !== NIL) {
    k.switchOut(cpu, prev)
    k.putPrevSetNext(cpu, prev, NIL)
    k.curr[cpu] = NIL
    k.busyNs[cpu] += k.now - k.lastBusyStart[cpu]
    k.mode[cpu] = CPU_AWAKE_IDLE
    k.wakeDoneAt[cpu] = k.now
    if (k.isFair(prev) && k.onRq[prev] !== 0) k.placement.taskPreempted?.(cpu, prev)
  }
  k.nrStopperRuns++
  work.run(k, cpu)
  k.needResched[cpu] = 1
  k.schedule(cpu)
  k.thisCpu = prevThis
}

export function onFairServer(k: Kernel, cpu: number): void {
  const prevThis = k.thisCpu
  k.thisCpu = cpu
  k.fairServer!.timer(cpu)
  k.thisCpu = prevThis
}

export function onCallback(k: Kernel, i: number): void {
  const fn = k.callbacks[i]
  k.callbacks[i] = noop
  k.freeCallbacks.push(i)
  fn()
}

/** Close the books at the end of the run: charge running tasks, busy time, counters. */
export function finish(k: Kernel): void {
  const c = k.counters
  c.involuntarySwitches = k.nrInvoluntarySwitches
  c.idleExits = k.nrIdleExits
  c.stopperRuns = k.nrStopperRuns
  if (k.fairServer) c.fairServerBoosts = k.fairServer.nrBoosts
  c.delayedDequeues = k.nrDelayed
  c.delayedDequeuesPicked = k.nrDelayedPicked
  c.delayedDequeuesWoken = k.nrDelayedWoken
  for (let cpu = 0; cpu < k.ncpus; cpu++) {
    const t = k.curr[cpu]
    if (t !== NIL) {
      if (k.isFair(t)) k.fn.updateCurr(k, cpu)
      else k.rt.updateCurr(cpu)
    }
    if (k.mode[cpu] === CPU_BUSY) {
      k.busyNs[cpu] += k.now - k.lastBusyStart[cpu]
      k.lastBusyStart[cpu] = k.now
    }
  }
}

function noop(): void {}
