import { availableParallelism } from 'node:os'
import type { RunSpec } from '../sim/scenario'
import type { VariantResult } from '../shared/result'
import type { PrecisionJob } from '../stats/precision'
import { WorkerPool } from '../services/worker-pool'
import { SIM_WORKER_SOURCE, tsxWorkerExecArgv } from '../services/tsx-worker'
import { memoryBudgetBytes, resolveLimits, runMemoryOf, type HostLimits } from '../services/limits'
import type { CliIo } from './io'
import { submitRun } from '../services/replica-runner'
import { mergeReplicas, replicaScenario, replicaSeed, type ReplicaPlan } from '../sim/replicas'
import { defaultSimulate, type SimulateFn } from './simulator'
import { InputError } from './errors'

/**
 * Where the CLI's runs go when there are many of them (`--precision`, `sweep`): the worker pool
 * (one worker thread per CPU, the same pool the workbench uses), or, when a simulator is
 * injected (tests), in this thread one after the other.
 */
export interface Executor {
  readonly parallelism: number
  /** One run; with a replica plan, as parallel replicas merged into one result (src/sim/replicas.ts). */
  submit(spec: RunSpec, plan?: ReplicaPlan | null): PrecisionJob
  close(): Promise<void>
}

/** Workers: SCHEDLAB_WORKERS, else Slurm's CPUs for this task, else the machine's. */
export function workerCount(env: NodeJS.ProcessEnv = process.env): number {
  for (const v of [env.SCHEDLAB_WORKERS, env.SLURM_CPUS_PER_TASK]) {
    const n = Number(v)
    if (v && Number.isInteger(n) && n > 0) return Math.min(n, 256)
  }
  return Math.max(1, availableParallelism())
}

export function poolExecutor(size = workerCount(), limits: HostLimits = resolveLimits()): Executor {
  // Runs start only while their estimated memory fits beside the running ones (limits.ts).
  const pool = new WorkerPool<VariantResult>({
    workerPath: SIM_WORKER_SOURCE, execArgv: tsxWorkerExecArgv(), size,
    memoryBudgetBytes: memoryBudgetBytes(limits), memoryOf: runMemoryOf
  })
  return {
    parallelism: pool.size,
    submit(spec, plan = null) {
      const h = submitRun(pool, spec, plan)
      return {
        result: h.outcome.then((o) => {
          if (o.status === 'done') return o.result
          if (o.status === 'canceled') return null
          // a patch module's own problem is the user's input, located (exit 2)
          if (o.kind === 'patch') throw new InputError(`${spec.variant}, seed ${spec.seed}: ${o.message}`)
          throw new Error(`${spec.variant}, seed ${spec.seed}: ${o.message}`)
        }),
        cancel: () => h.cancel()
      }
    },
    close: () => pool.close()
  }
}

/** Runs in this thread, in submission order; a canceled run that has not started is skipped. */
export function inProcessExecutor(simulate: SimulateFn = defaultSimulate): Executor {
  let chain: Promise<unknown> = Promise.resolve()
  return {
    parallelism: 1,
    submit(spec, plan = null) {
      let canceled = false
      const one = (): VariantResult | null => {
        if (canceled) return null
        if (!plan) return simulate(spec.scenario, spec.variantIndex, spec.seed, { shouldStop: () => canceled })
        const scenario = replicaScenario(spec.scenario, plan)
        const parts = Array.from({ length: plan.replicas }, (_, j) => simulate(scenario, spec.variantIndex, replicaSeed(spec.seed, j), { shouldStop: () => canceled, warmupMs: plan.warmupMs }))
        return canceled ? null : mergeReplicas(parts, plan)
      }
      const result = chain.then(one)
      chain = result.catch(() => undefined)
      return { result, cancel: () => (canceled = true) }
    },
    close: async () => {
      await chain
    }
  }
}

export function makeExecutor(simulate?: SimulateFn, limits?: HostLimits): Executor {
  return simulate ? inProcessExecutor(simulate) : poolExecutor(workerCount(), limits)
}

/** Run every spec, results in spec order; a line on stderr as each ends when the whole takes long. */
export async function runAll(
  ex: Executor, specs: readonly RunSpec[], io: CliIo, what = 'runs', plans?: readonly (ReplicaPlan | null)[],
  checkpoint?: { kept: ReadonlyMap<number, VariantResult>; onResult(index: number, result: VariantResult): void }
): Promise<VariantResult[]> {
  const started = io.now()
  let done = checkpoint?.kept.size ?? 0
  let lastPrint = 0
  // a resumed command's finished runs are not submitted again
  const jobs = specs.map((s, i) => {
    const kept = checkpoint?.kept.get(i)
    return kept ? { result: Promise.resolve(kept), cancel: () => undefined, kept: true } : { ...ex.submit(s, plans?.[i] ?? null), kept: false }
  })
  return Promise.all(jobs.map(async (j, i) => {
    const r = await j.result
    if (!r) throw new Error(`${specs[i].variant}, seed ${specs[i].seed}: canceled`)
    if (j.kept) return r
    checkpoint?.onResult(i, r)
    done++
    const now = io.now()
    if (now - started > 1000 && (now - lastPrint > (io.errIsTty ? 200 : 2000) || done === specs.length)) {
      lastPrint = now
      const line = `${done} of ${specs.length} ${what} done (${ex.parallelism} in parallel, ${((now - started) / 1000).toFixed(1)} s)`
      io.err(io.errIsTty ? `\r${line}\u001b[K${done === specs.length ? '\n' : ''}` : `${line}\n`)
    }
    return r
  }))
}
