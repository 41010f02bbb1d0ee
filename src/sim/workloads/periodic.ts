import type { TaskContext, TaskProgram } from '../kernel/api'
import type { PeriodicWorkload } from '../scenario/workload-specs'
import type { WorkloadHost, WorkloadInstance } from './types'
import { commonAttrs, delayNs, taskCount } from './common'

/**
 * One periodic thread: wakes on an absolute timer grid, runs its work, sleeps to the next
 * grid point; periods missed while running are skipped (as cyclictest does).
 */
class PeriodicTask implements TaskProgram {
  private working = false
  constructor(private next: number, private runNs: number, private periodNs: number, private wall: boolean) {}

  step(task: number, k: TaskContext): void {
    if (!this.working) {
      this.working = true
      if (this.wall) k.runFor(task, this.runNs)
      else k.run(task, this.runNs)
      return
    }
    this.working = false
    let next = this.next + this.periodNs
    if (next <= k.now) next += Math.ceil((k.now - next + 1) / this.periodNs) * this.periodNs
    this.next = next
    k.sleepUntil(task, next)
  }
}

/**
 * `periodic`: `count` tasks running `runUs` every `periodUs` (CPU work at capacity 1024, or
 * wall time with runMode "wall"). All tasks share one grid, so they wake together, unless
 * `staggerUs` offsets task i by i * staggerUs.
 */
export class Periodic implements WorkloadInstance {
  readonly type = 'periodic'
  readonly name: string
  constructor(private spec: PeriodicWorkload, private index: number) {
    this.name = spec.name
  }

  setup(host: WorkloadHost): void {
    const s = this.spec
    const n = taskCount(s)
    const start = delayNs(s)
    const stagger = Math.round((s.staggerUs ?? 0) * 1000)
    const runNs = Math.round(s.runUs * 1000)
    const periodNs = Math.round(s.periodUs * 1000)
    for (let i = 0; i < n; i++) {
      const at = start + i * stagger
      const attrs = commonAttrs(s, this.index, `${this.name}-${i}`, at)
      host.createTask(attrs, new PeriodicTask(at, runNs, periodNs, s.runMode === 'wall'), s.startCpu)
    }
  }

  done(): boolean {
    return false
  }

  report(): void {}
}
