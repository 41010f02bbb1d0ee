/**
 * Messages between the worker pool and its workers. The cancel flag is a shared Int32Array:
 * a worker busy in a synchronous simulation cannot receive messages, but it can read
 * shared memory from its `shouldStop` hook.
 */
import { parentPort, workerData } from 'node:worker_threads'

export interface WorkerInit {
  cancelBuffer: SharedArrayBuffer
  /**
   * The job's monitor, read by the pool's watchdog: [0] the patch hook running (0: none; see
   * src/sim/patch-api/install.ts), [2] progress calls of the job ([1] unused).
   */
  monitorBuffer: SharedArrayBuffer
  progressIntervalMs: number
  /** Run the warm-up (src/services/warm-up.ts) before the first job. */
  warm?: boolean
}

export const MONITOR_PROGRESS = 2
export const MONITOR_SIZE = 3

export type ToWorker = { type: 'run'; jobId: number; payload: unknown }

export type FromWorker =
  | { type: 'progress'; jobId: number; simNs: number; durationNs: number }
  | { type: 'done'; jobId: number; result: unknown; wallMs: number }
  /** `patch`: the problem is in a patch module of the job (the user's code), located in `message`. */
  | { type: 'error'; jobId: number; message: string; patch?: boolean }
  /** `result`: what the handler returned after it stopped (a simulation's partial result). */
  | { type: 'canceled'; jobId: number; result?: unknown }

export interface JobContext {
  /** Report simulated time; throttled here, so callers may call it as often as they like. */
  progress(simNs: number, durationNs: number): void
  shouldStop(): boolean
  /** Where a simulation publishes the patch hook it runs (RunHooks.patchMonitor). */
  monitor: Int32Array
}

export type JobHandler = (payload: unknown, ctx: JobContext) => unknown

/** Worker side: run each job posted by the pool with `handler` and answer with its outcome. */
export function serveJobs(handler: JobHandler): void {
  const port = parentPort
  if (!port) throw new Error('serveJobs must run in a worker thread')
  const init = workerData as WorkerInit
  const cancel = new Int32Array(init.cancelBuffer)
  const monitor = new Int32Array(init.monitorBuffer)
  port.on('message', (msg: ToWorker) => {
    if (msg.type !== 'run') return
    const jobId = msg.jobId
    const stop = (): boolean => Atomics.load(cancel, 0) === jobId
    let last = 0
    monitor.fill(0)
    const ctx: JobContext = {
      monitor,
      progress(simNs, durationNs) {
        monitor[MONITOR_PROGRESS]++
        const now = Date.now()
        if (now - last < init.progressIntervalMs) return
        last = now
        port.postMessage({ type: 'progress', jobId, simNs, durationNs } satisfies FromWorker)
      },
      shouldStop: stop
    }
    const t0 = performance.now()
    Promise.resolve()
      .then(() => handler(msg.payload, ctx))
      .then(
        (result) => {
          const out: FromWorker = stop()
            ? { type: 'canceled', jobId, result }
            : { type: 'done', jobId, result, wallMs: performance.now() - t0 }
          port.postMessage(out)
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err)
          const patch = err instanceof Error && err.name === 'PatchError'
          port.postMessage({ type: 'error', jobId, message, ...(patch ? { patch } : {}) } satisfies FromWorker)
        }
      )
  })
}
