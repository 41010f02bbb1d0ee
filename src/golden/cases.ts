/**
 * Golden digests: short runs of every preset (all variants) and of the bench scenarios, each
 * reduced to a sha256 of its result JSON without wall-clock fields. The committed digests
 * (digests.json) pin the model's behaviour: an optimization must leave them byte-identical; a
 * deliberate change of behaviour regenerates them (`npm run golden:update`) in its commit.
 *
 * Node-only (reads the presets and the digests file), so it lives beside src/sim rather than
 * in it, whose model does no I/O; used by golden.test.ts, the recorder's test and
 * scripts/golden.mts.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { simulate } from '../sim/index'
import { expandRuns, parseScenario, type Scenario } from '../sim/scenario'
import { quickScenario } from '../sim/testing'
import { listPresets } from '../services/presets'
import { BENCH_SCENARIOS } from '../sim/bench-scenarios'
import type { VariantResult } from '../shared/result'

export const GOLDEN_FILE = fileURLToPath(new URL('./digests.json', import.meta.url))
export const GOLDEN_UPDATE_COMMAND = 'npm run golden:update'

/** Simulated length of each golden run: long enough for rounds, balances and tails to matter. */
export const PRESET_MS = 300
export const BENCH_MS = 200
/** The one-by-one mode of coalescing workloads is pinned on shorter runs (it is slow). */
export const EXACT_MS = 100

/** Workload types whose operations kernel.coalesce batches. */
const COALESCING = ['hackbench']

export interface GoldenCase {
  /** `preset/<id>/<variant>` or `bench/<name>`. */
  id: string
  scenario: Scenario
  variantIndex: number
  seed: number
}

export function goldenCases(): GoldenCase[] {
  const cases: GoldenCase[] = []
  for (const p of listPresets()) {
    const s = parseScenario(readFileSync(p.file, 'utf8'), p.file, { durationMs: PRESET_MS })
    for (const r of expandRuns(s, { seeds: 1 })) {
      cases.push({ id: `preset/${p.id}/${r.variant}`, scenario: r.scenario, variantIndex: r.variantIndex, seed: r.seed })
      // workloads that coalesce operations (kernel.coalesce) are pinned one by one as well
      if (r.scenario.workloads.some((w) => COALESCING.includes(w.type))) {
        const exact = { ...r.scenario, durationMs: EXACT_MS, kernel: { ...r.scenario.kernel, coalesce: false } }
        cases.push({ id: `preset/${p.id}/${r.variant}/exact`, scenario: exact, variantIndex: r.variantIndex, seed: r.seed })
      }
    }
  }
  for (const b of BENCH_SCENARIOS) {
    cases.push({ id: `bench/${b.name}`, scenario: quickScenario({ ...b.scenario, durationMs: BENCH_MS }), variantIndex: 0, seed: 1 })
  }
  return cases
}

/** The result without what depends on the machine (wall-clock time). */
export function stableResult(r: VariantResult): VariantResult {
  const { wallMs: _wall, ...stats } = r.stats
  return { ...r, stats: stats as VariantResult['stats'] }
}

export function digestOf(r: VariantResult): string {
  return createHash('sha256').update(JSON.stringify(stableResult(r))).digest('hex').slice(0, 32)
}

export function runGolden(c: GoldenCase): string {
  return digestOf(simulate(c.scenario, c.variantIndex, c.seed))
}

export function readGolden(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(GOLDEN_FILE, 'utf8')) as Record<string, string>
  } catch {
    return {}
  }
}
