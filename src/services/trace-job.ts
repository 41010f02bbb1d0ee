/**
 * A trace sent as text (the web host's Import trace) is analyzed on the worker pool, never in
 * the host's own thread: the worker's heap limit bounds it, and the host goes on answering
 * every other client meanwhile (one trace used to freeze `schedlab serve` for minutes).
 */
import { Readable } from 'node:stream'
import { analyzeStream, type TraceVariantResult } from '../trace'
import type { VariantResult } from '../shared/result'
import type { WorkerPool } from './worker-pool'

export interface TraceJob {
  job: 'trace'
  text: string
  name: string
}

export function isTraceJob(p: unknown): p is TraceJob {
  return typeof p === 'object' && p !== null && (p as { job?: unknown }).job === 'trace'
}

/** Worker side. */
export function runTraceJob(job: TraceJob): Promise<TraceVariantResult> {
  return analyzeStream(Readable.from([job.text]), { name: job.name, timelines: true })
}

/** Host side: the trace's analysis as a pool job; a worker out of memory fails only this import. */
export async function analyzeOnPool(pool: WorkerPool<VariantResult>, text: string, name: string): Promise<TraceVariantResult> {
  const o = await pool.submit({ job: 'trace', text, name } satisfies TraceJob).outcome
  if (o.status === 'done') return o.result as TraceVariantResult
  throw new Error(o.status === 'failed' ? o.message : 'canceled')
}
