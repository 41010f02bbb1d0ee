/**
 * The fair class's multi-CPU side, plugged into the core through its two seams: `Placement`
 * (select_task_rq_fair, newidle balance, the tick's balance trigger) and `LoadHooks` (PELT,
 * util_est and uclamp at the kernel's update points). It owns the sched domains, the load
 * tracking, capacity_of(), schedutil and the per-runqueue balancing state; the policies
 * themselves live in select.ts, eas.ts and balance.ts.
 */
import {
  CPU_IDLE as CPU_MODE_IDLE, type EnergyEnv, type FairSched as SchedFairSched, type Kernel, type ScanScratch,
  type SliceScan, type StopWork
} from './sched'
import type { VariantResult } from '../../shared/result'
import { NIL } from './eevdf-tree'
import { DEQUEUE_DELAYED, DEQUEUE_MIGRATING, DEQUEUE_SLEEP, ENQUEUE_MIGRATED, ENQUEUE_WAKEUP } from './fair'
import { buildSchedDomains, SD_BALANCE_WAKE, type SchedDomains } from './domains'
import { DO_ATTACH, DO_DETACH, Pelt, SCHED_CAPACITY_SCALE } from './pelt'
import {
  buildPerfDomains, effectiveCpuUtil, energyModelUsable, freqScaleOf, schedutilOppIndex, sugovEffectiveCpuPerf,
  UCLAMP_MAX, UCLAMP_MIN, UclampRq, uclampEffValue, utilFitsCpu, type PerfDomain, type UtilBounds
} from './energy'
import { newSliceScan } from './select'
import {
  makeStopWork, nohzIdleBalanceRun, preemptActiveBalance,
  schedBalanceTrigger, updateMisfitStatus
} from './balance'
import { LbEnv, SgStats } from './group-stats'
import { clearPushable, fairAfterSchedule, fairPushTick, fairTaskWoken } from './fair-push'
import { newEnergyEnv } from './eas'
import { idleStatesOf } from './topology'
import { UnreasonableIdleDetector } from '../metrics/unreasonable-idle'

export interface FairSchedOptions {
  schedutil?: boolean
  /** schedutil rate_limit_us (default 1000: LATENCY_MULTIPLIER without a driver hint). */
  rateLimitUs?: number
  /** sysctl_sched_energy_aware. */
  energyAware?: boolean
}

/** The fair class's multi-CPU side (its state is documented in sched.ts). */
export class FairSched implements SchedFairSched {
  readonly k: Kernel
  readonly ncpus: number
  readonly d: SchedDomains
  readonly pelt: Pelt
  readonly uclamp: UclampRq
  readonly pds: PerfDomain[]
  readonly pdOf: Int32Array
  readonly capOrig: Int32Array
  readonly capacityOf: Float64Array
  readonly asym: boolean
  readonly schedutil: boolean
  readonly eas: boolean
  readonly rateLimitNs: number
  uclampUsed = false
  /**
   * uclamp_rq_inc()/dec() are made from the first runnable task with a clamp on (uclampUsed:
   * the kernel's sched_uclamp_used static key). Before it every runnable task holds the
   * default clamps (0, 1024), whose aggregation is the same on every runqueue, busy or idle
   * (UCLAMP_MIN 0, UCLAMP_MAX 1024; UCLAMP_FLAG_IDLE is read only once uclampUsed): only
   * uclampActive marks who is counted, and startUclampCounting() counts them when it matters.
   * (Set at construction, it counts from the start: the same results, eas.test.ts.)
   */
  uclampCounting = false
  readonly misfitTaskLoad: Float64Array
  readonly nextBalance: Float64Array
  readonly maxIdleBalanceCost: Float64Array
  readonly activeBalance: Uint8Array
  readonly stopSrc: Int32Array
  readonly allPinned: Uint8Array
  // nohz idle balancing
  readonly nohzIdle: Uint8Array
  nohzNrCpus = 0
  nohzNextBalance = 0
  nohzNextBlocked = 0
  nohzHasBlocked = false
  nohzNeedsUpdate = false
  readonly nohzFlags: Int32Array
  readonly llcNohzIdle: Uint8Array
  readonly ilbRun: (() => void)[]
  // schedutil
  readonly pdOpp: Int32Array
  readonly pdLastUpdate: Float64Array
  readonly pdLastChange: Float64Array
  readonly freqResidencyNs: Float64Array[]
  // per task
  private taskCap = 0
  peltInited!: Uint8Array
  uclampActive!: Uint8Array
  /** The CPU each runnable task was counted on in uclamp (only while uclampCounting is off). */
  uclampCpu!: Int32Array
  pushable!: Uint8Array
  readonly levelNames: string[]
  readonly wakeMigrations: Float64Array
  readonly lbMigrations: Float64Array
  readonly idle: UnreasonableIdleDetector
  private readonly bounds: UtilBounds = { min: 0, max: 0 }
  // preallocated scratch for the policies (no allocation per wakeup or balance)
  readonly lbEnv: LbEnv
  readonly swbMask: Uint8Array
  readonly selMask: Uint8Array
  readonly scanScratch: ScanScratch = { idleCpu: -1, nr: 0, p: -1 }
  readonly sliceScan: SliceScan = newSliceScan()
  selectScanned = 0
  readonly wakeStats = { localSgs: new SgStats(), tmpSgs: new SgStats(), idlestSgs: new SgStats() }
  readonly eenv: EnergyEnv = newEnergyEnv()
  readonly eenvBounds: UtilBounds = { min: 0, max: 0 }
  readonly stopWork: StopWork[]
  readonly pushCpu: Int32Array
  readonly clusterActive: boolean
  /** Exit latency (ns) of each CPU's idle states. */
  private readonly exitNs: Float64Array[]

  constructor(k: Kernel, opts: FairSchedOptions = {}) {
    this.k = k
    const n = k.ncpus
    this.ncpus = n
    this.d = buildSchedDomains(k.topo, { setFlags: k.f.SD_BALANCE_WAKE ? SD_BALANCE_WAKE : 0 })
    this.capOrig = Int32Array.from(k.topo.cpus.map((c) => c.capacityOrig))
    this.capacityOf = Float64Array.from(this.capOrig)
    this.asym = k.topo.asymCapacity
    this.pelt = new Pelt({
      tasks: 64,
      capacityOrig: this.capOrig,
      utilEst: k.f.UTIL_EST !== false,
      utilEstLegacy: k.cfg.prof === 0,
      onUtilChange: (cpu) => this.cpufreqUpdateUtil(cpu)
    })
    this.uclamp = new UclampRq(n)
    this.pds = buildPerfDomains(k.topo)
    this.pdOf = new Int32Array(n).fill(-1)
    for (const pd of this.pds) for (const c of pd.cpus) this.pdOf[c] = pd.id
    this.schedutil = opts.schedutil ?? k.f.SCHEDUTIL === true
    this.eas = this.schedutil && (opts.energyAware ?? k.f.ENERGY_AWARE !== false) && energyModelUsable(k.topo, this.pds)
    this.rateLimitNs = Math.round((opts.rateLimitUs ?? 1000) * 1000)
    this.misfitTaskLoad = new Float64Array(n)
    this.nextBalance = new Float64Array(n)
    this.maxIdleBalanceCost = new Float64Array(n).fill(k.cfg.migrationCostNs)
    this.activeBalance = new Uint8Array(n)
    this.stopSrc = Int32Array.from({ length: n }, (_, c) => c)
    this.allPinned = new Uint8Array(n)
    this.nohzIdle = new Uint8Array(n)
    this.nohzFlags = new Int32Array(n)
    this.llcNohzIdle = new Uint8Array(n)
    this.ilbRun = []
    for (let c = 0; c < n; c++) {
      const cpu = c
      this.ilbRun.push(() => this.runIlb(cpu))
    }
    this.pdOpp = new Int32Array(this.pds.length)
    this.pdLastUpdate = new Float64Array(this.pds.length).fill(-Infinity)
    this.pdLastChange = new Float64Array(this.pds.length)
    this.freqResidencyNs = this.pds.map((pd) => new Float64Array(pd.freqKhz.length))
    for (const pd of this.pds) this.pdOpp[pd.id] = pd.freqKhz.length - 1
    this.levelNames = this.d.levelNames
    this.wakeMigrations = new Float64Array(this.levelNames.length)
    this.lbMigrations = new Float64Array(this.levelNames.length)
    this.idle = new UnreasonableIdleDetector(n, 64)
    this.lbEnv = new LbEnv(n, Math.max(1024, k.cfg.nrMigrate))
    this.swbMask = new Uint8Array(n)
    this.selMask = new Uint8Array(n)
    this.pushCpu = new Int32Array(n)
    this.clusterActive = k.topo.cpus.some((c) => c.cls >= 0)
    this.exitNs = k.topo.cpus.map((_, c) => Float64Array.from(idleStatesOf(k.topo, c).map((st) => Math.round(st.exitLatencyUs * 1000))))
    this.stopWork = makeStopWork(this)
    k.rt.domains = this.d.sd
    this.growTasks(64)
    // CPUs start idle with their tick stopped, as after boot.
    for (let c = 0; c < n; c++) {
      if (!this.idleCpu(c)) continue
      this.nohzBalanceEnterIdle(c)
      this.idle.cpuIdle(c, k.now)
    }
  }

  /** Exit latency of the idle state the CPU sits in, -1 when it is not in one. */
  idleExitLatencyNs(cpu: number): number {
    if (this.k.mode[cpu] !== CPU_MODE_IDLE) return -1
    return this.exitNs[cpu][this.k.idleState[cpu]] ?? 0
  }

  /** Install on a kernel: the core then calls this for placement and load tracking. */
  static install(k: Kernel, opts: FairSchedOptions = {}): FairSched {
    const fs = new FairSched(k, opts)
    k.placement = fs
    k.hooks = fs
    k.maxIdleBalanceCost = (cpu: number) => fs.maxIdleBalanceCost[cpu]
    return fs
  }

  private growTasks(n: number): void {
    const cap = Math.max(n, this.taskCap * 2)
    const a = new Uint8Array(cap)
    const b = new Uint8Array(cap)
    const c = new Uint8Array(cap)
    const d = new Int32Array(cap)
    if (this.taskCap > 0) {
      a.set(this.peltInited)
      b.set(this.uclampActive)
      c.set(this.pushable)
      d.set(this.uclampCpu)
    }
    this.peltInited = a
    this.uclampActive = b
    this.pushable = c
    this.uclampCpu = d
    this.taskCap = cap
    this.pelt.ensureTasks(cap)
    this.idle.ensureTasks(cap)
  }

  ensureTask(p: number): void {
    if (p >= this.taskCap) this.growTasks(p + 1)
  }

  jiffies(): number {
    return Math.floor(this.k.now / this.k.cfg.tickNs)
  }

  // ---- per-CPU facts the policies read ---------------------------------------------------------

  /** idle_cpu() / available_idle_cpu(): nothing running or queued. */
  idleCpu(cpu: number): boolean {
    return this.k.idleCpu(cpu)
  }

  /** sched_idle_cpu(): only SCHED_IDLE tasks queued. */
  schedIdleCpu(cpu: number): boolean {
    return this.k.schedIdleCpu(cpu)
  }

  /** cpu_load(): the cfs_rq's load_avg. */
  cpuLoad(cpu: number): number {
    return this.pelt.cfs.loadAvg[cpu]
  }

  cpuRunnable(cpu: number): number {
    return this.pelt.cfs.runnableAvg[cpu]
  }

  taskHLoad(p: number): number {
    return this.pelt.se.loadAvg[p]
  }

  /** task_util_est() */
  taskUtilEst(p: number): number {
    return this.pelt.taskUtilEst(p)
  }

  uclampTask(p: number, id: number): number {
    return uclampEffValue(id === UCLAMP_MIN ? this.k.uclampMin[p] : this.k.uclampMax[p])
  }

  /** util_fits_cpu() for this CPU's capacities. */
  utilFitsCpu(util: number, umin: number, umax: number, cpu: number): number {
    return utilFitsCpu(util, umin, umax, this.capOrig[cpu], this.capacityOf[cpu], 0, this.uclampUsed)
  }

  /** task_fits_cpu() */
  taskFitsCpu(p: number, cpu: number): boolean {
    return this.utilFitsCpu(this.taskUtilEst(p), this.uclampTask(p, UCLAMP_MIN), this.uclampTask(p, UCLAMP_MAX), cpu) > 0
  }

  /** check_cpu_capacity(): RT/IRQ pressure noticeably reduces the CPU's capacity. */
  checkCpuCapacity(cpu: number, imbalancePct: number): boolean {
    return this.capacityOf[cpu] * imbalancePct < this.capOrig[cpu] * 100
  }

  /** cpu_overutilized(): only meaningful with EAS. */
  cpuOverutilized(cpu: number): boolean {
    if (!this.eas) return false
    return this.utilFitsCpu(this.pelt.cpuUtilCfs(cpu), this.uclamp.get(cpu, UCLAMP_MIN), this.uclamp.get(cpu, UCLAMP_MAX), cpu) === 0
  }

  /** Largest capacity among the task's allowed CPUs (p->max_allowed_capacity). */
  maxAllowedCapacity(p: number): number {
    let m = 0
    for (let c = 0; c < this.ncpus; c++) if (this.k.cpuAllowed(p, c) && this.capOrig[c] > m) m = this.capOrig[c]
    return m
  }

  // ---- clocks and blocked load --------------------------------------------------------------

  /** update_rq_clock() + avg_rt: advance the CPU's PELT clocks to now. */
  syncClock(cpu: number): void {
    const k = this.k
    const curr = k.curr[cpu]
    this.pelt.updateRqClock(cpu, k.now, curr === NIL)
    this.pelt.updateRtRqLoadAvg(cpu, curr !== NIL && !k.isFair(curr))
  }

  /** sched_balance_update_blocked_averages() for one CPU. */
  updateBlockedAverages(cpu: number): void {
    const k = this.k
    this.syncClock(cpu)
    this.pelt.updateCfsRqLoadAvg(cpu, this.pelt.rqClockPelt(cpu), k.cfsLoad[cpu], k.cfsNrRunnable[cpu], k.cfsCurr[cpu] !== NIL)
  }

  /** update_cpu_capacity(): capacity_of = capacity_orig minus RT utilization. */
  updateCpuCapacity(cpu: number): void {
    const max = this.capOrig[cpu]
    const used = this.k.f.NONTASK_CAPACITY === false ? 0 : this.pelt.cpuUtilRt(cpu)
    this.capacityOf[cpu] = used >= max ? 1 : max - used
  }

  private peltUpdate(cpu: number, se: number, flags: number): void {
    const k = this.k
    this.syncClock(cpu)
    const onRq = k.onRq[se] !== 0
    this.pelt.updateLoadAvg(
      cpu, se, flags, onRq, onRq && k.schedDelayed[se] === 0, k.cfsCurr[cpu] === se, k.weight[se],
      k.cfsLoad[cpu], k.cfsNrRunnable[cpu], k.cfsCurr[cpu] !== NIL
    )
  }

  private uclampInc(cpu: number, p: number): void {
    if (this.uclampActive[p]) return
    const min = this.uclampTask(p, UCLAMP_MIN)
    const max = this.uclampTask(p, UCLAMP_MAX)
    if (min > 0 || max < SCHED_CAPACITY_SCALE) this.uclampUsed = true
    if (!this.uclampCounting) {
      if (!this.uclampUsed) {
        this.uclampActive[p] = 1
        this.uclampCpu[p] = cpu
        return
      }
      this.startUclampCounting()
    }
    this.uclampActive[p] = 1
    this.uclamp.inc(cpu, min, max)
  }

  private uclampDec(cpu: number, p: number): void {
    if (!this.uclampActive[p]) return
    const min = this.uclampTask(p, UCLAMP_MIN)
    const max = this.uclampTask(p, UCLAMP_MAX)
    // a clamp set while the task was runnable: its dec is no longer the default's
    if (!this.uclampCounting && (min > 0 || max < SCHED_CAPACITY_SCALE)) this.startUclampCounting()
    this.uclampActive[p] = 0
    if (this.uclampCounting) this.uclamp.dec(cpu, min, max)
  }

  /**
   * Count the runnable tasks in uclamp as the incs skipped so far would have: each with the
   * clamps it had then (the defaults: a clamp set since does not change what was counted), on
   * the CPU it was counted on. The aggregation does not depend on the order of the incs.
   */
  private startUclampCounting(): void {
    this.uclampCounting = true
    for (let p = 0; p < this.taskCap; p++) if (this.uclampActive[p]) this.uclamp.inc(this.uclampCpu[p], 0, SCHED_CAPACITY_SCALE)
  }

  // ---- LoadHooks: the kernel's PELT update points ---------------------------------------------

  enqueueEntityLoad(cpu: number, se: number, flags: number): void {
    this.ensureTask(se)
    if (!this.peltInited[se]) {
      // sched_fork() + wake_up_new_task(): start from the weight, util from the new CPU.
      this.peltInited[se] = 1
      this.pelt.initEntityRunnableAverage(se, this.k.weight[se])
      this.syncClock(cpu)
      this.pelt.postInitEntityUtilAvg(cpu, se, this.k.weight[se])
    }
    this.peltUpdate(cpu, se, DO_ATTACH)
    // a delayed task being migrated left util_est and uclamp when it was delayed
    if (this.k.schedDelayed[se] !== 0) return
    this.pelt.utilEstEnqueue(cpu, se)
    this.uclampInc(cpu, se)
    if (this.k.cfsCurr[cpu] !== se) {
      if (flags & ENQUEUE_MIGRATED && !(flags & ENQUEUE_WAKEUP)) this.idle.taskMoved(se, this.k.now)
      else this.idle.taskWaits(se, this.k.now)
    }
    // check_update_overutilized_status() on wakeups
    if (flags & ENQUEUE_WAKEUP) this.k.fn.checkUpdateOverutilized(this, cpu)
  }

  dequeueEntityLoad(cpu: number, se: number, flags: number, delayed: boolean): void {
    this.ensureTask(se)
    const migrating = (flags & DEQUEUE_MIGRATING) !== 0
    this.peltUpdate(cpu, se, migrating ? DO_DETACH : 0)
    // A task becoming delayed leaves util_est/uclamp now; finishing the delayed dequeue only
    // updates the estimate (it was already taken out).
    if (!(flags & DEQUEUE_DELAYED) && this.k.schedDelayed[se] === 0) this.pelt.utilEstDequeue(cpu, se)
    if (!delayed) this.pelt.utilEstUpdate(cpu, se, (flags & DEQUEUE_SLEEP) !== 0)
    this.uclampDec(cpu, se)
    if (!migrating) this.idle.taskStops(se)
    clearPushable(this, se)
  }

  requeueDelayedLoad(cpu: number, se: number): void {
    this.peltUpdate(cpu, se, 0)
    this.pelt.utilEstEnqueue(cpu, se)
    this.uclampInc(cpu, se)
    if (this.k.cfsCurr[cpu] !== se) this.idle.taskWaits(se, this.k.now)
  }

  setNextLoad(cpu: number, se: number): void {
    this.peltUpdate(cpu, se, 0)
    // set_next_task_fair(): cfs_tasks is kept most-recently-run first for the balancer.
    this.k.cfsTasksDel(cpu, se)
    this.k.cfsTasksAdd(cpu, se)
    // A task pulled here after waiting elsewhere still counts against this CPU's idle period.
    this.idle.cpuBusy(cpu, this.k.now, this.canRunOn)
    this.idle.taskStops(se)
    clearPushable(this, se)
    updateMisfitStatus(this, se, cpu)
  }

  putPrevLoad(cpu: number, se: number): void {
    this.peltUpdate(cpu, se, 0)
    if (this.k.schedDelayed[se] === 0) this.idle.taskWaits(se, this.k.now)
  }

  tickLoad(cpu: number, se: number): void {
    this.peltUpdate(cpu, se, 0)
  }

  private readonly canRunOn = (p: number, cpu: number): boolean => this.k.cpuAllowed(p, cpu)

  // ---- Placement ------------------------------------------------------------------------------

  selectTaskRq(p: number, prevCpu: number, wakeFlags: number, thisCpu: number): number {
    this.ensureTask(p)
    // select_task_rq(): the class is not asked for a task that may run on one CPU only
    if (this.k.nrCpusAllowed[p] <= 1) return prevCpu
    this.selectScanned = 0
    const recent = this.k.recentUsedCpu[p]
    const cpu = this.k.fn.selectTaskRqFair(this, p, prevCpu, wakeFlags, thisCpu)
    if (this.k.rec !== null) this.k.rec.selectFair(p, prevCpu, thisCpu, wakeFlags, cpu, this.selectScanned, recent)
    // the selecting CPU pays for the scan (none at setup, outside any CPU's context)
    if (thisCpu >= 0) {
      const c = this.k.cfg.costs
      this.k.chargeCpu(thisCpu, c.selectWorkNs + c.selectPerCpuWorkNs * this.selectScanned)
    }
    this.selectScanned = 0
    if (cpu !== prevCpu && prevCpu >= 0 && this.k.taskCpu[p] >= 0) {
      // migrate_task_rq_fair(): a waking task's averages leave its old cfs_rq lazily.
      if (this.k.onRq[p] === 0 && this.pelt.se.attached[p]) {
        this.pelt.removeEntityLoadAvg(prevCpu, p, this.idleCpu(prevCpu), this.k.now)
      }
      this.countMigration(this.wakeMigrations, prevCpu, cpu)
    }
    return cpu
  }

  /** Count a migration at the lowest domain level spanning both CPUs. */
  countMigration(into: Float64Array, from: number, to: number): void {
    for (let sd = this.d.sd[from]; sd; sd = sd.parent) {
      if (sd.spanMask[to]) {
        into[sd.tl]++
        return
      }
    }
  }

  newidleBalance(cpu: number): boolean {
    const pulled = this.k.fn.schedBalanceNewidle(this, cpu)
    if (!pulled && this.k.nrRunning[cpu] === 0) this.cpuGoesIdle(cpu)
    return pulled
  }

  /** The CPU runs out of work: PELT idle clock, nohz entry, idle cores, the idle detector. */
  private cpuGoesIdle(cpu: number): void {
    this.misfitTaskLoad[cpu] = 0
    this.pelt.enterIdle(cpu, this.k.now)
    this.nohzBalanceEnterIdle(cpu)
    this.updateIdleCore(cpu)
    this.idle.cpuIdle(cpu, this.k.now)
    this.cpufreqUpdateUtil(cpu)
  }

  /** update_idle_core(): the whole SMT core is idle -> the LLC has an idle core. */
  private updateIdleCore(cpu: number): void {
    if (!this.k.topo.smt) return
    const shared = this.d.sdLlcShared[cpu]
    if (!shared || shared.hasIdleCores) return
    for (const s of this.d.smtMask[cpu]) if (s !== cpu && !this.idleCpu(s)) return
    shared.hasIdleCores = true
  }

  tick(cpu: number): void {
    const k = this.k
    this.syncClock(cpu)
    const curr = k.curr[cpu]
    if (curr !== NIL && k.isFair(curr)) {
      updateMisfitStatus(this, curr, cpu)
      this.k.fn.checkUpdateOverutilized(this, cpu)
    }
    this.idle.cpuBusy(cpu, k.lastBusyStart[cpu], this.canRunOn)
    this.cpufreqUpdateUtil(cpu)
    schedBalanceTrigger(this, cpu)
    fairPushTick(this, cpu)
  }

  /**
   * add_nr_running(): a second runnable task makes the root domain overloaded. With the
   * reviewer's all_pinned alternative an rq whose tasks were all found pinned re-sets it on
   * any enqueue (the balancer may have cleared it while looking at a subset of CPUs).
   */
  addNrRunning(cpu: number): void {
    const nr = this.k.nrRunning[cpu]
    if (nr === 2 || (nr > 2 && this.allPinned[cpu])) {
      this.d.rd.overloaded = true
      this.allPinned[cpu] = 0
    }
  }

  /** affine_move_task() part of the all_pinned alternative: a task may have become movable. */
  affinityChanged(cpu: number): void {
    if (this.allPinned[cpu] && this.k.nrRunning[cpu] > 1) {
      this.d.rd.overloaded = true
      this.allPinned[cpu] = 0
    }
  }

  taskWoken(cpu: number, p: number): void {
    fairTaskWoken(this, cpu, p)
  }

  taskPreempted(cpu: number, prev: number): void {
    preemptActiveBalance(this, cpu, prev)
  }

  afterSchedule(cpu: number): void {
    fairAfterSchedule(this, cpu)
  }

  // ---- nohz -----------------------------------------------------------------------------------

  nohzBalanceEnterIdle(cpu: number): void {
    if (this.nohzIdle[cpu] || this.d.sd[cpu] === null) return
    this.nohzIdle[cpu] = 1
    this.nohzNrCpus++
    const shared = this.d.sdLlcShared[cpu]
    if (shared && !this.llcNohzIdle[cpu]) {
      this.llcNohzIdle[cpu] = 1
      shared.nrBusyCpus--
    }
    this.nohzNeedsUpdate = true
    this.nohzHasBlocked = true
  }

  nohzBalanceExitIdle(cpu: number): void {
    if (!this.nohzIdle[cpu]) return
    this.nohzIdle[cpu] = 0
    this.nohzNrCpus--
    const shared = this.d.sdLlcShared[cpu]
    if (shared && this.llcNohzIdle[cpu]) {
      this.llcNohzIdle[cpu] = 0
      shared.nrBusyCpus++
    }
  }

  private runIlb(cpu: number): void {
    // The kicked CPU may have found work meanwhile: it then leaves the job to the next kick.
    const flags = this.nohzFlags[cpu]
    this.nohzFlags[cpu] = 0
    if (!flags || !this.idleCpu(cpu)) return
    nohzIdleBalanceRun(this, cpu, flags)
  }

  // ---- schedutil ------------------------------------------------------------------------------

  /** cpufreq_update_util() -> sugov_update_shared(): pick the policy's OPP from its CPUs' util. */
  cpufreqUpdateUtil(cpu: number): void {
    if (!this.schedutil) return
    const pdId = this.pdOf[cpu]
    if (pdId < 0) return
    const k = this.k
    if (k.now - this.pdLastUpdate[pdId] < this.rateLimitNs) return
    const pd = this.pds[pdId]
    let perf = 0
    for (let j = 0; j < pd.cpus.length; j++) {
      const c = pd.cpus[j]
      const rtRunnable = this.k.rt.nrRunning[c] > 0
      const util = effectiveCpuUtil(
        this.capOrig[c], this.pelt.cpuUtilCfsBoost(c), this.pelt.cpuUtilRt(c),
        this.uclamp.get(c, UCLAMP_MIN), this.uclamp.get(c, UCLAMP_MAX), rtRunnable, this.uclampUsed, this.bounds
      )
      const p = sugovEffectiveCpuPerf(util, this.bounds.min, this.bounds.max)
      if (p > perf) perf = p
    }
    const opp = schedutilOppIndex(pd, perf)
    if (opp === this.pdOpp[pdId]) return
    this.pdLastUpdate[pdId] = k.now
    this.setPdOpp(pdId, opp)
  }

  private setPdOpp(pdId: number, opp: number): void {
    const k = this.k
    const pd = this.pds[pdId]
    this.freqResidencyNs[pdId][this.pdOpp[pdId]] += k.now - this.pdLastChange[pdId]
    this.pdLastChange[pdId] = k.now
    // Account the elapsed time at the old frequency before switching.
    for (const c of pd.cpus) this.syncClock(c)
    this.pdOpp[pdId] = opp
    const scale = freqScaleOf(pd, opp)
    for (const c of pd.cpus) {
      this.pelt.freqScale[c] = scale
      k.setCpuRate(c, (this.capOrig[c] * pd.freqKhz[opp]) / pd.freqKhz[pd.freqKhz.length - 1] / SCHED_CAPACITY_SCALE)
    }
  }

  // ---- results ----------------------------------------------------------------------------------

  /** Add balancing metrics to a finished run's result. */
  resetStats(): void {
    this.wakeMigrations.fill(0)
    this.lbMigrations.fill(0)
    for (const sd of this.d.domains) {
      sd.lbCount.fill(0)
      sd.lbFailed.fill(0)
      sd.lbGained.fill(0)
      sd.albCount = 0
      sd.albPushed = 0
    }
    this.idle.resetCounts()
    for (let pd = 0; pd < this.freqResidencyNs.length; pd++) {
      this.freqResidencyNs[pd].fill(0)
      this.pdLastChange[pd] = this.k.now
    }
    this.statsFrom = this.k.now
  }

  /** Start of the measured part of the run (after a discarded warm-up). */
  private statsFrom = 0

  report(result: VariantResult): void {
    const k = this.k
    const simNs = Math.max(1, k.now - this.statsFrom)
    const counters = (result.counters ??= {})
    this.levelNames.forEach((name, i) => {
      if (this.wakeMigrations[i]) counters[`migrations.wakeup.${name}`] = (counters[`migrations.wakeup.${name}`] ?? 0) + this.wakeMigrations[i]
      if (this.lbMigrations[i]) counters[`migrations.balance.${name}`] = (counters[`migrations.balance.${name}`] ?? 0) + this.lbMigrations[i]
    })
    const seen = new Set<object>()
    const idleNames = ['busy', 'idle', 'newidle']
    for (const sd of this.d.domains) {
      if (seen.has(sd)) continue
      seen.add(sd)
      for (let t = 0; t < 3; t++) {
        const key = `lb.${sd.name}.${idleNames[t]}`
        if (sd.lbCount[t]) counters[`${key}.attempts`] = (counters[`${key}.attempts`] ?? 0) + sd.lbCount[t]
        if (sd.lbGained[t]) counters[`${key}.moved`] = (counters[`${key}.moved`] ?? 0) + sd.lbGained[t]
        if (sd.lbFailed[t]) counters[`${key}.failed`] = (counters[`${key}.failed`] ?? 0) + sd.lbFailed[t]
      }
      if (sd.albPushed) counters[`lb.${sd.name}.activePushed`] = (counters[`lb.${sd.name}.activePushed`] ?? 0) + sd.albPushed
    }
    for (const c of result.cpus) {
      this.updateBlockedAverages(c.id)
      c.utilAvg = this.pelt.cfs.utilAvg[c.id]
      const pdId = this.pdOf[c.id]
      if (pdId >= 0) {
        const pd = this.pds[pdId]
        const res = Float64Array.from(this.freqResidencyNs[pdId])
        res[this.pdOpp[pdId]] += k.now - this.pdLastChange[pdId]
        const out: Record<string, number> = {}
        res.forEach((ns, i) => {
          if (ns > 0) out[String(pd.freqKhz[i])] = Math.round((ns / simNs) * 100000) / 1000
        })
        c.freqResidency = out
      }
    }
    this.idle.finish(k.now, this.canRunOn)
    result.unreasonableIdle = { events: this.idle.buckets() }
    counters['eas.enabled'] = this.eas ? 1 : 0
  }
}

