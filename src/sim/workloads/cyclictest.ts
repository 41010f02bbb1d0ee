import { SCHED_NORMAL, type TaskContext, type TaskProgram } from '../kernel/api'
import type { CyclictestWorkload } from '../scenario/workload-specs'
import type { WorkloadHost, WorkloadInstance } from './types'
import type { WorkloadResult } from '../../shared/result'
import { commonAttrs, delayNs } from './common'
import { US } from './stat'

/**
 * rt-tests cyclictest. Each thread sleeps on an absolute timer grid; the kernel records the
 * latency from the timer expiry (`sleepUntil`'s target) to the switch-in. As in cyclictest,
 * the first expiry is one interval after the thread starts, and after a late wakeup the
 * missed periods are skipped without sleeping. `-r` uses relative sleeps instead.
 */
class CyclictestThread implements TaskProgram {
  private next = -1
  cycles = 0
  missed = 0
  finished = false

  constructor(
    private readonly intervalNs: number,
    private readonly loops: number,
    private readonly relative: boolean
  ) {}

  step(task: number, k: TaskContext): void {
    if (this.next >= 0) {
      this.cycles++
      if (this.loops > 0 && this.cycles >= this.loops) {
        this.finished = true
        k.exit(task)
        return
      }
    }
    if (this.relative) {
      this.next = k.now + this.intervalNs
      k.sleepFor(task, this.intervalNs)
      return
    }
    if (this.next < 0) this.next = k.now + this.intervalNs
    else {
      this.next += this.intervalNs
      while (k.now > this.next) {
        this.next += this.intervalNs
        this.missed++
      }
    }
    k.sleepUntil(task, this.next)
  }
}

/**
 * cyclictest's main thread: after starting the measurement threads it loops over their
 * statistics (print_stat(), nothing printed with -q) and `usleep(10000)`, a relative
 * nanosleep with the process's timer slack, until the end (rt-tests src/cyclictest). It keeps
 * the process's policy (SCHED_OTHER: cyclictest sets the measurement threads' policy itself),
 * slice, nice and affinity, and its latency is not measured.
 * The real trace here shows it waking every 10.2 ms and running 12 us (median, switch-in to
 * switch-out, context switches included).
 */
const MAIN_SLEEP_NS = 10_000_000
const MAIN_WORK_NS = 2_000

class CyclictestMain implements TaskProgram {
  private working = false

  step(task: number, k: TaskContext): void {
    this.working = !this.working
    if (this.working) k.run(task, MAIN_WORK_NS)
    else k.sleepFor(task, MAIN_SLEEP_NS)
  }
}

export function createCyclictest(spec: CyclictestWorkload, index: number): WorkloadInstance {
  const threads: CyclictestThread[] = []
  const base = { cycles: 0, missed: 0 }
  return {
    name: spec.name,
    type: 'cyclictest',
    setup(host: WorkloadHost): void {
      // cyclictest writes 0 to /dev/cpu_dma_latency for its whole run unless --laptop
      if (!spec.laptop) host.cpuLatencyQos(0)
      const all = Array.from({ length: host.ncpus }, (_, i) => i)
      const cpuList = spec.cpus ?? all
      for (let t = 0; t < spec.threads; t++) {
        const intervalNs = Math.round((spec.periodUs + t * spec.distanceUs) * US)
        const th = new CyclictestThread(intervalNs, spec.loops, spec.relative)
        threads.push(th)
        const cpus = spec.pin ? [cpuList[t % cpuList.length]] : (spec.cpus ?? null)
        host.createTask({ ...commonAttrs(spec, index, `${spec.name}-${t}`, delayNs(spec)), cpus }, th, spec.startCpu)
      }
      if (spec.mainThread) {
        const common = commonAttrs(spec, index, `${spec.name}-main`, delayNs(spec))
        host.createTask({
          // the process's own attributes (a slice or nice set on it is inherited), never RT
          ...common, policy: SCHED_NORMAL, rtPriority: 0, uclampMin: spec.uclampMin ?? 0,
          // -a pins the measurement threads only
          cpus: spec.pin ? null : spec.cpus ?? null, recordLatency: false
        }, new CyclictestMain(), spec.startCpu)
      }
    },
    resetStats(): void {
      // cycles also count toward -l: keep them, report from here on
      base.cycles = threads.reduce((n, t) => n + t.cycles, 0)
      base.missed = threads.reduce((n, t) => n + t.missed, 0)
    },
    done: () => spec.loops > 0 && threads.every((t) => t.finished),
    report(_host: WorkloadHost, out: WorkloadResult): void {
      out.extra = {
        ...out.extra,
        cycles: threads.reduce((n, t) => n + t.cycles, 0) - base.cycles,
        missedPeriods: threads.reduce((n, t) => n + t.missed, 0) - base.missed
      }
    }
  }
}
