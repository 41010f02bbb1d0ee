import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { CliIo } from './io'
import type { CalibrateArgs } from './args'
import { InputError } from './errors'
import { parseScenarioText } from './scenario-input'
import { simulate } from '../sim/index'
import { expandRuns, type Scenario } from '../sim/scenario'
import type { TopologySpec } from '../sim/kernel/topology-types'
import { EMPTY_LATENCY, type RunOutput, type VariantResult } from '../shared/result'
import { fit, residualsOf, type FitResult, type Target } from '../calibrate/fit'
import { publishedSuiteFor, SUITES, type Metric, type Suite } from '../calibrate/suites'
import { noiseFromReal } from '../calibrate/noise'

/**
 * `schedlab calibrate`: fit a topology's cost parameters (context switch, timer delivery,
 * hackbench write/read, cache refill) and background noise so that simulated runs of a
 * calibration suite give the measured figures; write the calibrated topology file and print
 * the fit's residuals. Sources: real runs on this machine (--real, or a saved result --from),
 * or the RB5's published seed tables (--published).
 */
/**
 * A topology without background noise, for a measurement that names no other tasks (a guest of
 * schedlab vm): its fitted timer delivery must not bring the noise workload's default kworkers
 * and daemons with it, as a `noise` object of timer delivery alone would.
 */
export function withoutBackgroundTasks(base: TopologySpec): TopologySpec {
  return { ...base, noise: { ...base.noise, perCpu: 0, daemons: 0, kthreads: 0 } }
}

export async function calibrateCommand(a: CalibrateArgs, io: CliIo): Promise<number> {
  const fromResult = a.source === 'from' && !isDirectory(a.from!) ? readRealResult(a.from!, io) : null
  const published = a.source === 'published' ? publishedSuiteFor(a.topology) : null
  if (a.source === 'published' && published === null) throw new InputError(`calibrate --published: no published tables for the topology "${a.topology}" (rb5: seeds 000-002; x86-2s: seed 003)`)
  const suite: Suite = published ?? SUITES[a.source === 'vm' || fromResult?.source === 'vm' ? 'vm' : 'real']
  for (const n of a.params ?? []) if (!suite.params.some((p) => p.name === n)) throw new InputError(`calibrate --params: "${n}" is not a parameter of the suite "${suite.name}" (${suite.params.map((p) => p.name).join(', ')})`)
  const base = topologyOf(a.topology, io)
  let topology: TopologySpec = base
  const notes: string[] = []
  let targets: Target[]
  const plan = suite.scenarios(base)
  const metrics = plan.flatMap((p) => p.metrics)
  if (a.source === 'published') {
    targets = metrics.map((m) => ({ name: m.name, real: m.published ?? NaN, weight: m.weight, source: m.source }))
  } else {
    const real = fromResult ?? (a.source === 'from' ? readFidelityCache(a.from!, notes) : a.source === 'vm' ? await measureVm(plan[0].scenario, base, a, io) : await measure(plan[0].scenario, a, io))
    if ((a.source === 'real' || a.source === 'vm') && a.out) {
      const saved = `${a.out.replace(/\.json$/, '')}.${a.source}.json`
      io.writeFile(saved, JSON.stringify(slimMeasurement(real)) + '\n')
      io.err(`wrote ${saved} (the measurement; calibrate --from it again)\n`)
    }
    targets = metrics.map((m) => ({ name: m.name, real: mean(runsOf(real, m).map(m.read)), weight: m.weight, source: `this machine, ${runsOf(real, m).length} clean run(s)` }))
    const ours = ((plan[0].scenario.workloads as { name: string }[]) ?? []).map((w) => w.name)
    const quiet = runsOf(real, { variant: 'cyclictest alone' } as Metric)
    if (quiet.some((r) => (r.host as { foreignTasks?: unknown[] } | undefined)?.foreignTasks)) {
      const reading = noiseFromReal(quiet, ours, buildCpus(base))
      // the stalls and the timer delay are fitted, not read: keep the topology's (the fit starts
      // from them, --check uses them)
      const fitted = Object.fromEntries(FITTED_NOISE.filter((k) => base.noise?.[k] !== undefined).map((k) => [k, base.noise![k]]))
      topology = { ...base, noise: { ...reading.noise, ...fitted } }
      notes.push('background noise read from the real trace\'s other tasks:', ...reading.notes.map((n) => `  ${n}`))
    } else if (base.noise === undefined) {
      topology = withoutBackgroundTasks(base)
      notes.push('the measurement names no other tasks: no background tasks are modeled (perCpu, daemons, kthreads 0)')
    } else notes.push('the measurement names no other tasks: the topology\'s background noise is kept as it is')
    if ((real as { source?: string }).source === 'vm' && topology.arch === undefined) {
      // schedlab vm boots x86_64 guests: the arch decides what the kernel builds in (HRTICK in tip 2026)
      topology = { ...topology, arch: 'x86_64' }
      notes.push('the guests are x86_64: the topology says so (arch)')
    }
  }
  // a fidelity cache has no sched_waking figures and no hackbench; calibrate --real does not
  // measure FIFO against hogs: the figures a measurement lacks are left out
  const bad = targets.filter((t) => !(t.real > 0))
  if (bad.length === targets.length) throw new InputError(`calibrate: no measured value for ${bad.map((t) => `"${t.name}"`).join(', ')}`)
  if (bad.length > 0) notes.push(`left out (not in the measurement): ${bad.map((t) => t.name).join(', ')}`)
  const keep = new Set(targets.filter((t) => t.real > 0).map((t) => t.name))
  targets = targets.filter((t) => keep.has(t.name))
  const params = a.params ? suite.params.filter((p) => a.params!.includes(p.name)) : suite.params
  const evaluate = (p: Record<string, number>): number[] => evaluateSuite(suite, suite.apply(topology, p), io, keep)
  const log = (l: string): void => io.err(`calibrate: ${l}\n`)
  let result: FitResult
  if (a.check) {
    const sims = evaluateSuite(suite, topology, io, keep)
    result = { params: {}, residuals: residualsOf(targets, sims), loss: NaN, evaluations: 1 }
  } else {
    const init = Object.fromEntries(params.map((p) => [p.name, initialValue(topology, p.name, p.init)]))
    result = fit(params.map((p) => ({ ...p, init: init[p.name] })), targets, evaluate, { log })
  }
  const from = a.source === 'from' && isDirectory(a.from!) ? `the clean ${Object.keys(FIDELITY_CASES).join(' and ')} runs of the fidelity:real cache ${a.from}` : suite.description
  const calibrated = a.check ? topology : describe(suite.apply(topology, result.params), suite, result, from, a.params)
  if (a.out && !a.check) {
    io.writeFile(a.out, JSON.stringify(calibrated, null, 2) + '\n')
    io.err(`wrote ${a.out}\n`)
  }
  if (a.json) {
    io.out(JSON.stringify({ suite: suite.name, topology: calibrated, params: result.params, residuals: result.residuals, loss: result.loss, evaluations: result.evaluations, notes }, null, 2) + '\n')
  } else {
    io.out(renderResiduals(suite, result, calibrated, notes))
  }
  return 0
}

function topologyOf(arg: string, io: CliIo): TopologySpec {
  const s = parseScenarioText(JSON.stringify({ topology: arg, workloads: [{ type: 'hog' }] }), './calibrate.json', io, {})
  return s.topology
}

function buildCpus(t: TopologySpec): number {
  return t.clusters.reduce((n, c) => n + c.cpus, 0)
}

/** Where an existing calibration starts the fit. */
function initialValue(t: TopologySpec, name: string, fallback: number): number {
  const c = t.costs as Record<string, number | undefined> | undefined
  const n = t.noise as Record<string, number | undefined> | undefined
  if (name === 'hackbenchUs') return c?.hackbenchWriteUs ?? fallback
  return c?.[name] ?? n?.[name] ?? fallback
}

function runsOf(real: RunOutput, m: Pick<Metric, 'variant'>): VariantResult[] {
  const all = real.variants.filter((v) => v.name === m.variant)
  const clean = all.filter((v) => !(v.host as { contaminated?: boolean } | undefined)?.contaminated)
  return clean.length > 0 ? clean : all
}

function mean(xs: number[]): number {
  const ok = xs.filter(Number.isFinite)
  return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : NaN
}

/**
 * What calibrate --from reads again, without the per-task latency summaries and the workloads'
 * histograms (a hackbench run has a thousand tasks: 4 MB of JSON become a few hundred kB).
 */
export function slimMeasurement(real: RunOutput): RunOutput {
  return {
    ...real,
    variants: real.variants.map((v) => ({
      ...v,
      workloads: v.workloads.map(({ latencyHist: _h, ...w }) => w),
      tasks: perWorkload(v.tasks)
    }))
  }
}

/** One task per workload with the sums of its tasks' switches, wakeups, migrations, CPU time. */
function perWorkload(tasks: VariantResult['tasks']): VariantResult['tasks'] {
  const by = new Map<string, VariantResult['tasks'][number]>()
  for (const t of tasks) {
    const s = by.get(t.workload)
    if (!s) {
      by.set(t.workload, { name: t.workload, workload: t.workload, cpuTimeMs: t.cpuTimeMs, contextSwitches: t.contextSwitches ?? 0, wakeups: t.wakeups, migrations: t.migrations, lastCpu: t.lastCpu, latencyUs: EMPTY_LATENCY })
      continue
    }
    s.cpuTimeMs += t.cpuTimeMs
    s.contextSwitches = (s.contextSwitches ?? 0) + (t.contextSwitches ?? 0)
    s.wakeups += t.wakeups
    s.migrations += t.migrations
  }
  return [...by.values()]
}

/** Noise parameters the fit sets (the rest of the noise is read from a real trace). */
const FITTED_NOISE = ['stallPeriodUs', 'stallUs', 'sigma', 'timerDelayUs', 'timerDelaySigma'] as const

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * The fidelity suite's cases that are variants of the real suite (scripts/fidelity-real/cases.ts):
 * the lone cyclictest, where the machine's own timer path and noise show unmixed with a load,
 * and the FIFO cyclictest against hogs, which neither timer slack nor fair competition hides.
 */
const FIDELITY_CASES: Record<string, string> = { 'ct-alone': 'cyclictest alone', 'fifo-hogs': 'fifo against hogs' }

/**
 * The clean runs of `npm run fidelity:real`'s cache directory (fidelity-real-cache/) as a
 * measurement: its ct-alone case is the suite's "cyclictest alone" (cyclictest -i 2777
 * --policy other alone, 25 s), fifo-hogs its "fifo against hogs". A cached run keeps its
 * percentiles and host record, not the trace's tasks: the figures it lacks are left out. When
 * a case was cached under several definitions (hashes), the one with the latest run counts.
 */
export function readFidelityCache(dir: string, notes: string[]): RunOutput {
  interface Cached { case: string; hash: string; contaminated: boolean; when: string; metrics: Record<string, number>; host: Record<string, unknown> }
  const runs: Cached[] = []
  for (const f of readdirSync(dir)) {
    const id = f.split('--')[0]
    if (!(id in FIDELITY_CASES) || !f.endsWith('.json')) continue
    try {
      runs.push(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Cached)
    } catch (e) {
      throw new InputError(`${join(dir, f)}: not JSON: ${(e as Error).message}`)
    }
  }
  const variants: VariantResult[] = []
  for (const [id, variant] of Object.entries(FIDELITY_CASES)) {
    const all = runs.filter((r) => r.case === id)
    if (all.length === 0) continue
    const latest = all.reduce((a, r) => (r.when > a.when ? r : a))
    const clean = all.filter((r) => r.hash === latest.hash && !r.contaminated)
    notes.push(`${dir}: ${id} (${variant}): ${clean.length} clean run(s) of definition ${latest.hash}`)
    for (const r of clean) {
      const m = r.metrics
      const latencyUs = { ...EMPTY_LATENCY, ...(m.p50 !== undefined ? { p50: m.p50, p90: m.p90, p99: m.p99, p99_9: m.p99_9 } : {}) }
      const name = 'cyclictest'
      variants.push({
        name: variant, seed: 0, source: 'real', tasks: [], cpus: [], counters: {}, warnings: [],
        stats: { simulatedMs: Number(r.host.durationSec ?? 0) * 1000 },
        workloads: [{ name, type: name, latencyUs, ...(m.timeSec !== undefined ? { timeSec: m.timeSec } : {}) }],
        host: r.host
      } as unknown as VariantResult)
    }
  }
  if (variants.length === 0) throw new InputError(`${dir}: no fidelity:real runs of ${Object.keys(FIDELITY_CASES).join(' or ')} (files CASE--HASH--N.json)`)
  return { variants } as unknown as RunOutput
}

function readRealResult(path: string, io: CliIo): RunOutput {
  let text: string
  try {
    text = io.readFile(path)
  } catch (e) {
    throw new InputError(`${path}: cannot read: ${(e as Error).message}`)
  }
  let out: RunOutput
  try {
    out = JSON.parse(text) as RunOutput
  } catch (e) {
    throw new InputError(`${path}: not JSON: ${(e as Error).message}`)
  }
  if (!Array.isArray(out?.variants)) throw new InputError(`${path}: not a run result (no "variants"; write one with schedlab real ... --json)`)
  return out
}

/** The suite's scenario in guests of `schedlab vm` on the topology being calibrated. */
async function measureVm(scenario: Record<string, unknown>, topology: TopologySpec, a: CalibrateArgs, io: CliIo): Promise<RunOutput> {
  const { runVmScenario } = await import('../vm/runner')
  const { isVmError } = await import('../vm/errors')
  const { defaultDataDir } = await import('../services/data-dir')
  const s = parseScenarioText(JSON.stringify({ ...scenario, topology }), './calibrate.json', io, {})
  try {
    return await runVmScenario(s, { kernel: a.kernel ?? '6.12', seeds: a.seeds ?? 3, dataDir: a.dataDir ?? defaultDataDir(), log: (l) => io.err(`${l}\n`) })
  } catch (e) {
    if (isVmError(e, 'VmRefusal')) throw new InputError(`calibrate --vm: ${(e as Error).message}`)
    throw e
  }
}

async function measure(scenario: Record<string, unknown>, a: CalibrateArgs, io: CliIo): Promise<RunOutput> {
  const { runRealScenario } = await import('../real/runner')
  const { RealRefusal } = await import('../real/errors')
  const s = parseScenarioText(JSON.stringify({ ...scenario, topology: 'host' }), './calibrate.json', io, {})
  try {
    return await runRealScenario(s, {
      seeds: a.seeds ?? 3,
      quiet: a.quietWaitSec === 0 ? false : { timeoutMs: (a.quietWaitSec ?? 60) * 1000 },
      log: (l) => io.err(`${l}\n`)
    })
  } catch (e) {
    if (e instanceof RealRefusal) throw new InputError(`calibrate --real: ${e.message}`)
    throw e
  }
}

/**
 * Every metric of the suite (or those named in `keep`) from simulated runs on `topology`
 * (seeds 1..suite.seeds, averaged).
 */
export function evaluateSuite(suite: Suite, topology: TopologySpec, io: CliIo, keep?: ReadonlySet<string>): number[] {
  const out: number[] = []
  for (const p of suite.scenarios(topology)) {
    const s: Scenario = parseScenarioText(JSON.stringify({ ...p.scenario, topology }), './calibrate.json', io, {})
    const cache = new Map<string, VariantResult[]>()
    for (const m of p.metrics) {
      if (keep && !keep.has(m.name)) continue
      let runs = cache.get(m.variant)
      if (!runs) {
        if (!s.variants.some((x) => x.name === m.variant)) throw new Error(`calibration suite: no variant ${m.variant}`)
        const dur = p.simDurationMs?.[m.variant]
        // expandRuns applies the variant's own workload list (e.g. "cyclictest alone")
        runs = expandRuns(s, { seeds: suite.seeds, variants: [m.variant], ...(dur !== undefined ? { durationMs: dur } : {}) })
          .map((r) => simulate(r.scenario, r.variantIndex, r.seed))
        cache.set(m.variant, runs)
      }
      out.push(mean(runs.map(m.read)))
    }
  }
  return out
}

function describe(t: TopologySpec, suite: Suite, r: FitResult, from: string, only?: string[]): TopologySpec {
  const worst = r.residuals.reduce((a, x) => Math.max(a, Math.abs(x.error)), 0)
  const what = only ? ` ${only.join(', ')}` : ''
  const note = `Calibrated by schedlab calibrate${what} (${suite.name}: ${from}); ${r.residuals.length} figures, worst residual ${(worst * 100).toFixed(0)} %.`
  return { ...t, source: t.source ? `${t.source} ${note}` : note }
}

function renderResiduals(suite: Suite, r: FitResult, t: TopologySpec, notes: string[]): string {
  const lines: string[] = []
  lines.push(`calibration suite "${suite.name}": ${suite.description}`)
  for (const n of notes) lines.push(n)
  if (Object.keys(r.params).length > 0) lines.push(`fitted (${r.evaluations} evaluations, loss ${r.loss.toFixed(4)}): ${Object.entries(r.params).map(([k, v]) => `${k} ${v}`).join(', ')}`)
  lines.push('')
  const w = Math.max(...r.residuals.map((x) => x.name.length), 6)
  lines.push(`${'figure'.padEnd(w)}  ${'measured'.padStart(10)}  ${'simulated'.padStart(10)}  residual`)
  for (const x of r.residuals) {
    lines.push(`${x.name.padEnd(w)}  ${fmt(x.real).padStart(10)}  ${fmt(x.sim).padStart(10)}  ${Number.isFinite(x.error) ? `${x.error >= 0 ? '+' : ''}${(x.error * 100).toFixed(1)} %` : '-'}`)
  }
  lines.push('')
  lines.push(`costs: ${JSON.stringify(t.costs ?? {})}`)
  if (t.noise) lines.push(`noise: ${JSON.stringify(t.noise)}`)
  return lines.join('\n') + '\n'
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return '-'
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(4)
}
