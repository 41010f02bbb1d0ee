/**
 * `npm run bench`: what users wait for. Prints tables and writes bench-results.json.
 *
 * - `scenarios[]` (DESIGN.md contract): the throughput scenarios of src/sim/bench-scenarios.ts;
 *   events, events/s, simulated time per wall time, peak RSS and heapRatio = our events/s over
 *   a bare binary-heap push/pop loop of the same event count in the same process (our ceiling),
 *   both rates on this process's CPU time (eventsPerCpuSec; a shared machine's wall clock
 *   counts the others' time slices too).
 * - `setups[]`: every preset (the seed threads' setups), each variant measured on one core:
 *   events per simulated second and per context switch, simulated seconds per wall second
 *   (simToWall) and per CPU second (simToCpu: the one-core speed on a busy machine), peak
 *   RSS; and the time to answer: the wall time to reach the published run's sample count for
 *   all variants on this machine's worker pool, beside the board's time (published duration x
 *   variants; hackbench setups: the board's run, BOARD_RUN, as every figure of theirs).
 *
 * Every measurement runs in a fresh child process (its own peak RSS, its own JIT warm-up), one
 * at a time. `--quick` estimates the time to answer from the measured throughput instead of
 * running the published durations; `--answer-max SEC` (default 180) runs them only where that
 * estimate is at most SEC (longer ones would hold both cores of a shared machine for many
 * minutes: they are reported as estimates, `answerEstimated: true`); `--only NAME` restricts
 * to names containing NAME; `--no-answer` skips the time to answer. At the end it prints the
 * setups as a Markdown table (README's). A benchmark, not a test: it asserts nothing.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { availableParallelism } from 'node:os'
import { simulateDetailed } from '../src/sim/index'
import { quickScenario } from '../src/sim/testing'
import { MMTESTS_HACKBENCH_LOOPS } from '../src/calibrate/suites'
import { BENCH_SCENARIOS } from '../src/sim/bench-scenarios'
import { EventQueue } from '../src/sim/engine/event-queue'
import { Prng } from '../src/sim/engine/prng'
import { listPresets } from '../src/services/presets'
import { applySets, expandRuns, parseScenario, setArgsOf, type Scenario } from '../src/sim/scenario'
import type { VariantResult } from '../src/shared/result'
import { answerOnPool } from './bench-answer'
import { planReplicas } from '../src/sim/replicas'

const SELF = fileURLToPath(import.meta.url)

/**
 * The board's side of the comparison for presets without `publishedDurationMs`: hackbench
 * setups publish a runtime per run (one sample per variant), from the preset's description,
 * and the bench runs the published run's size (`sets`, as `--set`), not the preset's shorter
 * default: every figure of these setups (events, one-core speed, time to answer) is of that run.
 */
const BOARD_RUN: Record<string, { sec: number; sets: Record<string, number> }> = {
  // seed 000 v1: 1 group, process, pipe, tip; the letter gives no loop count: 4000 loops as the
  // fidelity report's 1-group rows (scripts/fidelity/cases.ts), 0.80 s simulated
  'hackbench-groups-rb5': { sec: 0.863, sets: { 'workloads[0].loops': 4000 } },
  // seed 003: 1 group, process pipes, vanilla; mmtests runs -l 10000 (docs/fidelity.md, row 7)
  'hackbench-next-buddy-x86': { sec: 0.2657, sets: { 'workloads[0].loops': MMTESTS_HACKBENCH_LOOPS } }
}

// ---------------------------------------------------------------------------------------------
// children: one measurement each
// ---------------------------------------------------------------------------------------------

/** The ceiling: push and pop `events` events through the same heap, `pending` in flight. */
function bareHeap(events: number, pending: number): number {
  const q = new EventQueue(1024)
  const rng = new Prng(1)
  let now = 0
  for (let i = 0; i < pending; i++) q.push(rng.below(1_000_000), 1, i, 0)
  const t0 = cpuNow()
  for (let i = 0; i < events; i++) {
    q.pop()
    now = q.popTime
    q.push(now + 1 + rng.below(1_000_000), q.popKind, q.popTarget, q.popGen)
  }
  return events / (cpuNow() - t0)
}

/**
 * This process's CPU seconds (user + system). The ratios and the one-core figures are taken
 * on CPU time: on a machine shared with others a wall clock also counts their time slices.
 */
function cpuNow(): number {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1e6
}

/** bareHeap after a warm-up pass, the median of enough passes to cover a second. */
function heapCeiling(events: number, pending: number): number {
  bareHeap(events, pending)
  const rates: number[] = []
  for (let total = 0; rates.length < 3 || total < 1; ) {
    const r = bareHeap(events, pending)
    rates.push(r)
    total += events / r
  }
  return median(rates)
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

const rssMb = (): number => Math.round(process.resourceUsage().maxRSS / 1024)
const r2 = (x: number): number => Math.round(x * 100) / 100
const r3 = (x: number): number => Math.round(x * 1000) / 1000

function childThroughput(name: string): Record<string, number | string> {
  const b = BENCH_SCENARIOS.find((x) => x.name === name)
  if (!b) throw new Error(`no bench scenario ${name}`)
  const s = quickScenario(b.scenario)
  // one full run to warm the JIT up, then the median of at least three, and of at least a
  // second of runs (short scenarios are otherwise all timer noise)
  const warm = simulateDetailed(s, 0, 1)
  const walls: number[] = []
  const cpus: number[] = []
  for (let total = 0; walls.length < 3 || total < 1; ) {
    const t0 = performance.now()
    const c0 = cpuNow()
    simulateDetailed(s, 0, 1)
    cpus.push(cpuNow() - c0)
    walls.push((performance.now() - t0) / 1000)
    total += walls[walls.length - 1]
  }
  const wall = median(walls)
  const cpu = median(cpus)
  const events = warm.result.stats.events
  const eventsPerSec = events / wall
  const pending = Math.max(16, warm.kernel.eq.size)
  const ceiling = heapCeiling(events, pending)
  return {
    name: b.name,
    events,
    eventsPerSec: Math.round(eventsPerSec),
    simToWall: r2(s.durationMs / 1000 / wall),
    eventsPerCpuSec: Math.round(events / cpu),
    peakRssMb: rssMb(),
    heapRatio: r3(events / cpu / ceiling)
  }
}

/**
 * A preset as the board ran it (BOARD_RUN's size), optionally at another duration (no event
 * limit: the bench decides what it runs).
 */
export function presetScenario(id: string, durationMs?: number): Scenario {
  const p = listPresets().find((x) => x.id === id)
  if (!p) throw new Error(`no preset ${id}`)
  const text = applySets(readFileSync(p.file, 'utf8'), setArgsOf(BOARD_RUN[id]?.sets ?? {}))
  return parseScenario(text, p.file, { maxEvents: 1e15, ...(durationMs !== undefined ? { durationMs } : {}) })
}

/**
 * The one-core measurement runs the preset's own duration (at least 2 s), then, while that took
 * under 2 s of CPU, again for about 4 s of CPU at the rate just measured (at most the published
 * duration), and reports the last run. A light preset's own few seconds are some 10^5 events,
 * which run mostly before V8 has optimized the hot paths: its one-core speed, and the time to
 * answer estimated from it, came out several times too slow against a published-length run
 * (cyclictest + rt-app in one process: 7.6 simulated seconds per CPU second on 5 s, 64 on 130 s).
 */
const MEASURE_CPU_SEC = 4

function childSetup(id: string, variant: number): Record<string, number | string> {
  const base = presetScenario(id)
  const floor = Math.max(base.durationMs, 2000)
  const cap = Math.max(floor, base.publishedDurationMs ?? floor)
  const name = base.variants[variant].name
  // cold: this fresh process's first run (V8 compiles the hot paths while it runs), as long as
  // the preset's own run; its cost per switch against the steady state's is the warm-up's share
  const [coldRun] = expandRuns(base, { variants: [name], seeds: 1, durationMs: floor })
  const cc0 = cpuNow()
  const cold = simulateDetailed(coldRun.scenario, coldRun.variantIndex, coldRun.seed).result.stats
  const coldCpu = cpuNow() - cc0
  let ms = floor
  for (;;) {
    const [run] = expandRuns(base, { variants: [name], seeds: 1, durationMs: ms })
    const t0 = performance.now()
    const c0 = cpuNow()
    const { result, kernel } = simulateDetailed(run.scenario, run.variantIndex, run.seed)
    const cpu = cpuNow() - c0
    const wall = (performance.now() - t0) / 1000
    const next = Math.round(Math.min(cap, (ms * MEASURE_CPU_SEC) / Math.max(cpu, 1e-3)))
    if (cpu < MEASURE_CPU_SEC / 2 && next > ms * 1.2) {
      ms = next
      continue
    }
    const f = setupFigures(run.variant, result, kernel, cpu, wall)
    const coldUs = (coldCpu * 1e6) / Math.max(1, cold.contextSwitches)
    f.usPerSwitchCold = r3(coldUs)
    // the share of the cold run's CPU time that the steady state would not have spent
    f.warmupShare = r3(Math.max(0, 1 - (f.usPerSwitch as number) / coldUs))
    return f
  }
}

function setupFigures(variant: string, result: VariantResult, kernel: { eq: { size: number } }, cpu: number, wall: number): Record<string, number | string> {
  const st = result.stats
  const simSec = st.simulatedMs / 1000
  const ceiling = heapCeiling(Math.min(st.events, 2_000_000), Math.max(16, kernel.eq.size))
  return {
    variant,
    events: st.events,
    eventsPerSec: Math.round(st.events / wall),
    simToWall: r3(simSec / wall),
    peakRssMb: rssMb(),
    simToCpu: r3(simSec / cpu),
    heapRatio: r3(st.events / cpu / ceiling),
    simulatedSec: r3(simSec),
    wallSec: r3(wall),
    cpuSec: r3(cpu),
    eventsPerSimSec: Math.round(st.events / simSec),
    contextSwitches: st.contextSwitches,
    eventsPerSwitch: r2(st.events / Math.max(1, st.contextSwitches)),
    // CPU time per simulated context switch, steady state (after a cold run of the same size)
    usPerSwitch: r3((cpu * 1e6) / Math.max(1, st.contextSwitches))
  }
}

// ---------------------------------------------------------------------------------------------
// parent
// ---------------------------------------------------------------------------------------------

function inChild(args: string[]): Record<string, number | string> {
  const r = spawnSync(process.execPath, [...process.execArgv, SELF, '--child', ...args], { encoding: 'utf8', maxBuffer: 1 << 24 })
  if (r.status !== 0) throw new Error(`bench child ${args.join(' ')} failed: ${r.stderr}`)
  const line = r.stdout.trim().split('\n').pop() ?? ''
  return JSON.parse(line) as Record<string, number | string>
}

interface SetupRow {
  name: string
  variants: Record<string, number | string>[]
  [k: string]: unknown
}

/** Published duration (or run time) of one variant on the board, seconds, and what it counts. */
function boardOf(id: string, s: Scenario): { sec: number; samples: string } | null {
  if (s.publishedDurationMs !== undefined) {
    const ct = s.workloads.find((w) => w.type === 'cyclictest') as { periodUs?: number; threads?: number } | undefined
    const samples = ct?.periodUs ? `${Math.round((s.publishedDurationMs * 1000) / ct.periodUs) * (ct.threads ?? 1)} cyclictest samples` : `${s.publishedDurationMs / 1000} s`
    return { sec: s.publishedDurationMs / 1000, samples }
  }
  const run = BOARD_RUN[id]
  if (run === undefined) return null
  const size = Object.entries(run.sets).map(([k, v]) => `${k.replace(/^workloads\[0\]\./, '')} ${v}`).join(', ')
  return { sec: run.sec, samples: `one hackbench run${size ? ` (${size})` : ''}` }
}

/** Longest-processing-time makespan of `jobs` seconds over `workers`. */
function makespan(jobs: number[], workers: number): number {
  const load = new Array<number>(workers).fill(0)
  for (const j of [...jobs].sort((a, b) => b - a)) load[load.indexOf(Math.min(...load))] += j
  return Math.max(...load)
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2)
  if (argv[0] === '--child') {
    const out = argv[1] === 'throughput' ? childThroughput(argv[2]) : childSetup(argv[2], Number(argv[3]))
    process.stdout.write(JSON.stringify(out) + '\n')
    return
  }
  const quick = argv.includes('--quick')
  const noAnswer = argv.includes('--no-answer')
  const answerMax = argv.includes('--answer-max') ? Number(argv[argv.indexOf('--answer-max') + 1]) : 180
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1] : undefined
  const want = (n: string): boolean => !only || n.includes(only)
  const workers = Math.max(1, availableParallelism())

  const scenarios: Record<string, number | string>[] = []
  for (const b of BENCH_SCENARIOS) if (want(b.name)) scenarios.push(inChild(['throughput', b.name]))
  if (scenarios.length > 0) console.table(scenarios)
  const scaling = taskScaling(scenarios)
  if (scaling) console.log(scaling)

  const setups: SetupRow[] = []
  for (const p of listPresets()) {
    if (!want(p.id)) continue
    const s = presetScenario(p.id)
    const variants = s.variants.map((_, i) => inChild(['setup', p.id, String(i)]))
    const board = boardOf(p.id, s)
    const row: SetupRow = {
      name: p.id,
      events: sum(variants, 'events'),
      eventsPerSec: Math.round(sum(variants, 'events') / sum(variants, 'wallSec')),
      simToWall: Math.min(...variants.map((v) => v.simToWall as number)),
      simToCpu: Math.min(...variants.map((v) => v.simToCpu as number)),
      peakRssMb: Math.max(...variants.map((v) => v.peakRssMb as number)),
      heapRatio: Math.min(...variants.map((v) => v.heapRatio as number)),
      eventsPerSimSec: Math.round(sum(variants, 'events') / sum(variants, 'simulatedSec')),
      eventsPerSwitch: r2(sum(variants, 'events') / Math.max(1, sum(variants, 'contextSwitches'))),
      usPerSwitch: r3((sum(variants, 'cpuSec') * 1e6) / Math.max(1, sum(variants, 'contextSwitches'))),
      usPerSwitchCold: Math.max(...variants.map((v) => v.usPerSwitchCold as number)),
      warmupShare: Math.max(...variants.map((v) => v.warmupShare as number)),
      variants
    }
    if (board) {
      row.publishedSamples = board.samples
      row.boardSec = r2(board.sec * s.variants.length)
      if (!noAnswer) {
        const est = estimateAnswer(s, variants, board.sec, workers)
        row.timeToAnswerEstimateSec = r2(est)
        if (!quick && est <= answerMax) {
          const a = await answerOnPool(presetScenario(p.id, s.publishedDurationMs), workers)
          row.timeToAnswerSec = r2(a.wallSec)
          row.answerRuns = a.runs
          if (a.replicas) row.replicas = a.replicas
        } else row.answerEstimated = true
        const t = (row.timeToAnswerSec ?? row.timeToAnswerEstimateSec) as number
        row.speedupVsBoard = r2((board.sec * s.variants.length) / t)
      }
    }
    setups.push(row)
    printSetup(row)
  }

  const file = resolve(process.cwd(), 'bench-results.json')
  writeFileSync(file, JSON.stringify({ workers, quick, scenarios, setups }, null, 2) + '\n')
  console.log(`wrote ${file}`)
  if (setups.length > 0) console.log('\n' + markdownTable(setups, workers))
}

/**
 * The time to answer from measured one-core throughput: each variant's published duration at
 * its one-core speed, simToCpu (hackbench setups: the measured run itself, which ends when
 * hackbench does), scheduled over the pool's workers.
 */
function estimateAnswer(s: Scenario, variants: Record<string, number | string>[], boardSec: number, workers: number): number {
  if (s.publishedDurationMs === undefined) return makespan(variants.map((v) => v.cpuSec as number), workers)
  // as the pool runs them: long steady runs as replicas (their warm-ups included)
  const plan = planReplicas({ ...s, durationMs: s.publishedDurationMs }, variants.length, workers)
  const k = plan?.replicas ?? 1
  const pieceSec = boardSec / k + (plan?.warmupMs ?? 0) / 1000
  return makespan(variants.flatMap((v) => new Array<number>(k).fill(pieceSec / (v.simToCpu as number))), workers)
}

/** The setups as README shows them (one line each; `~` marks an estimated time to answer). */
function markdownTable(rows: SetupRow[], workers: number): string {
  const head = `| setup | variants | µs / switch (steady; cold) | warm-up share | events / switch | sim-s per CPU-s (slowest variant, 1 core) | peak RSS | time to answer (${workers} workers) | board |`
  const lines = rows.map((r) => {
    const answer = r.timeToAnswerSec !== undefined ? `${r.timeToAnswerSec} s` : r.timeToAnswerEstimateSec !== undefined ? `~${r.timeToAnswerEstimateSec} s` : '-'
    return `| ${r.name} | ${r.variants.length} | ${r.usPerSwitch}; ${r.usPerSwitchCold} | ${Math.round((r.warmupShare as number) * 100)} % | ${r.eventsPerSwitch} | ${r.simToCpu} | ${r.peakRssMb} MB | ${answer} | ${r.boardSec ?? '-'} s |`
  })
  return [head, '|---|---|---|---|---|---|---|---|---|', ...lines].join('\n')
}

function sum(rows: Record<string, number | string>[], key: string): number {
  return rows.reduce((a, r) => a + ((r[key] as number) ?? 0), 0)
}

function printSetup(r: SetupRow): void {
  const v = r.variants.map((x) => `${x.variant}: ${x.simToCpu}x, ${x.eventsPerSwitch} ev/sw`).join('; ')
  const answer = r.timeToAnswerSec !== undefined ? `${r.timeToAnswerSec} s` : r.timeToAnswerEstimateSec !== undefined ? `~${r.timeToAnswerEstimateSec} s (estimate)` : '-'
  console.log(`${r.name}: ${r.eventsPerSimSec} ev/sim-s, ${r.eventsPerSwitch} ev/switch, ${r.peakRssMb} MB; answer ${answer} vs board ${r.boardSec ?? '-'} s (${r.publishedSamples ?? ''})\n    ${v}`)
}

/** Cost per event at 320 tasks over 16 tasks on power11-160, against log(320)/log(16). */
function taskScaling(rows: Record<string, number | string>[]): string | null {
  const eps = (n: string): number | undefined => rows.find((r) => r.name === n)?.eventsPerSec as number | undefined
  const small = eps('power11-160-16tasks')
  const big = eps('power11-160-320tasks')
  if (!small || !big) return null
  const growth = small / big
  const bound = Math.log(320) / Math.log(16)
  return `power11-160: cost per event x${growth.toFixed(2)} from 16 to 320 tasks (log bound x${bound.toFixed(2)}): ${growth <= bound ? 'within' : 'EXCEEDS'}`
}

void main()
