import { explainIdleEvent, explainSample } from '../sim/explain'
import { simulateDetailed } from '../sim/index'
import type { Kernel } from '../sim/kernel/sched'
import type { RunSpec } from '../sim/scenario/index'
import type { ExplainResult, SampleSelector } from '../shared/explain'
import { attachPerfetto, type PerfettoWriter } from '../sim/metrics/perfetto'
import type { JobContext } from './worker-protocol'

/** Largest trace the workbench exports (events); the CLI's `run --trace-format perfetto` has no such bound. */
const WORKBENCH_TRACE_EVENTS = 3_000_000

/** The worker's side of ExplainService.explain: both passes, with progress (pass 1 then 2, each half). */
export function explainRun(job: RunSpec & { workload?: string; sample?: SampleSelector; idle?: { bucket: string; index: number } }, ctx: JobContext): ExplainResult {
  const base = {
    scenario: job.scenario, variantIndex: job.variantIndex, seed: job.seed, allCpus: true,
    onProgress: (pass: 1 | 2, simNs: number, durationNs: number) => ctx.progress((pass - 1) * durationNs + simNs, 2 * durationNs),
    shouldStop: ctx.shouldStop
  }
  if (job.idle) return explainIdleEvent({ ...base, bucket: job.idle.bucket, index: job.idle.index })
  return explainSample({ ...base, workload: job.workload ?? '', sample: job.sample ?? 'max' })
}

/** The worker's side of ExplainService.perfettoTrace: the run (or [startNs, endNs] of it) as a Perfetto trace. */
export function perfettoRun(job: RunSpec & { startNs?: number; endNs?: number }, ctx: JobContext): Uint8Array {
  const chunks: Uint8Array[] = []
  let size = 0
  let kernel: Kernel | null = null
  let writer: PerfettoWriter | null = null
  const stop = job.endNs ?? Infinity
  simulateDetailed(job.scenario, job.variantIndex, job.seed, {
    onProgress: ctx.progress,
    shouldStop: () => (kernel !== null && kernel.now > stop) || ctx.shouldStop(),
    configure: (k) => {
      kernel = k
      writer = attachPerfetto(k, {
        write: (c) => {
          chunks.push(c)
          size += c.length
        },
        workloads: job.scenario.workloads,
        maxEvents: WORKBENCH_TRACE_EVENTS
      }, { startNs: job.startNs ?? 0, stopNs: stop })
    }
  })
  if (writer && kernel) (writer as PerfettoWriter).finish((kernel as Kernel).now)
  const out = new Uint8Array(size)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.length
  }
  return out
}
