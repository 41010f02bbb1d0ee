/**
 * A stand-in simulation worker for the run service's tests: it answers each job with a
 * structurally complete VariantResult built from the job (variant name, seed), and misbehaves
 * on request through the variant's name ("crash", "fail", "slow").
 */
import { serveJobs } from '../worker-protocol'
import type { VariantResult } from '../../shared/result'
import { isTraceJob, runTraceJob } from '../trace-job'

interface Spec {
  scenario: { variants: { name: string }[]; durationMs: number }
  variantIndex: number
  seed: number
}

serveJobs((payload, ctx) => {
  if (isTraceJob(payload)) return runTraceJob(payload)
  const spec = payload as Spec
  const name = spec.scenario.variants[spec.variantIndex].name
  if (name === 'crash') process.exit(9)
  if (name === 'fail') throw new Error('workloads[0]: unsupported by the model')
  if (name === 'slow') {
    const start = Date.now()
    while (!ctx.shouldStop() && Date.now() - start < 20_000) ctx.progress((Date.now() - start) * 1e6, 20_000 * 1e6)
  }
  const lat = { count: 100, min: 1, avg: 10 + spec.seed, p50: 9, p90: 15, p99: 30, p99_9: 40, max: 50 + spec.seed }
  const result: VariantResult = {
    name, seed: spec.seed,
    stats: { events: 10, wallMs: 1, simulatedMs: spec.scenario.durationMs, contextSwitches: 5, migrations: 0, wakeups: 5, sysPct: 0 },
    workloads: [{ name: 'w', type: 'hog', latencyUs: lat, latencyHist: { lowUs: [1, 50], highUs: [1.001, 50.5], counts: [99, 1] } }],
    tasks: [{ name: 'w-0', workload: 'w', cpuTimeMs: 1, latencyUs: lat, migrations: 0, contextSwitches: 5, wakeups: 5, lastCpu: 0 }],
    cpus: [{ id: 0, cluster: 'cpu', busyPct: 50 }],
    unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
  }
  return result
})
