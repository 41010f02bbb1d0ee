import { type RunSpec, type Scenario, ScenarioError } from '../sim/scenario'
import type { VariantResult } from '../shared/result'
import { formatInsufficient } from '../stats/quantile'
import { DEFAULT_MAX_SEEDS, DEFAULT_MIN_SEEDS, resolveTargetWorkload, runToPrecision, type VariantPrecision } from '../stats/precision'
import { type PrecisionTarget, type RunArgs } from './args'
import { InputError } from './errors'
import { makeExecutor } from './executor'
import { cliLimits, precisionRefusals } from '../services/limits'
import type { CliIo } from './io'
import type { SimulateFn } from './simulator'

/** `--precision`: seeds added per variant on the worker pool until the interval is tight enough. */


export interface PrecisionReport {
  target: string
  workload: string
  metric: PrecisionTarget['metric']
  pct: number
  maxSeeds: number
  variants: { name: string; seeds: number; halfWidthPct: number | null; reached: boolean }[]
}

/** The workload a target names: its name, else its type (or ct/hb/sb/rt), else a unique prefix. */
export function resolveWorkload(s: Scenario, name: string): string {
  const r = resolveTargetWorkload(s.workloads, name)
  if (typeof r === 'string') throw new InputError(`--precision: ${r}`)
  return r.name
}

function stateText(s: Scenario, v: VariantPrecision, pct: number): string {
  const name = s.variants[v.variantIndex].name
  const e = v.estimate
  const h = e?.insufficient ? formatInsufficient(e.insufficient) : v.halfWidthPct === null ? 'no interval yet' : `±${v.halfWidthPct.toFixed(1)} %`
  const mark = v.reached ? ' ok' : v.running ? '' : ` (limit; not within ${pct} %)`
  return `${name}: ${v.seeds} seed${v.seeds === 1 ? '' : 's'} ${h}${mark}`
}

export async function runPrecision(
  a: RunArgs, target: PrecisionTarget, scenario: Scenario, runs: RunSpec[], io: CliIo, simulate?: SimulateFn
): Promise<{ results: VariantResult[]; report: PrecisionReport }> {
  const workload = resolveWorkload(scenario, target.workload)
  const variants = [...new Set(runs.map((r) => r.variantIndex))]
  const specOf = new Map(runs.map((r) => [r.variantIndex, r]))
  const maxSeeds = a.maxSeeds ?? DEFAULT_MAX_SEEDS
  const minSeeds = a.seeds ?? Math.max(DEFAULT_MIN_SEEDS, scenario.seeds)
  // The most this can cost: every variant run to --max-seeds, checked like any submission.
  const limits = cliLimits(a)
  const refusals = precisionRefusals(runs, maxSeeds, limits)
  if (refusals.length > 0) throw new ScenarioError(scenario.file ?? scenario.name, refusals.map((message) => ({ path: '--max-seeds', message })))
  const ex = makeExecutor(simulate, limits)
  const started = io.now()
  const label = `${workload}.${target.metric === 'p99_9' ? 'p99.9' : target.metric} within ${target.pct} %`
  io.err(`precision: ${label}, ${variants.length} variant(s), ${minSeeds}..${maxSeeds} seeds, ${ex.parallelism} in parallel\n`)
  try {
    const out = await runToPrecision({
      variants,
      firstSeed: runs[0]?.seed ?? scenario.seed,
      minSeeds,
      maxSeeds,
      concurrency: ex.parallelism,
      target: { workload, metric: target.metric, pct: target.pct },
      submit: (vi, seed) => {
        const base = specOf.get(vi)!
        return ex.submit({ ...base, seed })
      },
      onCheck: (states) => {
        const line = `precision ${label} (${((io.now() - started) / 1000).toFixed(1)} s): ${states.map((v) => stateText(scenario, v, target.pct)).join('; ')}`
        io.err(io.errIsTty ? `\r${line}\u001b[K` : `${line}\n`)
      }
    })
    if (io.errIsTty) io.err('\n')
    const report: PrecisionReport = {
      target: target.text, workload, metric: target.metric, pct: target.pct, maxSeeds,
      variants: out.variants.map((v) => ({
        name: scenario.variants[v.variantIndex].name,
        seeds: v.seeds,
        halfWidthPct: v.halfWidthPct === null ? null : Math.round(v.halfWidthPct * 100) / 100,
        reached: v.reached
      }))
    }
    for (const v of out.variants) {
      if (!v.reached) io.err(`warning: ${stateText(scenario, v, target.pct)}: raise --max-seeds or the duration\n`)
    }
    io.err(`precision: done in ${((io.now() - started) / 1000).toFixed(1)} s\n`)
    return { results: out.results, report }
  } finally {
    await ex.close()
  }
}

export function precisionText(p: PrecisionReport | undefined): string {
  if (!p) return ''
  const rows = p.variants.map((v) => `  ${v.name}: ${v.seeds} seeds, ±${v.halfWidthPct === null ? '?' : v.halfWidthPct.toFixed(1)} %${v.reached ? '' : ` (not within ${p.pct} % at the limit of ${p.maxSeeds} seeds)`}`)
  return `\nprecision ${p.workload}.${p.metric === 'p99_9' ? 'p99.9' : p.metric} within ${p.pct} %:\n${rows.join('\n')}\n`
}
