/**
 * The time to answer of `npm run bench`: every variant of a preset at its published duration
 * (hackbench setups: until hackbench finishes), run on a worker pool of this machine's size,
 * as the workbench runs them (long steady runs as parallel replicas: replica-runner.ts). The
 * pool's workers are started and warmed up (a short run of the same preset) before the clock
 * starts, as they are in a workbench session after its first run.
 */
import { fileURLToPath } from 'node:url'
import { WorkerPool } from '../src/services/worker-pool'
import { tsxWorkerExecArgv } from '../src/services/tsx-worker'
import { expandRuns, type Scenario } from '../src/sim/scenario'
import type { VariantResult } from '../src/shared/result'
import { plansFor, submitRun } from '../src/services/replica-runner'

const WORKER = fileURLToPath(new URL('../src/services/sim-worker.ts', import.meta.url))

export interface Answer {
  wallSec: number
  runs: number
  replicas?: number
}

/** `s` at the published duration already (see presetScenario). */
export async function answerOnPool(s: Scenario, workers: number): Promise<Answer> {
  const pool = new WorkerPool<VariantResult>({ workerPath: WORKER, execArgv: tsxWorkerExecArgv(), size: workers })
  try {
    const warm = expandRuns(s, { seeds: 1, durationMs: Math.min(100, s.durationMs) })
    await Promise.all(Array.from({ length: workers }, (_, i) => pool.submit(warm[i % warm.length]).outcome))
    const runs = expandRuns(s, { seeds: 1 })
    const plans = plansFor(runs, pool.size)
    const t0 = performance.now()
    const outcomes = await Promise.all(runs.map((r, i) => submitRun(pool, r, plans[i]).outcome))
    const wallSec = (performance.now() - t0) / 1000
    for (const o of outcomes) if (o.status !== 'done') throw new Error(`time to answer: a run ${o.status}: ${'message' in o ? o.message : ''}`)
    const k = plans.find((p) => p)?.replicas
    return { wallSec, runs: runs.length, ...(k ? { replicas: k } : {}) }
  } finally {
    await pool.close()
  }
}
