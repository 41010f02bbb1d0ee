import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createHash } from 'node:crypto'
import type { StoredRun } from '../shared/ipc'
import type { VariantResult } from '../shared/result'
import type { KeyValueStore } from './kv'
import { tsxWorkerExecArgv } from './tsx-worker'

/** A throw-away data folder for a test. */
export function tempDir(prefix = 'schedlab-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

export class MemoryKv implements KeyValueStore {
  readonly data = new Map<string, unknown>()
  get(key: string): unknown {
    const v = this.data.get(key)
    return v === undefined ? undefined : structuredClone(v)
  }
  set(key: string, value: unknown): void {
    this.data.set(key, structuredClone(value))
  }
}

export const TSX_WORKER_ARGV = tsxWorkerExecArgv()

export const fixtureWorker = (name: string): string => join(__dirname, '__fixtures__', name)

/**
 * What a saved run computed, as one sha256: its results (a sweep's per cell, with the cells'
 * values) without the wall-clock time. Two runs of the same scenario and seeds have the same.
 */
export function runResultDigest(run: Pick<StoredRun, 'results' | 'sweep'>): string {
  const stable = (r: VariantResult): unknown => ({ ...r, stats: { ...r.stats, wallMs: undefined } })
  const body = run.sweep
    ? run.sweep.cells.map((c) => ({ index: c.index, values: c.values, results: c.results.map(stable) }))
    : run.results.map(stable)
  return createHash('sha256').update(JSON.stringify(body)).digest('hex')
}
