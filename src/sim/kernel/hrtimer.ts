/**
 * hrtimer sleeps and their interrupts (kernel/time/hrtimer.c as the scheduler sees it): a
 * sleeping task's timer fires at its expiry plus the task's timer slack (plus a virtual
 * machine's delivery delay); the interrupt first needs its CPU awake, wakes the task
 * (try_to_wake_up) and, in the same interrupt, every armed sleep whose soft expiry has passed
 * (__hrtimer_run_queues over the per-CPU slack queue). Free functions over the Kernel.
 */
import { CPU_AWAKE_IDLE, CPU_BUSY, EV_IDLE_EXIT, EV_TIMER_IRQ, type Kernel } from './sched'
import { NIL } from './eevdf-tree'
import { exitIdle } from './idle'
import { lognormalMean1 } from '../engine/prng'

/**
 * Timer delivery of a virtual machine: the guest's hrtimer is emulated by the hypervisor, whose
 * own timer and interrupt injection fire late by a varying amount. From now on every hrtimer
 * sleep fires a lognormal time (mean `meanNs`, log-spread `sigma`) after its hard expiry; the
 * vCPU runs its task meanwhile.
 */
export function setTimerDelay(k: Kernel, meanNs: number, sigma: number): void {
  k.timerDelayNs = Math.max(0, meanNs)
  k.timerDelaySigma = sigma
}

/** The delivery delay of one hrtimer expiry (none on bare metal), integer ns. */
export function timerDelay(k: Kernel): number {
  if (k.timerDelayNs === 0) return 0
  return Math.round(lognormalMean1(k, k.timerDelaySigma) * k.timerDelayNs)
}

/** An hrtimer expires on the CPU it was armed on: the interrupt first needs that CPU awake. */
export function onTimer(k: Kernel, task: number, gen: number): void {
  const cpu = k.timerCpu[task]
  if (k.slackOn[task] !== 0) unlinkSlackTimer(k, task)
  if (k.rec !== null) k.rec.timerFired(task, cpu, k.timerAt[task])
  const irq = Math.ceil(k.cfg.costs.timerIrqWorkNs / k.cpuRate[cpu])
  let handleAt: number
  if (k.mode[cpu] === CPU_BUSY) {
    k.chargeCpu(cpu, k.cfg.costs.timerIrqWorkNs)
    handleAt = k.now + irq
  } else {
    handleAt = exitIdle(k, cpu) + irq
    k.sysNs[cpu] += irq
    if (handleAt > k.wakeDoneAt[cpu]) k.wakeDoneAt[cpu] = handleAt
  }
  if (handleAt <= k.now) onTimerIrq(k, task)
  else k.eq.push(handleAt, EV_TIMER_IRQ, task, gen)
  if (k.slackHead[cpu] !== NIL) runSoftExpiredTimers(k, cpu, handleAt)
}

/** Queue task's armed sleep on cpu's slack-timer queue, ordered by hard expiry. */
export function linkSlackTimer(k: Kernel, cpu: number, task: number, hard: number): void {
  const next = k.slackNext
  const prev = k.slackPrev
  let after = NIL
  let at = k.slackHead[cpu]
  // equal hard expiries keep arming order, as the timerqueue does
  while (at !== NIL && k.slackHard[at] <= hard) {
    after = at
    at = next[at]
  }
  k.slackHard[task] = hard
  prev[task] = after
  next[task] = at
  if (after === NIL) k.slackHead[cpu] = task
  else next[after] = task
  if (at !== NIL) prev[at] = task
  k.slackOn[task] = 1
}

export function unlinkSlackTimer(k: Kernel, task: number): void {
  const next = k.slackNext[task]
  const prev = k.slackPrev[task]
  if (prev === NIL) k.slackHead[k.timerCpu[task]] = next
  else k.slackNext[prev] = next
  if (next !== NIL) k.slackPrev[next] = prev
  k.slackNext[task] = NIL
  k.slackPrev[task] = NIL
  k.slackOn[task] = 0
}

/**
 * An hrtimer interrupt of cpu (the tick, the hrtick, another timer) also runs the armed
 * sleeps whose soft expiry has passed, in hard-expiry order, up to the first one not yet
 * soft-expired (__hrtimer_run_queues). They are woken in the same interrupt, before its
 * exit acts on a reschedule: `handleAt` is when that interrupt's timer work is done.
 *
 * __hrtimer_run_queues calls one timer function at a time, and each hrtimer_wakeup's
 * try_to_wake_up (select_task_rq, then the enqueue or the remote wake list) is over before
 * the next timer runs. On a CPU that was idle (its interrupt came from the timer that fired
 * first, onTimer), each further sleeper is therefore woken one timer's work (timerIrqWorkNs,
 * what a busy CPU is charged per timer) after the previous one, and the CPU goes back to its
 * idle loop, or switches to a wakee, after the last. Other CPUs whose timers expired at the
 * same moment meanwhile place their own first sleepers, as CPUs running their interrupts in
 * parallel do. A busy CPU's interrupt (the tick, the hrtick, a timer) still wakes them all at
 * once; their work is charged to the task it interrupted.
 */
export function runSoftExpiredTimers(k: Kernel, cpu: number, handleAt: number): void {
  const serial = k.mode[cpu] !== CPU_BUSY
  const step = serial ? Math.ceil(k.cfg.costs.timerIrqWorkNs / k.cpuRate[cpu]) : 0
  let at = handleAt
  let t = k.slackHead[cpu]
  while (t !== NIL && k.timerAt[t] <= k.now) {
    const next = k.slackNext[t]
    unlinkSlackTimer(k, t)
    if (k.rec !== null) k.rec.timerFired(t, cpu, k.timerAt[t])
    const gen = ++k.timerGen[t]
    if (serial) {
      at += step
      k.sysNs[cpu] += step
    } else {
      k.chargeCpu(cpu, k.cfg.costs.timerIrqWorkNs)
    }
    if (at <= k.now) onTimerIrq(k, t)
    else k.eq.push(at, EV_TIMER_IRQ, t, gen)
    t = next
  }
  if (at > handleAt) {
    // the idle loop resumes (or the wakee is switched in) once the last sleeper is woken:
    // posted as of that instant, the exit sorts after the last wakeup
    k.irqLastWakeAt[cpu] = at
    if (at > k.wakeDoneAt[cpu]) k.wakeDoneAt[cpu] = at
    k.eq.pushPosted(at, EV_IDLE_EXIT, cpu, 0, at)
  }
}

export function onTimerIrq(k: Kernel, task: number): void {
  const cpu = k.timerCpu[task]
  const prevThis = k.thisCpu
  k.thisCpu = cpu
  k.tryToWakeUp(task, 0, k.timerAt[task])
  // the interrupt's exit acts on a lazy reschedule another CPU raised here without an IPI
  if (k.needReschedLazy[cpu] !== 0 && k.mode[cpu] === CPU_BUSY) k.markLocal(cpu)
  // the tail follows the interrupt's last wakeup
  if (k.cfg.costs.timerIrqTailWorkNs > 0 && k.now >= k.irqLastWakeAt[cpu]) timerIrqTail(k, cpu)
  k.thisCpu = prevThis
  // back to the idle loop once every timer of this instant has been handled
  if (k.mode[cpu] === CPU_AWAKE_IDLE) {
    if (k.wakeDoneAt[cpu] <= k.now) k.eq.push(k.now, EV_IDLE_EXIT, cpu, 0)
    else if (k.cfg.costs.timerIrqTailWorkNs > 0) k.eq.push(k.wakeDoneAt[cpu], EV_IDLE_EXIT, cpu, 0)
  }
}

/**
 * The rest of hrtimer_interrupt() after its wakeups (the clock event reprogram, the irq
 * exit): once per interrupt, and before the CPU can act on a reschedule it raised, so it
 * lies between sched_waking and the woken task's switch-in, as on the real kernel.
 */
export function timerIrqTail(k: Kernel, cpu: number): void {
  if (k.irqTailAt[cpu] === k.now) return
  k.irqTailAt[cpu] = k.now
  const work = k.cfg.costs.timerIrqTailWorkNs
  // no reschedule this interrupt's exit acts on (neither raised nor a lazy one its exit to user
  // mode takes, marked by onTimerIrq): it only stalls the interrupted task
  if (k.mode[cpu] === CPU_BUSY && k.needResched[cpu] === 0 && k.localReschedMark[cpu] === 0) return k.chargeCpu(cpu, work)
  const dt = Math.ceil(work / k.cpuRate[cpu])
  k.sysNs[cpu] += dt
  // the switch this interrupt's exit makes, or the idle loop's exit, starts after it
  if (k.mode[cpu] === CPU_BUSY) k.schedStall[cpu] += dt
  else if (k.now + dt > k.wakeDoneAt[cpu]) k.wakeDoneAt[cpu] = k.now + dt
}
