import { Worker, type ResourceLimits } from 'node:worker_threads'
import { availableParallelism, totalmem } from 'node:os'
import { MONITOR_PROGRESS, MONITOR_SIZE, type FromWorker, type ToWorker, type WorkerInit } from './worker-protocol'
import { describeHookCode, MONITOR_HOOK } from '../sim/patch-api/install'
import { DEFAULT_HOST_LIMITS, memoryBudgetBytes, runMemoryOf } from './limits'

/**
 * A fixed-size pool of worker threads running jobs (one simulation each). Workers are started
 * on demand and reused. A worker that throws outside a job, crashes or exceeds its heap limit
 * fails only the job it was running and is replaced; the other jobs go on.
 *
 * The worker entry is a path so both hosts can use the pool: the Electron build passes the
 * bundled chunk (`?modulePath`), `schedlab serve` passes the TypeScript source with tsx's
 * loader in `execArgv`.
 */

export interface PoolOptions {
  workerPath: string | URL
  /** Default: the number of CPUs, at least 1. */
  size?: number
  execArgv?: string[]
  resourceLimits?: ResourceLimits
  /** Minimum interval between progress messages of one job. */
  progressIntervalMs?: number
  /** How long a canceled job may take to notice before its worker is terminated. */
  cancelGraceMs?: number
  /**
   * Memory the jobs running at one time may use together (bytes; a function: read at each
   * start). With `memoryOf`, a job waits until its estimate fits beside the running ones, and a
   * job that could never fit is refused at once. The heap limit does not cover this: a
   * simulation's state is in typed arrays.
   */
  memoryBudgetBytes?: number | (() => number)
  /**
   * Estimated memory of one job's payload (bytes). Both default to the host defaults
   * (limits.ts: a run spec's estimate, half of the machine's memory), so a pool nobody
   * configured still keeps simulations within memory.
   */
  memoryOf?(payload: unknown): number
  /**
   * The watchdog for patch modules: a job whose simulation has been inside one patch hook,
   * without progress, for this long is stopped and its worker replaced (default 10 s).
   */
  hookTimeoutMs?: number
  /**
   * Start every worker at once and let each warm the simulator's hot paths before its first
   * job (src/services/warm-up.ts), so a run from the workbench does not pay the JIT's warm-up.
   * For long-lived hosts; the command line starts workers on demand, cold.
   */
  warm?: boolean
}

/** `patch`: the job failed in a patch module (the user's code): a problem of the input. */
export type FailureKind = 'error' | 'crash' | 'oom' | 'patch'

export type JobOutcome<R> =
  | { status: 'done'; result: R; wallMs: number }
  | { status: 'failed'; kind: FailureKind; message: string }
  /** `partial`: what the job had computed when it stopped, if it returns anything on cancel. */
  | { status: 'canceled'; partial?: R }

export interface JobHandle<R> {
  readonly id: number
  readonly outcome: Promise<JobOutcome<R>>
  cancel(): void
}

export interface SubmitOptions {
  onProgress?(simNs: number, durationNs: number): void
  onStart?(): void
}

interface Pending<R> {
  id: number
  payload: unknown
  /** Estimated memory while it runs (bytes). */
  memory: number
  opts: SubmitOptions
  resolve(o: JobOutcome<R>): void
  settled: boolean
  cancelRequested: boolean
  slot: Slot<R> | null
  graceTimer?: NodeJS.Timeout
}

interface Slot<R> {
  worker: Worker
  cancel: Int32Array
  monitor: Int32Array
  job: Pending<R> | null
  dead: boolean
  /** The watchdog's last look: the job's progress count and when it last changed. */
  seenProgress: number
  seenAt: number
}

/** The hook a stuck job is in, as its message names it: "patch FILE did not return from HOOK". */
export function stuckHookMessage(payload: unknown, code: number, timeoutMs: number): string {
  const where = describeHookCode(code)
  const job = payload as { scenario?: { variants?: { userPatches?: { file: string }[] }[] }; variantIndex?: number }
  const file = where ? job.scenario?.variants?.[job.variantIndex ?? -1]?.userPatches?.[where.patchIndex]?.file : undefined
  return `patch ${file ?? '(unknown)'} did not return from ${where?.hook ?? 'a hook'} within ${timeoutMs / 1000} s: the run was stopped and its worker replaced`
}

export function defaultPoolSize(): number {
  return Math.max(1, availableParallelism())
}

/** Heap limit per worker: a share of the machine's memory, within [512 MB, 4 GB]. */
export function defaultHeapLimitMb(size: number): number {
  const share = Math.floor(totalmem() / 1048576 / (size + 1))
  return Math.max(512, Math.min(4096, share))
}

export class WorkerPool<R = unknown> {
  readonly size: number
  private readonly slots: Slot<R>[] = []
  private readonly queue: Pending<R>[] = []
  private nextId = 1
  private closed = false
  private readonly progressIntervalMs: number
  private readonly cancelGraceMs: number
  private readonly resourceLimits: ResourceLimits
  private readonly hookTimeoutMs: number
  private watchdog: NodeJS.Timeout | null = null

  constructor(private readonly opts: PoolOptions) {
    this.size = Math.max(1, Math.floor(opts.size ?? defaultPoolSize()))
    this.progressIntervalMs = opts.progressIntervalMs ?? 100
    this.cancelGraceMs = opts.cancelGraceMs ?? 2000
    this.resourceLimits = opts.resourceLimits ?? { maxOldGenerationSizeMb: defaultHeapLimitMb(this.size) }
    this.hookTimeoutMs = opts.hookTimeoutMs ?? 10_000
    if (opts.warm) for (let i = 0; i < this.size; i++) this.spawn()
  }

  /** While jobs run: retire a worker stuck in a patch hook (no progress, the same hook, too long). */
  private watch(): void {
    if (this.watchdog || this.closed) return
    const period = Math.max(50, Math.min(1000, this.hookTimeoutMs / 4))
    this.watchdog = setInterval(() => {
      const now = Date.now()
      let busy = false
      for (const slot of [...this.slots]) {
        const job = slot.job
        if (!job || slot.dead) continue
        busy = true
        const progress = slot.monitor[MONITOR_PROGRESS]
        if (progress !== slot.seenProgress) {
          slot.seenProgress = progress
          slot.seenAt = now
          continue
        }
        const hook = slot.monitor[MONITOR_HOOK]
        if (hook !== 0 && now - slot.seenAt >= this.hookTimeoutMs) {
          this.retire(slot, { status: 'failed', kind: 'patch', message: stuckHookMessage(job.payload, hook, this.hookTimeoutMs) })
        }
      }
      if (!busy && this.watchdog) {
        clearInterval(this.watchdog)
        this.watchdog = null
      }
    }, period)
    this.watchdog.unref()
  }

  submit(payload: unknown, opts: SubmitOptions = {}): JobHandle<R> {
    if (this.closed) throw new Error('worker pool is closed')
    let resolve!: (o: JobOutcome<R>) => void
    const outcome = new Promise<JobOutcome<R>>((r) => (resolve = r))
    const job: Pending<R> = {
      id: this.nextId++, payload, opts, settled: false, cancelRequested: false, slot: null,
      memory: (this.opts.memoryOf ?? runMemoryOf)(payload),
      resolve: (o) => {
        if (job.settled) return
        job.settled = true
        clearTimeout(job.graceTimer)
        resolve(o)
      }
    }
    const budget = this.budget()
    if (job.memory > budget) {
      const mb = (b: number): number => Math.ceil(b / 1048576)
      job.resolve({ status: 'failed', kind: 'error', message: `refused: this run would need about ${mb(job.memory)} MB, above the memory limit of ${mb(budget)} MB for the simulations running at one time` })
    } else {
      this.queue.push(job)
      this.pump()
    }
    return { id: job.id, outcome, cancel: () => this.cancel(job) }
  }

  /** Workers alive, jobs running and jobs waiting. */
  stats(): { workers: number; running: number; queued: number } {
    return {
      workers: this.slots.length,
      running: this.slots.filter((s) => s.job).length,
      queued: this.queue.length
    }
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.watchdog) clearInterval(this.watchdog)
    this.watchdog = null
    for (const job of this.queue.splice(0)) job.resolve({ status: 'canceled' })
    const slots = this.slots.splice(0)
    for (const s of slots) {
      s.dead = true
      s.job?.resolve({ status: 'canceled' })
    }
    await Promise.all(slots.map((s) => s.worker.terminate()))
  }

  private cancel(job: Pending<R>): void {
    if (job.settled || job.cancelRequested) return
    job.cancelRequested = true
    const q = this.queue.indexOf(job)
    if (q >= 0) {
      this.queue.splice(q, 1)
      job.resolve({ status: 'canceled' })
      return
    }
    const slot = job.slot
    if (!slot) return
    Atomics.store(slot.cancel, 0, job.id)
    // A simulation that does not poll shouldStop in time is stopped the hard way.
    job.graceTimer = setTimeout(() => {
      if (!job.settled && slot.job === job) this.retire(slot, { status: 'canceled' })
    }, this.cancelGraceMs)
  }

  private budget(): number {
    const b = this.opts.memoryBudgetBytes ?? memoryBudgetBytes(DEFAULT_HOST_LIMITS)
    return typeof b === 'function' ? b() : b
  }

  private pump(): void {
    while (this.queue.length > 0) {
      // In order: the next job waits for memory rather than be overtaken by smaller ones.
      const inUse = this.slots.reduce((n, s) => n + (s.job?.memory ?? 0), 0)
      if (inUse > 0 && inUse + this.queue[0].memory > this.budget()) return
      let slot = this.slots.find((s) => !s.job && !s.dead)
      if (!slot) {
        if (this.slots.length >= this.size) return
        slot = this.spawn()
      }
      const job = this.queue.shift()!
      slot.job = job
      job.slot = slot
      slot.seenProgress = -1
      slot.seenAt = Date.now()
      job.opts.onStart?.()
      slot.worker.postMessage({ type: 'run', jobId: job.id, payload: job.payload } satisfies ToWorker)
      this.watch()
    }
  }

  private spawn(): Slot<R> {
    const cancelBuffer = new SharedArrayBuffer(4)
    const monitorBuffer = new SharedArrayBuffer(4 * MONITOR_SIZE)
    const init: WorkerInit = { cancelBuffer, monitorBuffer, progressIntervalMs: this.progressIntervalMs, ...(this.opts.warm ? { warm: true } : {}) }
    const worker = new Worker(this.opts.workerPath, {
      workerData: init,
      execArgv: this.opts.execArgv,
      resourceLimits: this.resourceLimits,
      stdout: false,
      stderr: false
    })
    const slot: Slot<R> = { worker, cancel: new Int32Array(cancelBuffer), monitor: new Int32Array(monitorBuffer), job: null, dead: false, seenProgress: -1, seenAt: 0 }
    worker.on('message', (msg: FromWorker) => this.onMessage(slot, msg))
    worker.on('error', (err: Error & { code?: string }) => {
      const oom = err.code === 'ERR_WORKER_OUT_OF_MEMORY'
      const kind: FailureKind = oom ? 'oom' : 'crash'
      const message = oom
        ? `the simulation ran out of memory (worker heap limit ${this.resourceLimits.maxOldGenerationSizeMb ?? '?'} MB)`
        : `the simulation worker crashed: ${err.message}`
      this.retire(slot, { status: 'failed', kind, message })
    })
    worker.on('exit', (code) => {
      this.retire(slot, { status: 'failed', kind: 'crash', message: `the simulation worker exited unexpectedly (code ${code})` })
    })
    this.slots.push(slot)
    return slot
  }

  private onMessage(slot: Slot<R>, msg: FromWorker): void {
    const job = slot.job
    if (!job || msg.jobId !== job.id) return
    switch (msg.type) {
      case 'progress':
        job.opts.onProgress?.(msg.simNs, msg.durationNs)
        return
      case 'done':
        this.finish(slot, { status: 'done', result: msg.result as R, wallMs: msg.wallMs })
        return
      case 'error':
        this.finish(slot, job.cancelRequested ? { status: 'canceled' } : { status: 'failed', kind: msg.patch ? 'patch' : 'error', message: msg.message })
        return
      case 'canceled':
        this.finish(slot, msg.result === undefined || msg.result === null ? { status: 'canceled' } : { status: 'canceled', partial: msg.result as R })
    }
  }

  /** The job ended normally; the worker takes the next one. */
  private finish(slot: Slot<R>, outcome: JobOutcome<R>): void {
    const job = slot.job
    slot.job = null
    job?.resolve(outcome)
    this.pump()
  }

  /** The worker is unusable (crashed, out of memory, or stuck after a cancel): fail its job, replace it. */
  private retire(slot: Slot<R>, outcome: JobOutcome<R>): void {
    if (slot.dead) return
    slot.dead = true
    const i = this.slots.indexOf(slot)
    if (i >= 0) this.slots.splice(i, 1)
    const job = slot.job
    slot.job = null
    if (job) job.resolve(job.cancelRequested ? { status: 'canceled' } : outcome)
    void slot.worker.terminate()
    if (!this.closed) this.pump()
  }
}
