import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, release, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PolicyName } from '../sim/kernel/api'
import type {
  CyclictestWorkload, HackbenchWorkload, PeriodicWorkload, RtAppEvent, RtAppProps, RtAppWorkload, SchbenchWorkload,
  WorkloadSpec
} from '../sim/scenario/workload-specs'
import { RealRefusal } from './errors'
import type { SchedAttrs } from './helper'
import { makeDirs } from '../trace/make-dirs'

/**
 * A scenario's workloads as processes on this machine: rt-tests' cyclictest and hackbench,
 * Debian's rt-app for rt-app workloads, our helper's `load` for periodic tasks and hogs.
 * Every process gets the workload's policy, nice or RT priority, custom slice, affinity,
 * uclamp and timer slack through the helper before exec (threads and children inherit them).
 */

export interface PlannedProcess {
  /** Unique in the run: workload index and repeat ("w0", "w1.r3"). */
  id: string
  argv: string[]
  attrs: SchedAttrs
  /** Start this long after the run's start (the workload's delayUs). */
  delayMs: number
  /** How to end it at the end of the run: cyclictest prints its histogram on SIGINT. */
  stopSignal: 'SIGINT' | 'SIGTERM'
  /** Start it again when it ends before the run does (hackbench `repeat`). */
  repeat: boolean
  /** A file the process needs (rt-app's JSON), written before it starts. */
  file?: { path: string; text: string }
}

export interface WorkloadPlan {
  index: number
  spec: WorkloadSpec
  /** What runs it (cyclictest, hackbench, rt-app, helper load), for the report. */
  tool: string
  processes: PlannedProcess[]
  /** Not run for real, with the reason (noise: the machine has its own). */
  skipped?: string
}

export interface PlanContext {
  helper: string
  durationMs: number
  ncpus: number
  runDir: string
  /** The host kernel's config (CONFIG_* lines), for features a workload needs. */
  kernelConfig: ReadonlyMap<string, string>
  /** Find a program on PATH (tests pass their own). */
  which?: (prog: string) => string | null
  /** rt-app's calibration (ns per loop) on this machine; absent: rt-app calibrates at start. */
  rtappPLoadNs?: (bin: string) => number
}

const PACKAGES: Record<string, string> = { cyclictest: 'rt-tests', hackbench: 'rt-tests', 'rt-app': 'rt-app' }

export function whichOnPath(prog: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${prog}`], { encoding: 'utf8' })
  const p = r.status === 0 ? r.stdout.trim() : ''
  return p === '' ? null : p
}

function tool(name: string, ctx: PlanContext): string {
  const found = (ctx.which ?? whichOnPath)(name)
  if (!found) {
    const pkg = PACKAGES[name]
    throw new RealRefusal(`${name} is not installed${pkg ? `: it comes with Debian's ${pkg} package (apt-get install ${pkg})` : ''}`)
  }
  return found
}

const rtPolicy = (p: PolicyName | undefined): boolean => p === 'fifo' || p === 'rr'

/** The scheduling attributes every workload accepts, as the helper applies them. */
export function commonAttrs(w: WorkloadSpec, ctx: PlanContext, where: string): SchedAttrs {
  const a: SchedAttrs = {}
  if (w.policy) a.policy = w.policy
  if (rtPolicy(w.policy)) a.priority = w.priority ?? 50
  else if (w.nice !== undefined) a.nice = w.nice
  if (w.sliceUs !== undefined && !rtPolicy(w.policy)) a.sliceNs = Math.round(w.sliceUs * 1000)
  if (w.cpus) a.cpus = w.cpus
  if (w.timerSlackUs !== undefined) a.timerSlackNs = Math.round(w.timerSlackUs * 1000)
  if (w.uclampMin !== undefined || w.uclampMax !== undefined) {
    needConfig(ctx, 'CONFIG_UCLAMP_TASK', `${where}: uclamp`)
    if (w.uclampMin !== undefined) a.uclampMin = w.uclampMin
    if (w.uclampMax !== undefined) a.uclampMax = w.uclampMax
  }
  return a
}

function needConfig(ctx: PlanContext, option: string, what: string): void {
  if (ctx.kernelConfig.size > 0 && ctx.kernelConfig.get(option) !== 'y') {
    throw new RealRefusal(`${what} needs a kernel built with ${option}=y (this one is not); run it there and \`schedlab analyze\` its trace`)
  }
}

const secs = (ms: number): number => Math.max(1, Math.ceil(ms / 1000))

function cyclictest(w: CyclictestWorkload, i: number, ctx: PlanContext): WorkloadPlan {
  const bin = tool('cyclictest', ctx)
  const attrs = commonAttrs(w, ctx, w.name)
  // cyclictest sets its measurement threads' policy itself; the process stays fair
  delete attrs.policy
  delete attrs.priority
  const argv = [bin, '-q', '-t', String(w.threads), '-i', String(Math.round(w.periodUs)), '-d', String(Math.round(w.distanceUs)), '-h', String(HISTOGRAM_US), '-D', String(secs(ctx.durationMs) + 5)]
  if (rtPolicy(w.policy)) argv.push(`--policy=${w.policy}`, '-p', String(w.priority ?? 50))
  else argv.push(`--policy=${w.policy ?? 'other'}`)
  if (w.nice !== undefined && !rtPolicy(w.policy)) attrs.nice = w.nice
  if (w.loops > 0) argv.push('-l', String(w.loops))
  if (w.relative) argv.push('-r')
  if (w.pin) argv.push(`-a${(w.cpus ?? Array.from({ length: ctx.ncpus }, (_, c) => c)).join(',')}`)
  if (w.laptop) argv.push('--laptop')
  return { index: i, spec: w, tool: 'cyclictest', processes: [{ id: `w${i}`, argv, attrs, delayMs: (w.delayUs ?? 0) / 1000, stopSignal: 'SIGINT', repeat: false }] }
}

/** cyclictest's histogram range (-h), microseconds: beyond it samples count as overflows. */
export const HISTOGRAM_US = 100_000

function hackbench(w: HackbenchWorkload, i: number, ctx: PlanContext): WorkloadPlan {
  const bin = tool('hackbench', ctx)
  const argv = [bin, '-g', String(w.groups), '-f', String(w.fds), '-l', String(w.loops), '-s', String(w.messageBytes), w.mode === 'thread' ? '-T' : '-P']
  if (w.ipc === 'pipe') argv.push('-p')
  return { index: i, spec: w, tool: 'hackbench', processes: [{ id: `w${i}`, argv, attrs: commonAttrs(w, ctx, w.name), delayMs: (w.delayUs ?? 0) / 1000, stopSignal: 'SIGTERM', repeat: w.repeat }] }
}

function load(w: WorkloadSpec, i: number, ctx: PlanContext, runUs: number, periodUs: number, staggerUs: number, wall: boolean): WorkloadPlan {
  const n = Math.max(1, Math.trunc(w.count ?? w.threads ?? 1))
  const argv = [ctx.helper, 'load', w.name.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 10) || 'load', String(n), String(runUs), String(periodUs), String(staggerUs), wall ? 'wall' : 'work']
  return { index: i, spec: w, tool: 'schedlab-helper load', processes: [{ id: `w${i}`, argv, attrs: commonAttrs(w, ctx, w.name), delayMs: (w.delayUs ?? 0) / 1000, stopSignal: 'SIGTERM', repeat: false }] }
}

const RTAPP_UNSUPPORTED: Partial<Record<RtAppEvent['kind'], string>> = {
  fork: 'fork events',
  sem_post: 'sem_post/sem_wait events',
  sem_wait: 'sem_post/sem_wait events',
  work: 'mem/iorun/memrun events (the scenario keeps them as CPU time only)'
}

/** The rt-app JSON Debian's rt-app 1.0 runs, from the parsed tasks; refuses what 1.0 lacks. */
export function rtappJson(w: RtAppWorkload, durationMs: number, logdir: string, pLoadNs?: number): string {
  const spec = w.rtapp
  const refuse = (what: string): never => {
    throw new RealRefusal(`${w.name}: Debian's rt-app 1.0 does not support ${what}; run it with a newer rt-app by hand and \`schedlab analyze\` its trace`)
  }
  const slices = new Set<number | undefined>()
  const props = (p: RtAppProps, out: Record<string, unknown>): void => {
    if (p.uclampMin !== undefined || p.uclampMax !== undefined) refuse('util_min/util_max (uclamp)')
    if (p.policy) out.policy = `SCHED_${p.policy.toUpperCase()}`
    if (p.priority !== undefined) out.priority = p.priority
    if (p.cpus) out.cpus = p.cpus
    if (p.sliceUs !== undefined) slices.add(p.sliceUs)
  }
  const tasks: Record<string, unknown> = {}
  for (const t of spec.tasks) {
    const task: Record<string, unknown> = { instance: t.instance, loop: t.loop }
    if (t.delayUs) task.delay = t.delayUs
    props(t.props, task)
    const phases: Record<string, unknown> = {}
    for (const ph of t.phases) {
      const phase: Record<string, unknown> = { loop: ph.loop }
      props(ph.props, phase)
      for (const e of ph.events) {
        const why = RTAPP_UNSUPPORTED[e.kind]
        if (why) refuse(why)
        phase[e.key] = rtappEventValue(e, t.name)
      }
      phases[ph.name] = phase
    }
    task.phases = phases
    tasks[t.name] = task
  }
  if (slices.size > 1 || (slices.size === 1 && w.sliceUs !== undefined && !slices.has(w.sliceUs))) refuse('a custom slice per task (dl-runtime of fair tasks); give all tasks one slice (the workload\'s sliceUs)')
  const global = { duration: secs(durationMs) + 5, calibration: pLoadNs ?? 'CPU0', logdir, log_size: 'disable', pi_enabled: spec.piEnabled, cumulative_slack: spec.cumulativeSlack }
  return JSON.stringify({ global, tasks }, null, 2) + '\n'
}

function rtappEventValue(e: RtAppEvent, task: string): unknown {
  switch (e.kind) {
    case 'run':
    case 'runtime':
    case 'sleep':
      return e.us
    case 'timer':
      return { ref: e.ref, period: e.periodUs, mode: e.absolute ? 'absolute' : 'relative' }
    case 'lock':
    case 'unlock':
      return e.mutex
    case 'wait':
    case 'sync':
      return { ref: e.cond, mutex: e.mutex }
    case 'signal':
    case 'broad':
      return e.cond
    case 'barrier':
      return e.name
    case 'suspend':
      // rt-app 1.0 waits on the condvar its value names: the task's own
      return task
    case 'resume':
      return e.task
    case 'yield':
      return 0
    default:
      return 0
  }
}

/**
 * rt-app's ns per loop of its `run` busy loop on this machine, measured once (rt-app's own
 * calibration takes about 15 s here) and cached with the helper, keyed by kernel and CPU.
 */
export function rtappCalibration(bin: string, cacheDir: string, log?: (l: string) => void): number {
  const key = createHash('sha256').update(`${release()} ${cpus()[0]?.model ?? ''} ${bin}`).digest('hex').slice(0, 12)
  const file = join(cacheDir, `rtapp-pload-${key}.json`)
  try {
    const v = Number((JSON.parse(readFileSync(file, 'utf8')) as { pLoadNs: number }).pLoadNs)
    if (v > 0) return v
  } catch {
    // not measured yet
  }
  log?.("measuring rt-app's ns per loop once for this machine (rt-app's calibration, about 15 s)")
  makeDirs(cacheDir)
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-rtapp-'))
  try {
    const cfg = join(dir, 'calibrate.json')
    writeFileSync(cfg, rtappCalibrationJson(dir))
    const r = spawnSync(bin, [cfg], { encoding: 'utf8', timeout: 120_000 })
    const v = parseRtappPLoad(`${r.stdout}${r.stderr}`)
    writeFileSync(file, JSON.stringify({ pLoadNs: v, kernel: release(), cpu: cpus()[0]?.model ?? '' }) + '\n')
    return v
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** An rt-app file that only measures rt-app's ns per loop (its "pLoad") and ends. */
export function rtappCalibrationJson(logdir: string): string {
  return JSON.stringify({ global: { duration: 1, calibration: 'CPU0', logdir, log_size: 'disable' }, tasks: { c: { loop: 1, run: 1 } } })
}

/** rt-app's "pLoad = Nns" line; refuses when it is missing. */
export function parseRtappPLoad(output: string): number {
  const m = /pLoad = (\d+)ns/.exec(output)
  if (!m) throw new RealRefusal(`rt-app did not report its calibration (pLoad): ${output.trim().split('\n').pop() ?? ''}`)
  return Number(m[1])
}

function rtapp(w: RtAppWorkload, i: number, ctx: PlanContext): WorkloadPlan {
  const bin = tool('rt-app', ctx)
  const path = `${ctx.runDir}/w${i}-rtapp.json`
  const text = rtappJson(w, ctx.durationMs, ctx.runDir, ctx.rtappPLoadNs?.(bin))
  const attrs = commonAttrs(w, ctx, w.name)
  const slice = w.rtapp.tasks.flatMap((t) => [t.props.sliceUs, ...t.phases.map((p) => p.props.sliceUs)]).find((s) => s !== undefined)
  if (slice !== undefined && !rtPolicy(w.policy)) attrs.sliceNs = Math.round(slice * 1000)
  return { index: i, spec: w, tool: 'rt-app', processes: [{ id: `w${i}`, argv: [bin, path], attrs, delayMs: (w.delayUs ?? 0) / 1000, stopSignal: 'SIGTERM', repeat: false, file: { path, text } }] }
}

function schbench(w: SchbenchWorkload, i: number, ctx: PlanContext): WorkloadPlan {
  const bin = (ctx.which ?? whichOnPath)('schbench')
  if (!bin) throw new RealRefusal(`${w.name}: schbench has no Debian package and none is installed here; build it (git.kernel.org/pub/scm/linux/kernel/git/mason/schbench.git) and put it on PATH, or leave the workload out of real runs`)
  const argv = [bin, '-m', String(w.messageThreads), '-t', String(w.workers), '-s', String(w.sleepUs), '-n', String(w.operations), '-F', String(w.footprintKb), '-r', String(secs(ctx.durationMs) + 5)]
  if (!w.lock) argv.push('-L')
  if (w.rps > 0) argv.push('-R', String(w.rps))
  if (w.calibrate) argv.push('-C')
  return { index: i, spec: w, tool: 'schbench', processes: [{ id: `w${i}`, argv, attrs: commonAttrs(w, ctx, w.name), delayMs: (w.delayUs ?? 0) / 1000, stopSignal: 'SIGINT', repeat: false }] }
}

/** Plan every workload of a run (refusing, with the reason, what this machine cannot run). */
export function planWorkloads(workloads: readonly WorkloadSpec[], ctx: PlanContext): WorkloadPlan[] {
  return workloads.map((w, i) => {
    if (w.startCpu !== undefined) throw new RealRefusal(`${w.name}: startCpu places tasks without fork balancing, which a real kernel cannot be told; use cpus (affinity) instead`)
    switch (w.type) {
      case 'cyclictest':
        return cyclictest(w as CyclictestWorkload, i, ctx)
      case 'hackbench':
        return hackbench(w as HackbenchWorkload, i, ctx)
      case 'periodic': {
        const p = w as PeriodicWorkload
        return load(w, i, ctx, p.runUs, p.periodUs, p.staggerUs ?? 0, p.runMode === 'wall')
      }
      case 'hog':
        return load(w, i, ctx, 0, 0, 0, false)
      case 'rt-app':
        return rtapp(w as RtAppWorkload, i, ctx)
      case 'schbench':
        return schbench(w as SchbenchWorkload, i, ctx)
      case 'noise':
        return { index: i, spec: w, tool: 'none', processes: [], skipped: 'modeled background noise: a real machine has its own' }
      default:
        throw new RealRefusal(`${w.name}: workload type "${w.type}" cannot run for real`)
    }
  })
}

// ------------------------------------------------------------------- outputs of the tools

export interface CyclictestOutput {
  /** Per 1-us bucket counts over all threads (index = us). */
  hist: Float64Array
  overflows: number
  total: number
  maxUs: number
  minUs: number
}

/** cyclictest -h -q output: "%06d\t%06lu..." bucket lines, then "# Total:", "# Max Latencies:" ... */
export function parseCyclictestHistogram(text: string): CyclictestOutput | null {
  const hist = new Float64Array(HISTOGRAM_US)
  let any = false
  let overflows = 0
  let maxUs = 0
  let minUs = Infinity
  for (const line of text.split('\n')) {
    if (/^\d{6}\s/.test(line)) {
      const cols = line.trim().split(/\s+/).map(Number)
      const b = cols[0]
      if (b < hist.length) for (let c = 1; c < cols.length; c++) hist[b] += cols[c]
      any = true
    } else if (line.startsWith('# Histogram Overflows:')) {
      overflows = line.slice(22).trim().split(/\s+/).map(Number).reduce((a, x) => a + (x || 0), 0)
    } else if (line.startsWith('# Max Latencies:')) {
      maxUs = Math.max(0, ...line.slice(16).trim().split(/\s+/).map(Number).filter(Number.isFinite))
    } else if (line.startsWith('# Min Latencies:')) {
      minUs = Math.min(...line.slice(16).trim().split(/\s+/).map(Number).filter(Number.isFinite))
    }
  }
  if (!any) return null
  let total = overflows
  for (const c of hist) total += c
  return { hist, overflows, total, maxUs, minUs: Number.isFinite(minUs) ? minUs : 0 }
}

/** Nearest-rank percentile of cyclictest's 1-us histogram (overflows above the range). */
export function histPercentile(o: CyclictestOutput, p: number): number | null {
  if (o.total === 0) return 0
  const rank = Math.max(1, Math.ceil((p / 100) * o.total))
  let seen = 0
  for (let b = 0; b < o.hist.length; b++) {
    seen += o.hist[b]
    if (seen >= rank) return b
  }
  return null
}

/** hackbench's "Time: 0.343" lines, seconds. */
export function parseHackbenchTimes(text: string): number[] {
  const out: number[] = []
  for (const m of text.matchAll(/^Time:\s*([\d.]+)/gm)) out.push(Number(m[1]))
  return out
}
