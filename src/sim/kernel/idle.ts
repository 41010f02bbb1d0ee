/**
 * The idle loop's side of a CPU (kernel/sched/idle.c with a cpuidle governor): entering the
 * idle state the predicted idle time and PM QoS allow, and leaving it on an interrupt after its
 * exit latency; the idle durations feed the prediction and rq->avg_idle. Free functions over
 * the Kernel.
 */
import { CPU_AWAKE_IDLE, CPU_IDLE, type Kernel } from './sched'

/** Wake a CPU out of its idle state: returns the time it can execute code again. */
export function exitIdle(k: Kernel, cpu: number): number {
  if (k.mode[cpu] === CPU_IDLE) {
    const idleFor = k.now - k.idleStart[cpu]
    noteIdleDuration(k, cpu, idleFor)
    const st = k.idleStates[cpu][k.idleState[cpu]]
    k.mode[cpu] = CPU_AWAKE_IDLE
    k.wakeDoneAt[cpu] = k.now + Math.round(st.exitLatencyUs * 1000)
    k.leavingIdle[cpu] = 1
    k.nrIdleExits++
    if (k.rec !== null) k.rec.idleExit(cpu, k.wakeDoneAt[cpu])
  }
  return k.wakeDoneAt[cpu] > k.now ? k.wakeDoneAt[cpu] : k.now
}

/**
 * do_idle()'s way out once the interrupt that ended the idle state raised a reschedule:
 * tick_nohz_idle_exit() (restart the stopped tick, account the idle time, update jiffies) and
 * the preparation of schedule_idle(). It runs after the wakeup, so it lies between
 * sched_waking and the woken task's switch-in, which a CPU woken while busy does not pay:
 * `idleExitUs` of CPU work (default 0; a TCG guest's vCPU pays about 5 us), charged once per
 * exit from an idle state when the CPU switches to a task.
 */
export function tickNohzIdleExit(k: Kernel, cpu: number): void {
  k.leavingIdle[cpu] = 0
  const work = k.cfg.costs.idleExitWorkNs
  if (work <= 0) return
  const dt = Math.ceil(work / k.cpuRate[cpu])
  k.sysNs[cpu] += dt
  k.schedStall[cpu] += dt
}

export function noteIdleDuration(k: Kernel, cpu: number, idleFor: number): void {
  // cpuidle-governor-like prediction, and rq->avg_idle (update_avg: 1/8 EWMA, capped)
  k.idlePredictNs[cpu] += (idleFor - k.idlePredictNs[cpu]) / 8
  const cap = 2 * k.maxIdleBalanceCost(cpu)
  let a = k.avgIdle[cpu] + (idleFor - k.avgIdle[cpu]) / 8
  if (a > cap) a = cap
  k.avgIdle[cpu] = a
}

export function enterIdle(k: Kernel, cpu: number): void {
  k.mode[cpu] = CPU_IDLE
  k.schedStall[cpu] = 0
  k.leavingIdle[cpu] = 0
  k.idleStart[cpu] = k.now
  k.idleEnterTs[cpu] = k.now
  const states = k.idleStates[cpu]
  const predicted = k.idlePredictNs[cpu]
  let s = 0
  const qos = k.cpuLatencyQosNs
  for (let i = states.length - 1; i > 0; i--) {
    if (states[i].targetResidencyUs * 1000 <= predicted && states[i].exitLatencyUs * 1000 <= qos) {
      s = i
      break
    }
  }
  k.idleState[cpu] = s
  if (k.rec !== null) k.rec.idleEnter(cpu, s)
  k.tickGen[cpu]++
  k.tickArmed[cpu] = 0
  k.hrtickGen[cpu]++
}
