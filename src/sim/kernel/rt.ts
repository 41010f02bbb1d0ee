/**
 * The RT class (kernel/sched/rt.c): SCHED_FIFO and SCHED_RR, 99 priority levels per CPU with
 * FIFO order inside a level, RR time slices, wakeup placement through cpupri's lowest-priority
 * CPU, push of waiting RT tasks and pull when a CPU's priority drops.
 *
 * Priorities are rt_priority values (1..99, higher runs first), not the kernel's inverted prio.
 * Not modeled: RT throttling / the fair deadline server (fair tasks can starve under RT hogs),
 * priority inheritance.
 */
import type { Kernel, RtClass as SchedRtClass } from './sched'
import { NIL } from './eevdf-tree'
import { SCHED_RR } from './api'
import { SD_WAKE_AFFINE, type SchedDomain } from './domains'

const LEVELS = 100
/**
 * cpupri level of a CPU running no RT task, idle or busy with fair tasks alike: cpupri has had
 * no separate IDLE level since 5.11.
 */
const CPUPRI_NORMAL = 0

export class RtClass implements SchedRtClass {
  readonly nrRunning: Int32Array
  readonly highest: Int32Array
  private head: Int32Array
  private tail: Int32Array
  private count: Int32Array
  private next: Int32Array
  private prev: Int32Array
  private rrLeft: Float64Array
  domains: readonly (SchedDomain | null)[] | null = null
  /** per-CPU distribute_cpu_mask_prev of cpumask_any_and_distribute(). */
  private distributePrev: Int32Array
  /** cpupri_find() scratch: the lowest-priority mask. */
  private lowestMask: Uint8Array

  constructor(private k: Kernel) {
    const c = k.ncpus
    this.nrRunning = new Int32Array(c)
    this.highest = new Int32Array(c)
    this.head = new Int32Array(c * LEVELS).fill(NIL)
    this.tail = new Int32Array(c * LEVELS).fill(NIL)
    this.count = new Int32Array(c * LEVELS)
    this.next = new Int32Array(k.state.length).fill(NIL)
    this.prev = new Int32Array(k.state.length).fill(NIL)
    this.rrLeft = new Float64Array(k.state.length)
    this.distributePrev = new Int32Array(c)
    this.lowestMask = new Uint8Array(c)
  }

  resize(n: number): void {
    const g = (a: Int32Array): Int32Array => { const b = new Int32Array(n).fill(NIL); b.set(a); return b }
    this.next = g(this.next)
    this.prev = g(this.prev)
    const r = new Float64Array(n); r.set(this.rrLeft); this.rrLeft = r
  }

  /** enqueue_task_rt(): tail of its priority list (head when put back after preemption). */
  enqueue(cpu: number, p: number, _flags: number, atHead = false): void {
    const prio = this.k.rtPrio[p]
    const slot = cpu * LEVELS + prio
    if (atHead && this.head[slot] !== NIL) {
      const h = this.head[slot]
      this.next[p] = h
      this.prev[p] = NIL
      this.prev[h] = p
      this.head[slot] = p
    } else {
      const t = this.tail[slot]
      this.prev[p] = t
      this.next[p] = NIL
      if (t !== NIL) this.next[t] = p
      else this.head[slot] = p
      this.tail[slot] = p
    }
    this.count[slot]++
    this.nrRunning[cpu]++
    if (prio > this.highest[cpu]) this.highest[cpu] = prio
    if (this.rrLeft[p] <= 0) this.rrLeft[p] = this.k.cfg.rrTimesliceNs
  }

  dequeue(cpu: number, p: number): void {
    const prio = this.k.rtPrio[p]
    const slot = cpu * LEVELS + prio
    const pv = this.prev[p]
    const nx = this.next[p]
    if (pv !== NIL) this.next[pv] = nx
    else this.head[slot] = nx
    if (nx !== NIL) this.prev[nx] = pv
    else this.tail[slot] = pv
    this.next[p] = NIL
    this.prev[p] = NIL
    this.count[slot]--
    this.nrRunning[cpu]--
    if (prio === this.highest[cpu] && this.count[slot] === 0) {
      let h = prio - 1
      while (h > 0 && this.count[cpu * LEVELS + h] === 0) h--
      this.highest[cpu] = h
    }
  }

  /** pick_task_rt(): head of the highest non-empty level. */
  pickTask(cpu: number): number {
    return this.head[cpu * LEVELS + this.highest[cpu]]
  }

  setNext(cpu: number, p: number): void {
    this.k.execStart[p] = this.k.now
    void cpu
  }

  putPrev(cpu: number, p: number): void {
    this.updateCurrTask(p)
    void cpu
  }

  /** update_curr_rt() */
  updateCurr(cpu: number): void {
    const p = this.k.curr[cpu]
    if (p !== NIL) this.updateCurrTask(p)
  }

  private updateCurrTask(p: number): void {
    const k = this.k
    const delta = k.now - k.execStart[p]
    if (delta > 0) {
      k.sumExec[p] += delta
      k.execStart[p] = k.now
    }
  }

  /** task_tick_rt(): SCHED_RR tasks rotate within their level every rr timeslice. */
  taskTick(cpu: number, p: number): void {
    const k = this.k
    this.updateCurrTask(p)
    if (k.policy[p] !== SCHED_RR) return
    this.rrLeft[p] -= k.cfg.tickNs
    if (this.rrLeft[p] > 0) return
    this.rrLeft[p] = k.cfg.rrTimesliceNs
    const slot = cpu * LEVELS + k.rtPrio[p]
    if (this.head[slot] !== this.tail[slot]) {
      this.dequeue(cpu, p)
      this.enqueue(cpu, p, 0)
      k.reschedCurr(cpu)
    }
  }

  yieldTask(cpu: number, p: number): void {
    this.dequeue(cpu, p)
    this.enqueue(cpu, p, 0)
  }

  /** cpupri value of a CPU: its highest queued RT priority, or NORMAL. */
  cpuPrio(cpu: number): number {
    return this.nrRunning[cpu] > 0 ? this.highest[cpu] : CPUPRI_NORMAL
  }

  /**
   * rt_task_fits_capacity(): on asymmetric systems the CPU's capacity must reach the task's
   * uclamp_min (capped by its uclamp_max). RT tasks' uclamp_min defaults to 1024
   * (sysctl_sched_uclamp_util_min_rt_default), so by default only the biggest CPUs fit.
   */
  taskFitsCpu(p: number, cpu: number): boolean {
    const k = this.k
    if (!k.topo.asymCapacity) return true
    const want = Math.min(k.uclampMin[p], k.uclampMax[p])
    return k.topo.cpus[cpu].capacityOrig >= want
  }

  /**
   * cpupri_find_fitness(): the CPUs at the lowest priority level below p's that p may use (and,
   * with asymmetric capacities, that fit it; if no level has a fitting CPU, the search runs again
   * ignoring fitness: priority before fitness). Fills lowestMask; false when empty.
   */
  private cpupriFind(p: number): boolean {
    const k = this.k
    const prio = k.rtPrio[p]
    const mask = this.lowestMask
    for (let pass = k.topo.asymCapacity ? 0 : 1; pass < 2; pass++) {
      for (let level = CPUPRI_NORMAL; level < prio; level++) {
        let any = false
        for (let c = 0; c < k.ncpus; c++) {
          const ok = k.cpuAllowed(p, c) && this.cpuPrio(c) === level && (pass === 1 || this.taskFitsCpu(p, c))
          mask[c] = ok ? 1 : 0
          if (ok) any = true
        }
        if (any) return true
      }
    }
    return false
  }

  /** cpumask_any_and_distribute(lowest, span): the next CPU of both after the last one chosen here. */
  private anyDistribute(span: Uint8Array | null): number {
    const k = this.k
    const n = k.ncpus
    const me = k.thisCpu >= 0 ? k.thisCpu : 0
    const from = this.distributePrev[me] + 1
    for (let i = 0; i < n; i++) {
      const c = (from + i) % n
      if (this.lowestMask[c] && (span === null || span[c])) {
        this.distributePrev[me] = c
        return c
      }
    }
    return -1
  }

  /**
   * find_lowest_rq(): a CPU of the lowest priority level (cpupri_find). The task's own CPU
   * first (cache hot), then, walking the task CPU's domains upward, this CPU if a wake-affine
   * domain holds it, else a CPU of that domain spread by cpumask_any_and_distribute; then this
   * CPU; then any of the mask.
   */
  findLowestRq(p: number, thisCpuIn: number): number {
    const k = this.k
    if (k.nrCpusAllowed[p] === 1) return -1
    if (!this.cpupriFind(p)) return -1
    const mask = this.lowestMask
    const cpu = k.taskCpu[p]
    if (cpu >= 0 && mask[cpu]) return cpu
    const thisCpu = thisCpuIn >= 0 && mask[thisCpuIn] ? thisCpuIn : -1
    const doms = this.domains
    if (doms !== null && cpu >= 0) {
      for (let sd = doms[cpu]; sd; sd = sd.parent) {
        if (!(sd.flags & SD_WAKE_AFFINE)) continue
        if (thisCpu >= 0 && sd.spanMask[thisCpu]) return thisCpu
        const best = this.anyDistribute(sd.spanMask)
        if (best >= 0) return best
      }
    }
    if (thisCpu >= 0) return thisCpu
    return this.anyDistribute(null)
  }

  /**
   * select_task_rq_rt(): stay on prev unless an RT task of higher or equal priority (or a
   * pinned one) runs there, or p does not fit prev's capacity; then find_lowest_rq(), kept only
   * if p would run there first (and, when only fitness sent it looking, if it fits there).
   */
  selectTaskRq(p: number, prevCpu: number, thisCpu: number): number {
    const k = this.k
    let cpu = prevCpu >= 0 ? prevCpu : 0
    if (!k.cpuAllowed(p, cpu)) cpu = firstAllowed(k, p)
    const curr = k.curr[cpu]
    const blocked = curr !== NIL && !k.isFair(curr) && (k.nrCpusAllowed[curr] < 2 || k.rtPrio[curr] >= k.rtPrio[p])
    if (blocked || !this.taskFitsCpu(p, cpu)) {
      const target = k.fn.findLowestRq(k, p, thisCpu)
      if (!blocked && target >= 0 && !this.taskFitsCpu(p, target)) return cpu
      if (target >= 0 && k.rtPrio[p] > this.cpuPrio(target)) cpu = target
    }
    return cpu
  }

  /** Waiting (not running) RT tasks that may run elsewhere. */
  hasPushable(cpu: number): boolean {
    return this.nrRunning[cpu] > 1 || (this.nrRunning[cpu] === 1 && this.k.curr[cpu] !== this.pickTask(cpu))
  }

  /** The highest-priority queued RT task of cpu that is not running and may migrate. */
  private pickPushable(cpu: number, minPrio: number): number {
    const k = this.k
    for (let prio = this.highest[cpu]; prio > minPrio; prio--) {
      for (let t = this.head[cpu * LEVELS + prio]; t !== NIL; t = this.next[t]) {
        if (t !== k.curr[cpu] && k.nrCpusAllowed[t] > 1) return t
      }
    }
    return NIL
  }

  /** push_rt_tasks(): move waiting RT tasks to CPUs running something of lower priority. */
  pushRtTasks(cpu: number): void {
    const k = this.k
    for (let guard = 0; guard < k.ncpus; guard++) {
      const p = this.pickPushable(cpu, 0)
      if (p === NIL) return
      const curr = k.curr[cpu]
      if (curr !== NIL && !k.isFair(curr) && k.rtPrio[p] > k.rtPrio[curr]) {
        k.reschedCurr(cpu)
        return
      }
      const target = k.fn.findLowestRq(k, p, cpu)
      if (target < 0 || target === cpu) return
      k.counters.rtPush = (k.counters.rtPush ?? 0) + 1
      if (k.rec !== null) k.rec.rtMove(p, cpu, target, true)
      k.moveQueuedTask(p, target)
    }
  }

  /** pull_rt_task(): this CPU's priority dropped; take higher RT work waiting elsewhere. */
  pullRtTask(cpu: number, _prevPrio: number): void {
    const k = this.k
    for (let src = 0; src < k.ncpus; src++) {
      if (src === cpu || this.nrRunning[src] < 2) continue
      const p = this.pickPushable(src, this.highest[cpu])
      if (p === NIL || !k.cpuAllowed(p, cpu)) continue
      if (k.rtPrio[p] <= this.highest[cpu]) continue
      if (k.f.RT_PUSH_IPI) {
        // tell_cpu_to_push(): instead of taking the busy CPU's lock, IPI it to push its own
        // waiting RT tasks (the lowest-priority CPU, likely this one, gets them)
        k.counters.rtPushIpi = (k.counters.rtPushIpi ?? 0) + 1
        k.at(k.now + k.cfg.costs.ipiNs, () => {
          const prevThis = k.thisCpu
          k.thisCpu = src
          k.fn.pushRtTasks(k, src)
          k.thisCpu = prevThis
        })
        continue
      }
      k.counters.rtPull = (k.counters.rtPull ?? 0) + 1
      if (k.rec !== null) k.rec.rtMove(p, src, cpu, false)
      k.moveQueuedTask(p, cpu)
    }
  }

  /** task_woken_rt(): a woken RT task that will not run soon is pushed away. */
  taskWoken(cpu: number, p: number): void {
    const k = this.k
    const curr = k.curr[cpu]
    if (curr === p || k.needResched[cpu] !== 0 || k.nrCpusAllowed[p] < 2) return
    if (curr !== NIL && !k.isFair(curr) && (k.nrCpusAllowed[curr] < 2 || k.rtPrio[curr] >= k.rtPrio[p])) k.fn.pushRtTasks(k, cpu)
  }
}

function firstAllowed(k: Kernel, p: number): number {
  for (let c = 0; c < k.ncpus; c++) if (k.cpuAllowed(p, c)) return c
  return 0
}
