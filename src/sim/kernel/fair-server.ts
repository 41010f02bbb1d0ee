/**
 * The fair deadline server (6.12+, `sched/deadline: Deferrable dl server`): a deferred
 * SCHED_DEADLINE reservation of 50 ms every 1000 ms that keeps RT tasks from starving fair
 * tasks. It starts throttled when fair work appears on a CPU, with its timer at the
 * zero-laxity point (start + period - runtime). Fair time that runs normally consumes its
 * runtime; if runtime is left at the zero-laxity point while fair tasks wait, the fair class
 * is boosted above RT until the runtime is spent. Runtime is accounted in wall time (the
 * 2025 fix that stopped scaling it by capacity and frequency).
 *
 * Model: one server per CPU; the boost makes pick_next_task try the fair class before RT.
 */
import type { FairServer as SchedFairServer, Kernel } from './sched'

export const FS_OFF = 0
export const FS_DEFERRED = 1
export const FS_BOOSTED = 2
export const FS_THROTTLED = 3

export class FairServer implements SchedFairServer {
  readonly runtimeNs = 50_000_000
  readonly periodNs = 1_000_000_000
  readonly state: Uint8Array
  readonly periodStart: Float64Array
  readonly left: Float64Array
  readonly boostStart: Float64Array
  readonly gen: Int32Array
  nrBoosts = 0

  constructor(private k: Kernel) {
    const c = k.ncpus
    this.state = new Uint8Array(c)
    this.periodStart = new Float64Array(c)
    this.left = new Float64Array(c)
    this.boostStart = new Float64Array(c)
    this.gen = new Int32Array(c)
  }

  boosted(cpu: number): boolean {
    return this.state[cpu] === FS_BOOSTED
  }

  /** dl_server_start(): fair work appeared on cpu. */
  start(cpu: number): void {
    if (this.state[cpu] !== FS_OFF) return
    this.newPeriod(cpu)
  }

  /** dl_server_stop(): the CPU has no fair work left. */
  stop(cpu: number): void {
    if (this.state[cpu] === FS_OFF) return
    this.state[cpu] = FS_OFF
    this.gen[cpu]++
  }

  private newPeriod(cpu: number): void {
    const k = this.k
    this.state[cpu] = FS_DEFERRED
    this.periodStart[cpu] = k.now
    this.left[cpu] = this.runtimeNs
    k.armFairServer(cpu, k.now + this.periodNs - this.runtimeNs, ++this.gen[cpu])
  }

  /** Fair execution time on cpu (normal or boosted) consumes the reservation. */
  account(cpu: number, delta: number): void {
    const s = this.state[cpu]
    if (s !== FS_DEFERRED && s !== FS_BOOSTED) return
    this.left[cpu] -= delta
    if (this.left[cpu] > 0) return
    if (s === FS_BOOSTED) {
      this.throttle(cpu)
    } else {
      // runtime used up before the zero-laxity point: throttled until the period ends
      this.state[cpu] = FS_THROTTLED
      this.k.armFairServer(cpu, this.periodStart[cpu] + this.periodNs, ++this.gen[cpu])
    }
  }

  private throttle(cpu: number): void {
    const k = this.k
    this.state[cpu] = FS_THROTTLED
    k.armFairServer(cpu, Math.max(k.now, this.periodStart[cpu] + this.periodNs), ++this.gen[cpu])
    k.reschedCurr(cpu)
  }

  /** The server's dl_timer fired. */
  timer(cpu: number): void {
    const k = this.k
    const s = this.state[cpu]
    if (s === FS_DEFERRED) {
      if (k.cfsNrRunnable[cpu] > 0) {
        // zero laxity with runtime left: the reservation runs fair work above RT
        this.state[cpu] = FS_BOOSTED
        this.boostStart[cpu] = k.now
        this.nrBoosts++
        k.armFairServer(cpu, k.now + this.left[cpu], ++this.gen[cpu])
        const curr = k.curr[cpu]
        if (curr >= 0 && !k.isFair(curr)) k.reschedCurr(cpu)
      } else {
        this.state[cpu] = FS_THROTTLED
        k.armFairServer(cpu, this.periodStart[cpu] + this.periodNs, ++this.gen[cpu])
      }
    } else if (s === FS_BOOSTED) {
      this.throttle(cpu)
    } else if (s === FS_THROTTLED) {
      this.periodEnd(cpu)
    }
  }

  private periodEnd(cpu: number): void {
    if (this.k.cfsNrRunnable[cpu] > 0) this.newPeriod(cpu)
    else this.stop(cpu)
  }
}
