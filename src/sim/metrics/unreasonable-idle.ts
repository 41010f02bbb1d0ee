/**
 * "Unreasonable idle" events as seed 004 defines them: a CPU stays idle for t > 2.5 ms while a
 * task that may run on it (affinity allows it) waits in a runqueue for longer than t. Counted
 * per idle period in DESIGN.md's buckets 2.5-3 ms, 3-4 ms and 4 ms+.
 *
 * The detector keeps the set of waiting fair tasks (queued, not running, not delayed) with the
 * time each started waiting; a migration does not restart the wait. When an idle period of
 * length t ends, one event is counted if some task allowed on that CPU has been waiting since
 * before the period began. Only long idle periods scan the set, so the cost is O(waiting tasks)
 * per event counted candidate, nothing on the common paths.
 */

export const UNREASONABLE_IDLE_MIN_NS = 2_500_000

/** The result's bucket names, by index. */
export const IDLE_BUCKETS = ['2.5-3ms', '3-4ms', '4ms+'] as const

export interface UnreasonableIdleBuckets {
  '2.5-3ms': number
  '3-4ms': number
  '4ms+': number
}

export class UnreasonableIdleDetector {
  readonly idleSince: Float64Array
  private waitStart: Float64Array
  private waitIdx: Int32Array
  private waiting: Int32Array
  private nWaiting = 0
  private readonly counts = new Float64Array(3)
  /** Told of each event counted (explain finds the one it is asked about with it). */
  onEvent: ((cpu: number, idleStartNs: number, idleEndNs: number, task: number, waitStartNs: number, bucket: number) => void) | null = null

  constructor(ncpus: number, tasks: number) {
    this.idleSince = new Float64Array(ncpus).fill(-1)
    this.waitStart = new Float64Array(0)
    this.waitIdx = new Int32Array(0)
    this.waiting = new Int32Array(0)
    this.ensureTasks(tasks)
  }

  ensureTasks(n: number): void {
    if (n <= this.waitIdx.length) return
    const ws = new Float64Array(n).fill(-1)
    ws.set(this.waitStart)
    const wi = new Int32Array(n).fill(-1)
    wi.set(this.waitIdx)
    const w = new Int32Array(n)
    w.set(this.waiting)
    this.waitStart = ws
    this.waitIdx = wi
    this.waiting = w
  }

  /** The task became runnable and waits for a CPU. */
  taskWaits(p: number, now: number): void {
    if (this.waitIdx[p] >= 0) return
    this.waitIdx[p] = this.nWaiting
    this.waiting[this.nWaiting++] = p
    this.waitStart[p] = now
  }

  /** A waiting task was migrated: its wait goes on. */
  taskMoved(p: number, now: number): void {
    this.taskWaits(p, now)
  }

  /** The task runs, sleeps or exits. */
  taskStops(p: number): void {
    const i = this.waitIdx[p]
    if (i < 0) return
    const last = this.waiting[--this.nWaiting]
    this.waiting[i] = last
    this.waitIdx[last] = i
    this.waitIdx[p] = -1
    this.waitStart[p] = -1
  }

  cpuIdle(cpu: number, now: number): void {
    if (this.idleSince[cpu] < 0) this.idleSince[cpu] = now
  }

  /** The CPU runs a task again (at `now`): classify the idle period that ended. */
  cpuBusy(cpu: number, now: number, canRun: (p: number, cpu: number) => boolean): void {
    const s = this.idleSince[cpu]
    if (s < 0) return
    this.idleSince[cpu] = -1
    const t = now - s
    if (t <= UNREASONABLE_IDLE_MIN_NS) return
    for (let i = 0; i < this.nWaiting; i++) {
      const p = this.waiting[i]
      if (this.waitStart[p] <= s && canRun(p, cpu)) {
        const bucket = t <= 3_000_000 ? 0 : t <= 4_000_000 ? 1 : 2
        this.counts[bucket]++
        if (this.onEvent !== null) this.onEvent(cpu, s, now, p, this.waitStart[p], bucket)
        return
      }
    }
  }

  /** End of run: idle periods still open end now. */
  finish(now: number, canRun: (p: number, cpu: number) => boolean): void {
    for (let c = 0; c < this.idleSince.length; c++) this.cpuBusy(c, now, canRun)
  }

  /** Forget the events counted so far (the end of a discarded warm-up). */
  resetCounts(): void {
    this.counts.fill(0)
  }

  buckets(): UnreasonableIdleBuckets {
    return { '2.5-3ms': this.counts[0], '3-4ms': this.counts[1], '4ms+': this.counts[2] }
  }
}
