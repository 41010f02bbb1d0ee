/** Worker thread entry: runs one (scenario, variant, seed) simulation per job. */
import { serveJobs } from './worker-protocol'
import { simulate, type RunSpec } from './sim-adapter'

serveJobs((payload, ctx) => {
  const spec = payload as RunSpec
  return simulate(spec.scenario, spec.variantIndex, spec.seed, { onProgress: ctx.progress, shouldStop: ctx.shouldStop })
})
