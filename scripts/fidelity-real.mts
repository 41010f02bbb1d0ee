/**
 * `npm run fidelity:real`: the fixed suite of scripts/fidelity-real/cases.ts on this machine,
 * each case run for real (3 clean repeats of 25 s by default; contaminated runs are repeated,
 * up to --max-attempts, and set aside) and simulated (several seeds) on the host topology with
 * the host kernel profile. Writes docs/fidelity-real.md: the host record, the noise between
 * repeats, per case and percentile the real range beside the simulated value (inside the range
 * widened by half?), how many cells are inside and how many effect directions agree.
 *
 * Real runs need a quiet machine: claim one, then run it (a run starts only once the machine is
quiet: it waits, up to --quiet-wait-s each time, until the budget ends); finished real runs are cached in
 * fidelity-real-cache/ (git-ignored), so the suite can span several quiet windows: run the same
 * command again and it goes on where it stopped. Not a test: it reports, it asserts nothing.
 *
 *   npm run fidelity:real                          # everything (about 20 quiet minutes)
 *   npm run fidelity:real -- --budget-min 22       # stop starting real runs after 22 min
 *   npm run fidelity:real -- --report-only         # no real runs: simulate, report the cache
 *   npm run fidelity:real -- --cases ct-alone,ct-hogs --repeats 3 --seeds 3 --duration-s 25
 *   npm run fidelity:real -- --report-only --topology host --out /tmp/bare.md
 *                     # simulate on the bare detected host instead of this machine's calibration
 *
 * The simulated side runs on this machine's calibrated topology (DEFAULT_TOPOLOGY: `schedlab
 * calibrate` fitted its costs, timer delivery and noise here); the summary also scores the bare
 * detected host ("topology": "host", no noise), from the same cache, so the two never compare
 * reports of different real runs.
 */
import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { resolve, join } from 'node:path'
import { parseArgs } from 'node:util'
import { simulate } from '../src/sim'
import { expandRuns, parseScenario, type Scenario } from '../src/sim/scenario'
import type { HostRecord, VariantResult } from '../src/shared/result'
import { hostSpecs } from '../src/real/host-specs'
import { realUnavailableReason, runRealOne } from '../src/real/runner'
import { isRealError } from '../src/real/errors'
import { direction, fmt, inside, rangeOf, type Range, type Score } from './fidelity-real/ranges'
import { CASES, EFFECTS, EFFECT_WHY, metricsOf, OUTSIDE_WHY, WARMUP_US, type Metric, type RealCase } from './fidelity-real/cases'
import { makeDirs } from '../src/services/data-dir'

const ROOT = resolve(import.meta.dirname, '..')
const CACHE = join(ROOT, 'fidelity-real-cache')

const { values: opt } = parseArgs({
  options: {
    cases: { type: 'string' },
    repeats: { type: 'string', default: '3' },
    'duration-s': { type: 'string', default: '25' },
    seeds: { type: 'string', default: '3' },
    'budget-min': { type: 'string' },
    'max-attempts': { type: 'string', default: '6' },
    'quiet-wait-s': { type: 'string', default: '120' },
    'report-only': { type: 'boolean', default: false },
    topology: { type: 'string' },
    out: { type: 'string' },
    'real-only': { type: 'boolean', default: false }
  }
})
const REPEATS = Number(opt.repeats)
const DURATION_MS = Number(opt['duration-s']) * 1000 + WARMUP_US / 1000
const SEEDS = Number(opt.seeds)
const MAX_ATTEMPTS = Number(opt['max-attempts'])
const BUDGET_MS = opt['budget-min'] ? Number(opt['budget-min']) * 60_000 : Infinity
const started = Date.now()
const cases = opt.cases ? CASES.filter((c) => opt.cases!.split(',').includes(c.id)) : CASES
const log = (s: string): void => void process.stderr.write(`[fidelity:real ${((Date.now() - started) / 1000).toFixed(0)} s] ${s}\n`)

function scenarioText(c: RealCase, durationMs: number): string {
  return JSON.stringify({ name: c.id, topology: 'host', kernel: { profile: 'host' }, durationMs, variants: [{ name: c.id }], workloads: c.workloads })
}

function scenarioOf(c: RealCase, durationMs: number): Scenario {
  return parseScenario(scenarioText(c, durationMs), `${c.id}.json`, { host: hostSpecs })
}

/** This machine calibrated (`schedlab calibrate`, docs/model.md "Calibration"). */
const DEFAULT_TOPOLOGY = 'resources/topologies/host-kvm-2vcpu.json'
/**
 * --topology FILE|host: what the simulated side runs on; the real runs and their cache keep
 * "host" (they run on this machine whatever the scenario says).
 */
const TOPOLOGY_ARG = opt.topology ?? DEFAULT_TOPOLOGY
const REPORT = opt.out ? resolve(opt.out) : join(ROOT, 'docs', 'fidelity-real.md')
const SIM_TOPOLOGY = TOPOLOGY_ARG === 'host' ? null : (JSON.parse(readFileSync(resolve(ROOT, TOPOLOGY_ARG), 'utf8')) as Record<string, unknown>)

function simScenarioOf(c: RealCase, durationMs: number, topology: Record<string, unknown> | null): Scenario {
  if (!topology) return scenarioOf(c, durationMs)
  const text = JSON.stringify({ ...JSON.parse(scenarioText(c, durationMs)), topology })
  return parseScenario(text, TOPOLOGY_ARG, { host: hostSpecs })
}

type Metrics = Partial<Record<Metric, number>>

function metricsFrom(c: RealCase, v: VariantResult): Metrics {
  if (c.kind === 'latency') {
    const l = v.workloads.find((w) => w.name === 'cyclictest')!.latencyUs
    return { p50: l.p50, p90: l.p90, p99: l.p99, p99_9: l.p99_9 }
  }
  if (c.kind === 'time') {
    const t = v.workloads.find((w) => w.name === 'hackbench')?.timeSec
    return t === undefined ? {} : { timeSec: t }
  }
  const cpu = (w: string): number => v.tasks.filter((t) => t.workload === w).reduce((a, t) => a + t.cpuTimeMs, 0)
  const a = cpu('nice0')
  const b = cpu('nice5')
  return a + b > 0 ? { sharePct: (a / (a + b)) * 100 } : {}
}

interface CachedRun {
  case: string
  hash: string
  attempt: number
  contaminated: boolean
  foreignCpuSec: number
  metrics: Metrics
  crossCheckMaxDiffUs?: number
  /** cyclictest's own percentiles in the same run (its histogram). */
  cyclictestUs?: Partial<Record<Metric, number | null>>
  inferredSwitches?: number
  lostEvents?: number
  host: HostRecord
  when: string
}

function caseHash(c: RealCase): string {
  return createHash('sha256').update(scenarioText(c, DURATION_MS)).digest('hex').slice(0, 12)
}

function cached(c: RealCase): CachedRun[] {
  if (!existsSync(CACHE)) return []
  const h = caseHash(c)
  return readdirSync(CACHE)
    .filter((f) => f.startsWith(`${c.id}--${h}--`) && f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(CACHE, f), 'utf8')) as CachedRun)
    .sort((a, b) => a.attempt - b.attempt)
}

async function realPhase(): Promise<void> {
  const why = realUnavailableReason() ?? (process.getuid?.() === 0 ? null : 'real runs need root')
  if (why) {
    log(`no real runs: ${why}; reporting what is cached`)
    return
  }
  makeDirs(CACHE)
  const attempts = new Map<string, number>()
  // round robin over the cases, so that slow changes of the machine spread over all of them
  for (;;) {
    const todo = cases.filter((c) => cached(c).filter((r) => !r.contaminated).length < REPEATS && (attempts.get(c.id) ?? 0) < MAX_ATTEMPTS)
    if (todo.length === 0) return
    for (const c of todo) {
      if (Date.now() - started + DURATION_MS + 20_000 > BUDGET_MS) {
        log('budget reached: run the same command again in the next quiet window to go on')
        return
      }
      const runs = cached(c)
      const attempt = (runs[runs.length - 1]?.attempt ?? 0) + 1
      const s = scenarioOf(c, DURATION_MS)
      const spec = expandRuns(s, { seed: attempt, seeds: 1 })[0]
      log(`${c.id}: real run ${attempt} (${runs.filter((r) => !r.contaminated).length} clean of ${REPEATS})`)
      let v: VariantResult
      try {
        v = await runRealOne(spec, { quiet: { timeoutMs: Number(opt['quiet-wait-s']) * 1000 }, requireQuiet: true, log: (l) => log(`  ${l}`) })
      } catch (e) {
        if (!isRealError(e, 'RealNotQuiet')) throw e
        log(`  ${e.message}: trying again`)
        continue
      }
      attempts.set(c.id, (attempts.get(c.id) ?? 0) + 1)
      const host = v.host as HostRecord
      const rec: CachedRun = {
        case: c.id,
        hash: caseHash(c),
        attempt,
        contaminated: host.contaminated,
        foreignCpuSec: host.foreignCpuSec,
        metrics: metricsFrom(c, v),
        crossCheckMaxDiffUs: v.workloads.find((w) => w.crossCheck)?.crossCheck?.maxAbsDiffUs,
        cyclictestUs: v.workloads.find((w) => w.crossCheck)?.crossCheck?.latencyUs,
        inferredSwitches: v.trace?.inferredSwitches,
        lostEvents: v.trace?.lostEvents,
        host,
        when: new Date().toISOString()
      }
      writeFileSync(join(CACHE, `${c.id}--${rec.hash}--${attempt}.json`), JSON.stringify(rec, null, 2) + '\n')
      log(`  ${c.id} #${attempt}: ${fmtMetrics(rec.metrics)}; foreign CPU ${rec.foreignCpuSec} s${rec.contaminated ? ' CONTAMINATED (set aside)' : ''}`)
    }
  }
}

function fmtMetrics(m: Metrics): string {
  return Object.entries(m).map(([k, v]) => `${k} ${fmt(v!)}`).join(', ')
}

/** A CPU share is read to a thousandth of a point: its real range is that narrow. */
function fmtM(m: Metric, x: number): string {
  return m === 'sharePct' && Number.isFinite(x) ? x.toFixed(3) : fmt(x)
}


function realRange(runs: CachedRun[], m: Metric): Range | null {
  return rangeOf(runs.map((r) => r.metrics), m)
}

interface SimCase {
  perSeed: Metrics[]
  mean: Metrics
}

function simPhase(topology: Record<string, unknown> | null): Map<string, SimCase> {
  const out = new Map<string, SimCase>()
  for (const c of cases) {
    const dur = Math.min(DURATION_MS, c.simDurationMs ?? DURATION_MS)
    const s = simScenarioOf(c, dur, topology)
    const perSeed: Metrics[] = []
    for (let seed = 1; seed <= SEEDS; seed++) {
      const t0 = Date.now()
      perSeed.push(metricsFrom(c, simulate(s, 0, seed)))
      log(`${c.id}: simulated seed ${seed} (${dur / 1000} s) in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${fmtMetrics(perSeed[perSeed.length - 1])}`)
    }
    const mean: Metrics = {}
    for (const m of metricsOf(c.kind)) {
      const xs = perSeed.map((p) => p[m]).filter((x): x is number => x !== undefined)
      if (xs.length > 0) mean[m] = xs.reduce((a, x) => a + x, 0) / xs.length
    }
    out.set(c.id, { perSeed, mean })
  }
  return out
}



const LABEL: Record<Metric, string> = { p50: 'p50', p90: 'p90', p99: 'p99', p99_9: 'p99.9', timeSec: 'time (s)', sharePct: 'share (%)' }


/**
 * The simulated direction: + or - when the mean moves beyond 10 % (and, for a latency, 1 us)
 * and the per-seed values of the two cases do not overlap (the rule of the real side: a change
 * inside the seeds' own spread is no effect); = otherwise.
 */
function simDirection(a: SimCase, b: SimCase, m: Metric): '+' | '-' | '=' {
  const ma = a.mean[m]!
  const mb = b.mean[m]!
  const xa = a.perSeed.map((p) => p[m]).filter((x): x is number => x !== undefined)
  const xb = b.perSeed.map((p) => p[m]).filter((x): x is number => x !== undefined)
  // the 1 us floor is for latencies; a run time in seconds or a share in % has none
  const floor = m === 'timeSec' || m === 'sharePct' ? 0 : 1
  if (mb > ma * 1.1 && mb - ma > floor && Math.min(...xb) > Math.max(...xa)) return '+'
  if (mb < ma / 1.1 && ma - mb > floor && Math.max(...xb) < Math.min(...xa)) return '-'
  return '='
}

/** The verdict of one cell: null when either side is missing. */
function cellVerdict(runs: CachedRun[], sim: SimCase | undefined, m: Metric): boolean | null {
  const r = realRange(runs, m)
  const sv = sim?.mean[m]
  return r && sv !== undefined ? inside(r, sv) : null
}

/** Real and simulated direction of one effect and metric: null when either side is missing. */
function effectVerdict(ra: Range | null, rb: Range | null, sa: SimCase | undefined, sb: SimCase | undefined, m: Metric): { rd: '+' | '-' | '='; sd: '+' | '-' | '=' } | null {
  if (!ra || !rb || sa?.mean[m] === undefined || sb?.mean[m] === undefined) return null
  return { rd: direction(ra, rb), sd: simDirection(sa, sb, m) }
}

function scoreOf(sims: Map<string, SimCase>, clean: (id: string) => CachedRun[]): Score {
  const s: Score = { cells: 0, inCells: 0, dirs: 0, agree: 0, clear: 0, clearAgree: 0 }
  for (const c of cases) {
    for (const m of metricsOf(c.kind)) {
      const ok = cellVerdict(clean(c.id), sims.get(c.id), m)
      if (ok === null) continue
      s.cells++
      if (ok) s.inCells++
    }
  }
  for (const e of EFFECTS) {
    const ca = cases.find((c) => c.id === e.a)
    if (!ca || !cases.some((c) => c.id === e.b)) continue
    for (const m of metricsOf(ca.kind)) {
      const v = effectVerdict(realRange(clean(e.a), m), realRange(clean(e.b), m), sims.get(e.a), sims.get(e.b), m)
      if (!v) continue
      s.dirs++
      if (v.rd === v.sd) s.agree++
      if (v.rd !== '=') {
        s.clear++
        if (v.rd === v.sd) s.clearAgree++
      }
    }
  }
  return s
}

function report(sims: Map<string, SimCase>, bare: Map<string, SimCase> | null): void {
  const real = new Map(cases.map((c) => [c.id, cached(c)]))
  const clean = (id: string): CachedRun[] => (real.get(id) ?? []).filter((r) => !r.contaminated).slice(0, Math.max(REPEATS, 1) * 2)
  const anyRun = [...real.values()].flat()[0]
  const specs = hostSpecs()
  const h = anyRun?.host
  let commit = ''
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
  } catch {
    // not a checkout
  }
  const L: string[] = []
  L.push('# Fidelity against the real kernel of this machine', '')
  L.push(`Generated by \`npm run fidelity:real\` (scripts/fidelity-real.mts) at commit ${commit || '?'} on ${new Date().toISOString().slice(0, 10)}. Real runs: \`schedlab real\` (src/real, docs/real-kernel.md); simulated runs: the same scenarios on ${SIM_TOPOLOGY ? `this machine's calibrated topology (${TOPOLOGY_ARG})` : '\`"topology": "host"\`'} with \`"kernel": { "profile": "host" }\`.`, '')
  L.push('## The host', '')
  if (h) {
    L.push(`- kernel ${h.kernel} (${String(h.version ?? '')}), ${h.cpus} CPUs (${String(h.model ?? '')}), HZ ${h.hz}, preempt=${h.preempt} (${String(h.preemptSource ?? '')}), autogroup ${h.autogroup ? 'on' : 'off'}`)
    const ci = h.cpuidle as { driver?: string; governor?: string; states?: { name: string; exitLatencyUs: number }[] } | undefined
    if (ci) L.push(`- cpuidle ${ci.driver ?? '-'} / ${ci.governor ?? '-'}: ${(ci.states ?? []).map((s) => `${s.name} (exit ${s.exitLatencyUs} us)`).join(', ')}`)
  } else L.push('- no real run recorded yet')
  if (SIM_TOPOLOGY) {
    const t = SIM_TOPOLOGY as { costs?: unknown; noise?: unknown }
    L.push(`- simulated on the topology file ${TOPOLOGY_ARG} (this machine calibrated by \`schedlab calibrate\`, docs/model.md "Calibration"): costs ${JSON.stringify(t.costs ?? {})}, background noise ${JSON.stringify(t.noise ?? {})}; kernel profile ${specs.kernel?.profile ?? 'host'}, HZ ${specs.kernel?.hz}, preempt ${specs.kernel?.preempt ?? 'default'}`)
  } else if (specs.topology && specs.kernel) {
    L.push(`- simulated as topology "host" (${specs.topology.clusters.map((c) => `${c.cpus} x capacity ${c.capacity}`).join(' + ')}) with kernel profile ${specs.kernel.profile}, HZ ${specs.kernel.hz}, preempt ${specs.kernel.preempt ?? 'default'}`)
  }
  L.push('')
  L.push('## Method', '')
  L.push(`- Each case is one scenario (scripts/fidelity-real/cases.ts). The load starts at once; cyclictest (\`-t1 -i 2777 --policy other\` unless the case says otherwise) starts ${WARMUP_US / 1e6} s later and measures for ${(DURATION_MS - WARMUP_US / 1000) / 1000} s.`)
  L.push(`- Real: ${REPEATS} clean repeats per case, the cases taken round robin; a run starts only after the machine was quiet (others under 0.1 CPU for 2 s); a run is contaminated when processes that are not ours used more than 0.08 CPU-s per second of run (from /proc), and is repeated (at most ${MAX_ATTEMPTS} attempts per case and invocation) and set aside. Latency is from the trace (requested hrtimer expiry to sched_switch), as \`schedlab analyze\` reads it.`)
  const sameSeeds = cases.filter((c) => {
    const ps = sims.get(c.id)?.perSeed ?? []
    return ps.length > 1 && ps.every((p) => JSON.stringify(p) === JSON.stringify(ps[0]))
  })
  L.push(`- Simulated: ${SEEDS} seeds per case, the mean of the per-seed values; heavy cases are simulated for a shorter time (noted per case).${sameSeeds.length ? ` In ${sameSeeds.length} of ${cases.length} cases every seed gives the same figures: nothing in those scenarios' model is random on this topology, so the seeds do not stand for the run-to-run noise of the real kernel.` : ''}`)
  if (SIM_TOPOLOGY) L.push(`- Topology: the simulated side runs on ${TOPOLOGY_ARG}, this machine calibrated by \`schedlab calibrate\`: costs from cyclictest alone and hackbench alone, the background noise's kernel threads and daemons read from a real trace, and the timer delivery delay and vCPU stalls fitted to the clean runs of two cases of this suite, ct-alone and fifo-hogs (\`schedlab calibrate --topology ${TOPOLOGY_ARG} --from fidelity-real-cache --params timerDelayUs,timerDelaySigma,stallPeriodUs,stallUs,sigma\`). The one calibration is applied to every case; no case is fitted on its own. \`"topology": "host"\` alone is the bare detected machine (no noise, default costs); the summary scores it too, from the same real runs.`)
  L.push('- "inside": the simulated value lies in the real range (min..max over the clean repeats) widened by half its width on each side.')
  L.push('- Effect directions: for each pair of cases, per metric, the real direction is + or - when the two real ranges do not overlap, = when they do; the simulated one is + or - beyond a 10 % (and, for a latency, 1 us) change of the mean when the per-seed values of the two cases do not overlap, = otherwise. A cell outside and a direction that disagrees each carry their explanation (scripts/fidelity-real/cases.ts).', '')

  L.push('## Noise between repeats', '')
  L.push('| case | metric | clean runs | min | max | max/min | set aside (foreign CPU-s) |', '|---|---|---|---|---|---|---|')
  for (const c of cases) {
    const runs = clean(c.id)
    const aside = (real.get(c.id) ?? []).filter((r) => r.contaminated)
    for (const m of metricsOf(c.kind)) {
      const r = realRange(runs, m)
      L.push(`| ${c.id} | ${LABEL[m]} | ${r?.n ?? 0} | ${r ? fmt(r.lo) : '-'} | ${r ? fmt(r.hi) : '-'} | ${r && r.lo > 0 ? `${(r.hi / r.lo).toFixed(2)}x` : '-'} | ${m === metricsOf(c.kind)[0] ? aside.map((a) => a.foreignCpuSec).join(', ') || '-' : ''} |`)
    }
  }
  L.push('')

  L.push('## Every real run', '')
  L.push('Foreign CPU: CPU time of processes that were not ours during the run (from /proc); the run is contaminated above the threshold and set aside. Steal: time the hypervisor ran something else on our vCPUs (/proc/stat), which no process here accounts for.', '')
  L.push('| case | attempt | when (UTC) | foreign CPU-s (threshold) | steal CPU-s | load before -> after | contaminated | largest foreign process | lost events | trace vs cyclictest (us) |', '|---|---|---|---|---|---|---|---|---|---|')
  for (const c of cases) {
    for (const r of real.get(c.id) ?? []) {
      const top = (r.host.foreignTop as { comm: string; cpuSec: number }[] | undefined)?.[0]
      L.push(`| ${c.id} | ${r.attempt} | ${r.when.slice(11, 19)} | ${r.foreignCpuSec} (${String(r.host.contaminationThresholdSec ?? '-')}) | ${String(r.host.stealSec ?? '-')} | ${r.host.loadavg.before[0]} -> ${r.host.loadavg.after[0]} | ${r.contaminated ? 'yes' : 'no'} | ${top ? `${top.comm.replaceAll('|', '/')} ${top.cpuSec} s` : '-'} | ${r.lostEvents ?? '-'} | ${r.crossCheckMaxDiffUs !== undefined ? `within ${fmt(r.crossCheckMaxDiffUs)}` : '-'} |`)
    }
  }
  L.push('')

  L.push('## Real beside simulated', '')
  for (const c of cases) {
    const runs = clean(c.id)
    const sim = sims.get(c.id)
    L.push(`### ${c.id}: ${c.title}`, '')
    if (c.reference) L.push(`Measured here earlier (reference/real-kernel.md): ${c.reference}.`)
    if (c.simDurationMs && c.simDurationMs < DURATION_MS) L.push(`Simulated for ${c.simDurationMs / 1000} s per seed.`)
    const dirty = (real.get(c.id) ?? []).filter((r) => r.contaminated)
    L.push('', '| metric | real range | simulated (seeds) | inside? | contaminated runs (set aside) |', '|---|---|---|---|---|')
    const why: string[] = []
    for (const m of metricsOf(c.kind)) {
      const r = realRange(runs, m)
      const d = realRange(dirty, m)
      const sv = sim?.mean[m]
      const seeds = sim ? sim.perSeed.map((p) => p[m]).filter((x): x is number => x !== undefined) : []
      const ok = cellVerdict(runs, sim, m)
      if (ok === false) why.push(`- ${LABEL[m]} outside: ${OUTSIDE_WHY[`${c.id}:${m}`] ?? 'NOT EXPLAINED'}`)
      L.push(`| ${LABEL[m]} | ${r ? `${fmtM(m, r.lo)} - ${fmtM(m, r.hi)} (${r.n})` : 'no clean run'} | ${sv !== undefined ? `${fmtM(m, sv)} (${seeds.map((x) => fmtM(m, x)).join(', ')})` : '-'} | ${ok === null ? '-' : ok ? 'inside' : 'outside'} | ${d ? `${fmtM(m, d.lo)} - ${fmtM(m, d.hi)} (${d.n})` : '-'} |`)
    }
    if (why.length > 0) L.push('', ...why)
    const cc = runs.map((r) => r.crossCheckMaxDiffUs).filter((x): x is number => x !== undefined)
    if (cc.length > 0) {
      const own = (m: Metric): string => {
        const xs = runs.map((r) => r.cyclictestUs?.[m]).filter((x): x is number => typeof x === 'number')
        return xs.length === 0 ? '?' : xs.length === 1 ? fmt(xs[0]) : `${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}`
      }
      const withOwn = runs.filter((r) => r.cyclictestUs).length
      L.push('', `cyclictest's own histogram against the trace: within ${fmt(Math.max(...cc))} us at every percentile (worst of ${cc.length} runs)${withOwn ? `; its own p50/p90/p99/p99.9 (kept for ${withOwn} of the ${runs.length} runs): ${metricsOf(c.kind).map(own).join(' / ')}` : ''}.`)
    }
    L.push('')
  }

  L.push('## Effect directions', '')
  L.push('| effect | metric | real A | real B | real | simulated A -> B | simulated | agree |', '|---|---|---|---|---|---|---|---|')
  const disagree: string[] = []
  for (const e of EFFECTS) {
    const ca = cases.find((c) => c.id === e.a)
    const cb = cases.find((c) => c.id === e.b)
    if (!ca || !cb) continue
    for (const m of metricsOf(ca.kind)) {
      const ra = realRange(clean(e.a), m)
      const rb = realRange(clean(e.b), m)
      const v = effectVerdict(ra, rb, sims.get(e.a), sims.get(e.b), m)
      if (!v || !ra || !rb) continue
      const { rd, sd } = v
      if (rd !== sd) disagree.push(`- ${e.what}, ${LABEL[m]}: ${EFFECT_WHY[`${e.a}->${e.b}:${m}`] ?? 'NOT EXPLAINED'}`)
      L.push(`| ${e.what} (${e.a} -> ${e.b}) | ${LABEL[m]} | ${fmtM(m, ra.lo)} - ${fmtM(m, ra.hi)} | ${fmtM(m, rb.lo)} - ${fmtM(m, rb.hi)} | ${rd} | ${fmt(sims.get(e.a)!.mean[m]!)} -> ${fmt(sims.get(e.b)!.mean[m]!)} | ${sd} | ${rd === sd ? 'yes' : 'no'} |`)
    }
  }
  if (disagree.length > 0) L.push('', 'Where the directions disagree:', '', ...disagree)
  L.push('')
  const { inCells, cells, agree, dirs, clear, clearAgree } = scoreOf(sims, clean)
  L.push('## Summary', '')
  L.push(`- ${inCells} of ${cells} cells: the simulated value is inside the real range widened by half.`)
  L.push(`- ${agree} of ${dirs} effect directions agree (${clearAgree} of the ${clear} where the real effect is clear).`)
  if (bare) {
    const b = scoreOf(bare, clean)
    L.push(`- The bare detected host (\`"topology": "host"\`: default costs, no noise, every seed the same), from the same real runs: ${b.inCells} of ${b.cells} cells inside, ${b.agree} of ${b.dirs} directions agree.`)
  }
  const total = [...real.values()].flat()
  L.push(`- ${total.filter((r) => !r.contaminated).length} clean real runs, ${total.filter((r) => r.contaminated).length} set aside as contaminated.`)
  L.push('')
  writeFileSync(REPORT, L.join('\n'))
  log(`wrote ${REPORT}: ${inCells}/${cells} inside, ${agree}/${dirs} directions agree`)
}

if (!opt['report-only']) await realPhase()
if (!opt['real-only']) report(simPhase(SIM_TOPOLOGY), SIM_TOPOLOGY ? simPhase(null) : null)
