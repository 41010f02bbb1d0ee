/** Fidelity runner worker: runs one (scenario text, variant, seed) job per message. */
import { parentPort } from 'node:worker_threads'
import { parseScenario } from '../../src/sim/scenario/index'
import { simulate } from '../../src/sim/index'

export interface Job {
  id: number
  text: string
  file: string
  variant: string
  seed: number
  durationMs?: number
}

parentPort!.on('message', (job: Job) => {
  try {
    const s = parseScenario(job.text, job.file, { maxEvents: 5e9 })
    const v = s.variants.findIndex((x) => x.name === job.variant)
    if (v < 0) throw new Error(`${job.file}: no variant "${job.variant}"`)
    const scenario = job.durationMs ? { ...s, durationMs: job.durationMs } : s
    parentPort!.postMessage({ id: job.id, result: simulate(scenario, v, s.seed + job.seed) })
  } catch (e) {
    parentPort!.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) })
  }
})
