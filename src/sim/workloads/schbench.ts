import type { TaskContext, TaskProgram } from '../kernel/api'
import type { LogHistogram } from '../metrics/histogram'
import type { SchbenchWorkload } from '../scenario/workload-specs'
import type { WorkloadResult } from '../../shared/result'
import { commonAttrs, delayNs } from './common'
import { US } from './stat'
import { Mutex } from './sync'
import type { WorkloadHost, WorkloadInstance } from './types'

/**
 * schbench (Chris Mason). Saturate mode: a worker puts itself on its message thread's list,
 * wakes the message thread and sleeps; the message thread wakes every listed worker and sleeps
 * again. A woken worker (its wakeup latency is what the kernel records) serves one request:
 * usleep(sleepUs), then `requestWorkUs` of matrix work under the lock of the CPU it runs on,
 * and records the request latency (work_start to the end, usleep included unless `calibrate`).
 *
 * RPS mode (`rps` > 0): once per second each message thread queues `rps` requests round-robin
 * to its workers (a worker with more than MAX_PENDING queued is skipped), waking the idle ones;
 * workers drain their queue back to back, then sleep.
 */

/** Work of one futex wake issued by the message thread, microseconds. */
export const WAKE_COST_US = 0.5
export const MAX_PENDING = 128

class MessageThread implements TaskProgram {
  /** Workers that queued themselves and sleep. */
  readonly list: number[] = []
  workers: Worker[] = []
  task = -1
  sleeping = false
  private nextSecond = -1
  private rr = 0
  private backlog = 0

  constructor(private readonly bench: Bench) {}

  step(task: number, k: TaskContext): void {
    if (this.bench.spec.rps > 0) return this.stepRps(task, k)
    if (this.list.length > 0) {
      const n = this.list.length
      for (const w of this.list.splice(0)) k.wake(w, 0)
      return k.runKernel(task, Math.round(n * WAKE_COST_US * US))
    }
    this.sleeping = true
    k.block(task)
  }

  private stepRps(task: number, k: TaskContext): void {
    const spec = this.bench.spec
    if (this.nextSecond < 0) this.nextSecond = k.now
    if (k.now >= this.nextSecond) {
      this.backlog += spec.rps
      this.nextSecond += 1e9
    }
    let woken = 0
    let skipped = 0
    while (this.backlog > 0 && skipped < this.workers.length) {
      const w = this.workers[this.rr]
      this.rr = (this.rr + 1) % this.workers.length
      if (w.pending > MAX_PENDING) {
        skipped++
        continue
      }
      skipped = 0
      w.pending++
      this.backlog--
      if (w.idle) {
        w.idle = false
        k.wake(w.task, 0)
        woken++
      }
    }
    if (woken > 0) return k.runKernel(task, Math.round(woken * WAKE_COST_US * US))
    // Everyone is saturated: schbench usleeps 100 us and retries; otherwise wait for the next second.
    if (this.backlog > 0) return k.sleepFor(task, 100 * US)
    k.sleepUntil(task, this.nextSecond)
  }
}

class Worker implements TaskProgram {
  task = -1
  pending = 0
  idle = false
  private state: 'enqueue' | 'woken' | 'slept' | 'worked' = 'enqueue'
  private workStart = 0
  private lockCpu = -1

  constructor(
    private readonly bench: Bench,
    private readonly msg: MessageThread
  ) {}

  step(task: number, k: TaskContext): void {
    const b = this.bench
    const spec = b.spec
    for (;;) {
      switch (this.state) {
        case 'enqueue':
          if (spec.rps > 0) {
            if (this.pending === 0) {
              this.idle = true
              return k.block(task)
            }
            this.pending--
            this.state = 'woken'
            continue
          }
          this.msg.list.push(task)
          if (this.msg.sleeping) {
            this.msg.sleeping = false
            k.wake(this.msg.task, 0)
          }
          this.state = 'woken'
          return k.block(task)
        case 'woken':
          this.workStart = k.now
          this.state = 'slept'
          if (!spec.calibrate && spec.sleepUs > 0) {
            // schbench's wakeup latency is now - wake_time of the message thread's wakeup only
            k.unmeasuredWakeup(task)
            return k.sleepFor(task, Math.round(spec.sleepUs * US))
          }
          continue
        case 'slept':
          if (spec.calibrate) this.workStart = k.now
          if (spec.lock && !spec.calibrate) {
            // The lock of the CPU the request started on, retried after a wakeup.
            if (this.lockCpu < 0) this.lockCpu = k.cpuOf(task)
            if (!b.cpuLocks[this.lockCpu].tryLock(task)) {
              k.unmeasuredWakeup(task)
              return k.block(task)
            }
          }
          this.state = 'worked'
          return k.run(task, Math.round(spec.requestWorkUs * US))
        case 'worked':
          if (this.lockCpu >= 0) {
            b.cpuLocks[this.lockCpu].unlock(task, k)
            this.lockCpu = -1
          }
          b.requestLat.record(k.now - this.workStart)
          b.requests++
          this.state = 'enqueue'
          continue
      }
    }
  }
}

class Bench {
  cpuLocks: Mutex[] = []
  requestLat!: LogHistogram
  requests = 0
  constructor(readonly spec: SchbenchWorkload) {}
}

export function createSchbench(spec: SchbenchWorkload, index: number): WorkloadInstance {
  const bench = new Bench(spec)
  return {
    name: spec.name,
    type: 'schbench',
    setup(host: WorkloadHost): void {
      bench.cpuLocks = Array.from({ length: host.ncpus }, () => new Mutex())
      bench.requestLat = host.histogram()
      for (let m = 0; m < spec.messageThreads; m++) {
        const msg = new MessageThread(bench)
        msg.task = host.createTask({ ...commonAttrs(spec, index, `${spec.name}-m${m}`, delayNs(spec)), recordLatency: false }, msg, spec.startCpu)
        for (let w = 0; w < spec.workers; w++) {
          const worker = new Worker(bench, msg)
          worker.task = host.createTask(commonAttrs(spec, index, `${spec.name}-m${m}w${w}`, delayNs(spec)), worker, spec.startCpu)
          msg.workers.push(worker)
        }
      }
    },
    resetStats(): void {
      bench.requestLat.reset()
      bench.requests = 0
    },
    done: () => false,
    report(host: WorkloadHost, out: WorkloadResult): void {
      out.requestLatencyUs = bench.requestLat.summaryUs()
      const seconds = host.durationNs / 1e9
      out.extra = { ...out.extra, requests: bench.requests, rps: Math.round((bench.requests / seconds) * 100) / 100 }
    }
  }
}
