import { createRequire } from 'node:module'
import { join } from 'node:path'

/** The simulation worker's entry as TypeScript source, for hosts that run from source (the CLI, serve). */
export const SIM_WORKER_SOURCE = join(__dirname, 'sim-worker.ts')

/**
 * execArgv for a worker thread whose entry is a TypeScript source (`schedlab serve` and tests
 * run from source under tsx). Node 20 does not apply `--import` loader hooks inside worker
 * threads, so the worker gets tsx's CommonJS require hook instead, which works per thread.
 */
export function tsxWorkerExecArgv(): string[] {
  return ['--require', createRequire(__filename).resolve('tsx/cjs')]
}
