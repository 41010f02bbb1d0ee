import { IssueSink, ScenarioError } from './errors'
import { checkEstimate } from './parse'
import { submissionRefusals, type SubmissionLimits } from './estimate'
import type { Scenario } from './types'

export interface ExpandOptions {
  /** Variant names to run (`--variant`), in this order (the first is compare's baseline); default all, in scenario order. */
  variants?: string[]
  /** First seed (`--seed`); default the scenario's. */
  seed?: number
  /** Runs per variant (`--seeds`); default the scenario's. */
  seeds?: number
  /** Simulated duration override (`--duration-ms`). */
  durationMs?: number
  /** The host's limits on the whole submission (total events; memory per run). */
  limits?: SubmissionLimits
}

/** One independent simulation: simulate(scenario, variantIndex, seed). */
export interface RunSpec {
  scenario: Scenario
  variantIndex: number
  variant: string
  seed: number
}

/**
 * Variants x seeds as independent runs, variant-major (all seeds of the first variant, then the
 * next), in the order asked for. A duration override is checked against the event limit again,
 * and the whole against the host's limits on a submission (every host expands through here).
 */
export function expandRuns(s: Scenario, o: ExpandOptions = {}): RunSpec[] {
  const file = s.file ?? s.name
  const sink = new IssueSink(file)
  let scenario = s
  if (o.durationMs !== undefined) {
    if (!(o.durationMs > 0 && o.durationMs <= 86_400_000)) sink.issues.push({ path: '--duration-ms', message: `must be in 1..86400000 ms, got ${o.durationMs}` })
    else {
      scenario = { ...s, durationMs: o.durationMs }
      checkEstimate(scenario, sink)
    }
  }
  const seed = o.seed ?? s.seed
  const seeds = o.seeds ?? s.seeds
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) sink.issues.push({ path: '--seed', message: `must be an integer in 0..4294967295, got ${seed}` })
  if (!Number.isInteger(seeds) || seeds < 1 || seeds > 1000) sink.issues.push({ path: '--seeds', message: `must be an integer in 1..1000, got ${seeds}` })
  const wanted = o.variants && o.variants.length > 0 ? o.variants : s.variants.map((v) => v.name)
  const known = s.variants.map((v) => v.name)
  for (const w of wanted) {
    if (!known.includes(w)) sink.issues.push({ path: '--variant', message: `unknown variant "${w}" (variants: ${known.join(', ')})` })
  }
  if (!sink.ok) throw new ScenarioError(file, sink.issues)
  const runs: RunSpec[] = []
  for (const name of new Set(wanted)) {
    const variantIndex = s.variants.findIndex((v) => v.name === name)
    const v = s.variants[variantIndex]
    // A variant that changes workloads runs a scenario with its own workload list.
    const own = v.workloads ? { ...scenario, workloads: v.workloads } : scenario
    for (let k = 0; k < seeds; k++) runs.push({ scenario: own, variantIndex, variant: v.name, seed: seed + k })
  }
  const refusals = submissionRefusals(runs, o.limits)
  if (refusals.length > 0) throw new ScenarioError(file, refusals.map((message) => ({ path: '(submission)', message })))
  return runs
}
