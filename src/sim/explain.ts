/**
 * Why this latency: re-run one variant and explain one latency sample of one workload.
 *
 * Two deterministic passes of the same scenario and seed (the recorder changes nothing the
 * model does, so both are the run the user saw). The first keeps only what identifies the
 * samples (the max, the first sample in each histogram bucket, the INDEX-th) and picks the
 * one asked for; the second records decisions from a little before that sample became
 * runnable (back to the task's previous run, where its sleep started) to a little after it
 * ran, then stops. Memory: O(histogram buckets) in the first pass, the window in the second.
 *
 * The result is the JSON of DESIGN.md's "Timeline, explanations and trace export": the
 * sample, a timeline of the CPUs involved, and the decisions between runnable and running as
 * sentences with reason codes (docs/explain.md).
 */
import type { Scenario } from './scenario/types'
import { simulateDetailed } from './index'
import { NIL } from './kernel/eevdf-tree'
import type { Kernel } from './kernel/sched'
import { LogHistogram } from './metrics/histogram'
import { bucketOf } from '../shared/histogram-layout'
import { Recorder, STOPPER_TASK, type DecisionRecord } from './metrics/recorder'
import { describe, fmtD, fmtT, fmtV, Namer, passedOverReason } from './metrics/explain-text'
import type { CauseShare, CpuLane, ExplainedDecision, ExplainResult, SampleSelector } from '../shared/explain'
import { FairSched } from './kernel/fair-sched'

export type { CauseShare, CpuLane, ExplainedDecision, ExplainResult, IdleSpan, SampleSelector, TimelineSlice } from '../shared/explain'

export interface ExplainRequest {
  scenario: Scenario
  variantIndex: number
  seed: number
  workload: string
  sample: SampleSelector
  /** Recorded before the sample became runnable (default 2 ms, at least back to the task's previous run). */
  beforeNs?: number
  /** Recorded after it ran (default 1 ms). */
  afterNs?: number
  /** Give every CPU's lane in `lanes` (the workbench timeline), not only the CPUs involved. */
  allCpus?: boolean
  onProgress?(pass: 1 | 2, simNs: number, durationNs: number): void
  shouldStop?(): boolean
}







export class ExplainError extends Error {}

interface FoundSample {
  task: number
  readyNs: number
  ranNs: number
  cpu: number
  index: number
  /** When this task last started running before (its sleep began after that); -1 none. */
  prevRanNs: number
}

const SELECTOR_PCT: Record<string, number> = { p50: 50, p90: 90, p99: 99, p99_9: 99.9 }

export function parseSelector(s: string | undefined): SampleSelector {
  if (s === undefined || s === 'max') return 'max'
  if (s in SELECTOR_PCT) return s as SampleSelector
  if (/^\d+$/.test(s)) return Number(s)
  if (percentileOf(s) !== null) return s as SampleSelector
  throw new ExplainError(`--sample: expected max, p99_9, p99, p90, p50, p<percentile> or a sample index, got "${s}"`)
}

/** The percentile a selector names (p99_9 = 99.9, p97.5 = 97.5), or null. */
function percentileOf(s: string): number | null {
  if (s in SELECTOR_PCT) return SELECTOR_PCT[s]
  const m = /^p(\d{1,2}(\.\d+)?|100)$/.exec(s)
  return m ? Number(m[1]) : null
}

function workloadIndex(scenario: Scenario, name: string): number {
  const i = scenario.workloads.findIndex((w) => w.name === name)
  if (i < 0) throw new ExplainError(`no workload "${name}" (workloads: ${scenario.workloads.map((w) => w.name).join(', ')})`)
  return i
}

/** Pass 1: identify the sample without recording anything. */
function findSample(req: ExplainRequest, wi: number): { found: FoundSample; count: number } {
  const h = new LogHistogram()
  let n = 0
  let max: FoundSample | null = null
  let maxLat = -1
  let byIndex: FoundSample | null = null
  const firstInBucket = new Map<number, FoundSample>()
  let lastRan = new Float64Array(64).fill(-1)
  const want = req.sample
  simulateDetailed(req.scenario, req.variantIndex, req.seed, {
    onProgress: req.onProgress ? (s, d) => req.onProgress!(1, s, d) : undefined,
    shouldStop: req.shouldStop,
    configure: (k) => {
      Recorder.attach(k, {
        startNs: Infinity,
        onSample: (p, ready, ran, cpu) => {
          if (p >= lastRan.length) {
            const a = new Float64Array(Math.max(p + 1, lastRan.length * 2)).fill(-1)
            a.set(lastRan)
            lastRan = a
          }
          const prevRan = lastRan[p]
          lastRan[p] = ran
          const a = k.attrs[p]
          if (!a.recordLatency || a.workload !== wi) return
          const lat = ran - ready
          h.record(lat)
          const f = (): FoundSample => ({ task: p, readyNs: ready, ranNs: ran, cpu, index: n, prevRanNs: prevRan })
          if (lat > maxLat) {
            maxLat = lat
            max = f()
          }
          if (typeof want === 'number' && n === want) byIndex = f()
          if (typeof want === 'string' && want !== 'max') {
            const b = bucketOf(lat < 0 ? 0 : lat)
            if (!firstInBucket.has(b)) firstInBucket.set(b, f())
          }
          n++
        }
      })
    }
  })
  if (n === 0) throw new ExplainError(`workload "${req.scenario.workloads[wi].name}" recorded no latency samples in this run`)
  let found: FoundSample | null = null
  if (want === 'max') found = max
  else if (typeof want === 'number') {
    if (!byIndex) throw new ExplainError(`--sample ${want}: the workload has ${n} samples (0..${n - 1})`)
    found = byIndex
  } else {
    const v = h.percentile(percentileOf(want) ?? 100)
    found = firstInBucket.get(bucketOf(v)) ?? max
  }
  return { found: found!, count: n }
}

/** Explain one latency sample (both passes). */
export function explainSample(req: ExplainRequest): ExplainResult {
  const s = req.scenario
  const wi = workloadIndex(s, req.workload)
  const { found } = findSample(req, wi)
  const before = req.beforeNs ?? 2_000_000
  const after = req.afterNs ?? 1_000_000
  let start = found.readyNs - before
  // back to the task's previous run: its sleep (and a delayed dequeue) happened after it
  if (found.prevRanNs >= 0 && found.prevRanNs < start) start = Math.max(found.prevRanNs, found.readyNs - 200_000_000)
  start = Math.max(0, start)
  const stop = found.ranNs + after
  let rec: Recorder | null = null
  let again: FoundSample | null = null
  let idx = 0
  let kernel: Kernel | null = null
  const run = simulateDetailed(s, req.variantIndex, req.seed, {
    onProgress: req.onProgress ? (x, d) => req.onProgress!(2, x, d) : undefined,
    shouldStop: () => (kernel !== null && kernel.now > stop) || (req.shouldStop?.() ?? false),
    configure: (k) => {
      kernel = k
      rec = Recorder.attach(k, {
        startNs: start,
        stopNs: stop,
        focusTask: found.task,
        onSample: (p, ready, ran, cpu) => {
          const a = k.attrs[p]
          if (!a.recordLatency || a.workload !== wi) return
          if (idx++ === found.index) again = { task: p, readyNs: ready, ranNs: ran, cpu, index: found.index, prevRanNs: -1 }
        }
      })
    }
  })
  const a = again as FoundSample | null
  if (!a || a.task !== found.task || a.readyNs !== found.readyNs || a.ranNs !== found.ranNs) {
    throw new Error('the recording pass did not reproduce the sample (the run is not deterministic)')
  }
  return buildExplanation(req, run.kernel, rec!, found, start, stop)
}

// ---- unreasonable idle --------------------------------------------------------------------------

export interface IdleExplainRequest extends Omit<ExplainRequest, 'workload' | 'sample'> {
  /** The result's bucket ('2.5-3ms', '3-4ms', '4ms+'), or all events. */
  bucket?: string
  /** Which event of the bucket, in time order (default 0). */
  index?: number
}

interface FoundIdle {
  cpu: number
  startNs: number
  endNs: number
  task: number
  waitStartNs: number
  bucket: number
}

/**
 * Explain one unreasonable-idle event (seed 004's definition, src/sim/metrics/unreasonable-idle.ts):
 * a CPU idle for more than 2.5 ms while a task it could run waited elsewhere. The same two
 * passes; the "sample" is the idle period (readyNs..ranNs = its start and end, on the idle CPU,
 * task = the waiting task), and the decisions are the idle CPU's balance attempts and what
 * happened to the waiting task.
 */
export function explainIdleEvent(req: IdleExplainRequest): ExplainResult {
  const want = req.bucket === undefined ? -1 : IDLE_BUCKET_NAMES.indexOf(req.bucket)
  if (req.bucket !== undefined && want < 0) throw new ExplainError(`no unreasonable-idle bucket "${req.bucket}" (buckets: ${IDLE_BUCKET_NAMES.join(', ')})`)
  const index = req.index ?? 0
  let seen = 0
  let found: FoundIdle | null = null
  const watch = (k: Kernel, on: (e: FoundIdle) => void): void => {
    if (k.placement instanceof FairSched) {
      k.placement.idle.onEvent = (cpu, startNs, endNs, task, waitStartNs, bucket) => on({ cpu, startNs, endNs, task, waitStartNs, bucket })
    }
  }
  simulateDetailed(req.scenario, req.variantIndex, req.seed, {
    onProgress: req.onProgress ? (s, d) => req.onProgress!(1, s, d) : undefined,
    shouldStop: () => found !== null || (req.shouldStop?.() ?? false),
    configure: (k) => watch(k, (e) => {
      if (want >= 0 && e.bucket !== want) return
      if (seen++ === index && found === null) found = e
    })
  })
  const f = found as FoundIdle | null
  if (!f) throw new ExplainError(`the run has ${seen} unreasonable-idle event${seen === 1 ? '' : 's'}${req.bucket ? ` in ${req.bucket}` : ''}; event ${index} does not exist`)
  const start = Math.max(0, f.startNs - (req.beforeNs ?? 2_000_000))
  const stop = f.endNs + (req.afterNs ?? 1_000_000)
  let rec: Recorder | null = null
  let kernel: Kernel | null = null
  let again = false
  const run = simulateDetailed(req.scenario, req.variantIndex, req.seed, {
    onProgress: req.onProgress ? (x, d) => req.onProgress!(2, x, d) : undefined,
    shouldStop: () => (kernel !== null && kernel.now > stop) || (req.shouldStop?.() ?? false),
    configure: (k) => {
      kernel = k
      rec = Recorder.attach(k, { startNs: start, stopNs: stop, focusTask: f.task })
      watch(k, (e) => {
        if (e.cpu === f.cpu && e.startNs === f.startNs && e.endNs === f.endNs && e.task === f.task) again = true
      })
    }
  })
  if (!again && f.endNs < run.kernel.now) throw new Error('the recording pass did not reproduce the idle event (the run is not deterministic)')
  return buildIdleExplanation(req, run.kernel, rec!, f, start, stop)
}

const IDLE_BUCKET_NAMES: readonly string[] = ['2.5-3ms', '3-4ms', '4ms+']

function buildIdleExplanation(req: IdleExplainRequest, k: Kernel, rec: Recorder, f: FoundIdle, start: number, stop: number): ExplainResult {
  const n = new Namer(k)
  const t = f.task
  const recs = rec.kept()
  const inIdle = recs.filter((r) => r.at >= f.startNs - 1 && r.at <= f.endNs)
  // where the task waited: the last placement before the idle period, the picks that passed it
  // over during it, the source of the move that ended it
  const queued = new Set<number>()
  const placed = recs.filter((r) => r.task === t && (r.kind === 'select' || r.kind === 'migrate') && r.at <= f.startNs).pop()
  if (placed) queued.add(placed.cpu)
  for (const r of inIdle) if (r.kind === 'pick' && r.cands?.some((c) => c.task === t)) queued.add(r.cpu)
  for (const r of inIdle) if ((r.kind === 'lb-move' || r.kind === 'migrate' || r.kind === 'rt-move') && r.task === t && r.prev !== undefined) queued.add(r.prev)
  queued.delete(f.cpu)
  const cpus = [...new Set([f.cpu, ...queued])].sort((a, b) => a - b)
  const decisions: ExplainedDecision[] = []
  let last: string | null = null
  for (const r of inIdle) {
    const mine = r.task === t && r.kind !== 'tick' && r.kind !== 'resched'
    const onIdle = r.cpu === f.cpu && (r.kind === 'balance' || r.kind === 'lb-move' || r.kind === 'idle' || r.kind === 'idle-exit' || r.kind === 'pick' || r.kind === 'switch')
    const onQueue = queued.has(r.cpu) && r.kind === 'pick' && passedOverReason(r, t) !== 'absent'
    if (!mine && !onIdle && !onQueue) continue
    const key = `${r.kind}|${r.code}|${r.cpu}|${r.kind === 'pick' ? passedOverReason(r, t) : ''}`
    const prev = decisions[decisions.length - 1]
    if (prev && key === last && !mine) {
      prev.repeats = (prev.repeats ?? 0) + 1
      prev.untilNs = r.at
      continue
    }
    last = key
    const d: ExplainedDecision = { atNs: r.at, cpu: r.cpu, kind: r.kind, code: r.code, text: describe(r, n, t) }
    if (r.task >= 0) d.task = n.task(r.task)
    decisions.push(d)
  }
  for (const d of decisions) if (d.repeats) d.text += ` (and ${d.repeats} more like it until ${fmtT(d.untilNs!)})`
  const balances = inIdle.filter((r) => r.cpu === f.cpu && r.kind === 'balance')
  const why = new Map<string, number>()
  for (const b of balances) why.set(b.code, (why.get(b.code) ?? 0) + 1)
  const idleRec = recs.filter((r) => r.kind === 'idle' && r.cpu === f.cpu && r.at <= f.startNs + 1).pop()
  const parts = [
    `CPU ${f.cpu} was idle for ${fmtD(f.endNs - f.startNs)}, from ${fmtT(f.startNs)} to ${fmtT(f.endNs)}${idleRec ? ` (idle state ${idleRec.stateName})` : ''}, while ${n.task(t)}, which may run there, had been waiting since ${fmtT(f.waitStartNs)} on CPU ${[...queued].join(', ')}.`,
    balances.length > 0
      ? `Its balance attempts meanwhile: ${[...why.entries()].map(([c, x]) => `${x} \u00d7 ${c}`).join(', ')}, the first ${fmtD(balances[0].at - f.startNs)} into the idle period.`
      : `CPU ${f.cpu} made no balance attempt while idle.`
  ]
  // an idle CPU's tick is stopped: it balances only when a busy CPU kicks a nohz idle balance
  const late = balances.length === 0 || balances[0].at - f.startNs > (f.endNs - f.startNs) / 2
  if (late) parts.push(`Its own tick is stopped (NOHZ idle): until a busy CPU's tick kicks a nohz idle balance, or a wakeup lands on it, nothing moves work to it.`)
  const pulled = inIdle.find((r) => r.kind === 'lb-move' && r.task === t)
  if (pulled) parts.push(`${capitalize(describe(pulled, n, t))}.`)
  const code = late ? 'IDLE_NO_BALANCE' : [...why.entries()].sort((a, b) => b[1] - a[1])[0][0]
  return {
    scenario: req.scenario.name,
    variant: req.scenario.variants[req.variantIndex].name,
    seed: req.seed,
    workload: k.attrs[t] ? (req.scenario.workloads[k.attrs[t].workload]?.name ?? '') : '',
    selector: `idle:${IDLE_BUCKET_NAMES[f.bucket]}#${req.index ?? 0}`,
    sample: { task: n.task(t), cpu: f.cpu, readyNs: f.startNs, ranNs: f.endNs, latencyUs: Math.round(f.endNs - f.startNs) / 1000, index: req.index ?? 0 },
    summary: parts.join(' '),
    cause: code,
    causes: [{ code, ns: f.endNs - f.startNs, fromNs: f.startNs }],
    window: { startNs: start, endNs: stop },
    cpus,
    timeline: lanesFrom(k, rec, cpus, start, stop, n),
    decisions,
    idle: { cpu: f.cpu, startNs: f.startNs, endNs: f.endNs, bucket: IDLE_BUCKET_NAMES[f.bucket], task: n.task(t), waitingSinceNs: f.waitStartNs },
    ...(req.allCpus ? { lanes: lanesFrom(k, rec, k.topo.cpus.map((_, c) => c), start, stop, n), tasks: k.attrs.map((a) => a.name), waits: waitsOf(recs, n) } : {})
  }
}

function capitalize(s: string): string {
  return s.length === 0 ? s : s[0].toUpperCase() + s.slice(1)
}

// ---- building the explanation ---------------------------------------------------------------------

function lanesFrom(k: Kernel, rec: Recorder, cpus: number[], start: number, stop: number, n: Namer): CpuLane[] {
  const base = rec.startState()
  const states = k.topo.cpus.map((_, c) => rec.idleStateNames(c))
  const lanes = new Map<number, CpuLane>()
  const open = new Map<number, { task: number; since: number; idle: number; idleSince: number }>()
  for (const c of cpus) {
    lanes.set(c, { cpu: c, slices: [], idle: [] })
    const b = base[c]
    open.set(c, { task: b.task, since: Math.max(start, b.since), idle: b.task === NIL ? b.idleState : -1, idleSince: Math.max(start, b.since) })
  }
  const close = (c: number, at: number): void => {
    const o = open.get(c)!
    const lane = lanes.get(c)!
    if (o.task !== NIL && at > o.since) lane.slices.push({ task: n.task(o.task, c), startNs: o.since, endNs: at })
    if (o.task === NIL && o.idle >= 0 && at > o.idleSince) lane.idle.push({ state: states[c][o.idle] ?? String(o.idle), startNs: o.idleSince, endNs: at })
  }
  for (const r of rec.kept()) {
    if (!open.has(r.cpu) || r.at < start) continue
    const o = open.get(r.cpu)!
    if (r.kind === 'switch' || r.kind === 'stopper') {
      close(r.cpu, r.at)
      o.task = r.task
      o.since = r.at
      o.idle = -1
    } else if (r.kind === 'idle') {
      o.idle = r.state ?? 0
      o.idleSince = r.at
    } else if (r.kind === 'idle-exit' && o.task === NIL && o.idle >= 0) {
      lanes.get(r.cpu)!.idle.push({ state: states[r.cpu][o.idle] ?? String(o.idle), startNs: o.idleSince, endNs: r.at })
      o.idle = -1
    }
  }
  for (const c of cpus) close(c, stop)
  return cpus.map((c) => lanes.get(c)!)
}

function waitsOf(recs: DecisionRecord[], n: Namer): NonNullable<ExplainResult['waits']> {
  return recs.filter((r) => r.kind === 'sample').map((r) => ({ task: n.task(r.task), cpu: r.cpu, readyNs: r.readyNs ?? r.at, ranNs: r.untilNs ?? r.at }))
}

/** The CPUs the sample's task touched between runnable and running, and where it ran. */
function involvedCpus(recs: DecisionRecord[], t: number, found: FoundSample): number[] {
  const set = new Set<number>([found.cpu])
  for (const r of recs) {
    if (r.at < found.readyNs || r.at > found.ranNs) continue
    if (r.task !== t) continue
    if (r.kind === 'wakeup' || r.kind === 'select' || r.kind === 'preempt' || r.kind === 'migrate' || r.kind === 'wakelist' || r.kind === 'lb-move' || r.kind === 'rt-move' || r.kind === 'timer') {
      set.add(r.cpu)
      if (r.prev !== undefined && r.prev >= 0 && (r.kind === 'migrate' || r.kind === 'lb-move' || r.kind === 'rt-move')) set.add(r.prev)
    }
  }
  return [...set].sort((a, b) => a - b)
}

/** Is this record part of the story of task t queued on `where` (the CPUs it was queued on, by time)? */
function relevant(r: DecisionRecord, t: number, queuedOn: (at: number) => number, cpus: Set<number>): boolean {
  if (r.task === t) return r.kind !== 'tick' && r.kind !== 'hrtick' && r.kind !== 'resched' ? true : cpus.has(r.cpu)
  const q = queuedOn(r.at)
  switch (r.kind) {
    case 'pick': case 'switch': case 'stopper': case 'hrtick': case 'idle-exit': return r.cpu === q
    // a plain tick or an immediate local reschedule says nothing the pick after it does not
    case 'tick': return r.cpu === q && r.code !== 'TICK'
    case 'resched': return r.cpu === q && r.code !== 'RESCHED_LOCAL'
    // other wakeups on its CPU that preempted (they explain the switches it saw)
    case 'preempt': return r.cpu === q && PREEMPTING.has(r.code)
    case 'balance': return cpus.has(r.cpu) && r.code !== 'LB_BALANCED'
    case 'lb-move': case 'rt-move': return r.cpu === q || r.prev === q
    default: return false
  }
}

const SWITCH_WORDS: Record<string, string> = {
  SWITCH_PREEMPT: 'was preempted', SWITCH_SLEEP: 'went to sleep', SWITCH_YIELD: 'yielded', SWITCH_EXIT: 'exited'
}

const PREEMPTING = new Set([
  'WAKEUP_PREEMPT', 'WAKEUP_PREEMPT_SHORT', 'WAKEUP_RT_PREEMPTS_FAIR', 'WAKEUP_RT_HIGHER_PRIO', 'WAKEUP_SYNC',
  'WAKEUP_CURR_INELIGIBLE', 'WAKEUP_IDLE_POLICY_PREEMPTED'
])

function groupKey(r: DecisionRecord, t: number): string | null {
  if (r.task === t && r.kind !== 'tick' && r.kind !== 'hrtick' && r.kind !== 'resched') return null
  if (r.kind === 'pick') return `pick|${r.code}|${r.cpu}|${passedOverReason(r, t)}`
  if (r.kind === 'switch' || r.kind === 'tick' || r.kind === 'resched' || r.kind === 'balance' || r.kind === 'delayed') return `${r.kind}|${r.code}|${r.cpu}`
  return null
}

function buildExplanation(req: ExplainRequest, k: Kernel, rec: Recorder, found: FoundSample, start: number, stop: number): ExplainResult {
  const n = new Namer(k)
  const t = found.task
  const recs = rec.kept()
  const cpus = involvedCpus(recs, t, found)
  const cpuSet = new Set(cpus)
  // where the task was queued over time (its selected CPU, then each migration)
  const moves: { at: number; cpu: number }[] = []
  let firstQ = -1
  for (const r of recs) {
    if (r.task !== t || r.at < found.readyNs || r.at > found.ranNs) continue
    if (r.kind === 'select' || r.kind === 'migrate') moves.push({ at: r.at, cpu: r.cpu })
    if (r.kind === 'wakeup' && firstQ < 0) firstQ = r.prev ?? found.cpu
  }
  if (firstQ < 0) firstQ = moves[0]?.cpu ?? found.cpu
  const queuedOn = (at: number): number => {
    let c = firstQ
    for (const m of moves) if (m.at <= at) c = m.cpu
    return c
  }
  // the decisions between runnable and running (plus the task's own sleep just before)
  const decisions: ExplainedDecision[] = []
  const keys: (string | null)[] = []
  let lastRec: DecisionRecord | null = null
  for (const r of recs) {
    const inWait = r.at >= found.readyNs && r.at <= found.ranNs
    const ownSleep = !inWait && r.at < found.readyNs && r.task === t && r.kind === 'delayed'
    if (!inWait && !ownSleep) continue
    if (r.kind === 'sample' && r.task !== t) continue
    if (!relevant(r, t, queuedOn, cpuSet) && !ownSleep) continue
    const last = decisions[decisions.length - 1]
    if (r.kind === 'switch' && last && lastRec && lastRec.kind === 'pick' && lastRec.cpu === r.cpu && lastRec.at === r.at && lastRec.task === r.task) {
      // the switch that carries out the pick: say what became of the task it replaced
      if (r.other !== NIL && r.other !== r.task && !last.repeats) last.text = `${n.task(r.other)} ${SWITCH_WORDS[r.code] ?? 'left'}; ${last.text}`
      lastRec = r
      continue
    }
    lastRec = r
    const key = groupKey(r, t)
    if (key !== null && last && keys[keys.length - 1] === key) {
      last.repeats = (last.repeats ?? 0) + 1
      last.untilNs = r.at
      continue
    }
    const d: ExplainedDecision = { atNs: r.at, cpu: r.cpu, kind: r.kind, code: r.code, text: describe(r, n, t) }
    if (r.task >= 0) d.task = n.task(r.task)
    decisions.push(d)
    keys.push(key)
  }
  for (const d of decisions) {
    if (d.repeats) d.text += ` (and ${d.repeats} more like it until ${fmtT(d.untilNs!)})`
  }
  const timeline = lanesFrom(k, rec, cpus, start, stop, n)
  const allCpus = k.topo.cpus.map((_, c) => c)
  const { summary, cause, causes } = summarize(rec, n, recs, found, queuedOn)
  const out: ExplainResult = {
    scenario: req.scenario.name,
    variant: req.scenario.variants[req.variantIndex].name,
    seed: req.seed,
    workload: req.workload,
    selector: String(req.sample),
    sample: {
      task: n.task(t), cpu: found.cpu, readyNs: found.readyNs, ranNs: found.ranNs,
      latencyUs: Math.round(found.ranNs - found.readyNs) / 1000, index: found.index
    },
    summary,
    cause,
    causes,
    window: { startNs: start, endNs: stop },
    cpus,
    timeline,
    decisions
  }
  if (req.allCpus) {
    out.lanes = lanesFrom(k, rec, allCpus, start, stop, n)
    out.tasks = k.attrs.map((a) => a.name)
    out.waits = waitsOf(recs, n)
  }
  return out
}

/** The cause in a few sentences, and the reason code that names it. */
function summarize(rec: Recorder, n: Namer, recs: DecisionRecord[], found: FoundSample, queuedOn: (at: number) => number): { summary: string; cause: string; causes: CauseShare[] } {
  const t = found.task
  const name = n.task(t)
  const lat = found.ranNs - found.readyNs
  const inWait = recs.filter((r) => r.at >= found.readyNs && r.at <= found.ranNs)
  const parts: string[] = []
  const wake = inWait.find((r) => r.kind === 'wakeup' && r.task === t)
  const how = !wake ? '' : wake.code === 'WAKEUP_BY_TASK' ? ` (woken by ${n.task(wake.other)})` : wake.code === 'WAKEUP_DELAYED' ? ' (woken while still sched_delayed)' : ' (its timer)'
  parts.push(`${name} became runnable at ${fmtT(found.readyNs)}${how} and started running on CPU ${found.cpu} at ${fmtT(found.ranNs)}, ${fmtD(lat)} later.`)
  const sel = inWait.find((r) => r.kind === 'select' && r.task === t)
  if (sel && (sel.code === 'SIS_WAKE_AFFINE_BUSY' || sel.code === 'SIS_NO_IDLE' || sel.code === 'SIS_SLICE_CPU' || sel.code === 'SEL_EAS')) {
    parts.push(`Placement: ${describe(sel, n, t)}.`)
  }
  const pre = inWait.filter((r) => r.kind === 'preempt' && r.task === t)
  const lastPre = pre[pre.length - 1]
  // DELAY_DEQUEUE kept it queued through its sleep: did its negative lag grow meanwhile (seed 002)?
  const slept = recs.filter((r) => r.kind === 'delayed' && r.code === 'DELAYED_DEQUEUE' && r.task === t && r.at < found.readyNs).pop()
  if (wake?.code === 'WAKEUP_DELAYED' && slept && lastPre?.pLag !== undefined) {
    const grew = lastPre.pLag < (slept.pLag ?? 0)
    parts.push(`It had gone to sleep ineligible at ${fmtT(slept.at)} with lag ${fmtV(slept.pLag ?? 0)} and stayed queued as sched_delayed; at the wakeup its lag was ${fmtV(lastPre.pLag)}${grew ? `: the negative lag grew while it was delayed${rec.k.f.DD_NEGLAG ? '' : ' (DD_NEGLAG, seed 002, prevents that, and it is off)'}` : ''}.`)
  }
  if (lastPre) {
    parts.push(`Wakeup preemption: ${describe(lastPre, n, t)}.`)
  }
  // what ran in its place, on the CPU(s) it was queued on
  const ran = new Map<string, number>()
  const openOn = new Map<number, { task: number; since: number }>()
  rec.startState().forEach((b, c) => openOn.set(c, { task: b.task, since: b.since }))
  for (const r of recs) {
    if (r.kind !== 'switch' && r.kind !== 'stopper') continue
    if (r.at > found.ranNs) break
    const prev = openOn.get(r.cpu)
    if (prev && prev.task !== NIL && r.at > found.readyNs && queuedOn(r.at) === r.cpu && prev.task !== t) {
      const from = Math.max(prev.since, found.readyNs)
      const key = prev.task === STOPPER_TASK ? `migration/${r.cpu}` : n.withClass(prev.task)
      ran.set(key, (ran.get(key) ?? 0) + (r.at - from))
    }
    openOn.set(r.cpu, { task: r.task, since: r.at })
  }
  if (ran.size > 0) {
    const top = [...ran.entries()].sort((a, b) => b[1] - a[1]).slice(0, 4)
    parts.push(`Meanwhile its CPU ran ${top.map(([task, ns]) => `${task} (${fmtD(ns)})`).join(', ')}${ran.size > 4 ? ` and ${ran.size - 4} more` : ''}.`)
  }
  const woke = wake?.at ?? found.readyNs
  const picks = inWait.filter((r) => r.kind === 'pick' && r.at >= woke && r.task !== t && !['absent', 'delayed'].includes(passedOverReason(r, t)))
  if (picks.length > 0) {
    const why = new Map<string, number>()
    for (const p of picks) why.set(passedOverReason(p, t), (why.get(passedOverReason(p, t)) ?? 0) + 1)
    const words: Record<string, string> = { ineligible: 'it was not eligible', 'later-deadline': 'another task had an earlier deadline', protected: 'the running task was protected', buddy: 'a next buddy went first' }
    const lags = picks.map((p) => p.cands?.find((c) => c.task === t)?.lag).filter((x): x is number => x !== undefined)
    const lagText = lags.length > 1 ? ` (its lag went from ${fmtV(lags[0])} to ${fmtV(lags[lags.length - 1])})` : ''
    const list = [...why.entries()].sort((a, b) => b[1] - a[1]).map(([w, c]) => `${words[w] ?? w} in ${c}`).join(', ')
    parts.push(`${picks.length} pick${picks.length === 1 ? '' : 's'} chose other tasks: ${list}${lagText}.`)
  }
  // what finally let it run
  const final = inWait.filter((r) => r.kind === 'pick' && r.task === t).pop()
  if (final) {
    const before = inWait.filter((r) => r.cpu === final.cpu && r.at <= final.at && r.at >= final.at - 1 && (r.kind === 'tick' || r.kind === 'hrtick' || r.kind === 'switch' || r.kind === 'resched' || r.kind === 'idle-exit'))
    const trig = before.find((r) => r.kind === 'tick' || r.kind === 'hrtick') ?? before.find((r) => r.kind === 'idle-exit') ?? before.find((r) => r.kind === 'resched')
    const lastSwitchOut = inWait.filter((r) => r.kind === 'switch' && r.cpu === final.cpu && r.at >= final.at - 1).pop()
    let trigger = ''
    if (trig && (trig.kind === 'tick' || trig.kind === 'hrtick')) trigger = `; ${name} waited for the ${trig.kind} at ${fmtT(trig.at)}`
    else if (lastSwitchOut && lastSwitchOut.other !== NIL && lastSwitchOut.code === 'SWITCH_SLEEP') trigger = ` after ${n.task(lastSwitchOut.other)} went to sleep`
    parts.push(`Finally ${describe(final, n, t)}${trigger}.`)
  }
  parts.push(breakdown(inWait, found, final, wake))
  const causes = attribute(inWait, found, queuedOn)
  const cause = causes[0]?.code ?? 'LATENCY'
  if (causes.length > 0 && causes[0].ns > 0) {
    parts.push(`The longest part of the wait (${fmtD(causes[0].ns)}) is ${CAUSE_WORDS[cause] ?? cause} (${cause}).`)
  }
  return { summary: parts.join(' '), cause, causes }
}

/** Phrases for the codes a part of the wait is attributed to. */
const CAUSE_WORDS: Record<string, string> = {
  TIMER_FIRED: 'the hrtimer\u2019s slack',
  TIMER_IRQ: 'the timer interrupt until try_to_wake_up',
  IDLE_EXIT: 'the CPU\u2019s exit from its idle state',
  TTWU_QUEUE: 'the wait for the wake-list IPI',
  RESCHED_IPI: 'the reschedule IPI',
  RESCHED_LAZY: 'a lazy reschedule waiting for the tick',
  RESCHED_KERNEL_SECTION: 'the running task\u2019s kernel section, which this preemption model does not preempt',
  RESCHED_LAZY_KERNEL: 'a lazy reschedule waiting for the return to user mode',
  SWITCH_COST: 'the context switch',
  WAKEUP_NOT_ELIGIBLE: 'being not eligible (negative lag)',
  WAKEUP_LATER_DEADLINE: 'other tasks\u2019 earlier deadlines',
  WAKEUP_PROTECTED: 'the running task\u2019s protected slice',
  WAKEUP_PROTECTED_NO_SHORT: 'the running task\u2019s protected slice (PREEMPT_SHORT off)',
  WAKEUP_FAIR_UNDER_RT: 'RT tasks running on its CPU',
  WAKEUP_RT_NOT_HIGHER: 'an RT task of equal or higher priority',
  PICK_BUDDY: 'next buddies picked first',
  WAKEUP_RESCHED_PENDING: 'a reschedule already pending',
  STOPPER: 'the stopper'
}

/**
 * The wait divided among reason codes: each stretch between two decisions is charged to the
 * reason the earlier one gives for not running the task yet (the timer's slack, the
 * interrupt, the wakeup-preemption outcome, each pick that passed over it, the switch).
 */
export function attribute(inWait: DecisionRecord[], found: FoundSample, queuedOn: (at: number) => number): CauseShare[] {
  const t = found.task
  const share = new Map<string, number>()
  const from = new Map<string, number>()
  let cursor = found.readyNs
  let code = 'TIMER_IRQ'
  // before its wakeup the task is not waiting for a CPU (a timer's slack, a sched_delayed entity)
  let woken = false
  const charge = (at: number, next: string): void => {
    if (at > cursor) {
      if (!from.has(code)) from.set(code, cursor)
      share.set(code, (share.get(code) ?? 0) + (at - cursor))
      cursor = at
    }
    code = next
  }
  for (const r of inWait) {
    if (r.task === t) {
      if (r.kind === 'timer') {
        code = 'TIMER_FIRED'
        charge(r.at, 'TIMER_IRQ')
      } else if (r.kind === 'wakeup') {
        woken = true
        charge(r.at, 'TIMER_IRQ')
      }
      else if (r.kind === 'wakelist') charge(r.at, 'TTWU_QUEUE')
      else if (r.kind === 'preempt') {
        const preempting = PREEMPTING.has(r.code) || r.code === 'WAKEUP_IDLE_CPU'
        charge(r.at, !preempting ? r.code : r.lazyUntilNs !== undefined ? 'RESCHED_LAZY' : r.cpu !== queuedOn(r.at) || r.code === 'WAKEUP_IDLE_CPU' ? 'RESCHED_IPI' : 'SWITCH_COST')
      } else if (r.kind === 'pick') charge(r.at, 'SWITCH_COST')
      else if (r.kind === 'sample') charge(found.ranNs, code)
      continue
    }
    if (r.cpu !== queuedOn(r.at) || !woken) continue
    if (r.kind === 'resched' && DEFERRALS.has(r.code)) {
      if (code === 'SWITCH_COST' || code === 'RESCHED_IPI' || code === 'RESCHED_LAZY') charge(r.at, r.code)
    } else if (r.kind === 'resched' && r.code === 'PREEMPT_POINT') {
      if (DEFERRALS.has(code)) charge(r.at, 'SWITCH_COST')
    } else if (r.kind === 'idle-exit' && (code === 'RESCHED_IPI' || code === 'TIMER_IRQ')) charge(r.at, 'IDLE_EXIT')
    else if (r.kind === 'idle-exit') continue
    else if (r.kind === 'stopper') charge(r.at, 'STOPPER')
    else if (r.kind === 'pick') {
      if (r.code === 'PICK_RT') charge(r.at, 'WAKEUP_FAIR_UNDER_RT')
      else {
        const why = passedOverReason(r, t)
        if (why === 'absent' || why === 'picked' || why === 'delayed') continue
        charge(r.at, PASSED_CODES[why])
      }
    }
  }
  charge(found.ranNs, code)
  return [...share.entries()].map(([c, ns]) => ({ code: c, ns, fromNs: from.get(c)! })).sort((a, b) => b.ns - a.ns || (a.code < b.code ? -1 : 1))
}

const DEFERRALS = new Set(['RESCHED_KERNEL_SECTION', 'RESCHED_LAZY_KERNEL', 'STOPPER_DEFERRED'])

const PASSED_CODES: Record<string, string> = {
  ineligible: 'WAKEUP_NOT_ELIGIBLE', 'later-deadline': 'WAKEUP_LATER_DEADLINE', protected: 'WAKEUP_PROTECTED', buddy: 'PICK_BUDDY'
}

/**
 * Where the latency went: the hrtimer's slack, the interrupt (and idle exit) until
 * try_to_wake_up ran, the wait in the runqueue until the pick, and the switch itself.
 */
function breakdown(inWait: DecisionRecord[], found: FoundSample, final: DecisionRecord | undefined, wake: DecisionRecord | undefined): string {
  const t = found.task
  const timer = inWait.find((r) => r.kind === 'timer' && r.task === t)
  const parts: string[] = []
  let at = found.readyNs
  if (timer && timer.at > at) {
    parts.push(`${fmtD(timer.at - at)} of timer slack`)
    at = timer.at
  }
  if (wake && wake.at > at) {
    parts.push(`${fmtD(wake.at - at)} until try_to_wake_up ran (interrupt${inWait.some((r) => r.kind === 'idle-exit' && r.at <= wake.at) ? ', idle exit' : ''})`)
    at = wake.at
  }
  const pickAt = final ? final.at : found.ranNs
  if (pickAt > at) parts.push(`${fmtD(pickAt - at)} queued until the pick`)
  if (found.ranNs > pickAt) parts.push(`${fmtD(found.ranNs - Math.max(pickAt, at))} for the switch`)
  return parts.length > 0 ? `Of its ${fmtD(found.ranNs - found.readyNs)}: ${parts.join(', ')}.` : ''
}

/** The explanation as text for the terminal: summary, timeline strip and decisions. */
export function renderExplanation(e: ExplainResult): string {
  const out: string[] = []
  out.push(`${e.scenario}`)
  out.push(`variant ${e.variant}, seed ${e.seed}: ${e.workload} ${e.selector} sample #${e.sample.index}: ${e.sample.task}, ${e.sample.latencyUs} us`)
  out.push('')
  out.push(wrap(e.summary, 100))
  out.push('')
  out.push(...timelineStrip(e, 80))
  out.push('')
  out.push('decisions:')
  for (const d of e.decisions) out.push(`  ${fmtT(d.atNs)} CPU ${d.cpu} ${d.code}: ${d.text}`)
  out.push('')
  out.push(`cause: ${e.cause}`)
  return out.join('\n') + '\n'
}

const SYMBOLS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/**
 * The CPUs involved as character strips over the wait (plus a margin): one column per time
 * step showing the task that ran longest in it, `#` the sample's task, `.` idle; a legend.
 */
export function timelineStrip(e: ExplainResult, cols: number): string[] {
  const span = Math.max(1, e.sample.ranNs - e.sample.readyNs)
  const from = Math.max(e.window.startNs, e.sample.readyNs - Math.max(span / 8, 200_000))
  const to = Math.min(e.window.endNs, e.sample.ranNs + Math.max(span / 8, 200_000))
  const step = (to - from) / cols
  const legend = new Map<string, string>()
  const sym = (task: string): string => {
    if (task === '') return '.'
    if (task === e.sample.task) return '#'
    let c = legend.get(task)
    if (!c) {
      c = SYMBOLS[legend.size] ?? '*'
      legend.set(task, c)
    }
    return c
  }
  const col = (x: number): number => Math.round((x - from) / step)
  const lines: string[] = [`timeline ${fmtT(from)} .. ${fmtT(to)}, ${fmtD(step)} per column:`]
  for (const lane of e.timeline) {
    const best = new Float64Array(cols)
    const row = new Array<string>(cols).fill('')
    for (const sl of lane.slices) {
      if (sl.endNs <= from || sl.startNs >= to) continue
      for (let i = Math.max(0, Math.floor((sl.startNs - from) / step)); i < cols && from + i * step < sl.endNs; i++) {
        const lo = Math.max(sl.startNs, from + i * step)
        const hi = Math.min(sl.endNs, from + (i + 1) * step)
        if (hi - lo > best[i]) {
          best[i] = hi - lo
          row[i] = sl.task
        }
      }
    }
    lines.push(`  CPU ${String(lane.cpu).padEnd(3)} |${row.map(sym).join('')}|`)
  }
  const wait = new Array<string>(cols).fill(' ')
  const a = Math.max(0, col(e.sample.readyNs))
  const b = Math.min(cols - 1, col(e.sample.ranNs))
  for (let i = a; i <= b; i++) wait[i] = '='
  wait[a] = '['
  wait[b] = ']'
  lines.push(`  waits   |${wait.join('')}|`)
  const named = [...legend.entries()]
  lines.push(`  # ${e.sample.task}, . idle${named.slice(0, 16).map(([task, c]) => `, ${c} ${task}`).join('')}${named.length > 16 ? `, ... ${named.length - 16} more` : ''}`)
  return lines
}

function wrap(s: string, width: number): string {
  const words = s.split(' ')
  const lines: string[] = []
  let line = ''
  for (const w of words) {
    if (line.length + w.length + 1 > width && line.length > 0) {
      lines.push(line)
      line = w
    } else line = line ? `${line} ${w}` : w
  }
  if (line) lines.push(line)
  return lines.join('\n')
}
