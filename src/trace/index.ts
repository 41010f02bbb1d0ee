import type { Readable } from 'node:stream'
import { TraceAnalyzer, type AnalyzeOptions, type TraceVariantResult } from './analyzer'
import { openTraceFile, readFtraceStream, readFtraceString } from './reader'

export { TraceAnalyzer, commGroup, parseWorkloadPattern, MAX_TRACE_CPUS, MAX_TRACE_TASKS, type AnalyzeOptions, type TraceVariantResult, type WorkloadPattern } from './analyzer'
export { readFtraceFile, readFtraceStream, readFtraceString, openTraceFile, FtraceLineReader, type ReadStats, type TraceSink } from './reader'
export { parseFtraceLine } from './ftrace-text'
export type { SchedEvent, TraceMeta } from './events'

/** Analyze ftrace text from a stream (the CLI's `analyze`, the workbench's Import trace). */
export async function analyzeStream(input: Readable, opts: AnalyzeOptions = {}): Promise<TraceVariantResult> {
  const started = performance.now()
  const a = new TraceAnalyzer(opts)
  const read = await readFtraceStream(input, a)
  return { ...a.finish(read, performance.now() - started), source: 'trace' }
}

export function analyzeFile(path: string, opts: AnalyzeOptions = {}): Promise<TraceVariantResult> {
  return analyzeStream(openTraceFile(path), opts)
}

export function analyzeText(text: string, opts: AnalyzeOptions = {}): TraceVariantResult {
  const a = new TraceAnalyzer(opts)
  const read = readFtraceString(text, a)
  return { ...a.finish(read), source: 'trace' }
}
