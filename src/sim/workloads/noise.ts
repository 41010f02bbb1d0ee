import type { TaskContext, TaskProgram } from '../kernel/api'
import type { NoiseWorkload } from '../scenario/workload-specs'
import type { WorkloadHost, WorkloadInstance } from './types'
import { commonAttrs, delayNs } from './common'
import { lognormalMean1 } from '../engine/prng'

/**
 * Background activity of a live system. Real boards run kworkers, RCU and softirq threads,
 * timers and daemons; the tails the seeds publish for "cyclictest alone" come from them.
 * - per-CPU kernel threads (kworker-like): frequent short bursts of kernel code, pinned;
 * - unbound daemons: rarer, longer bursts of user code;
 * - unbound kernel threads with long unpreemptible sections (kdamond, kswapd): nothing
 *   preempts a section under preempt none/voluntary;
 * - vCPU stalls (a virtual machine's host runs something else): the CPU executes nothing;
 * - the timer delivery delay of a virtual machine (the hypervisor's hrtimer and interrupt
 *   injection): every hrtimer sleep fires a lognormal time after its hard expiry.
 * Sleeps and bursts are exponential, sections and stalls lognormal (spread `sigma`), drawn from
 * the run's seeded PRNG, so seeds give different but reproducible noise. Their own latencies
 * are not part of any measured distribution.
 */
class NoiseThread implements TaskProgram {
  private working = false
  /** `kernel`: a kernel thread, whose work is kernel code (not preempted under preempt none). */
  constructor(
    private readonly meanSleepNs: number,
    private readonly meanRunNs: number,
    private readonly kernel: boolean,
    private readonly sigma = -1
  ) {}

  step(task: number, k: TaskContext): void {
    if (this.working) {
      this.working = false
      k.sleepFor(task, Math.max(1000, Math.round(exponential(k) * this.meanSleepNs)))
      return
    }
    this.working = true
    const draw = this.sigma >= 0 ? lognormal(k, this.sigma) : exponential(k)
    const work = Math.max(1000, Math.round(draw * this.meanRunNs))
    if (this.kernel) k.runKernel(task, work)
    else k.run(task, work)
  }
}

function exponential(k: TaskContext): number {
  return -Math.log(1 - k.random())
}

function lognormal(k: TaskContext, sigma: number): number {
  return lognormalMean1(k, sigma)
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
      for (let i = 0; i < (spec.kthreads ?? 0); i++) {
        const attrs = { ...commonAttrs(spec, index, `kthread-${i}`, start), recordLatency: false, kthread: true }
        host.createTask(attrs, new NoiseThread(spec.kthreadPeriodUs * 1000, spec.kthreadRunUs * 1000, true, spec.sigma ?? 1))
      }
      if ((spec.timerDelayUs ?? 0) > 0) host.timerDelay(spec.timerDelayUs * 1000, spec.timerDelaySigma ?? 1)
      if ((spec.stallPeriodUs ?? 0) > 0 && (spec.stallUs ?? 0) > 0) {
        const k = host.ctx
        for (const cpu of cpus) {
          const next = (t: number): void => {
            host.at(t, () => {
              host.stallCpu(cpu, Math.max(1, Math.round(lognormal(k, spec.sigma ?? 1) * spec.stallUs * 1000)))
              next(t + Math.max(1000, Math.round(exponential(k) * spec.stallPeriodUs * 1000)))
            })
          }
          next(start + Math.round(exponential(k) * spec.stallPeriodUs * 1000))
        }
      }
    },
    done: () => false,
    report(): void {}
  }
}
