/** Worker thread entry: one simulation per job, or an explanation / a Perfetto trace of one. */
import { workerData } from 'node:worker_threads'
import { serveJobs, type WorkerInit } from './worker-protocol'
import { warmUp } from './warm-up'
import { explainRun, perfettoRun, simulate, type RunSpec } from './sim-adapter'
import type { WorkerJob } from './explain-service'
import type { SimJob } from './replica-runner'
import { isPatchCheckJob, runPatchCheck } from './patch-check-job'
import { isTraceJob, runTraceJob } from './trace-job'

// jobs posted meanwhile wait in the port's queue
if ((workerData as WorkerInit | null)?.warm) warmUp()

serveJobs((payload, ctx) => {
  const job = payload as RunSpec | WorkerJob
  if ('job' in job && job.job === 'explain') return explainRun(job, ctx)
  if ('job' in job && job.job === 'perfetto') return perfettoRun(job, ctx)
  if (isPatchCheckJob(payload)) return runPatchCheck(payload)
  if (isTraceJob(payload)) return runTraceJob(payload)
  const spec = job as SimJob
  return simulate(spec.scenario, spec.variantIndex, spec.seed, { onProgress: ctx.progress, shouldStop: ctx.shouldStop, warmupMs: spec.warmupMs, patchMonitor: ctx.monitor })
})
