import type { CliIo } from './io'
import { InputError } from './args'
import { parseScenarioText } from './commands'
import { simulate } from '../sim/index'
import { expandRuns, type Scenario } from '../sim/scenario'
import type { TopologySpec } from '../sim/kernel/topology-types'
import { EMPTY_LATENCY, type RunOutput, type VariantResult } from '../shared/result'
import { fit, residualsOf, type FitResult, type Target } from '../calibrate/fit'
import { SUITES, type Metric, type Suite } from '../calibrate/suites'
import { noiseFromReal } from '../calibrate/noise'

export interface CalibrateArgs {
  topology: string
  source: 'real' | 'from' | 'published'
  from?: string
  seeds?: number
  quietWaitSec?: number
  out?: string
  json: boolean
  /** Only print the residuals of the topology as it is (no fit). */
  check: boolean
}

/**
 * `schedlab calibrate`: fit a topology's cost parameters (context switch, timer delivery,
 * hackbench write/read, cache refill) and background noise so that simulated runs of a
 * calibration suite give the measured figures; write the calibrated topology file and print
 * the fit's residuals. Sources: real runs on this machine (--real, or a saved result --from),
 * or the RB5's published seed tables (--published).
 */
export async function calibrateCommand(a: CalibrateArgs, io: CliIo): Promise<number> {
  const suite: Suite = SUITES[a.source === 'published' ? 'published' : 'real']
  const base = topologyOf(a.topology, io)
  let topology: TopologySpec = base
  const notes: string[] = []
  let targets: Target[]
  const plan = suite.scenarios(base)
  const metrics = plan.flatMap((p) => p.metrics)
  if (a.source === 'published') {
    targets = metrics.map((m) => ({ name: m.name, real: m.published ?? NaN, weight: m.weight, source: m.source }))
  } else {
    const real = a.source === 'from' ? readRealResult(a.from!, io) : await measure(plan[0].scenario, a, io)
    if (a.source === 'real' && a.out) {
      io.writeFile(`${a.out.replace(/\.json$/, '')}.real.json`, JSON.stringify(slimMeasurement(real)) + '\n')
      io.err(`wrote ${a.out.replace(/\.json$/, '')}.real.json (the measurement; calibrate --from it again)\n`)
    }
    targets = metrics.map((m) => ({ name: m.name, real: mean(runsOf(real, m).map(m.read)), weight: m.weight, source: `this machine, ${runsOf(real, m).length} clean run(s)` }))
    const ours = ((plan[0].scenario.workloads as { name: string }[]) ?? []).map((w) => w.name)
    const quiet = runsOf(real, { variant: 'cyclictest alone' } as Metric)
    const reading = noiseFromReal(quiet, ours, buildCpus(base))
    // the stalls are fitted, not read: keep the topology's (the fit starts from them, --check uses them)
    const stalls = { ...(base.noise?.stallPeriodUs !== undefined ? { stallPeriodUs: base.noise.stallPeriodUs } : {}), ...(base.noise?.stallUs !== undefined ? { stallUs: base.noise.stallUs } : {}) }
    topology = { ...base, noise: { ...reading.noise, ...stalls } }
    notes.push('background noise read from the real trace\'s other tasks:', ...reading.notes.map((n) => `  ${n}`))
  }
  const bad = targets.filter((t) => !(t.real > 0))
  if (bad.length > 0) throw new InputError(`calibrate: no measured value for ${bad.map((t) => `"${t.name}"`).join(', ')}`)
  const params = suite.params
  const evaluate = (p: Record<string, number>): number[] => evaluateSuite(suite, suite.apply(topology, p), io)
  const log = (l: string): void => io.err(`calibrate: ${l}\n`)
  let result: FitResult
  if (a.check) {
    const sims = evaluateSuite(suite, topology, io)
    result = { params: {}, residuals: residualsOf(targets, sims), loss: NaN, evaluations: 1 }
  } else {
    const init = Object.fromEntries(params.map((p) => [p.name, initialValue(topology, p.name, p.init)]))
    result = fit(params.map((p) => ({ ...p, init: init[p.name] })), targets, evaluate, { log })
  }
  const calibrated = a.check ? topology : describe(suite.apply(topology, result.params), suite, result)
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

/** Every metric of the suite from simulated runs on `topology` (seeds 1..suite.seeds, averaged). */
export function evaluateSuite(suite: Suite, topology: TopologySpec, io: CliIo): number[] {
  const out: number[] = []
  for (const p of suite.scenarios(topology)) {
    const s: Scenario = parseScenarioText(JSON.stringify({ ...p.scenario, topology }), './calibrate.json', io, {})
    const cache = new Map<string, VariantResult[]>()
    for (const m of p.metrics) {
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

function describe(t: TopologySpec, suite: Suite, r: FitResult): TopologySpec {
  const worst = r.residuals.reduce((a, x) => Math.max(a, Math.abs(x.error)), 0)
  const note = `Calibrated by schedlab calibrate (${suite.name}: ${suite.description}); ${r.residuals.length} figures, worst residual ${(worst * 100).toFixed(0)} %.`
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
