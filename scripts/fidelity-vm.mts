/**
 * `npm run fidelity:vm`: the model against mainline kernels in VMs (scripts/fidelity-vm/cases.ts).
 * Each bench's variants run in QEMU (`schedlab vm`, src/vm: Debian's 6.12 and 7.2 cloud kernels,
 * TCG with icount where there is no KVM, so each seed's run is repeatable) for 3 seeds, and are
 * simulated on the same topology with the matching kernel profile and preemption model for 3
 * seeds. Writes docs/fidelity-vm.md: per case and metric the VM's range over seeds beside the
 * simulated value, and every effect direction. Not a test: it reports, it asserts nothing.
 *
 * Finished VM runs are cached in fidelity-vm-cache/ (git-ignored; under icount a run is a pure
 * function of scenario, kernel and seed), so an interrupted suite goes on where it stopped.
 *
 *   npm run fidelity:vm                              # everything (about 17 minutes of one core)
 *   npm run fidelity:vm -- --benches ct-hogs,nice    # some benches
 *   npm run fidelity:vm -- --report-only             # no VM runs: report the cache
 *   npm run fidelity:vm -- --seeds 3 --out /tmp/f.md
 */
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { simulate } from '../src/sim'
import { buildTopology } from '../src/sim/kernel/topology'
import { expandRuns, parseScenario, type Scenario } from '../src/sim/scenario'
import type { VariantResult, VmRecord } from '../src/shared/result'
import { defaultDataDir, makeDirs } from '../src/services/data-dir'
import { prepareVm, runVmOne, vmUnavailableReason } from '../src/vm/runner'
import { BENCHES, CASES, KERNELS, SEEDS, WARMUP_US, type Bench, type Metric } from './fidelity-vm/cases'
import { direction, fmt, inside, latencyResolutionUs, rangeOf, type Range, type Score } from './fidelity-real/ranges'

const ROOT = resolve(import.meta.dirname, '..')
const CACHE = join(ROOT, 'fidelity-vm-cache')

const { values: opt } = parseArgs({
  options: {
    benches: { type: 'string' },
    seeds: { type: 'string', default: String(SEEDS) },
    'report-only': { type: 'boolean', default: false },
    out: { type: 'string' },
    'data-dir': { type: 'string' },
    calibration: { type: 'string' }
  }
})
const NSEEDS = Number(opt.seeds)
const benches = opt.benches ? BENCHES.filter((b) => opt.benches!.split(',').includes(b.id)) : BENCHES
const REPORT = opt.out ? resolve(opt.out) : join(ROOT, 'docs', 'fidelity-vm.md')
/**
 * The model's costs and timer delivery fitted to guests (`schedlab calibrate --vm` on workloads
 * this suite does not score): applied to every bench's simulated topology. --calibration none
 * simulates with the default costs.
 */
type Calibration = { costs?: Record<string, number>; noise?: Record<string, number>; source?: string; file: string }
function readCalibration(file: string): Calibration | null {
  return existsSync(file) ? { ...(JSON.parse(readFileSync(file, 'utf8')) as Omit<Calibration, 'file'>), file: file.slice(ROOT.length + 1) } : null
}
/**
 * A bench's calibration: --calibration FILE for every bench, or the one fitted to guests of the
 * bench's vCPU count (resources/topologies/vm-tcg-smp-N.json: a 1-vCPU guest has no TCG turns,
 * docs/vm.md), else the 2-vCPU one.
 */
function calibrationOf(b: Bench): Calibration | null {
  if (opt.calibration === 'none') return null
  if (opt.calibration) return readCalibration(resolve(ROOT, opt.calibration))
  const n = buildTopology(scenarioOf(b).topology).cpus.length
  return readCalibration(join(ROOT, `resources/topologies/vm-tcg-smp-${n}.json`)) ?? readCalibration(join(ROOT, 'resources/topologies/vm-tcg-smp-2.json'))
}
const calibrated = benches.some((b) => calibrationOf(b) !== null)
const started = Date.now()
const log = (s: string): void => void process.stderr.write(`[fidelity:vm ${((Date.now() - started) / 1000).toFixed(0)} s] ${s}\n`)

function scenarioText(b: Bench): string {
  const k = KERNELS[b.kernel]
  return JSON.stringify({ name: b.id, topology: b.topology, kernel: { profile: k.profile, preempt: k.preempt, ...('baseSliceUs' in k ? { baseSliceUs: k.baseSliceUs } : {}) }, durationMs: b.durationMs, variants: b.variants, workloads: b.workloads })
}

function scenarioOf(b: Bench): Scenario {
  return parseScenario(scenarioText(b), `${b.id}.json`)
}

/** The bench as simulated: its topology with the calibration's costs and timer delivery. */
function simScenarioOf(b: Bench, calibrated: { costs?: Record<string, number>; noise?: Record<string, number> } | null): Scenario {
  // the guests are x86_64, which decides what a kernel profile builds in (HRTICK in tip 2026)
  const topology = { ...scenarioOf(b).topology, arch: 'x86_64', ...(calibrated ? { costs: calibrated.costs, ...(calibrated.noise ? { noise: calibrated.noise } : {}) } : {}) }
  return parseScenario(JSON.stringify({ ...JSON.parse(scenarioText(b)), topology }), `${b.id}.json`)
}

type Metrics = Partial<Record<Metric, number>>

function metricsFrom(b: Bench, v: VariantResult): Metrics {
  const m: Metrics = {}
  const l = v.workloads.find((w) => w.name === 'cyclictest')?.latencyUs
  if (l && b.metrics.includes('p50')) Object.assign(m, { p50: l.p50, p90: l.p90, p99: l.p99 })
  const t = v.workloads.find((w) => w.name === 'hackbench')?.timeSec
  if (t !== undefined && b.metrics.includes('timeSec')) m.timeSec = t
  if (b.metrics.includes('sharePct')) {
    const cpu = (w: string): number => v.tasks.filter((x) => x.workload === w && x.comm !== 'schedlab-helper').reduce((a, x) => a + x.cpuTimeMs, 0)
    const a = cpu('nice0')
    const c = cpu('nice5')
    if (a + c > 0) m.sharePct = (a / (a + c)) * 100
  }
  return m
}

interface CachedRun {
  bench: string
  variant: string
  seed: number
  hash: string
  metrics: Metrics
  vm: VmRecord
  samples?: number
  crossCheckMaxDiffUs?: number
  lostEvents?: number
  warnings: string[]
  wallMs: number
  cpuSec: number
  when: string
}

function runKey(b: Bench, variant: string, seed: number): string {
  const h = createHash('sha256').update(`${scenarioText(b)} ${variant} ${seed}`).digest('hex').slice(0, 12)
  return `${b.id}--${variant}--${seed}--${h}`
}

function cachedRun(b: Bench, variant: string, seed: number): CachedRun | null {
  const f = join(CACHE, `${runKey(b, variant, seed)}.json`)
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as CachedRun) : null
}

/** CPU seconds of our reaped children (QEMU), from /proc/self/stat's cutime and cstime. */
function childCpuSec(): number {
  const f = readFileSync('/proc/self/stat', 'utf8').slice(readFileSync('/proc/self/stat', 'utf8').lastIndexOf(')') + 2).split(' ')
  return (Number(f[13]) + Number(f[14])) / 100
}

async function vmPhase(): Promise<void> {
  const why = vmUnavailableReason()
  if (why) {
    log(`no VM runs: ${why}; reporting what is cached`)
    return
  }
  makeDirs(CACHE)
  const dataDir = opt['data-dir'] ? resolve(opt['data-dir']) : defaultDataDir()
  for (const b of benches) {
    const s = scenarioOf(b)
    const todo = b.variants.flatMap((v) => Array.from({ length: NSEEDS }, (_, k) => ({ v, seed: k + 1 }))).filter((r) => !cachedRun(b, r.v.name, r.seed))
    if (todo.length === 0) continue
    const setup = await prepareVm(s, { kernel: b.kernel, dataDir, log: (l) => log(`  ${l}`) })
    for (const { v, seed } of todo) {
      const spec = expandRuns(s, { variants: [v.name], seed, seeds: 1 })[0]
      const cpu0 = childCpuSec()
      const t0 = Date.now()
      log(`${b.id} / ${v.name}, seed ${seed}`)
      const r = await runVmOne(spec, setup, { kernel: b.kernel, dataDir })
      const rec: CachedRun = {
        bench: b.id,
        variant: v.name,
        seed,
        hash: runKey(b, v.name, seed),
        metrics: metricsFrom(b, r),
        vm: r.vm as VmRecord,
        samples: r.workloads.find((w) => w.name === 'cyclictest')?.latencyUs.count,
        crossCheckMaxDiffUs: r.workloads.find((w) => w.crossCheck)?.crossCheck?.maxAbsDiffUs,
        lostEvents: r.trace?.lostEvents,
        warnings: r.warnings ?? [],
        wallMs: Date.now() - t0,
        cpuSec: Math.round((childCpuSec() - cpu0) * 10) / 10,
        when: new Date().toISOString()
      }
      writeFileSync(join(CACHE, `${rec.hash}.json`), JSON.stringify(rec, null, 2) + '\n')
      log(`  ${Object.entries(rec.metrics).map(([k, x]) => `${k} ${fmt(x!)}`).join(', ')}; ${(rec.wallMs / 1000).toFixed(0)} s wall, QEMU ${rec.cpuSec} CPU-s`)
    }
  }
}

interface SimVariant {
  perSeed: Metrics[]
  mean: Metrics
}

function simPhase(calibration: (b: Bench) => Calibration | null): Map<string, SimVariant> {
  const out = new Map<string, SimVariant>()
  for (const b of benches) {
    const s = simScenarioOf(b, calibration(b))
    b.variants.forEach((v) => {
      const perSeed: Metrics[] = []
      // expandRuns gives the variant's own workloads (its slices, nice, policy)
      for (const spec of expandRuns(s, { variants: [v.name], seed: 1, seeds: NSEEDS })) perSeed.push(metricsFrom(b, simulate(spec.scenario, spec.variantIndex, spec.seed)))
      const mean: Metrics = {}
      for (const m of b.metrics) {
        const xs = perSeed.map((p) => p[m]).filter((x): x is number => x !== undefined)
        if (xs.length > 0) mean[m] = xs.reduce((a, x) => a + x, 0) / xs.length
      }
      out.set(`${b.id}/${v.name}`, { perSeed, mean })
      log(`simulated ${b.id} / ${v.name}: ${Object.entries(mean).map(([k, x]) => `${k} ${fmt(x!)}`).join(', ')}`)
    })
  }
  return out
}

const LABEL: Record<Metric, string> = { p50: 'p50 (us)', p90: 'p90 (us)', p99: 'p99 (us)', timeSec: 'time (s)', sharePct: 'share (%)' }

function fmtM(m: Metric, x: number): string {
  return m === 'sharePct' ? x.toFixed(2) : m === 'timeSec' ? x.toFixed(3) : fmt(x)
}

/** Per-seed values of the model: + or - when the two variants' seeds do not overlap. */
/** What a figure is known to: a latency percentile to its histogram bucket (ranges.ts), the others exactly. */
function resolutionOf(m: Metric, r: Range): number {
  return m === 'p50' || m === 'p90' || m === 'p99' ? latencyResolutionUs(r.hi) : 0
}

function insideCell(r: Range, m: Metric, x: number): boolean {
  return inside(r, x, resolutionOf(m, r))
}

function simDirection(a: SimVariant, b: SimVariant, m: Metric): '+' | '-' | '=' {
  const ra = rangeOf(a.perSeed, m)
  const rb = rangeOf(b.perSeed, m)
  return ra && rb ? direction(ra, rb, resolutionOf(m, ra)) : '='
}

function report(sims: Map<string, SimVariant>, bare: Map<string, SimVariant> | null): void {
  const runs = (b: Bench, v: string): CachedRun[] => Array.from({ length: NSEEDS }, (_, k) => cachedRun(b, v, k + 1)).filter((r): r is CachedRun => r !== null)
  const all = benches.flatMap((b) => b.variants.flatMap((v) => runs(b, v.name)))
  let commit = ''
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
  } catch {
    // not a checkout
  }
  const kernels = [...new Set(all.map((r) => `${r.vm.kernel} (${r.vm.image})`))]
  const accel = [...new Set(all.map((r) => `${r.vm.accel}${r.vm.icount !== null ? ` with icount shift ${r.vm.icount}` : ''}`))]
  const L: string[] = []
  L.push('# Fidelity against mainline kernels in VMs', '')
  L.push(`Generated by \`npm run fidelity:vm\` (scripts/fidelity-vm.mts, cases in scripts/fidelity-vm/cases.ts) at commit ${commit || '?'} on ${new Date().toISOString().slice(0, 10)}. VM runs: \`schedlab vm\` (src/vm, docs/vm.md); simulated runs: the same scenarios on the same topology with the kernel profile and preemption model of the guest's kernel.`, '')
  L.push('## Setup', '')
  L.push(`- kernels: ${kernels.join(', ') || 'none run yet'}; accelerator: ${accel.join(', ') || '-'}`)
  L.push(`- simulated with profile ${KERNELS['6.12'].profile}, preempt ${KERNELS['6.12'].preempt} and the guest's base slice (${KERNELS['6.12'].baseSliceUs} us normalized) for 6.12, profile ${KERNELS['7.2'].profile} and preempt ${KERNELS['7.2'].preempt} for 7.2 (the preemption models the guests boot with); ${calibrated ? `costs and timer delivery fitted by \`schedlab calibrate --vm\` (cyclictest alone and hackbench alone in 6.12 guests, workloads this suite does not score) to guests of the bench's vCPU count: ${[...new Map(benches.map((b) => calibrationOf(b)).filter((c): c is Calibration => c !== null).map((c) => [c.file, c])).values()].map((c) => `${c.file}: costs ${JSON.stringify(c.costs ?? {})}, timer delivery ${JSON.stringify(c.noise ?? {})}`).join('; ')}` : 'the default costs and no background noise (no calibration: `schedlab calibrate --vm` fits one)'}`)
  const cpu = all.reduce((a, r) => a + r.cpuSec, 0)
  const wall = all.reduce((a, r) => a + r.wallMs, 0) / 1000
  L.push(`- ${all.length} VM runs: ${(cpu / 60).toFixed(1)} min of QEMU CPU time (one core), ${(wall / 60).toFixed(1)} min of wall time on a shared machine; each run boots its own guest (about 5 s of guest time)`)
  L.push(`- reproduce: \`npm run fidelity:vm\` (the VM runs of a finished suite are cached in fidelity-vm-cache/; delete it to run them again), one run by hand: \`npm run -s schedlab -- vm SCENARIO --kernel 6.12 --seeds 3\``, '')
  L.push('## Method', '')
  L.push(`- A bench is one scenario; its first variant is the baseline. The load starts at once, cyclictest (\`-t1 -i 2777 --policy other\` unless the variant says otherwise) ${WARMUP_US / 1e6} s later, and measures to the end of the run. Durations are per bench (below), in guest seconds.`)
  L.push(`- VM: ${NSEEDS} seeds per variant (QEMU's -seed; under TCG with icount a seed's run is repeatable, different seeds give the run-to-run spread). Latency from the guest's trace (requested hrtimer expiry to sched_switch), as \`schedlab analyze\` reads it.`)
  L.push(`- Simulated: ${NSEEDS} seeds per variant; the value shown is their mean.`)
  L.push('- "inside": the simulated value lies in the VM range (min..max over the seeds) widened by half its width on each side (the rule of docs/fidelity-real.md), and for latencies by at least one bucket of the histogram the percentiles are read from (1/64 of a power of two, at most 1.6 %: three seeds that land in one bucket give a range of one bucket, not of zero); the summary also counts the cells inside without that bucket.')
  L.push('- Effect directions: VM + or - when the two variants\' ranges over seeds do not overlap (latencies: are more than one histogram bucket apart), = when they do; model the same with its per-seed values.', '')

  /** Every cell (bench, variant, metric) with its VM range and simulated mean. */
  const cellsOf = (sv: Map<string, SimVariant>) =>
    benches.flatMap((b) => b.variants.flatMap((v) => b.metrics.map((m) => ({ b, v, m, r: rangeOf(runs(b, v.name).map((x) => x.metrics), m), sim: sv.get(`${b.id}/${v.name}`) }))))
  /** Every effect (case, metric) both sides have, with its VM and model directions. */
  const effectsOf = (sv: Map<string, SimVariant>) =>
    CASES.flatMap((c) => {
      const b = benches.find((x) => x.id === c.bench)
      if (!b) return []
      return b.metrics.flatMap((m) => {
        const ra = rangeOf(runs(b, c.a).map((x) => x.metrics), m)
        const rb = rangeOf(runs(b, c.b).map((x) => x.metrics), m)
        const sa = sv.get(`${b.id}/${c.a}`)
        const sb = sv.get(`${b.id}/${c.b}`)
        if (!ra || !rb || sa?.mean[m] === undefined || sb?.mean[m] === undefined) return []
        return [{ c, b, m, ra, rb, sa, sb, vd: direction(ra, rb, resolutionOf(m, ra)), sd: simDirection(sa, sb, m) }]
      })
    })
  const score = (sv: Map<string, SimVariant>): Score & { strictIn: number } => {
    const cells = cellsOf(sv).filter((x) => x.r && x.sim?.mean[x.m] !== undefined)
    const effects = effectsOf(sv)
    const clear = effects.filter((e) => e.vd !== '=')
    return {
      cells: cells.length,
      inCells: cells.filter((x) => insideCell(x.r!, x.m, x.sim!.mean[x.m]!)).length,
      strictIn: cells.filter((x) => inside(x.r!, x.sim!.mean[x.m]!)).length,
      dirs: effects.length,
      agree: effects.filter((e) => e.vd === e.sd).length,
      clear: clear.length,
      clearAgree: clear.filter((e) => e.vd === e.sd).length
    }
  }
  for (const b of benches) {
    L.push(`## ${b.id}: ${b.title}`, '')
    L.push(`${b.durationMs / 1000} guest seconds per run; topology ${typeof b.topology === 'string' ? b.topology : JSON.stringify(b.topology)}.`, '')
    L.push('| case | metric | vm range | simulated | inside |', '|---|---|---|---|---|')
    for (const { v, m, r, sim } of cellsOf(sims).filter((x) => x.b === b)) {
      const sv = sim?.mean[m]
      const seeds = sim ? sim.perSeed.map((p) => p[m]).filter((x): x is number => x !== undefined) : []
      const ok = r && sv !== undefined ? insideCell(r, m, sv) : null
      L.push(`| ${v.name} | ${LABEL[m]} | ${r ? `${fmtM(m, r.lo)} - ${fmtM(m, r.hi)} (${r.n})` : '-'} | ${sv !== undefined ? `${fmtM(m, sv)} (${seeds.map((x) => fmtM(m, x)).join(', ')})` : '-'} | ${ok === null ? '-' : ok ? 'inside' : 'outside'} |`)
    }
    const cc = b.variants.flatMap((v) => runs(b, v.name)).map((r) => r.crossCheckMaxDiffUs).filter((x): x is number => x !== undefined)
    const lost = b.variants.flatMap((v) => runs(b, v.name)).reduce((a, r) => a + (r.lostEvents ?? 0), 0)
    if (cc.length > 0) L.push('', `cyclictest's own histogram against the guest's trace: within ${fmt(Math.max(...cc))} us at every percentile (worst of ${cc.length} runs; cyclictest also counts the cycles it starts late, which the trace does not see as wakeups).`)
    if (lost > 0) L.push('', `The guest's trace lost ${lost} events over these runs.`)
    L.push('')
  }

  L.push('## Effect directions', '')
  L.push('| effect | metric | vm A | vm B | vm | model A -> B | model | agree |', '|---|---|---|---|---|---|---|---|')
  for (const { c, b, m, ra, rb, sa, sb, vd, sd } of effectsOf(sims)) {
    L.push(`| ${c.what} (${b.id}: ${c.a} -> ${c.b}) | ${LABEL[m]} | ${fmtM(m, ra.lo)} - ${fmtM(m, ra.hi)} | ${fmtM(m, rb.lo)} - ${fmtM(m, rb.hi)} | ${vd} | ${fmtM(m, sa.mean[m]!)} -> ${fmtM(m, sb.mean[m]!)} | ${sd} | ${vd === sd ? 'yes' : 'no'} |`)
  }
  L.push('')
  L.push('## Summary', '')
  const { inCells, strictIn, cells, agree, dirs, clear, clearAgree } = score(sims)
  L.push(`- ${inCells} of ${cells} cells: the simulated value is inside the VM range widened by half (and by at least one histogram bucket for latencies); ${strictIn} without the bucket.`)
  L.push(`- ${agree} of ${dirs} effect directions agree (${clearAgree} of the ${clear} where the VM's effect is clear).`)
  if (bare) {
    const b = score(bare)
    L.push(`- With the model's default costs (no calibration): ${b.inCells} of ${b.cells} cells inside, ${b.agree} of ${b.dirs} directions agree (${b.clearAgree} of the ${b.clear} clear ones).`)
  }
  L.push(`- ${CASES.filter((c) => benches.some((b) => b.id === c.bench)).length} A/B cases over ${benches.length} benches, ${all.length} VM runs.`)
  L.push('')
  writeFileSync(REPORT, L.join('\n'))
  log(`wrote ${REPORT}: ${inCells}/${cells} inside, ${agree}/${dirs} directions agree`)
}

if (!opt['report-only']) await vmPhase()
report(simPhase(calibrationOf), calibrated ? simPhase(() => null) : null)
