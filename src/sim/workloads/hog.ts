import type { TaskContext, TaskProgram } from '../kernel/api'
import type { HogWorkload } from '../scenario/workload-specs'
import type { WorkloadHost, WorkloadInstance } from './types'
import { commonAttrs, delayNs, taskCount } from './common'

/** Chunk of work per run action: long enough to cost nothing, short enough to stay exact. */
const CHUNK_NS = 1_000_000_000

const hogProgram: TaskProgram = {
  step(task: number, k: TaskContext): void {
    k.run(task, CHUNK_NS)
  }
}

/** `hog`: always-runnable CPU-bound tasks. */
export class Hog implements WorkloadInstance {
  readonly type = 'hog'
  readonly name: string
  constructor(private spec: HogWorkload, private index: number) {
    this.name = spec.name
  }

  setup(host: WorkloadHost): void {
    const n = taskCount(this.spec)
    for (let i = 0; i < n; i++) {
      const attrs = commonAttrs(this.spec, this.index, `${this.name}-${i}`, delayNs(this.spec))
      attrs.recordLatency = false
      host.createTask(attrs, hogProgram, this.spec.startCpu)
    }
  }

  done(): boolean {
    return false
  }

  report(): void {}
}
