import { basename, join } from 'node:path'
import type { RunOutput } from '../shared/result'
import { analyzeStream, parseWorkloadPattern, type TraceVariantResult, type WorkloadPattern } from '../trace'
import { InputError, UsageError } from './errors'
import { renderRunText } from './format'
import type { CliIo } from './io'

/** `schedlab analyze TRACE`: the result object of a trace, one variant named after the file. */
export async function analyzeCommand(a: { file: string; workloads: string[]; json: boolean; out?: string; maxTraceMb?: number }, io: CliIo): Promise<number> {
  const workloads: WorkloadPattern[] = a.workloads.map((w) => {
    const p = parseWorkloadPattern(w)
    if (typeof p === 'string') throw new UsageError(`--workload: ${p}`)
    return p
  })
  if (a.file !== '-' && !io.exists(a.file)) throw new InputError(`${a.file}: no such file`)
  const name = a.file === '-' ? 'stdin' : basename(a.file)
  if (a.out) io.mkdirp(a.out)
  let v: TraceVariantResult
  try {
    v = await analyzeStream(io.readStream(a.file, a.maxTraceMb), { name, workloads })
  } catch (e) {
    throw new InputError(`${a.file}: cannot read: ${(e as Error).message}`)
  }
  const t = v.trace
  if (t.events === 0) {
    const first = t.malformedExamples?.[0]
    throw new InputError(`${a.file}: no sched events in ${t.lines ?? 0} line(s)${first ? ` (line ${first.line}: ${first.reason})` : ''}; expected ftrace text with sched_switch/sched_waking`)
  }
  const output: RunOutput = { scenario: name, source: 'trace', variants: [v] }
  if (a.out) {
    io.mkdirp(a.out)
    io.writeFile(join(a.out, 'result.json'), JSON.stringify(output, null, 2) + '\n')
    io.err(`wrote ${join(a.out, 'result.json')}\n`)
  }
  if (t.malformed) io.err(`${a.file}: ${t.malformed} malformed line(s) skipped; first: line ${t.malformedExamples?.[0]?.line}: ${t.malformedExamples?.[0]?.reason}\n`)
  io.out(a.json ? JSON.stringify(output, null, 2) + '\n' : renderRunText(output) + traceLine(v))
  return 0
}

function traceLine(v: TraceVariantResult): string {
  const t = v.trace
  const from = t.timerLatency ? 'latency from requested hrtimer expiries (and sched_waking otherwise)' : 'latency from sched_waking (no hrtimer sleep events in the trace)'
  const lost = t.lostEvents ? `, ${t.lostEvents} lost by the kernel` : ''
  return `trace: ${t.lines} lines, ${t.events} sched events, ${t.otherEvents ?? 0} other, ${t.malformed ?? 0} malformed${lost}; ${from}\n`
}
