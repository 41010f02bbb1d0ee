import { join } from 'node:path'
import { LogHistogram } from '../sim/metrics/histogram'
import type { RunSpec } from '../sim/scenario'
import type { ResultSource, TaskResult, VariantResult, WorkloadResult } from '../shared/result'
import { TraceAnalyzer, type TraceVariantResult } from '../trace/analyzer'
import type { SchedEvent } from '../trace/events'
import { FtraceFormatter, metaLines } from '../trace/ftrace-format'
import { openLineWriter, traceFileName } from '../trace/line-writer'
import type { RawDecodeStats } from '../trace/ring-buffer'
import { crossCheck } from './cross-check'
import { parseHackbenchTimes, type WorkloadPlan } from './workloads'
import { makeDirs } from '../trace/make-dirs'

/**
 * A traced run's result object, whichever kernel ran it (this machine's for `schedlab real`,
 * a guest's for `schedlab vm`): the trace's events, replayed in time order, go through the
 * analyzer of `schedlab analyze` with the workloads' processes as roots; hackbench's "Time:"
 * lines give timeSec; cyclictest's own histogram is kept beside the trace's figures.
 */

export interface TracedRun {
  run: RunSpec
  plans: readonly WorkloadPlan[]
  /** Every process started (repeats too): its workload's index, its pid in the traced kernel, its output. */
  processes: readonly { workload: number; pid: number; output: string }[]
  /** The run's span on the trace's clock. */
  span: { startNs: number; endNs: number }
  ncpus: number
  /** cpus[].cluster of the result. */
  cluster: string
  source: ResultSource
  /** The trace file's label with --trace ("real1", "vm1"). */
  traceLabel: string
  traceDir?: string
  timelines?: boolean
  /** Replays the trace's events, in time order, into `emit`. */
  replay: (emit: (e: SchedEvent) => void) => RawDecodeStats
  /** Events the ring buffer reported lost besides the pages' own marks (overrun + dropped). */
  bufferLost: { overrun: number; dropped: number }
  warnings: string[]
  wallMs: number
}

export interface AssembledRun {
  result: VariantResult
  analyzed: TraceVariantResult
  raw: RawDecodeStats
  lostEvents: number
}

export function assembleTracedRun(t: TracedRun): AssembledRun {
  const { run, plans } = t
  const warnings = [...t.warnings]
  const roots = new Map<number, { workload: string; type: string }>()
  for (const p of t.processes) roots.set(p.pid, { workload: plans[p.workload].spec.name, type: plans[p.workload].spec.type })
  const analyzer = new TraceAnalyzer({ name: run.variant, roots, onlyAssigned: true, timelines: t.timelines })
  analyzer.meta({ type: 'span', startNs: t.span.startNs, endNs: t.span.endNs })
  analyzer.meta({ type: 'cpus', count: t.ncpus })
  const sink = traceSink(t.traceDir, run, t.traceLabel, t.ncpus)
  const raw = t.replay((e) => {
    analyzer.event(e)
    sink?.event(e)
  })
  const analyzed = analyzer.finish(undefined, 0)
  sink?.close(metaLines(t.span, analyzer.assignments().values()))

  const outputs = (index: number): string[] => t.processes.filter((p) => p.workload === index).map((p) => p.output)
  const workloads: WorkloadResult[] = plans.map((p) => {
    const got = analyzed.workloads.find((w) => w.name === p.spec.name)
    const w: WorkloadResult = got ? { ...got, type: p.spec.type } : { name: p.spec.name, type: p.spec.type, latencyUs: new LogHistogram().summaryUs() }
    if (p.spec.type === 'hackbench') {
      const times = outputs(p.index).flatMap(parseHackbenchTimes)
      if (times.length > 0) w.timeSec = Math.round((times.reduce((a, x) => a + x, 0) / times.length) * 1e6) / 1e6
      else warnings.push(`${p.spec.name}: hackbench did not finish within the run; raise durationMs to get timeSec`)
      w.extra = { ...w.extra, rounds: times.length }
    }
    if (p.spec.type === 'cyclictest') {
      const cc = crossCheck(outputs(p.index).join('\n'), w)
      if (cc) w.crossCheck = cc
      else warnings.push(`${p.spec.name}: cyclictest printed no histogram (the cross-check is missing)`)
    }
    if (p.skipped) w.extra = { ...w.extra, skipped: 1 }
    return w
  })
  const tasks = analyzed.tasks.filter((x) => x.workload !== '')
  const durationSec = (t.span.endNs - t.span.startNs) / 1e9
  const lost = t.bufferLost.overrun + t.bufferLost.dropped + raw.lostEvents
  if (lost > 0) warnings.push(`the trace lost ${lost} event(s) (ring buffer overrun ${t.bufferLost.overrun}, dropped ${t.bufferLost.dropped}); figures near the gaps are incomplete: raise --buffer-kb`)
  const sum = (f: (x: TaskResult) => number): number => tasks.reduce((a, x) => a + f(x), 0)
  const result: VariantResult = {
    name: run.variant,
    seed: run.seed,
    source: t.source,
    stats: { events: raw.events, wallMs: t.wallMs, simulatedMs: Math.round(durationSec * 1e6) / 1000, contextSwitches: sum((x) => x.contextSwitches), migrations: sum((x) => x.migrations), wakeups: sum((x) => x.wakeups), sysPct: 0 },
    workloads,
    tasks,
    cpus: analyzed.cpus.map((c) => ({ ...c, cluster: t.cluster })),
    unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } },
    counters: { traceContextSwitches: analyzed.stats.contextSwitches, traceWakeups: analyzed.stats.wakeups, traceMigrations: analyzed.stats.migrations },
    warnings: [...warnings, ...(analyzed.warnings ?? []).filter((w) => !/no sched events/.test(w))],
    trace: { ...analyzed.trace, lostEvents: lost },
    ...(analyzed.timelines ? { timelines: analyzed.timelines } : {})
  }
  return { result, analyzed, raw, lostEvents: lost }
}

interface TraceSink {
  event(e: SchedEvent): void
  close(meta: string[]): void
}

function traceSink(dir: string | undefined, run: RunSpec, label: string, ncpus: number): TraceSink | null {
  if (!dir) return null
  makeDirs(dir)
  const w = openLineWriter(join(dir, traceFileName(run.scenario.name, run.variant, label)))
  const fmt = new FtraceFormatter()
  for (const l of fmt.header(ncpus)) w.line(l)
  return {
    event: (e) => w.line(fmt.line(e)),
    close(meta) {
      for (const l of meta) w.line(l)
      w.close()
    }
  }
}
