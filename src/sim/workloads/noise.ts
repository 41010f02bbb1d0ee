import type { TaskContext, TaskProgram } from '../kernel/api'
import type { NoiseWorkload } from '../scenario/workload-specs'
import type { WorkloadHost, WorkloadInstance } from './types'
import { commonAttrs, delayNs } from './common'

/**
 * Background activity of a live system. Real boards run kworkers, RCU and softirq threads,
 * timers and daemons; the tails the seeds publish for "cyclictest alone" come from them.
 * Each thread alternates an exponentially distributed sleep and an exponentially distributed
 * burst of work (drawn from the run's seeded PRNG, so seeds give different but reproducible
 * noise). Per-CPU threads are pinned like kworkers; daemons are unbound. Their own latencies
 * are not part of any measured distribution.
 */
class NoiseThread implements TaskProgram {
  private working = false
  /** `kernel`: a kernel thread, whose work is kernel code (not preempted under preempt none). */
  constructor(private readonly meanSleepNs: number, private readonly meanRunNs: number, private readonly kernel: boolean) {}

  step(task: number, k: TaskContext): void {
    if (this.working) {
      this.working = false
      k.sleepFor(task, Math.max(1000, Math.round(exponential(k) * this.meanSleepNs)))
      return
    }
    this.working = true
    const work = Math.max(1000, Math.round(exponential(k) * this.meanRunNs))
    if (this.kernel) k.runKernel(task, work)
    else k.run(task, work)
  }
}

function exponential(k: TaskContext): number {
  return -Math.log(1 - k.random())
}

export function createNoise(spec: NoiseWorkload, index: number): WorkloadInstance {
  return {
    name: spec.name,
    type: 'noise',
    setup(host: WorkloadHost): void {
      const start = delayNs(spec)
      const cpus = spec.cpus ?? Array.from({ length: host.ncpus }, (_, i) => i)
      for (const cpu of cpus) {
        for (let i = 0; i < spec.perCpu; i++) {
          const attrs = { ...commonAttrs(spec, index, `kworker/${cpu}:${i}`, start), cpus: [cpu], recordLatency: false, kthread: true }
          host.createTask(attrs, new NoiseThread(spec.perCpuPeriodUs * 1000, spec.perCpuRunUs * 1000, true), cpu)
        }
      }
      for (let i = 0; i < spec.daemons; i++) {
        const attrs = { ...commonAttrs(spec, index, `${spec.name}-daemon-${i}`, start), recordLatency: false }
        host.createTask(attrs, new NoiseThread(spec.daemonPeriodUs * 1000, spec.daemonRunUs * 1000, false))
      }
    },
    done: () => false,
    report(): void {}
  }
}
