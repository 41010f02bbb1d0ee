import type { TaskAttrs, TaskContext, TaskProgram } from '../kernel/api'
import type { LogHistogram } from '../metrics/histogram'
import type { WorkloadResult } from '../../shared/result'
import type { CostConfig } from '../kernel/config'

/**
 * What the simulation offers a workload while it sets itself up and reports: task creation
 * plus the task context (for workload-level timers and state).
 */
export interface WorkloadHost {
  /**
   * Create a task that first becomes runnable at attrs.startNs, on `startCpu` if given
   * (otherwise through fork placement). Returns its id.
   */
  createTask(attrs: TaskAttrs, program: TaskProgram, startCpu?: number): number
  readonly ctx: TaskContext
  readonly ncpus: number
  /** capacity_orig of each CPU. */
  readonly capacities: readonly number[]
  readonly durationNs: number
  /** The run's modeled costs (topology calibration, then kernel.costs): workload calibration. */
  readonly costs: Readonly<CostConfig>
  /** A fresh histogram for workload-specific latencies (recorded in ns). */
  histogram(): LogHistogram
  /**
   * A PM QoS CPU latency request (/dev/cpu_dma_latency) held for the whole run: idle states
   * whose exit latency exceeds it are not used (the shallowest state always is).
   */
  cpuLatencyQos(maxExitLatencyUs: number): void
  /** Add a warning to the run's result (unsupported key, approximation made, ...). */
  warn(message: string): void
  /** Run `fn` at simulated time `atNs`, in no CPU's context (workload-level timers). */
  at(atNs: number, fn: () => void): void
  /** A vCPU stall: cpu executes nothing for `ns` from now (its task, interrupts, wakeups wait). */
  stallCpu(cpu: number, ns: number): void
  /**
   * Timer delivery of a virtual machine: from now on every hrtimer sleep fires a lognormal time
   * (mean `meanNs`, log-spread `sigma`) after its hard expiry (requested time + slack).
   */
  timerDelay(meanNs: number, sigma: number): void
  /**
   * kernel.coalesce: run operations that wake and block no one as one run of their summed
   * work (false: one by one, the validation mode).
   */
  readonly coalesce: boolean
}

export interface WorkloadInstance {
  readonly name: string
  readonly type: string
  /** Create the initial tasks. Called once before the simulation starts. */
  setup(host: WorkloadHost): void
  /** True once the workload has finished all its work (the run may then stop early). */
  done(): boolean
  /** Workload-level results beyond the latency aggregated over its tasks by the kernel. */
  report(host: WorkloadHost, out: WorkloadResult): void
  /** Forget what was measured so far: the end of a discarded warm-up at `nowNs` (replicas). */
  resetStats?(nowNs: number): void
}
