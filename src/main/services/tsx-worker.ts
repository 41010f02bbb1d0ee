import { createRequire } from 'node:module'

/**
 * execArgv for a worker thread whose entry is a TypeScript source (`schedlab serve` and tests
 * run from source under tsx). Node 20 does not apply `--import` loader hooks inside worker
 * threads, so the worker gets tsx's CommonJS require hook instead, which works per thread.
 */
export function tsxWorkerExecArgv(): string[] {
  return ['--require', createRequire(__filename).resolve('tsx/cjs')]
}
