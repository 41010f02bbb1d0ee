import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expandRuns, type RunSpec, type Scenario } from '../sim/scenario'
import type { HostRecord, RunOutput, VariantResult } from '../shared/result'
import { decodeRawFiles, RingBufferDecoder } from '../trace/ring-buffer'
import { assembleTracedRun } from './assemble'
import { RealCancelled, RealNotQuiet, RealRefusal } from './errors'
import { ensureHelper, helperCacheDir, Supervisor } from './helper'
import { detectHost, linuxOrReason, type HostInfo } from './host'
import { foreignCpu, loadavg, sleepMs, snapshotProcs, systemCpu, waitForQuiet, type ProcTimes, type QuietResult } from './procfs'
import { closeTracefs, globalTracingState, openTracefs, removeStaleInstances, TraceInstance, type TracefsRoot } from './tracefs'
import { planWorkloads, rtappCalibration, type PlanContext, type PlannedProcess } from './workloads'

/**
 * `schedlab real`: a scenario's runs on this machine's kernel, one at a time. For each run:
 * wait (bounded) for the machine to be quiet, start a private tracefs instance, start the
 * workloads under the helper (one process group, scheduling attributes applied before exec),
 * copy the ring buffer's pages while they run, stop everything at the run's end (or on cancel),
 * then decode the trace and analyze it with the same analyzer as `schedlab analyze`. Foreign
 * CPU time (processes not ours, from /proc) marks a run `contaminated`.
 *
 * Usable as a library (the fidelity suite, calibration): `runRealScenario` and `runRealOne`.
 */

export const REAL_EVENTS = ['sched/sched_switch', 'sched/sched_waking', 'sched/sched_wakeup_new', 'sched/sched_migrate_task', 'sched/sched_process_fork', 'timer/hrtimer_start', 'timer/hrtimer_expire_entry', 'timer/hrtimer_cancel'] as const

export interface QuietOptions {
  /** Foreign CPU use allowed in a quiet window, in CPUs (default 0.1). */
  maxCpus?: number
  /** Consecutive quiet windows needed (default 2 of 1 s). */
  windows?: number
  windowMs?: number
  /** Give up waiting after this long and run anyway (default 60 s). */
  timeoutMs?: number
}

export interface RealOptions {
  variants?: string[]
  seed?: number
  seeds?: number
  durationMs?: number
  /** false: do not wait for quiet. */
  quiet?: QuietOptions | false
  /** Do not run when the machine is not quiet after the wait (throws RealNotQuiet). */
  requireQuiet?: boolean
  /** Foreign CPU time per second of run above which the run is contaminated (default 0.08 CPU). */
  contaminationCpuPerSec?: number
  /** Write each run's trace as ftrace text (analyze reads it back into the same result). */
  traceDir?: string
  /** Ring buffer per CPU, KiB (default: from the workloads). */
  bufferKb?: number
  /** Keep the timeline around each workload's maximum in the result (`timelines`: the workbench shows it). */
  timelines?: boolean
  signal?: AbortSignal
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void
}

export interface RealRunOutput extends RunOutput {
  source: 'real'
  host: HostRecord
}

const DEFAULT_QUIET: Required<QuietOptions> = { maxCpus: 0.1, windows: 2, windowMs: 1000, timeoutMs: 60_000 }
/** Beyond the run's duration, what ending the workloads may take before they are killed. */
const STOP_GRACE_MS = 5000

/** Why this machine cannot do real runs at all (not Linux), or null. */
export function realUnavailableReason(): string | null {
  return linuxOrReason()
}

/** Refuse runs of variants a real kernel cannot be: patches, sched_feat or kernel changes. */
export function checkRealVariants(runs: readonly RunSpec[]): void {
  const seen = new Set<string>()
  for (const r of runs) {
    if (seen.has(r.variant)) continue
    seen.add(r.variant)
    const v = r.scenario.variants[r.variantIndex]
    const needs: string[] = []
    if (v.patches.length > 0) needs.push(`the patch series ${v.patches.join(', ')}`)
    const feats = Object.entries(v.features ?? {})
    if (feats.length > 0) needs.push(`sched_feat ${feats.map(([k, on]) => (on ? k : `NO_${k}`)).join(' ')}`)
    const kernel = Object.keys(v.kernel ?? {})
    if (kernel.length > 0) needs.push(`kernel.${kernel.join(', kernel.')} as given`)
    if (needs.length > 0) throw new RealRefusal(`variant "${r.variant}" needs a kernel built with ${needs.join(' and ')}; run it there and \`schedlab analyze\` its trace`)
  }
}

function ensureLinux(): void {
  const why = linuxOrReason()
  if (why) throw new RealRefusal(why)
}

/**
 * Refuse, before anything waits or starts, what would stop these runs: not Linux, a variant
 * needing another kernel, no compiler for the helper, a tool missing, a workload this
 * machine cannot run.
 */
export function preflightReal(runs: readonly RunSpec[], log?: (l: string) => void): void {
  ensureLinux()
  checkRealVariants(runs)
  const host = detectHost()
  const helper = ensureHelper()
  for (const r of runs) planWorkloads(r.scenario.workloads, planContext(helper, host, r.scenario.durationMs, tmpdir(), log))
}

/** Every variant x seed of a scenario, for real. */
export async function runRealScenario(scenario: Scenario, opts: RealOptions = {}): Promise<RealRunOutput> {
  ensureLinux()
  const runs = expandRuns(scenario, { variants: opts.variants, seed: opts.seed, seeds: opts.seeds, durationMs: opts.durationMs })
  preflightReal(runs, opts.log)
  const variants: VariantResult[] = []
  for (let i = 0; i < runs.length; i++) {
    if (opts.signal?.aborted) throw new RealCancelled()
    opts.log?.(`[${i + 1}/${runs.length}] ${runs[i].variant}, repeat ${runs[i].seed}`)
    variants.push(await runRealOne(runs[i], opts))
  }
  const hosts = variants.map((v) => v.host as HostRecord)
  const top: HostRecord = {
    ...hosts[0],
    loadavg: { before: hosts[0]?.loadavg.before ?? [], after: hosts[hosts.length - 1]?.loadavg.after ?? [] },
    foreignCpuSec: Math.round(hosts.reduce((a, h) => a + h.foreignCpuSec, 0) * 100) / 100,
    contaminated: hosts.some((h) => h.contaminated),
    runs: hosts.length,
    contaminatedRuns: hosts.filter((h) => h.contaminated).length
  }
  return { scenario: runs[0]?.scenario.name ?? scenario.name, source: 'real', host: top, variants }
}

interface Running {
  plan: PlannedProcess
  workload: number
  pid: number
  outFile: string
  exited: boolean
}

/** One run (a variant x seed) on this machine. */
export async function runRealOne(run: RunSpec, opts: RealOptions = {}): Promise<VariantResult> {
  ensureLinux()
  checkRealVariants([run])
  const s = run.scenario
  const host = detectHost()
  const helper = ensureHelper()
  const log = opts.log ?? (() => {})
  removeStaleRunDirs()
  const runDir = mkdtempSync(join(tmpdir(), `schedlab-real-${process.pid}-`))
  const plans = planWorkloads(s.workloads, planContext(helper, host, s.durationMs, runDir, log))
  const warnings: string[] = []
  for (const p of plans) if (p.skipped) warnings.push(`${p.spec.name}: not run for real (${p.skipped})`)
  for (const w of s.warnings ?? []) warnings.push(w)
  if (s.topology.name !== 'host') warnings.push(`real runs use this machine: the scenario's topology "${s.topology.name}" is not (use "topology": "host" to simulate this machine)`)
  const modeled = Object.keys(s.kernel.features).length > 0 || s.kernel.baseSliceUs !== undefined || s.kernel.costs !== undefined
  if (modeled) warnings.push('the scenario\'s kernel section (features, base slice, costs) describes the modeled kernel; a real run has this machine\'s')

  let quiet: QuietResult | null = null
  let root: TracefsRoot | null = null
  let inst: TraceInstance | null = null
  let sup: Supervisor | null = null
  let poll: NodeJS.Timeout | null = null
  const running: Running[] = []
  let cancelled = false
  const onAbort = (): void => {
    cancelled = true
  }
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  const crashCleanup = (): void => {
    sup?.abandon()
    inst?.remove()
  }
  process.once('exit', crashCleanup)
  try {
    if (opts.quiet !== false) {
      const q = { ...DEFAULT_QUIET, ...(opts.quiet ?? {}) }
      log(`waiting for a quiet machine (foreign CPU under ${q.maxCpus} for ${q.windows} x ${q.windowMs} ms, at most ${q.timeoutMs / 1000} s)`)
      quiet = await waitForQuiet({ ...q, signal: opts.signal })
      if (!quiet.quiet && !opts.signal?.aborted) {
        if (opts.requireQuiet) throw new RealNotQuiet(quiet.waitedSec, quiet.lastLoadCpus)
        log(`not quiet after ${quiet.waitedSec} s (others use ${quiet.lastLoadCpus} CPUs): running anyway, the run's foreign CPU time will tell`)
      }
    }
    if (opts.signal?.aborted) throw new RealCancelled()

    root = openTracefs()
    removeStaleInstances(root.path)
    const globalBefore = globalTracingState(root.path)
    const name = `schedlab-${process.pid}-${Date.now().toString(36)}`
    const bufferKb = opts.bufferKb ?? (s.workloads.some((w) => w.type === 'hackbench' || w.type === 'schbench') ? 32768 : 8192)
    inst = TraceInstance.create(root.path, name, { bufferKb, events: REAL_EVENTS, rawDir: join(runDir, 'raw') })
    sup = await Supervisor.start(helper, { instance: inst.dir, mount: root.mountedByUs ? root.path : undefined })
    const supervisor = sup
    const ours = (p: ProcTimes): boolean => p.pid === process.pid || p.pid === supervisor.pid || p.ppid === supervisor.pid || p.pgrp === supervisor.groupId

    const loadBefore = loadavg()
    const procsBefore = snapshotProcs()
    const sysBefore = systemCpu()
    const selfBefore = process.cpuUsage()
    const instance = inst
    inst.start()
    const startMono = Number(process.hrtime.bigint())
    const started = Date.now()
    poll = setInterval(() => instance.drain(), 100)

    // start the workloads (each after its delay); repeat ones again when they end
    let repeatN = 0
    const byId = new Map<string, Running>()
    const exited = (r: Running): void => {
      if (r.exited) return
      r.exited = true
      if (r.plan.repeat && !cancelled && Date.now() - started < s.durationMs - 50) {
        repeatN++
        void startOne(r.plan, r.workload, `${r.plan.id}.r${repeatN}`).catch((e) => warnings.push(`${r.plan.id}: restart failed: ${(e as Error).message}`))
      }
    }
    const startOne = async (plan: PlannedProcess, workload: number, id: string): Promise<void> => {
      if (plan.file) writeFileSync(plan.file.path, plan.file.text)
      const outFile = join(runDir, `${id}.out`)
      const pid = await supervisor.spawn(id, outFile, plan.attrs, plan.argv)
      const r: Running = { plan, workload, pid, outFile, exited: false }
      running.push(r)
      byId.set(id, r)
      // its end may have been reported in the same read as its start
      if (supervisor.exitCode(id) !== undefined) exited(r)
    }
    supervisor.onExit((id) => {
      const r = byId.get(id)
      if (r) exited(r)
    })
    const delayed = plans.flatMap((p) => p.processes.map((proc) => ({ proc, workload: p.index })))
    delayed.sort((a, b) => a.proc.delayMs - b.proc.delayMs)
    for (const d of delayed) {
      const wait = d.proc.delayMs - (Date.now() - started)
      if (wait > 0) await sleepMs(wait, opts.signal)
      if (cancelled) break
      await startOne(d.proc, d.workload, d.proc.id)
    }
    log(`running ${plans.filter((p) => !p.skipped).map((p) => `${p.spec.name} (${p.tool})`).join(', ')} for ${s.durationMs / 1000} s`)

    // the run's duration, or until every non-repeating workload ended by itself
    const deadline = started + s.durationMs
    while (!cancelled && Date.now() < deadline) {
      const live = running.filter((r) => !r.exited)
      if (running.length > 0 && live.length === 0) break
      await sleepMs(Math.min(200, Math.max(1, deadline - Date.now())), opts.signal)
    }
    // end: cyclictest prints its histogram on SIGINT, the others end on SIGTERM
    for (const r of running) if (!r.exited) signal(r.pid, r.plan.stopSignal)
    const stopBy = Date.now() + STOP_GRACE_MS
    while (running.some((r) => !r.exited) && Date.now() < stopBy) await sleepMs(50)
    const rusage = await supervisor.quit()
    const endMono = Number(process.hrtime.bigint())
    instance.stop()
    clearInterval(poll)
    poll = null
    instance.drain()
    const buffers = instance.stats()
    const procsAfter = snapshotProcs()
    const sysAfter = systemCpu()
    const selfAfter = process.cpuUsage(selfBefore)
    const loadAfter = loadavg()
    const formats = instance.formats()
    const rawFiles = instance.rawFiles()
    const pageSize = instance.pageSize
    const bytes = instance.bytes.reduce((a, b) => a + b, 0)
    instance.remove()
    inst = null
    const globalAfter = globalTracingState(root.path)
    if (cancelled) throw new RealCancelled()

    // ---- analysis
    const assembled = assembleTracedRun({
      run,
      plans,
      processes: running.map((r) => ({ workload: r.workload, pid: r.pid, output: readText(r.outFile) })),
      span: { startNs: startMono, endNs: endMono },
      ncpus: host.cpus.length,
      cluster: 'host',
      source: 'real',
      traceLabel: `real${run.seed}`,
      traceDir: opts.traceDir,
      timelines: opts.timelines,
      replay: (emit) => decodeRawFiles(rawFiles, pageSize, new RingBufferDecoder(formats, kernelSymbols()), emit),
      bufferLost: { overrun: buffers.reduce((a, b) => a + b.overrun, 0), dropped: buffers.reduce((a, b) => a + b.dropped, 0) },
      warnings,
      wallMs: Date.now() - started
    })
    const { analyzed } = assembled
    const durationSec = (endMono - startMono) / 1e9
    // foreign CPU time: all CPUs' busy time minus ours (the workloads, reaped by the helper,
    // and this process); per process for the report (that sum also counts, in a parent's
    // cutime, children that started before the run)
    const foreign = foreignCpu(procsBefore, procsAfter, ours)
    const ourSec = (rusage ? (rusage.userUs + rusage.sysUs) / 1e6 : 0) + (selfAfter.user + selfAfter.system) / 1e6
    const foreignSec = round2(Math.max(0, sysAfter.busy - sysBefore.busy - ourSec))
    const notOurs = new Set([process.pid, supervisor.pid, supervisor.groupId, ...selfThreads()])
    const traceForeignMs = analyzed.tasks.filter((t) => t.workload === '' && !notOurs.has(t.tid ?? -1)).reduce((a, t) => a + t.cpuTimeMs, 0)
    const threshold = Math.max(0.1, (opts.contaminationCpuPerSec ?? 0.08) * durationSec)
    const overrun = buffers.reduce((a, b) => a + b.overrun, 0)
    const dropped = buffers.reduce((a, b) => a + b.dropped, 0)
    const lost = assembled.lostEvents
    const hostWarnings: string[] = []
    const stateSame = JSON.stringify(globalBefore) === JSON.stringify(globalAfter)
    if (!stateSame) hostWarnings.push('the global tracing state changed during the run (not by us: we only use a private instance)')
    const contaminated = foreignSec > threshold
    if (contaminated) hostWarnings.push(`contaminated: processes that are not ours used ${foreignSec} CPU-s during the run (threshold ${round2(threshold)}; most: ${foreign.top.map((t) => `${t.comm} ${t.cpuSec}`).join(', ')})`)
    const hostRecord: HostRecord = {
      ...hostBase(host),
      loadavg: { before: loadBefore, after: loadAfter },
      foreignCpuSec: foreignSec,
      contaminated,
      contaminationThresholdSec: round2(threshold),
      foreignKernelThreadCpuSec: foreign.kernelThreadSec,
      foreignTop: foreign.top,
      foreignTraceCpuSec: round2(traceForeignMs / 1000),
      // the machine's own tasks as the trace saw them (schedlab calibrate reads its noise here)
      foreignTasks: analyzed.tasks
        .filter((t) => t.workload === '' && !notOurs.has(t.tid ?? -1) && (t.contextSwitches ?? 0) > 0)
        .map((t) => ({ name: t.name, comm: t.comm, tid: t.tid, contextSwitches: t.contextSwitches, cpuTimeMs: Math.round(t.cpuTimeMs * 1000) / 1000 })),
      stealSec: round2(sysAfter.steal - sysBefore.steal),
      systemBusySec: round2(sysAfter.busy - sysBefore.busy),
      ourCpuSec: round2(ourSec),
      foreignByProcessSec: foreign.totalSec,
      quiet: quiet ?? { quiet: false, waitedSec: 0, lastLoadCpus: 0, skipped: true },
      durationSec: round2(durationSec),
      tracing: { clock: 'mono', bufferKbPerCpu: bufferKb, bytes, overrun, dropped, lostEvents: lost, globalStateUnchanged: stateSame, mountedByUs: root.mountedByUs }
    }
    const r = assembled.result
    return { ...r, warnings: [...(r.warnings ?? []), ...hostWarnings], host: hostRecord }
  } finally {
    opts.signal?.removeEventListener('abort', onAbort)
    if (poll) clearInterval(poll)
    if (sup) {
      for (const r of running) if (!r.exited) signal(r.pid, 'SIGKILL')
      await sup.quit().catch(() => null)
    }
    inst?.remove()
    if (root) closeTracefs(root)
    process.removeListener('exit', crashCleanup)
    rmSync(runDir, { recursive: true, force: true })
  }
}

function planContext(helper: string, host: HostInfo, durationMs: number, runDir: string, log?: (l: string) => void): PlanContext {
  return { helper, durationMs, ncpus: host.cpus.length, runDir, kernelConfig: host.config, rtappPLoadNs: (bin) => rtappCalibration(bin, helperCacheDir(), log) }
}

/** Work directories of earlier runs whose process is gone (killed before it could clean up). */
function removeStaleRunDirs(): void {
  for (const n of readdirSafe(tmpdir())) {
    const m = /^schedlab-real-(\d+)-/.exec(n)
    if (m && !existsSync(`/proc/${m[1]}`)) rmSync(join(tmpdir(), n), { recursive: true, force: true })
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig)
  } catch {
    // already gone
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return ''
  }
}

let selfTids: Set<number> | null = null
/** Our own threads (Node's), which the trace shows but are not foreign. */
function selfThreads(): Set<number> {
  if (selfTids) return selfTids
  selfTids = new Set<number>()
  try {
    for (const t of readdirSafe(`/proc/${process.pid}/task`)) selfTids.add(Number(t))
  } catch {
    // none
  }
  return selfTids
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

let symbols: Map<string, string> | null = null

/**
 * Kernel text symbols, to name hrtimer functions in binary records (root only; else none):
 * timer-like names of /proc/kallsyms (about 0.2 s to read), once per process.
 */
function kernelSymbols(): (hexAddr: string) => string | undefined {
  if (!symbols) {
    symbols = new Map()
    try {
      for (const line of readFileSync('/proc/kallsyms', 'utf8').split('\n')) {
        const sp1 = line.indexOf(' ')
        const t = line.charAt(sp1 + 1)
        if (t !== 't' && t !== 'T') continue
        const name = line.slice(sp1 + 3).split(/\s/)[0]
        if (/timer|tick|_fn$|wakeup/.test(name)) symbols.set(line.slice(0, sp1).padStart(16, '0'), name)
      }
    } catch {
      // unreadable: functions print as addresses
    }
  }
  const map = symbols
  return (addr) => map.get(addr)
}

export function hostBase(h: HostInfo): Pick<HostRecord, 'kernel' | 'cpus' | 'hz' | 'preempt'> & Record<string, unknown> {
  return {
    kernel: h.kernel,
    cpus: h.cpus.length,
    hz: h.hz,
    preempt: h.preempt,
    preemptSource: h.preemptSource,
    version: h.version,
    model: h.model,
    cpuidle: { driver: h.cpuidleDriver, governor: h.cpuidleGovernor, states: h.cpus[0]?.idleStates.map((s) => ({ name: s.name, exitLatencyUs: s.exitLatencyUs })) ?? [] },
    autogroup: h.autogroup
  }
}

function round2(x: number): number {
  return Math.round(x * 100) / 100
}
