/**
 * PELT: per-entity load tracking (kernel/sched/pelt.c, pelt.h, fair.c), model reference §12.
 *
 * Signals are geometric series over 1024-unit periods of 1024 ns of clock_pelt, with
 * y^32 = 1/2. Everything is integer arithmetic as the kernel does it (truncating divisions,
 * the 32-entry y^n table, shifts for whole half-lives); values live in typed arrays
 * (struct of arrays) sized at creation, so per-event updates allocate nothing.
 *
 * The series. With u_j the part of period j (counted back from the current one, j = 0) during
 * which the entity was runnable (0..1024), its sum is
 *   S = u_0 + u_1 y + u_2 y^2 + ...,   y = 2^(-1/32) ~ 0.97857
 * so a period's contribution halves every 32 periods (~32 ms). Always runnable, S tends to
 *   1024 (1 + y + y^2 + ...) = 1024 / (1 - y) ~ 47788
 * and, with the truncations of the integer arithmetic below, to LOAD_AVG_MAX = 47742: the fixed
 * point of S <- decay_load(S, 1) + 1024.
 *
 * Facts checked in kernel source: the y^n table and LOAD_AVG_MAX (sched-pelt.h); the 6.8+
 * util_est_update() rules (single ewma field, UTIL_AVG_UNCHANGED flag, fast up, 1% margin,
 * skip when util > capacity or runnable > util + margin).
 */

export const SCHED_CAPACITY_SHIFT = 10
export const SCHED_CAPACITY_SCALE = 1024
export const LOAD_AVG_PERIOD = 32
export const LOAD_AVG_MAX = 47742
export const PELT_MIN_DIVIDER = LOAD_AVG_MAX - 1024
export const UTIL_EST_WEIGHT_SHIFT = 2
export const UTIL_EST_MARGIN = 10
/** Set in util_est when util_avg has not changed since the last util_est update. */
export const UTIL_AVG_UNCHANGED = 0x80000000

/** runnable_avg_yN_inv[n] = (2^32 - 1) * y^n, truncated (kernel/sched/sched-pelt.h). */
export const RUNNABLE_AVG_YN_INV: Uint32Array = Uint32Array.of(
  0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796,
  0xd744fcc9, 0xd2a81d91, 0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46,
  0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4, 0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9,
  0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80, 0x85aac367, 0x82cd8698
)

const TWO32 = 4294967296
const TWO16 = 65536

/** mul_u64_u32_shr(val, mul, 32) without losing bits to doubles (val < 2^53). */
function mulShr32(val: number, mul: number): number {
  const hi = Math.floor(val / TWO32)
  const lo = val - hi * TWO32
  const mh = mul >>> 16
  const ml = mul & 0xffff
  // lo * mul / 2^32, split so every product stays below 2^53.
  const low = Math.floor((lo * mh + Math.floor((lo * ml) / TWO16)) / TWO16)
  return hi * mul + low
}

/** 2^h for the whole half-lives decayLoad() can shift by (0..63): a lookup, not Math.pow. */
const HALF_LIVES: Float64Array = Float64Array.from({ length: 64 }, (_, h) => 2 ** h)

/**
 * decay_load(): val * y^n, zero after 63 half-lives. With n = 32 h + r (0 <= r < 32),
 *   y^n = (y^32)^h y^r = 2^(-h) y^r
 * so the whole half-lives are a shift by h and the rest one multiplication by y^r, taken from
 * the table as a 32-bit fixed-point fraction: (val * ((2^32 - 1) y^r)) >> 32.
 */
export function decayLoad(val: number, n: number): number {
  if (n > LOAD_AVG_PERIOD * 63) return 0
  if (n >= LOAD_AVG_PERIOD) {
    val = Math.floor(val / HALF_LIVES[Math.floor(n / LOAD_AVG_PERIOD)])
    n %= LOAD_AVG_PERIOD
  }
  return mulShr32(val, RUNNABLE_AVG_YN_INV[n])
}

/**
 * __accumulate_pelt_segments(): contribution of a span crossing `periods` = p boundaries: the
 * remainder d1 of the period it started in (now p periods old), the p - 1 full periods in
 * between, and the part d3 of the current period:
 *   contrib = d1 y^p + 1024 (y + y^2 + ... + y^(p-1)) + d3
 * The middle sum is the whole series minus its head and its tail:
 *   1024 Σ_{k=1}^{p-1} y^k = 1024 Σ_{k>=0} y^k - 1024 Σ_{k>=p} y^k - 1024
 *                          = LOAD_AVG_MAX - LOAD_AVG_MAX y^p - 1024
 * (Σ_{k>=p} y^k = y^p Σ_{k>=0} y^k), one decay_load() instead of p multiplications.
 */
export function accumulatePeltSegments(periods: number, d1: number, d3: number): number {
  const c1 = decayLoad(d1, periods)
  const c2 = LOAD_AVG_MAX - decayLoad(LOAD_AVG_MAX, periods) - 1024
  return c1 + c2 + d3
}

/** struct sched_avg for many entities at once. Index = task id, or CPU for per-rq signals. */
export class SchedAvgs {
  size: number
  lastUpdateTime!: Float64Array
  /** 0 = last_update_time is the kernel's "0": a new or migrated entity waiting to be attached. */
  attached!: Uint8Array
  loadSum!: Float64Array
  runnableSum!: Float64Array
  utilSum!: Float64Array
  periodContrib!: Int32Array
  loadAvg!: Float64Array
  runnableAvg!: Float64Array
  utilAvg!: Float64Array
  /** util_est (ewma | UTIL_AVG_UNCHANGED) for tasks; the sum of queued estimates for cfs_rqs. */
  utilEst!: Float64Array
  /** Pre-6.8 util_est.enqueued (legacy mode only). */
  utilEstEnqueued!: Float64Array

  constructor(size: number) {
    this.size = 0
    this.grow(size)
  }

  /** Make room for `size` entries (keeps values). Not for per-event use. */
  grow(size: number): void {
    if (size <= this.size) return
    const f = (old: Float64Array | undefined): Float64Array => {
      const a = new Float64Array(size)
      if (old) a.set(old)
      return a
    }
    const old = this.size > 0
    this.lastUpdateTime = f(old ? this.lastUpdateTime : undefined)
    this.loadSum = f(old ? this.loadSum : undefined)
    this.runnableSum = f(old ? this.runnableSum : undefined)
    this.utilSum = f(old ? this.utilSum : undefined)
    this.loadAvg = f(old ? this.loadAvg : undefined)
    this.runnableAvg = f(old ? this.runnableAvg : undefined)
    this.utilAvg = f(old ? this.utilAvg : undefined)
    this.utilEst = f(old ? this.utilEst : undefined)
    this.utilEstEnqueued = f(old ? this.utilEstEnqueued : undefined)
    const att = new Uint8Array(size)
    const pc = new Int32Array(size)
    if (old) {
      att.set(this.attached)
      pc.set(this.periodContrib)
    }
    this.attached = att
    this.periodContrib = pc
    this.size = size
  }

  reset(i: number): void {
    this.lastUpdateTime[i] = 0
    this.attached[i] = 0
    this.loadSum[i] = 0
    this.runnableSum[i] = 0
    this.utilSum[i] = 0
    this.periodContrib[i] = 0
    this.loadAvg[i] = 0
    this.runnableAvg[i] = 0
    this.utilAvg[i] = 0
    this.utilEst[i] = 0
    this.utilEstEnqueued[i] = 0
  }

  /** get_pelt_divider(): the maximum value the sums can have given the current period. */
  divider(i: number): number {
    return PELT_MIN_DIVIDER + this.periodContrib[i]
  }
}

/**
 * accumulate_sum(): decay the sums by the periods crossed and add the new contribution.
 * Returns the number of periods crossed. `runnable` is a count (h_nr_runnable for a cfs_rq).
 */
export function accumulateSum(a: SchedAvgs, i: number, delta: number, load: number, runnable: number, running: number): number {
  let contrib = delta
  delta += a.periodContrib[i]
  const periods = Math.floor(delta / 1024)
  if (periods) {
    a.loadSum[i] = decayLoad(a.loadSum[i], periods)
    a.runnableSum[i] = decayLoad(a.runnableSum[i], periods)
    a.utilSum[i] = decayLoad(a.utilSum[i], periods)
    delta %= 1024
    // Without load the entity was not runnable either: only the decay matters.
    if (load) contrib = accumulatePeltSegments(periods, 1024 - a.periodContrib[i], delta)
  }
  a.periodContrib[i] = delta
  if (load) a.loadSum[i] += load * contrib
  if (runnable) a.runnableSum[i] += runnable * contrib * SCHED_CAPACITY_SCALE
  if (running) a.utilSum[i] += contrib * SCHED_CAPACITY_SCALE
  return periods
}

/**
 * ___update_load_sum(): advance the signal to `now` (ns of clock_pelt) in whole 1024 ns units.
 * True when at least one period boundary was crossed (the averages need recomputing).
 */
export function updateLoadSum(a: SchedAvgs, i: number, now: number, load: number, runnable: number, running: number): boolean {
  let delta = now - a.lastUpdateTime[i]
  if (delta < 0) {
    a.lastUpdateTime[i] = now
    return false
  }
  delta = Math.floor(delta / 1024)
  if (!delta) return false
  a.lastUpdateTime[i] += delta * 1024
  if (!load) runnable = running = 0
  return accumulateSum(a, i, delta, load, runnable, running) > 0
}

/**
 * ___update_load_avg(): averages from the sums; `load` is the weight for load_avg. The divider
 * is the largest value the sum can have at this point of the current period: the full series
 * of the past periods (LOAD_AVG_MAX - 1024, the current period counted apart) plus the elapsed
 * part of the current one (period_contrib). So util_avg = util_sum / divider is the fraction
 * of the decayed time spent running, scaled to SCHED_CAPACITY_SCALE: 1024 for a task that
 * always runs, whatever the phase of the period.
 */
export function updateLoadAvg(a: SchedAvgs, i: number, load: number): void {
  const divider = a.divider(i)
  a.loadAvg[i] = Math.floor((load * a.loadSum[i]) / divider)
  a.runnableAvg[i] = Math.floor(a.runnableSum[i] / divider)
  a.utilAvg[i] = Math.floor(a.utilSum[i] / divider)
}

/** update_load_avg() flags. */
export const UPDATE_TG = 0x1
export const SKIP_AGE_LOAD = 0x2
export const DO_ATTACH = 0x4
export const DO_DETACH = 0x8

const subPositive = (a: number, b: number): number => (a > b ? a - b : 0)

export interface PeltOptions {
  /** Entities (tasks) to size for; grows on demand. */
  tasks: number
  /** capacity_orig of each CPU. */
  capacityOrig: ArrayLike<number>
  /** sched_feat(UTIL_EST). */
  utilEst?: boolean
  /** Pre-6.8 util_est (separate enqueued field, task_util_est includes it). */
  utilEstLegacy?: boolean
  /** Called when a CPU's cfs utilization changed (cfs_rq_util_change -> cpufreq hook). */
  onUtilChange?: (cpu: number) => void
}

/**
 * Load tracking for tasks (`se`), CPUs' cfs runqueues (`cfs`) and RT runqueues (`rt`, avg_rt),
 * with per-CPU clock_pelt for capacity and frequency invariance. The caller supplies the
 * runqueue facts (weights, counts, current) at each update, so this module holds no copy of
 * the scheduler's state.
 */
export class Pelt {
  readonly ncpus: number
  readonly se: SchedAvgs
  readonly cfs: SchedAvgs
  readonly rt: SchedAvgs
  /**
   * CPUs whose avg_rt is all zero and was only advanced with no RT task running (1), and the
   * clock_pelt of the last such update not made (rtQuietClock): see updateRtRqLoadAvg().
   */
  readonly rtQuiet: Uint8Array
  readonly rtQuietClock: Float64Array
  /** rq_clock_task at the last clock update, ns. */
  readonly clockTask: Float64Array
  readonly clockPelt: Float64Array
  readonly lostIdleTime: Float64Array
  readonly capacityOrig: Int32Array
  /** arch_scale_freq_capacity(): (f_cur << 10) / f_max; 1024 = max frequency. */
  readonly freqScale: Int32Array
  readonly removedLoad: Float64Array
  readonly removedUtil: Float64Array
  readonly removedRunnable: Float64Array
  readonly removedNr: Int32Array
  utilEstEnabled: boolean
  readonly utilEstLegacy: boolean
  onUtilChange: ((cpu: number) => void) | undefined

  constructor(opts: PeltOptions) {
    const n = opts.capacityOrig.length
    this.ncpus = n
    this.se = new SchedAvgs(Math.max(1, opts.tasks))
    this.cfs = new SchedAvgs(n)
    this.rt = new SchedAvgs(n)
    this.rtQuiet = new Uint8Array(n).fill(1)
    this.rtQuietClock = new Float64Array(n)
    this.clockTask = new Float64Array(n)
    this.clockPelt = new Float64Array(n)
    this.lostIdleTime = new Float64Array(n)
    this.capacityOrig = Int32Array.from(opts.capacityOrig)
    this.freqScale = new Int32Array(n).fill(SCHED_CAPACITY_SCALE)
    this.removedLoad = new Float64Array(n)
    this.removedUtil = new Float64Array(n)
    this.removedRunnable = new Float64Array(n)
    this.removedNr = new Int32Array(n)
    this.utilEstEnabled = opts.utilEst ?? true
    this.utilEstLegacy = opts.utilEstLegacy ?? false
    this.onUtilChange = opts.onUtilChange
    for (let c = 0; c < n; c++) {
      this.cfs.attached[c] = 1
      this.rt.attached[c] = 1
    }
  }

  ensureTasks(n: number): void {
    if (n > this.se.size) this.se.grow(Math.max(n, this.se.size * 2))
  }

  // ---- clocks -------------------------------------------------------------------------------

  /**
   * update_rq_clock_pelt(): advance the CPU's clocks to `now`. While a task runs, clock_pelt
   * advances scaled by capacity and frequency (cap_scale twice), so the same work counts the
   * same on every CPU; on an idle CPU it snaps to clock_task (the "idle" part absorbs the gap).
   */
  updateRqClock(cpu: number, now: number, idle: boolean): void {
    const delta = now - this.clockTask[cpu]
    this.clockTask[cpu] = now
    if (idle) {
      this.clockPelt[cpu] = now
      return
    }
    if (delta <= 0) return
    let d = Math.floor((delta * this.capacityOrig[cpu]) / SCHED_CAPACITY_SCALE)
    d = Math.floor((d * this.freqScale[cpu]) / SCHED_CAPACITY_SCALE)
    this.clockPelt[cpu] += d
  }

  /**
   * update_idle_rq_clock_pelt(): the CPU goes idle. If it was always running (util_sum at its
   * maximum), the time clock_pelt lags behind is not real idle time: remember it as lost.
   */
  enterIdle(cpu: number, now: number): void {
    this.updateRqClock(cpu, now, false)
    const divider = PELT_MIN_DIVIDER * SCHED_CAPACITY_SCALE - LOAD_AVG_MAX
    const utilSum = this.cfs.utilSum[cpu] + this.rt.utilSum[cpu]
    if (utilSum >= divider) this.lostIdleTime[cpu] += now - this.clockPelt[cpu]
    this.clockPelt[cpu] = now
  }

  /** rq_clock_pelt() (no CFS bandwidth throttling in this model, so also cfs_rq_clock_pelt). */
  rqClockPelt(cpu: number): number {
    return this.clockPelt[cpu] - this.lostIdleTime[cpu]
  }

  // ---- entities and cfs runqueues -----------------------------------------------------------

  /** __update_load_avg_se(): load = on_rq, runnable = on_rq && !delayed, running = is curr. */
  private updateSe(now: number, p: number, onRq: number, runnable: number, running: number, weight: number): boolean {
    const se = this.se
    if (updateLoadSum(se, p, now, onRq, runnable, running)) {
      updateLoadAvg(se, p, weight)
      // cfs_se_util_change(): util_avg moved, util_est may update again at the next sleep.
      se.utilEst[p] = se.utilEst[p] >= UTIL_AVG_UNCHANGED ? se.utilEst[p] - UTIL_AVG_UNCHANGED : se.utilEst[p]
      return true
    }
    return false
  }

  /** update_cfs_rq_load_avg(): apply lazily removed contributions, then advance the signal. */
  updateCfsRqLoadAvg(cpu: number, now: number, weight: number, hNrRunnable: number, hasCurr: boolean): boolean {
    const a = this.cfs
    let decayed = false
    if (this.removedNr[cpu]) {
      const divider = a.divider(cpu)
      let r = this.removedLoad[cpu]
      a.loadAvg[cpu] = subPositive(a.loadAvg[cpu], r)
      a.loadSum[cpu] = Math.max(subPositive(a.loadSum[cpu], r * divider), a.loadAvg[cpu] * PELT_MIN_DIVIDER)
      r = this.removedUtil[cpu]
      a.utilAvg[cpu] = subPositive(a.utilAvg[cpu], r)
      a.utilSum[cpu] = Math.max(subPositive(a.utilSum[cpu], r * divider), a.utilAvg[cpu] * PELT_MIN_DIVIDER)
      r = this.removedRunnable[cpu]
      a.runnableAvg[cpu] = subPositive(a.runnableAvg[cpu], r)
      a.runnableSum[cpu] = Math.max(subPositive(a.runnableSum[cpu], r * divider), a.runnableAvg[cpu] * PELT_MIN_DIVIDER)
      this.removedLoad[cpu] = this.removedUtil[cpu] = this.removedRunnable[cpu] = 0
      this.removedNr[cpu] = 0
      decayed = true
    }
    if (updateLoadSum(a, cpu, now, weight, hNrRunnable, hasCurr ? 1 : 0)) {
      updateLoadAvg(a, cpu, 1)
      decayed = true
    }
    return decayed
  }

  /**
   * update_load_avg(cfs_rq, se, flags) for task `p` on `cpu`: age the task (unless SKIP_AGE_LOAD
   * or not attached), age the cfs_rq, then attach (DO_ATTACH of a detached task) or detach.
   * Task facts: onRq, runnable (on_rq and not delayed), running (is curr), weight.
   * Runqueue facts: total fair weight, h_nr_runnable and whether a fair task is current.
   */
  updateLoadAvg(
    cpu: number, p: number, flags: number,
    onRq: boolean, runnable: boolean, running: boolean, weight: number,
    cfsWeight: number, cfsRunnable: number, cfsHasCurr: boolean
  ): boolean {
    const now = this.rqClockPelt(cpu)
    const se = this.se
    if (se.attached[p] && !(flags & SKIP_AGE_LOAD)) this.updateSe(now, p, onRq ? 1 : 0, runnable ? 1 : 0, running ? 1 : 0, weight)
    const decayed = this.updateCfsRqLoadAvg(cpu, now, cfsWeight, cfsRunnable, cfsHasCurr)
    if (!se.attached[p] && flags & DO_ATTACH) {
      this.attachEntityLoadAvg(cpu, p, weight)
    } else if (flags & DO_DETACH) {
      this.detachEntityLoadAvg(cpu, p, weight)
    } else if (decayed && this.onUtilChange) {
      this.onUtilChange(cpu)
    }
    return decayed
  }

  /** attach_entity_load_avg(): align the task to the cfs_rq's period and add its averages. */
  attachEntityLoadAvg(cpu: number, p: number, weight: number): void {
    const se = this.se
    const cfs = this.cfs
    const divider = cfs.divider(cpu)
    se.lastUpdateTime[p] = cfs.lastUpdateTime[cpu]
    se.periodContrib[p] = cfs.periodContrib[cpu]
    se.attached[p] = 1
    se.utilSum[p] = se.utilAvg[p] * divider
    se.runnableSum[p] = se.runnableAvg[p] * divider
    const ls = se.loadAvg[p] * divider
    se.loadSum[p] = weight < ls ? Math.floor(ls / weight) : 1
    cfs.loadAvg[cpu] += se.loadAvg[p]
    cfs.loadSum[cpu] += weight * se.loadSum[p]
    cfs.utilAvg[cpu] += se.utilAvg[p]
    cfs.utilSum[cpu] += se.utilSum[p]
    cfs.runnableAvg[cpu] += se.runnableAvg[p]
    cfs.runnableSum[cpu] += se.runnableSum[p]
    if (this.onUtilChange) this.onUtilChange(cpu)
  }

  /** detach_entity_load_avg(): take the task's averages out of the cfs_rq (migration). */
  detachEntityLoadAvg(cpu: number, p: number, weight: number): void {
    const se = this.se
    const cfs = this.cfs
    cfs.loadAvg[cpu] = subPositive(cfs.loadAvg[cpu], se.loadAvg[p])
    cfs.loadSum[cpu] = Math.max(subPositive(cfs.loadSum[cpu], weight * se.loadSum[p]), cfs.loadAvg[cpu] * PELT_MIN_DIVIDER)
    cfs.utilAvg[cpu] = subPositive(cfs.utilAvg[cpu], se.utilAvg[p])
    cfs.utilSum[cpu] = Math.max(subPositive(cfs.utilSum[cpu], se.utilSum[p]), cfs.utilAvg[cpu] * PELT_MIN_DIVIDER)
    cfs.runnableAvg[cpu] = subPositive(cfs.runnableAvg[cpu], se.runnableAvg[p])
    cfs.runnableSum[cpu] = Math.max(subPositive(cfs.runnableSum[cpu], se.runnableSum[p]), cfs.runnableAvg[cpu] * PELT_MIN_DIVIDER)
    se.attached[p] = 0
    if (this.onUtilChange) this.onUtilChange(cpu)
  }

  /** sync_entity_load_avg(): decay a sleeping task to its cfs_rq's last update. */
  syncEntityLoadAvg(cpu: number, p: number): void {
    if (!this.se.attached[p]) return
    this.updateSe(this.cfs.lastUpdateTime[cpu], p, 0, 0, 0, 0)
  }

  /**
   * remove_entity_load_avg() + migrate_se_pelt_lag(): a sleeping task leaves `cpu` (wakeup
   * migration). Its averages are taken out of the old cfs_rq lazily, at that cfs_rq's next
   * update. When the old CPU is idle its cfs_rq may be stale, so the task itself is then aged
   * to the idle CPU's current clock before it is attached afresh on the new CPU (DO_ATTACH).
   */
  removeEntityLoadAvg(cpu: number, p: number, cpuIdle: boolean, now: number): void {
    this.syncEntityLoadAvg(cpu, p)
    this.removedNr[cpu]++
    this.removedUtil[cpu] += this.se.utilAvg[p]
    this.removedLoad[cpu] += this.se.loadAvg[p]
    this.removedRunnable[cpu] += this.se.runnableAvg[p]
    if (cpuIdle) this.updateSe(Math.max(this.cfs.lastUpdateTime[cpu], now - this.lostIdleTime[cpu]), p, 0, 0, 0, 0)
    this.se.attached[p] = 0
  }

  /** init_entity_runnable_average(): a new task starts with its full weight as load. */
  initEntityRunnableAverage(p: number, weight: number): void {
    this.ensureTasks(p + 1)
    this.se.reset(p)
    this.se.loadAvg[p] = weight
  }

  /**
   * post_init_entity_util_avg(): a new fair task's util starts at its share of the CPU's util
   * by weight, capped at half the spare capacity (or that half when the CPU util is 0).
   */
  postInitEntityUtilAvg(cpu: number, p: number, weight: number): void {
    const cfs = this.cfs
    const se = this.se
    const cap = Math.trunc((this.capacityOrig[cpu] - cfs.utilAvg[cpu]) / 2)
    if (cap > 0) {
      if (cfs.utilAvg[cpu] !== 0) {
        se.utilAvg[p] = Math.min(Math.floor((cfs.utilAvg[cpu] * weight) / (cfs.loadAvg[cpu] + 1)), cap)
      } else {
        se.utilAvg[p] = cap
      }
    }
    se.runnableAvg[p] = se.utilAvg[p]
  }

  /** Non-fair tasks (RT) are not attached to a cfs_rq; they start aligned to its clock. */
  postInitNonFair(cpu: number, p: number): void {
    this.se.lastUpdateTime[p] = this.rqClockPelt(cpu)
  }

  /**
   * update_rt_rq_load_avg(): avg_rt tracks time the CPU ran RT tasks (lowers capacity_of).
   *
   * While avg_rt is all zero and no RT task runs (a CPU that never ran one, or whose avg_rt
   * decayed to nothing), an update only moves last_update_time and period_contrib: zero sums
   * decay to zero and nothing is added. Those moves compose (last_update_time advances in
   * whole 1024-ns units from where it was, period_contrib by their count modulo 1024; clock_pelt
   * never goes back), so the updates of such a stretch are not made one by one: the first
   * update with an RT task running first makes the one of the last clock seen. The signal is
   * the kernel's, update for update; only the work of the updates that change nothing but the
   * clock is saved (on a CPU that runs no RT task, most of them: one per clock sync).
   * Returns true when the averages were recomputed (false while quiet).
   */
  updateRtRqLoadAvg(cpu: number, running: boolean): boolean {
    const now = this.rqClockPelt(cpu)
    const rt = this.rt
    if (this.rtQuiet[cpu] !== 0) {
      if (!running) {
        this.rtQuietClock[cpu] = now
        return false
      }
      this.rtQuiet[cpu] = 0
      if (updateLoadSum(rt, cpu, this.rtQuietClock[cpu], 0, 0, 0)) updateLoadAvg(rt, cpu, 1)
    }
    const r = running ? 1 : 0
    if (updateLoadSum(rt, cpu, now, r, r, r)) {
      updateLoadAvg(rt, cpu, 1)
      if (!running && rt.loadSum[cpu] === 0 && rt.runnableSum[cpu] === 0 && rt.utilSum[cpu] === 0) {
        this.rtQuiet[cpu] = 1
        this.rtQuietClock[cpu] = now
      }
      return true
    }
    return false
  }

  // ---- util_est ---------------------------------------------------------------------------

  /** _task_util_est(). */
  taskUtilEstRaw(p: number): number {
    const ue = this.se.utilEst[p]
    const ewma = ue >= UTIL_AVG_UNCHANGED ? ue - UTIL_AVG_UNCHANGED : ue
    return this.utilEstLegacy ? Math.max(ewma, this.se.utilEstEnqueued[p]) : ewma
  }

  /** task_util(). */
  taskUtil(p: number): number {
    return this.se.utilAvg[p]
  }

  /** task_util_est(): max(util_avg, estimate). */
  taskUtilEst(p: number): number {
    const u = this.se.utilAvg[p]
    if (!this.utilEstEnabled) return u
    const e = this.taskUtilEstRaw(p)
    return u > e ? u : e
  }

  utilEstEnqueue(cpu: number, p: number): void {
    if (!this.utilEstEnabled) return
    this.cfs.utilEst[cpu] += this.taskUtilEstRaw(p)
  }

  utilEstDequeue(cpu: number, p: number): void {
    if (!this.utilEstEnabled) return
    this.cfs.utilEst[cpu] = subPositive(this.cfs.utilEst[cpu], this.taskUtilEstRaw(p))
  }

  /**
   * util_est_update() at a sleep dequeue: the estimate jumps up to util_avg at once and decays
   * by an EWMA (weight 1/4) otherwise, ignoring changes under 1% and samples that cannot be
   * trusted (util above the CPU's capacity: no idle time; runnable well above util: the task
   * did not get the CPU it wanted).
   */
  utilEstUpdate(cpu: number, p: number, taskSleep: boolean): void {
    if (!this.utilEstEnabled || !taskSleep) return
    const se = this.se
    let ewma = se.utilEst[p]
    if (ewma >= UTIL_AVG_UNCHANGED) return
    const dequeued = se.utilAvg[p]
    if (this.utilEstLegacy) {
      this.utilEstUpdateLegacy(cpu, p, ewma, dequeued)
      return
    }
    if (ewma <= dequeued) {
      ewma = dequeued
    } else {
      const diff = ewma - dequeued
      if (diff >= UTIL_EST_MARGIN) {
        if (dequeued > this.capacityOrig[cpu]) return
        if (dequeued + UTIL_EST_MARGIN >= se.runnableAvg[p]) ewma = Math.floor((ewma * 4 - diff) / 4)
      }
    }
    se.utilEst[p] = ewma + UTIL_AVG_UNCHANGED
  }

  /**
   * The 6.6/6.7 form: a separate `enqueued` sample (also part of the estimate). Paths that
   * "return" in the kernel leave both fields and the flag untouched; "done" stores the new
   * sample and sets the flag.
   */
  private utilEstUpdateLegacy(cpu: number, p: number, ewma: number, dequeued: number): void {
    const se = this.se
    const lastEnqueued = se.utilEstEnqueued[p]
    let next = ewma
    if (ewma >= dequeued) {
      const diff = dequeued - ewma
      if (Math.abs(diff) < UTIL_EST_MARGIN) {
        if (Math.abs(lastEnqueued - dequeued) < UTIL_EST_MARGIN) return
      } else {
        if (dequeued > this.capacityOrig[cpu]) return
        if (dequeued + UTIL_EST_MARGIN >= se.runnableAvg[p]) next = Math.floor((ewma * 4 + diff) / 4)
      }
    } else {
      next = dequeued
    }
    se.utilEstEnqueued[p] = dequeued
    se.utilEst[p] = next + UTIL_AVG_UNCHANGED
  }

  // ---- utilization queries --------------------------------------------------------------------

  /**
   * cpu_util(cpu, p, dst, boost): the CPU's CFS utilization with `p` taken out (p != -1 on this
   * CPU, dst elsewhere) or put in (dst == cpu), max with util_est, capped at capacity_orig.
   * `pCpu` is the CPU p is currently accounted on, `pQueued` whether p is queued or running.
   */
  cpuUtil(cpu: number, p: number, pCpu: number, pQueued: boolean, dst: number, boost: boolean): number {
    const cfs = this.cfs
    let util = cfs.utilAvg[cpu]
    if (boost && cfs.runnableAvg[cpu] > util) util = cfs.runnableAvg[cpu]
    if (p >= 0 && pCpu === cpu && dst !== cpu) util = subPositive(util, this.se.utilAvg[p])
    else if (p >= 0 && pCpu !== cpu && dst === cpu) util += this.se.utilAvg[p]
    if (this.utilEstEnabled) {
      let est = cfs.utilEst[cpu]
      if (p >= 0 && dst === cpu) est += this.taskUtilEstRaw(p)
      else if (p >= 0 && pQueued && pCpu === cpu) est = subPositive(est, this.taskUtilEstRaw(p))
      if (est > util) util = est
    }
    const cap = this.capacityOrig[cpu]
    return util < cap ? util : cap
  }

  /** cpu_util_cfs(). */
  cpuUtilCfs(cpu: number): number {
    return this.cpuUtil(cpu, -1, -1, false, -1, false)
  }

  /** cpu_util_cfs_boost(): max with runnable, used by the load balancer's util migration. */
  cpuUtilCfsBoost(cpu: number): number {
    return this.cpuUtil(cpu, -1, -1, false, -1, true)
  }

  cpuUtilRt(cpu: number): number {
    return this.rt.utilAvg[cpu]
  }
}
