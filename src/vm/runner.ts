import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { expandRuns, type RunSpec, type Scenario } from '../sim/scenario'
import type { RunOutput, VariantResult, VmRecord } from '../shared/result'
import { decodeRawFiles, parseEventFormat, RingBufferDecoder } from '../trace/ring-buffer'
import { assembleTracedRun } from '../real/assemble'
import { isRealError } from '../real/errors'
import { attrsArg, ensureHelper } from '../real/helper'
import { REAL_EVENTS } from '../real/runner'
import { parseRtappPLoad, planWorkloads, rtappCalibrationJson, type WorkloadPlan } from '../real/workloads'
import { diskError, isVmError, VmCancelled, VmFailure, VmRefusal } from './errors'
import { ensureGuestImage, GUEST_MARK, runArchive, type GuestImage } from './guest'
import { resolveKernel, seriesForProfile, vmCacheDir, type KernelImage } from './images'
import { chooseAccel, ICOUNT_SHIFT, markKvmBroken, qemuArgs, qemuUnavailableReason, runGuest, type AccelChoice, type GuestRun } from './qemu'
import { qemuTopology, qemuTopologyArgs, type QemuTopology } from './topology'
import { makeDirs } from '../trace/make-dirs'

/**
 * `schedlab vm`: a scenario's runs on a mainline kernel in QEMU, one guest per variant x seed.
 * Each guest boots the kernel with the scenario's topology, applies the variant's sched_feat
 * flags, preemption model and base slice in debugfs, runs the workloads (the command lines of
 * `schedlab real`, timed by the guest's clock), and ships its raw trace back; the host decodes
 * it with the analyzer of `schedlab analyze` into the `run --json` object with "source": "vm".
 * Under TCG with icount (no usable KVM) a run is deterministic: the same scenario, kernel and
 * seed give the same result.
 *
 * Usable as a library (the fidelity suite, calibrate, the workbench): `runVmScenario`, `prepareVm`.
 */

export interface VmOptions {
  /** "6.12", "7.2" or the path to a bzImage; default: the series nearest the scenario's kernel profile. */
  kernel?: string
  variants?: string[]
  seed?: number
  seeds?: number
  durationMs?: number
  /** The data folder; the VM cache is DATA/vm (or $SCHEDLAB_VM_CACHE). */
  dataDir: string
  /** Write each run's trace as ftrace text there. */
  traceDir?: string
  /** Ring buffer per CPU in the guest, KiB (default: 8 MB, 32 MB with hackbench or schbench). */
  bufferKb?: number
  timelines?: boolean
  signal?: AbortSignal
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void
  /** Structured progress (the workbench): run i of n, its phase, a fraction for downloads. */
  progress?: (p: VmProgress) => void
  /** Wall-clock budgets in seconds (default: from the run's length and the accelerator). */
  budgetSec?: number
  bootBudgetSec?: number
}

export interface VmProgress {
  run: number
  runs: number
  variant: string
  seed: number
  phase: 'fetch' | 'image' | 'boot' | 'run' | 'ship' | 'analyze' | 'done'
  fraction?: number
  message?: string
}

export interface VmRunOutput extends RunOutput {
  source: 'vm'
  vm: VmRecord
}

/** What every run of a scenario shares: the kernel, the guest image, the accelerator, the topology. */
export interface VmSetup {
  kernel: KernelImage
  image: GuestImage
  accel: AccelChoice
  topology: QemuTopology
  helper: string
  cacheDir: string
}

/** Why this machine cannot run VMs at all, or null. */
export function vmUnavailableReason(): string | null {
  return qemuUnavailableReason()
}

/**
 * Refuse what a VM cannot be: model-only patches (unless the kernel is the user's own, built
 * with them), a variant changing the kernel profile or HZ (a VM run has one kernel).
 */
export function checkVmVariants(runs: readonly RunSpec[], userKernel: boolean): void {
  const seen = new Set<string>()
  for (const r of runs) {
    if (seen.has(r.variant)) continue
    seen.add(r.variant)
    const v = r.scenario.variants[r.variantIndex]
    if (v.patches.length > 0 && !userKernel) throw new VmRefusal(`variant "${r.variant}" needs the patch series ${v.patches.join(', ')}, which exist only in the model; build a kernel with them and give its bzImage with --kernel PATH (docs/vm.md)`)
    for (const k of ['profile', 'hz'] as const) {
      if (v.kernel?.[k] !== undefined && v.kernel[k] !== r.scenario.kernel[k]) throw new VmRefusal(`variant "${r.variant}" sets kernel.${k}: a VM run boots one kernel (--kernel) for every variant; compare kernels with one vm run each`)
    }
  }
}

/** Kernel, guest image, accelerator and topology for a scenario (fetching the kernel if needed). */
export async function prepareVm(scenario: Scenario, opts: VmOptions): Promise<VmSetup> {
  const topology = qemuTopology(scenario.topology)
  const why = vmUnavailableReason()
  if (why) throw new VmRefusal(why)
  const cacheDir = vmCacheDir(opts.dataDir)
  try {
    makeDirs(cacheDir)
  } catch (e) {
    throw diskError(e, cacheDir, 'the VM cache')
  }
  const kernelArg = opts.kernel ?? seriesForProfile(scenario.kernel.profile)
  const kernel = await resolveKernel(kernelArg, cacheDir, {
    log: opts.log,
    signal: opts.signal,
    progress: (fraction, message) => opts.progress?.({ run: 0, runs: 0, variant: '', seed: 0, phase: 'fetch', fraction, message })
  })
  let helper: string
  try {
    helper = ensureHelper()
  } catch (e) {
    throw isRealError(e, 'RealRefusal') ? new VmRefusal((e as Error).message) : e
  }
  const image = ensureGuestImage(cacheDir, { log: opts.log })
  const accel = chooseAccel()
  return { kernel, image, accel, topology, helper, cacheDir }
}

/** Every variant x seed of a scenario in VMs. */
export async function runVmScenario(scenario: Scenario, opts: VmOptions): Promise<VmRunOutput> {
  const runs = expandRuns(scenario, { variants: opts.variants, seed: opts.seed, seeds: opts.seeds, durationMs: opts.durationMs })
  const userKernel = opts.kernel !== undefined && opts.kernel !== '6.12' && opts.kernel !== '7.2'
  checkVmVariants(runs, userKernel)
  const setup = await prepareVm(runs[0]?.scenario ?? scenario, opts)
  opts.log?.(`kernel ${setup.kernel.version} (${setup.kernel.image}), ${setup.topology.cpus} vCPUs, ${setup.accel.accel}${setup.accel.accel === 'tcg' ? ` icount shift ${ICOUNT_SHIFT}` : ''} (${setup.accel.reason})`)
  const variants: VariantResult[] = []
  for (let i = 0; i < runs.length; i++) {
    if (opts.signal?.aborted) throw new VmCancelled()
    opts.log?.(`[${i + 1}/${runs.length}] ${runs[i].variant}, seed ${runs[i].seed}`)
    variants.push(await runVmOne(runs[i], setup, opts, { index: i + 1, total: runs.length }))
  }
  const first = variants[0]?.vm
  const vm: VmRecord = {
    kernel: first?.kernel ?? setup.kernel.version,
    image: setup.kernel.image,
    accel: first?.accel ?? setup.accel.accel,
    icount: first?.icount ?? (setup.accel.accel === 'tcg' ? ICOUNT_SHIFT : null),
    cpus: setup.topology.cpus,
    seeds: [...new Set(runs.map((r) => r.seed))],
    accelReason: setup.accel.reason,
    topology: { sockets: setup.topology.sockets, cores: setup.topology.cores, threads: setup.topology.threads, nodes: Math.max(1, setup.topology.nodes.length) },
    ...(first?.preempt !== undefined ? { preempt: first.preempt } : {}),
    ...(first?.hz !== undefined ? { hz: first.hz } : {}),
    series: setup.kernel.series,
    runs: variants.length
  }
  return { scenario: runs[0]?.scenario.name ?? scenario.name, source: 'vm', vm, variants }
}

const STOP_GRACE_MS = 5000

/**
 * Under TCG with icount, QEMU runs the vCPUs in turn on one host thread while one virtual clock
 * counts the instructions of all of them: a vCPU stops, its clock running on, from the moment it
 * exits to QEMU (programming a timer, an interrupt) until another vCPU's turn ends at the next
 * timer deadline. The guest charges each pause to the task it interrupted. Measured on 6.12 with
 * cyclictest -i 2777 against 2 hogs per vCPU: cyclictest's thread ran 1.33 ms per period on
 * 2 vCPUs (most of it such pauses) against 23 us on 1 vCPU, and waited 6.4 ms at p90 against
 * 18 us. Latencies of a multi-vCPU TCG guest measure these turns as much as the scheduler.
 */
export function tcgTurnsWarning(accel: 'kvm' | 'tcg', ncpus: number): string | null {
  if (accel !== 'tcg' || ncpus < 2) return null
  return `TCG runs the ${ncpus} vCPUs in turn on one host thread: a vCPU pauses, its clock running, while another runs, and the guest charges each pause to the task it interrupted; latencies below about 10 ms measure these turns as much as the scheduler (a 1-vCPU topology, or KVM, avoids them: docs/vm.md)`
}

/**
 * The guests are x86_64: a simulation of the same scenario builds the kernel defaults that
 * depend on the architecture (HRTICK in tip-2026) only where the topology says so, so a
 * topology without "arch": "x86_64" simulates another kernel than the guest runs.
 */
export function archWarning(arch: string | undefined, profile: string | undefined): string | null {
  if (arch === 'x86_64' || profile !== 'tip-2026') return null
  return `the guest is x86_64, the scenario's topology ${arch === undefined ? 'names no arch' : `says arch ${arch}`}: its simulation builds the kernel defaults that depend on the architecture (HRTICK in tip-2026) differently; set topology "arch": "x86_64" to simulate the kernel the guest runs (docs/vm.md)`
}

/** The guest's base_slice_ns for a normalized base slice: the kernel scales it by 1 + log2(min(CPUs, 8)). */
export function scaledBaseSliceNs(baseSliceUs: number, cpus: number, scaling: 'none' | 'log' | 'linear' = 'log'): number {
  const n = Math.min(cpus, 8)
  const factor = scaling === 'none' ? 1 : scaling === 'linear' ? n : 1 + Math.floor(Math.log2(n))
  return Math.round(baseSliceUs * 1000 * factor)
}

/** The sched_feat writes a variant needs ("NO_RUN_TO_PARITY", "NEXT_BUDDY"). */
export function featureWrites(s: Scenario, variantIndex: number): string[] {
  const all = { ...s.kernel.features, ...s.variants[variantIndex].features }
  return Object.entries(all).map(([k, on]) => (on ? k : `NO_${k}`))
}

/** The guest's plan file (src/real/helper.c `plan`): the processes in start order. */
export function planText(plans: readonly WorkloadPlan[], durationMs: number): string {
  const procs = plans.flatMap((p) => p.processes).sort((a, b) => a.delayMs - b.delayMs)
  const lines = [`duration_ms\t${Math.round(durationMs)}`]
  for (const p of procs) {
    for (const a of p.argv) if (/[\t\n]/.test(a)) throw new VmRefusal(`argument with a tab or newline: ${JSON.stringify(a)}`)
    lines.push(['proc', p.id, String(p.delayMs), p.stopSignal, p.repeat ? '1' : '0', `/out/${p.id}.out`, attrsArg(p.attrs), ...p.argv].join('\t'))
  }
  return lines.join('\n') + '\n'
}

export interface GuestReport {
  startNs: number
  endNs: number
  pids: { id: string; pid: number }[]
  exits: { id: string; status: number }[]
  errors: { id: string; message: string }[]
  killed: string[]
}

/** The guest runner's report (/out/run.txt). */
export function parseGuestReport(text: string): GuestReport {
  const r: GuestReport = { startNs: NaN, endNs: NaN, pids: [], exits: [], errors: [], killed: [] }
  for (const line of text.split('\n')) {
    const f = line.split('\t')
    if (f[0] === 'start') r.startNs = Number(f[1])
    else if (f[0] === 'end') r.endNs = Number(f[1])
    else if (f[0] === 'pid') r.pids.push({ id: f[1], pid: Number(f[2]) })
    else if (f[0] === 'exit') r.exits.push({ id: f[1], status: Number(f[2]) })
    else if (f[0] === 'error') r.errors.push({ id: f[1], message: f.slice(2).join(' ') })
    else if (f[0] === 'killed') r.killed.push(f[1])
  }
  return r
}

/** The guest's "error: ..." report as the error the user gets: a kernel or scenario problem is a refusal. */
export function guestError(message: string): Error {
  if (/is missing in the guest image|No such file or directory/.test(message)) return new VmRefusal(`a tool is missing in the guest: ${message}`)
  return new VmRefusal(`the guest refused the run: ${message}`)
}

/** The preemption model in effect from sched/preempt ("none (voluntary) full" -> voluntary). */
export function preemptInEffect(text: string): string | null {
  return /\((\w+)\)/.exec(text)?.[1] ?? (text.trim() && !/\s/.test(text.trim()) ? text.trim() : null)
}

/** One run (a variant x seed) in a guest. */
export async function runVmOne(run: RunSpec, setup: VmSetup, opts: VmOptions, at: { index: number; total: number } = { index: 1, total: 1 }): Promise<VariantResult> {
  const s = run.scenario
  const log = opts.log ?? (() => {})
  const progress = (phase: VmProgress['phase'], extra: Partial<VmProgress> = {}): void => opts.progress?.({ run: at.index, runs: at.total, variant: run.variant, seed: run.seed, phase, ...extra })
  const warnings: string[] = []
  const ncpus = setup.topology.cpus
  const pLoad = s.workloads.some((w) => w.type === 'rt-app') && setup.image.tools['rt-app'] ? await rtappPLoad(setup, opts) : undefined
  let plans: WorkloadPlan[]
  try {
    plans = planWorkloads(s.workloads, {
      helper: '/bin/schedlab-helper',
      durationMs: s.durationMs,
      ncpus,
      runDir: '/out',
      kernelConfig: setup.kernel.config,
      which: (p) => setup.image.tools[p] ?? null,
      rtappPLoadNs: pLoad === undefined ? undefined : () => pLoad
    })
  } catch (e) {
    if (isRealError(e, 'RealRefusal')) {
      const m = /^(\S+) is not installed/.exec((e as Error).message)
      throw new VmRefusal(m ? `${(e as Error).message.replace(/ is not installed/, ' is missing in the guest image (it is copied from this machine)')}` : (e as Error).message)
    }
    throw e
  }
  for (const p of plans) if (p.skipped) warnings.push(`${p.spec.name}: not run in the VM (${p.skipped})`)
  for (const w of s.warnings ?? []) warnings.push(w)
  const variant = s.variants[run.variantIndex]
  const kernelSpec = { ...s.kernel, ...(variant.kernel ?? {}) }
  const hz = Number(setup.kernel.config.get('CONFIG_HZ') ?? 250)
  if (kernelSpec.hz !== hz) warnings.push(`the VM's kernel has HZ ${hz}; the scenario's HZ ${kernelSpec.hz} applies to simulations only`)
  if (kernelSpec.costs !== undefined) warnings.push("the scenario's kernel.costs describe the modeled kernel; a VM run has the guest's own")
  const arch = archWarning(s.topology.arch, kernelSpec.profile)
  if (arch !== null) warnings.push(arch)
  if (variant.patches.length > 0) warnings.push(`the patch series ${variant.patches.join(', ')} are assumed built into ${setup.kernel.image}`)
  const features = featureWrites(s, run.variantIndex)
  const bufferKb = opts.bufferKb ?? (s.workloads.some((w) => w.type === 'hackbench' || w.type === 'schbench') ? 32768 : 8192)
  const memoryMb = Math.max(512, 256 + Math.ceil((2 * ncpus * bufferKb) / 1024))
  const params: Record<string, string> = {
    FEATURES: features.join(' '),
    PREEMPT: kernelSpec.preempt ?? '',
    BASE_SLICE_NS: kernelSpec.baseSliceUs !== undefined ? String(scaledBaseSliceNs(kernelSpec.baseSliceUs, ncpus, kernelSpec.tunableScaling)) : '',
    BUFFER_KB: String(bufferKb),
    EVENTS: REAL_EVENTS.join(' '),
    TOOLS: [...new Set(plans.flatMap((p) => p.processes.map((x) => x.argv[0].split('/').pop() ?? '')))].join(' ')
  }
  const files = plans.flatMap((p) => p.processes.flatMap((x) => (x.file ? [x.file] : [])))
  const durS = s.durationMs / 1000
  progress('boot')
  const booted = await bootGuest(setup, opts, {
    seed: run.seed,
    params,
    plan: planText(plans, s.durationMs),
    files,
    memoryMb,
    durationMs: s.durationMs,
    onMark: (m) => {
      if (m === 'running') {
        progress('run')
        log(`running ${plans.filter((p) => !p.skipped).map((p) => `${p.spec.name} (${p.tool})`).join(', ')} for ${durS} guest seconds`)
      }
      if (m === 'shipping') progress('ship')
    }
  })
  try {
    progress('analyze')
    const { out, guest, text, report, accel } = booted
    for (const k of report.killed) warnings.push(`${k}: did not end within ${STOP_GRACE_MS / 1000} s of its stop signal and was killed`)
    const turns = tcgTurnsWarning(accel, ncpus)
    if (turns !== null) warnings.push(turns)
    const formats = readdirSafe(join(out, 'formats')).map((f) => parseEventFormat(readFileSync(join(out, 'formats', f), 'utf8')))
    const pageSize = (Number(text('subbuf_kb').trim()) || 4) * 1024
    const syms = new Map<string, string>()
    for (const line of text('kallsyms').split('\n')) {
      const [addr, , name] = line.trim().split(/\s+/)
      if (addr && name) syms.set(addr.padStart(16, '0'), name)
    }
    const cpuFiles = readdirSafe(out).map((f) => /^cpu(\d+)\.raw$/.exec(f)).filter((m): m is RegExpExecArray => m !== null).map((m) => ({ cpu: Number(m[1]), path: join(out, m[0]) })).sort((a, b) => a.cpu - b.cpu)
    const stat = (cpu: number, key: string): number => Number(new RegExp(`^${key}:\\s*(\\d+)`, 'm').exec(text(`stats${cpu}`))?.[1] ?? 0)
    const overrun = cpuFiles.reduce((a, f) => a + stat(f.cpu, 'overrun'), 0)
    const dropped = cpuFiles.reduce((a, f) => a + stat(f.cpu, 'dropped events'), 0)
    const byId = new Map(plans.flatMap((p) => p.processes.map((proc) => [proc.id, p.index] as const)))
    const processes = report.pids.map((p) => ({ workload: byId.get(p.id) ?? byId.get(p.id.split('.')[0]) ?? 0, pid: p.pid, output: text(`${p.id}.out`) }))
    const assembled = assembleTracedRun({
      run,
      plans,
      processes,
      span: { startNs: report.startNs, endNs: report.endNs },
      ncpus,
      cluster: 'vm',
      source: 'vm',
      traceLabel: `vm${run.seed}`,
      traceDir: opts.traceDir,
      timelines: opts.timelines,
      replay: (emit) => decodeRawFiles(cpuFiles, pageSize, new RingBufferDecoder(formats, (a) => syms.get(a)), emit),
      bufferLost: { overrun, dropped },
      warnings,
      wallMs: guest.wallMs
    })
    const preempt = preemptInEffect(text('preempt'))
    const vm: VmRecord = {
      kernel: text('uname').trim() || setup.kernel.version,
      image: setup.kernel.image,
      accel,
      icount: accel === 'tcg' ? ICOUNT_SHIFT : null,
      cpus: ncpus,
      seeds: [run.seed],
      seed: run.seed,
      preempt,
      hz,
      features: text('features').trim().split(/\s+/).filter(Boolean),
      featuresSet: features,
      baseSliceNs: Number(text('base_slice_ns').trim()) || null,
      memoryMb,
      bootWallMs: guest.bootMs,
      wallMs: guest.wallMs,
      tracing: { clock: 'mono', bufferKbPerCpu: bufferKb, overrun, dropped, lostEvents: assembled.lostEvents, bytes: cpuFiles.reduce((a, f) => a + fileSize(f.path), 0) }
    }
    progress('done')
    return { ...assembled.result, vm }
  } finally {
    booted.dispose()
  }
}

/**
 * rt-app's ns per loop in the guest, measured once in a guest of its own and cached: its
 * calibration would otherwise run at each start, for seconds, among the workloads. Under TCG
 * with icount the figure is a property of the binary and the icount shift.
 */
export async function rtappPLoad(setup: VmSetup, opts: VmOptions): Promise<number> {
  const key = createHash('sha256').update(`${setup.image.key} ${setup.accel.accel} ${ICOUNT_SHIFT} ${setup.accel.accel === 'kvm' ? cpus()[0]?.model ?? '' : ''}`).digest('hex').slice(0, 16)
  const file = join(setup.cacheDir, `rtapp-pload-${key}.json`)
  try {
    const v = Number((JSON.parse(readFileSync(file, 'utf8')) as { pLoadNs: number }).pLoadNs)
    if (v > 0) return v
  } catch {
    // not measured yet
  }
  opts.log?.("measuring rt-app's ns per loop once in a guest (its calibration)")
  const booted = await bootGuest(setup, opts, {
    seed: 1,
    params: { FEATURES: '', PREEMPT: '', BASE_SLICE_NS: '', BUFFER_KB: '64', EVENTS: REAL_EVENTS.join(' '), TOOLS: 'rt-app' },
    plan: `duration_ms\t120000\nproc\tcal\t0\tSIGTERM\t0\t/out/cal.out\t-\t${setup.image.tools['rt-app']}\t/run/calibrate.json\n`,
    files: [{ path: '/run/calibrate.json', text: rtappCalibrationJson('/tmp') }],
    memoryMb: 512,
    durationMs: 120_000
  })
  try {
    const v = parseRtappPLoad(booted.text('cal.out'))
    try {
      writeFileSync(file, JSON.stringify({ pLoadNs: v, image: setup.image.key, accel: setup.accel.accel, icount: ICOUNT_SHIFT }) + '\n')
    } catch (e) {
      throw diskError(e, setup.cacheDir, "rt-app's calibration")
    }
    return v
  } finally {
    booted.dispose()
  }
}

export interface BootRequest {
  seed: number
  params: Record<string, string>
  plan: string
  files: readonly { path: string; text: string }[]
  memoryMb: number
  durationMs: number
  onMark?: (mark: string) => void
}

export interface BootedGuest {
  /** The guest's /out, unpacked. */
  out: string
  guest: GuestRun
  accel: 'kvm' | 'tcg'
  text: (file: string) => string
  report: GuestReport
  /** Remove the run's files (kept with SCHEDLAB_VM_KEEP). */
  dispose: () => void
}

/**
 * One guest from boot to power-off: the image plus the run's archive as its initramfs, QEMU
 * within the wall-clock budgets (KVM that cannot boot the kernel falls back to TCG), then the
 * guest's /out unpacked and its runner's report read. Every failure is one clear error.
 */
export async function bootGuest(setup: VmSetup, opts: VmOptions, req: BootRequest): Promise<BootedGuest> {
  const log = opts.log ?? (() => {})
  const ncpus = setup.topology.cpus
  removeStaleRunDirs()
  let runDir: string
  try {
    runDir = mkdtempSync(join(tmpdir(), `schedlab-vm-${process.pid}-`))
  } catch (e) {
    throw diskError(e, tmpdir(), 'a VM run')
  }
  const dispose = (): void => {
    if (process.env.SCHEDLAB_VM_KEEP) log(`kept the run's files in ${runDir} (SCHEDLAB_VM_KEEP)`)
    else rmSync(runDir, { recursive: true, force: true })
  }
  try {
    const initrd = join(runDir, 'initrd')
    const outFile = join(runDir, 'out.tar')
    try {
      writeFileSync(initrd, Buffer.concat([readFileSync(setup.image.path), runArchive(req.params, req.plan, req.files)]))
      writeFileSync(outFile, '')
    } catch (e) {
      throw diskError(e, runDir, 'a VM run')
    }
    const durS = req.durationMs / 1000
    let accel = setup.accel.accel
    let guest: GuestRun
    for (;;) {
      const slow = accel === 'tcg' ? Math.max(4, 2 * ncpus) : 2
      const bootBudgetMs = (opts.bootBudgetSec ?? (Number(process.env.SCHEDLAB_VM_BOOT_BUDGET_S) || (accel === 'tcg' ? 120 : 40))) * 1000
      const budgetMs = (opts.budgetSec ?? (Number(process.env.SCHEDLAB_VM_BUDGET_S) || 0)) * 1000 || bootBudgetMs + (durS + STOP_GRACE_MS / 1000 + 30) * slow * 1000
      const args = qemuArgs({ accel, seed: req.seed, vmlinuz: setup.kernel.vmlinuz, initrd, topologyArgs: qemuTopologyArgs(setup.topology, req.memoryMb), outFile })
      log(`booting ${setup.kernel.version} (${accel}, ${ncpus} vCPUs, ${req.memoryMb} MB)`)
      let failed: Error | null = null
      let booted = false
      try {
        guest = await runGuest(args, {
          helper: setup.helper,
          bootBudgetMs: Math.min(bootBudgetMs, budgetMs),
          budgetMs,
          signal: opts.signal,
          onConsole: process.env.SCHEDLAB_VM_CONSOLE ? (l) => log(`console: ${l}`) : undefined,
          onMark: (m) => {
            if (m === 'booted') {
              booted = true
              log('booted')
            }
            req.onMark?.(m)
          }
        })
      } catch (e) {
        // the user's kernel that QEMU cannot load, or that never reaches our init: the user's to fix
        if (!booted && setup.kernel.source === 'user' && isVmError(e, 'VmFailure')) throw new VmRefusal(`the kernel ${setup.kernel.image} did not boot: ${(e as Error).message}`)
        if (accel !== 'kvm' || isVmError(e, 'VmCancelled')) throw e
        failed = e as Error
        guest = { console: [], marks: [], bootMs: null, wallMs: 0 }
      }
      if (accel === 'kvm' && !guest.marks.includes('booted')) {
        markKvmBroken(failed?.message ?? 'the guest did not boot under KVM')
        log('the kernel did not boot under KVM here: retrying with TCG (and using TCG from now on)')
        accel = 'tcg'
        continue
      }
      break
    }
    const err = guest.marks.find((m) => m.startsWith('error:'))
    if (err) throw guestError(err.slice(6).trim())
    const tail = guest.console.filter((l) => l.trim() && !l.includes(GUEST_MARK)).slice(-4).map((l) => l.trim().slice(0, 200)).join(' | ')
    if (!guest.marks.includes('booted')) {
      const msg = `the kernel ${setup.kernel.image} did not boot (QEMU exited before the guest's init ran)${tail ? `; the console's last lines: ${tail}` : '; the console stayed silent'}`
      throw setup.kernel.source === 'user' ? new VmRefusal(msg) : new VmFailure(msg)
    }
    if (!guest.marks.includes('done')) throw new VmFailure(`the guest stopped before it shipped its results (last report: ${guest.marks[guest.marks.length - 1]})${tail ? `; the console's last lines: ${tail}` : ''}`)

    const out = join(runDir, 'out')
    mkdirSync(out)
    const x = spawnSync('tar', ['-x', '-f', outFile, '-C', out], { encoding: 'utf8' })
    if (x.status !== 0) throw /No space left/i.test(x.stderr) ? diskError(new Error('No space left on device'), tmpdir(), 'a VM run') : new VmFailure(`the guest's results are unreadable (tar: ${x.stderr.trim().split('\n')[0]})`)
    const text = (f: string): string => {
      try {
        return readFileSync(join(out, f), 'utf8')
      } catch {
        return ''
      }
    }
    const report = parseGuestReport(text('run.txt'))
    if (report.errors.length > 0) throw guestError(report.errors.map((e) => `${e.id}: ${e.message}`).join('; '))
    if (!Number.isFinite(report.startNs) || !Number.isFinite(report.endNs)) throw new VmFailure("the guest's runner did not report its start and end")
    return { out, guest, accel, text, report, dispose }
  } catch (e) {
    dispose()
    throw e
  }
}

/** Work directories of earlier runs whose process is gone (killed before it could clean up). */
function removeStaleRunDirs(): void {
  for (const n of readdirSafe(tmpdir())) {
    const m = /^schedlab-vm-(\d+)-/.exec(n)
    if (m && !existsSync(`/proc/${m[1]}`)) rmSync(join(tmpdir(), n), { recursive: true, force: true })
  }
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

function fileSize(p: string): number {
  try {
    return statSync(p).size
  } catch {
    return 0
  }
}
