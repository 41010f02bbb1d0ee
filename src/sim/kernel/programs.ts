/**
 * The execution of task programs (the model's own part of the kernel: what a thread does on its
 * CPU). A task's program chooses one action per step through its TaskContext (the Kernel); its
 * work then progresses at the CPU's rate from segStart, and the run-done event (armRunDone) ends
 * it. Coalesced batches of syscalls (runOps) progress as they would one by one, with a return to
 * user mode between two syscalls (batchPoint). sched_setattr() and sched_setaffinity() as a
 * program calls them. Free functions over the Kernel, as fair.ts's are.
 */
import {
  ACT_BLOCK, ACT_NONE, ACT_RUN, ACT_RUN_KERNEL, ACT_RUN_WALL, ACT_SLEEP, ACT_YIELD, EV_RUN_DONE, EV_TIMER,
  KernelInvariantError, TASK_DEAD, TASK_RUNNING, TASK_SLEEPING, type Kernel
} from './sched'
import { isRtPolicy, SCHED_IDLE, type TaskAttrs, type TaskProgram } from './api'
import { PREEMPT_VOLUNTARY } from './features'
import { NIL } from './eevdf-tree'
import { niceToWeight, WEIGHT_IDLEPRIO } from './weights'
import { DEQUEUE_SAVE, DEQUEUE_SLEEP, DEQUEUE_SPECIAL, ENQUEUE_RESTORE, reweightTask } from './fair'
import { linkSlackTimer, timerDelay } from './hrtimer'

export function terminal(k: Kernel, task: number, act: number, arg: number): void {
  if (task !== k.stepping) throw new KernelInvariantError(`task ${k.attrs[task]?.name} acted outside its step`)
  if (k.stepAction !== ACT_NONE) throw new KernelInvariantError(`task ${k.attrs[task].name} chose two actions in one step`)
  k.stepAction = act
  k.stepArg = arg
}

export function fork(k: Kernel, attrs: TaskAttrs, program: TaskProgram): number {
  const t = k.allocTask(attrs, program)
  const parentCpu = k.thisCpu
  k.wakeUpNewTask(t, parentCpu, -1)
  return t
}

export function setAttrs(k: Kernel, task: number, change: Partial<Pick<TaskAttrs, 'policy' | 'nice' | 'rtPriority' | 'sliceNs' | 'uclampMin' | 'uclampMax'>>): void {
  const a = k.attrs[task]
  const next = { ...a, ...change }
  k.attrs[task] = next
  const cpu = k.taskCpu[task]
  const queued = k.onRq[task] !== 0 && cpu >= 0
  const running = queued && k.curr[cpu] === task
  const newWeight = next.policy === SCHED_IDLE ? WEIGHT_IDLEPRIO : niceToWeight(next.nice)
  const restore = isRtPolicy(next.policy) !== isRtPolicy(a.policy) || next.policy !== a.policy ||
    (isRtPolicy(next.policy) && next.rtPriority !== a.rtPriority) || next.sliceNs !== a.sliceNs
  if (!restore) {
    // set_user_nice(): reweight in place
    if (k.isFair(task)) reweightTask(k, Math.max(cpu, 0), task, newWeight)
    else k.weight[task] = newWeight
    k.uclampMin[task] = Math.max(0, Math.min(1024, next.uclampMin))
    k.uclampMax[task] = Math.max(0, Math.min(1024, next.uclampMax))
    return
  }
  // __sched_setscheduler(): dequeue (DEQUEUE_SAVE), change, enqueue (ENQUEUE_RESTORE)
  if (queued) {
    if (running) k.putPrevSetNext(cpu, task, NIL)
    k.deactivateTask(cpu, task, DEQUEUE_SAVE)
  }
  k.applyAttrs(task, next)
  if (queued) {
    k.activateTask(cpu, task, ENQUEUE_RESTORE)
    if (running) k.putPrevSetNext(cpu, NIL, task)
    k.reschedCurr(cpu)
  }
}

export function setAffinity(k: Kernel, task: number, cpus: readonly number[] | null): void {
  k.attrs[task] = { ...k.attrs[task], cpus }
  k.setAffinityMask(task, cpus)
  const cpu = k.taskCpu[task]
  if (cpu >= 0) k.placement.affinityChanged?.(cpu)
  if (cpu < 0 || k.cpuAllowed(task, cpu)) return
  // __set_cpus_allowed_ptr(): a running task is moved by its CPU's stopper; a queued one directly
  if (k.curr[cpu] === task) {
    k.queueStopWork(cpu, {
      run: (k, c) => {
        if (k.curr[c] !== NIL || k.taskCpu[task] !== c || k.state[task] !== TASK_RUNNING || k.cpuAllowed(task, c)) return
        const dst = k.selectTaskRq(task, c, 0)
        k.moveQueuedTask(task, dst)
      }
    })
  } else if (k.onRq[task] !== 0 && k.state[task] === TASK_RUNNING) {
    const dst = k.selectTaskRq(task, cpu, 0)
    k.moveQueuedTask(task, dst)
  }
}

export function runLeft(k: Kernel, task: number): number {
  const a = k.action[task]
  if (a !== ACT_RUN && a !== ACT_RUN_WALL && a !== ACT_RUN_KERNEL) return 0
  let left = k.remaining[task]
  const cpu = k.taskCpu[task]
  if (cpu >= 0 && k.curr[cpu] === task && k.now > k.segStart[cpu]) {
    const ran = k.now - k.segStart[cpu]
    if (k.batchOp[task] > 0 && a === ACT_RUN_KERNEL) return batchLeftAfter(left, ran, k.batchOp[task], k.cpuRate[cpu])
    left -= a === ACT_RUN_WALL ? ran : ran * k.cpuRate[cpu]
  }
  return left > 0 ? left : 0
}

export function setRunLeft(k: Kernel, task: number, workNs: number): void {
  const a = k.action[task]
  if (a !== ACT_RUN && a !== ACT_RUN_WALL && a !== ACT_RUN_KERNEL) return
  const cpu = k.taskCpu[task]
  const running = cpu >= 0 && k.curr[cpu] === task
  if (running) accountProgress(k, cpu, task)
  // a preemption point keeps its place in the work (the end moved); one beyond the new end
  // is the end itself
  if (k.pointAt[task] > 0) {
    const p = k.pointAt[task] + workNs - k.remaining[task]
    k.pointAt[task] = p >= 1 ? p : 0
  }
  k.remaining[task] = workNs
  if (running) armRunDone(k, cpu, task, true)
}

export function extendRun(k: Kernel, task: number, workNs: number): void {
  const a = k.action[task]
  if (a !== ACT_RUN && a !== ACT_RUN_WALL && a !== ACT_RUN_KERNEL) return
  // remaining counts from segStart: the work added comes after all of it, and a preemption
  // point keeps its place in the work
  k.remaining[task] += workNs
  if (k.pointAt[task] > 0) k.pointAt[task] += workNs
  const cpu = k.taskCpu[task]
  if (cpu < 0 || k.curr[cpu] !== task) return
  // a reschedule waiting for the end of the batch's last syscall now waits for its return
  if (k.batchOp[task] > 0 && k.pointAt[task] === 0 && (k.needResched[cpu] !== 0 || k.needReschedLazy[cpu] !== 0 || k.stopDeferred[cpu] !== 0)) batchPoint(k, cpu)
  else armRunDone(k, cpu, task, true, true)
}

export function runOpsLeft(k: Kernel, task: number): number {
  const op = k.batchOp[task]
  const left = runLeft(k, task)
  k.opNotBefore = k.now
  if (op <= 0) return left > 0 ? 1 : 0
  const n = Math.round(left / op)
  const cpu = k.taskCpu[task]
  if (n > 0 && cpu >= 0 && Math.abs(left - n * op) < k.cpuRate[cpu]) {
    // at a syscall's end: now (if running), or when it was switched out
    const running = k.curr[cpu] === task && k.now > k.segStart[cpu]
    const pending = running ? opEndPending(k, cpu, task, left) : k.opPending[task] !== 0
    return pending ? n + 1 : n
  }
  const ops = Math.ceil(left / op - 1e-9)
  // the operation in flight, progressing at the fastest rate any CPU has from now on; at an
  // operation's boundary the one ending now may still count as done at this instant
  if (left > 0 && Math.abs(left - n * op) >= 1) k.opNotBefore = k.now + Math.floor((left - (ops - 1) * op) / k.maxCpuRate) - 1
  return ops
}

/**
 * The syscall of a batch ending at this very instant is still in flight if the one-by-one run
 * would handle its end after the event being handled now: that end would have been posted
 * when the syscall began (event-queue.ts order: time, posting instant, target).
 */
export function opEndPending(k: Kernel, cpu: number, task: number, left = k.remaining[task]): boolean {
  const op = k.batchOp[task]
  const n = Math.round(left / op)
  if (n <= 0 || Math.abs(left - n * op) >= k.cpuRate[cpu]) return false
  const began = opPostedAt(k, cpu, task, left, op)
  const eq = k.eq
  return !(began < eq.popPosted || (began === eq.popPosted && cpu < eq.popTarget))
}

/**
 * When the one-by-one run posted the end of a batch's syscall in flight, `done` of its work
 * done and `left` of the batch left: when it began (the previous syscall's end), or when its
 * end was armed again (a switch-in) if it was in flight then.
 */
export function opPostedAt(k: Kernel, cpu: number, t: number, left: number, done: number): number {
  if (k.armedLeft[t] <= left + done + 1e-6) return k.armedAt[t]
  return k.now - Math.ceil(done / k.cpuRate[cpu])
}

/**
 * A reschedule or a stopper waits for the running kernel code's next preemption point. In a
 * coalesced batch of syscalls (runOps) that is the return to user mode after the syscall in
 * flight: the batch gets a point there, as the one-by-one run has between two syscalls.
 */
export function batchPoint(k: Kernel, cpu: number): void {
  const t = k.curr[cpu]
  if (t === NIL || k.batchOp[t] <= 0 || k.action[t] !== ACT_RUN_KERNEL || k.pointAt[t] > 0) return
  if (k.needResched[cpu] === 0 && k.needReschedLazy[cpu] === 0 && k.stopDeferred[cpu] === 0) return
  const progressing = k.now > k.segStart[cpu]
  accountProgress(k, cpu, t)
  const op = k.batchOp[t]
  // a syscall ending at this very instant returns after the event being handled now, if the
  // one-by-one run would handle its end later: its return is the point
  const at = progressing && opEndPending(k, cpu, t) ? Math.round(k.remaining[t] / op) * op : Math.floor((k.remaining[t] - 1e-6) / op) * op
  if (at < 1) return // the syscall in flight is the batch's last: its end is the point
  k.pointAt[t] = at
  armRunDone(k, cpu, t, true)
}

/** The batch reached the point batchPoint() set: a syscall returns to user mode. */
export function batchReturn(k: Kernel, cpu: number, t: number): void {
  k.pointAt[t] = 0
  armRunDone(k, cpu, t)
  k.atPreemptionPoint(cpu)
}

/** Call the task's program until it chooses an action that takes time. */
export function runProgram(k: Kernel, cpu: number, t: number): void {
  if (k.stepGuardAt[t] !== k.now) {
    k.stepGuardAt[t] = k.now
    k.stepGuard[t] = 0
  }
  const prevThis = k.thisCpu
  k.thisCpu = cpu
  for (;;) {
    if (++k.stepGuard[t] > 100_000) {
      throw new KernelInvariantError(`task ${k.attrs[t].name} makes no progress at ${k.now} ns (its program never waits or runs)`)
    }
    k.stepping = t
    k.stepAction = ACT_NONE
    k.stepOp = 0
    k.programs[t].step(t, k)
    k.stepping = NIL
    const act = k.stepAction
    const arg = k.stepArg
    if (act === ACT_NONE) throw new KernelInvariantError(`task ${k.attrs[t].name}: step() chose no action`)
    if (act === ACT_RUN || act === ACT_RUN_WALL || act === ACT_RUN_KERNEL) {
      if (!(arg > 0)) continue
      k.action[t] = act
      k.remaining[t] = arg
      if (act === ACT_RUN_KERNEL) {
        const point = k.cfg.preemptModel === PREEMPT_VOLUNTARY && k.stepArg2 > 0 ? k.stepArg2 : 0
        k.kernelPoint[t] = point
        k.pointAt[t] = point > 0 && arg > point ? arg - point : 0
      }
      k.batchOp[t] = k.stepOp
      if (k.segStart[cpu] < k.now) k.segStart[cpu] = k.now
      armRunDone(k, cpu, t)
      // the step was a return to user mode (or a kernel thread's preemption point)
      k.atPreemptionPoint(cpu)
      break
    }
    if (act === ACT_SLEEP) {
      if (arg <= k.now) {
        // clock_nanosleep on an expired time returns at once: no wakeup to leave untimed
        k.unmeasured[t] = 0
        continue
      }
      k.action[t] = ACT_NONE
      // the hrtimer may fire up to the task's timer slack late; latency counts from the
      // requested time, as cyclictest's and rt-app's own measurements do
      k.timerAt[t] = arg
      k.timerCpu[t] = cpu
      k.state[t] = TASK_SLEEPING
      const slack = k.timerSlack(t)
      k.eq.pushKeyed(4 * k.ncpus + t, arg + slack + timerDelay(k), EV_TIMER, t, ++k.timerGen[t], k.now)
      if (slack > 0) linkSlackTimer(k, cpu, t, arg + slack)
      k.deactivateTask(cpu, t, DEQUEUE_SLEEP)
      k.schedule(cpu)
      break
    }
    if (act === ACT_BLOCK) {
      k.action[t] = ACT_NONE
      k.state[t] = TASK_SLEEPING
      k.deactivateTask(cpu, t, DEQUEUE_SLEEP)
      k.schedule(cpu)
      break
    }
    if (act === ACT_YIELD) {
      k.action[t] = ACT_RUN
      k.remaining[t] = 0
      if (k.isFair(t)) k.fn.yieldTaskFair(k, cpu, t)
      else k.rt.yieldTask(cpu, t)
      armRunDone(k, cpu, t)
      k.yielding = true
      k.schedule(cpu)
      k.yielding = false
      break
    }
    // ACT_EXIT
    k.action[t] = ACT_NONE
    k.state[t] = TASK_DEAD
    k.deactivateTask(cpu, t, DEQUEUE_SLEEP | DEQUEUE_SPECIAL)
    k.liveTasks--
    k.exitedSinceCheck = true
    k.programs[t].exited?.(t, k)
    if (k.onTaskExit) k.onTaskExit(t)
    k.schedule(cpu)
    break
  }
  k.thisCpu = prevThis
}

export function accountProgress(k: Kernel, cpu: number, t: number): void {
  const a = k.action[t]
  if (a !== ACT_RUN && a !== ACT_RUN_WALL && a !== ACT_RUN_KERNEL) return
  const ran = k.now - k.segStart[cpu]
  if (ran > 0) {
    if (k.batchOp[t] > 0 && a === ACT_RUN_KERNEL) {
      k.remaining[t] = batchLeftAfter(k.remaining[t], ran, k.batchOp[t], k.cpuRate[cpu])
    } else {
      const done = a === ACT_RUN_WALL ? ran : ran * k.cpuRate[cpu]
      k.remaining[t] = k.remaining[t] > done ? k.remaining[t] - done : 0
    }
    k.segStart[cpu] = k.now
  }
}

/**
 * `fromSegStart`: remaining[t] is the work left as of segStart[cpu] (progress since then not
 * accounted yet, extendRun).
 * `virtual`: the re-arm of a coalesced batch that the one-by-one run does not make (a batch
 * cut short, a preemption point set): the syscall in flight keeps the posting instant it has
 * one by one.
 */
export function armRunDone(k: Kernel, cpu: number, t: number, virtual = false, fromSegStart = false): void {
  const gen = ++k.runDoneGen[cpu]
  // a stall charged before this point already moved segStart: the new event includes it
  k.pendingStall[cpu] = 0
  // `fromSegStart`: the work left is as of segStart (its progress since then not accounted)
  const start = fromSegStart || k.segStart[cpu] > k.now ? k.segStart[cpu] : k.now
  const a = k.action[t]
  let dur = 0
  if (a === ACT_RUN) dur = Math.ceil(k.remaining[t] / k.cpuRate[cpu])
  else if (a === ACT_RUN_WALL) dur = Math.ceil(k.remaining[t])
  else if (a === ACT_RUN_KERNEL) {
    // up to the section's next might_resched() point, if it has one
    if (k.batchOp[t] > 0) dur = batchDur(k.remaining[t], k.pointAt[t], k.batchOp[t], k.cpuRate[cpu])
    else dur = Math.ceil((k.pointAt[t] > 0 ? k.remaining[t] - k.pointAt[t] : k.remaining[t]) / k.cpuRate[cpu])
  }
  const end = start + dur
  // a coalesced batch ends when its last operation would have: among the events of that
  // instant, it comes after those posted before that operation began (event-queue.ts); with
  // one operation left, that one began already and is (re)armed now, as one by one
  let at = k.now
  const op = k.batchOp[t]
  if (op > 0 && a !== ACT_RUN_WALL) {
    const left = k.remaining[t]
    if (left - (k.pointAt[t] > 0 ? k.pointAt[t] : 0) > op + 1e-6) {
      const lastBegins = end - Math.ceil(op / k.cpuRate[cpu])
      if (lastBegins > at) at = lastBegins
    } else if (virtual) {
      at = opPostedAt(k, cpu, t, left, Math.ceil(left / op - 1e-9) * op - left)
    }
  }
  if (!virtual) {
    k.armedAt[t] = k.now
    k.armedLeft[t] = k.remaining[t]
  }
  k.eq.pushKeyed(cpu, end, EV_RUN_DONE, cpu, gen, at)
}

/**
 * A coalesced batch of syscalls (runOps) progresses as they do one by one: each takes its work
 * at the CPU's rate rounded up to a whole ns, so CPUs of one speed stay in the same lockstep.
 * The work left after `e` ns from `left` (the syscall in flight first).
 */
function batchLeftAfter(left: number, e: number, op: number, rate: number): number {
  const k = Math.ceil(left / op - 1e-9)
  const first = Math.ceil((left - (k - 1) * op) / rate - 1e-9)
  if (e < first) return left - e * rate
  const opDur = Math.ceil(op / rate - 1e-9)
  const whole = Math.floor((e - first) / opDur)
  if (1 + whole >= k) return 0
  return (k - 1 - whole) * op - (e - first - whole * opDur) * rate
}

/** ns for a batch to go from `left` to `to` work left (a syscall boundary, or 0). */
function batchDur(left: number, to: number, op: number, rate: number): number {
  const k = Math.ceil(left / op - 1e-9)
  const n = k - Math.round(to / op)
  if (n <= 0) return 0
  return Math.ceil((left - (k - 1) * op) / rate - 1e-9) + (n - 1) * Math.ceil(op / rate - 1e-9)
}
