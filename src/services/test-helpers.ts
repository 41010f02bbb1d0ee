import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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
