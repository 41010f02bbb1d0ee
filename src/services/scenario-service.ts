import type { EditorInfo, ScenarioDoc, ScenarioProblem, ValidationResult } from '../shared/ipc'
import * as sim from './sim-adapter'
import type { SubmissionLimits } from '../sim/scenario/estimate'
import { submissionLimits, type HostLimits } from './limits'
import { augmentSchema } from './editor-schema'
import { hostSpecs } from '../real/host-specs'
import type { PatchModuleSource } from '../sim/patch-api/evaluate'

/**
 * Scenario text in, a validated scenario (or a problem naming file, JSON path and position)
 * out. Bad input is never thrown past this module as anything but a ScenarioProblem.
 */

export type Parsed = { ok: true; scenario: sim.Scenario } | { ok: false; problem: ScenarioProblem }

export function problemOf(err: unknown, file: string): ScenarioProblem {
  if (sim.isScenarioError(err)) {
    const n = err.issues.length
    return {
      file: err.file,
      message: `${err.file}: ${n} problem${n === 1 ? '' : 's'} in the scenario`,
      issues: err.issues.map((i) => ({ path: i.path, message: i.message, line: i.line, column: i.column, file: (i as { file?: string }).file }))
    }
  }
  const message = err instanceof Error ? err.message : String(err)
  return { file, message: `${file}: ${message}`, issues: [{ path: '(root)', message }] }
}

let readPatch: ((ref: string, fromFile: string) => PatchModuleSource) | undefined

/**
 * How this host reads the patch modules a scenario names (its library, or a refusal naming how
 * to allow them); set by the backend. Modules are compiled here and run only in the workers.
 */
export function setPatchReader(reader: ((ref: string, fromFile: string) => PatchModuleSource) | undefined): void {
  readPatch = reader
}

/** `maxEvents`: the host's limit on one run (see limits.ts). */
/** The scenario as every run of the workbench parses it; throws a ScenarioError when invalid. */
export function parseOrThrow(text: string, file: string, maxEvents?: number): sim.Scenario {
  return sim.parseScenario(text, file, { maxEvents, host: hostSpecs, ...(readPatch ? { readPatch } : {}) })
}

export function parse(text: string, file: string, maxEvents?: number): Parsed {
  try {
    return { ok: true, scenario: parseOrThrow(text, file, maxEvents) }
  } catch (err) {
    return { ok: false, problem: problemOf(err, file) }
  }
}

/** The run bar's overrides (the CLI's --seeds, --duration-ms). */
export interface ExpandOverrides {
  seeds?: number
  durationMs?: number
}

/** A start request's seeds, duration or published duration (the run bar), for expand(). */
export function requestOverrides(s: sim.Scenario, req: { file: string; seeds?: number; durationMs?: number; published?: boolean }): { ok: true; overrides: ExpandOverrides } | { ok: false; problem: ScenarioProblem } {
  let durationMs = req.durationMs
  if (req.published) {
    if (s.publishedDurationMs === undefined) {
      const message = 'the scenario gives no publishedDurationMs (the duration of the published test), so it cannot run for it'
      return { ok: false, problem: { file: req.file, message: `${req.file}: ${message}`, issues: [{ path: 'publishedDurationMs', message }] } }
    }
    durationMs = s.publishedDurationMs
  }
  return { ok: true, overrides: { ...(req.seeds !== undefined ? { seeds: req.seeds } : {}), ...(durationMs !== undefined ? { durationMs } : {}) } }
}

export function expand(scenario: sim.Scenario, file: string, variants?: string[], limits?: SubmissionLimits, o: ExpandOverrides = {}): { ok: true; specs: sim.RunSpec[] } | { ok: false; problem: ScenarioProblem } {
  try {
    return { ok: true, specs: sim.expandRuns(scenario, { ...(variants ? { variants } : {}), limits, ...o }) }
  } catch (err) {
    return { ok: false, problem: problemOf(err, file) }
  }
}

/** Valid, and within the host's limits when they are given (what a run of it would meet). */
export function validate(text: string, file: string, limits?: HostLimits): ValidationResult {
  const p = parse(text, file, limits?.maxEventsPerRun)
  if (!p.ok) return p
  const s = p.scenario
  if (limits) {
    const e = expand(s, file, undefined, submissionLimits(limits))
    if (!e.ok) return e
  }
  const seeds = Array.from({ length: s.seeds }, (_, k) => s.seed + k)
  return {
    ok: true, scenarioName: s.name, variants: s.variants.map((v) => v.name), seeds, runs: s.variants.length * seeds.length,
    durationMs: s.durationMs, ...(s.publishedDurationMs !== undefined ? { publishedDurationMs: s.publishedDurationMs } : {})
  }
}

/** Which variant names of `scenario` are unknown, for a clear message. */
export function unknownVariants(scenario: sim.Scenario, names: readonly string[]): string[] {
  const known = new Set(scenario.variants.map((v) => v.name))
  return names.filter((n) => !known.has(n))
}

let editorInfoCache: EditorInfo | null = null

export function editorInfo(): EditorInfo {
  if (!editorInfoCache) {
    const lists = {
      workloadTypes: sim.workloadTypeDocs(),
      patches: sim.patchDocs(),
      features: sim.featureDocs(),
      topologies: sim.topologyDocs()
    }
    editorInfoCache = { schema: augmentSchema(sim.scenarioJsonSchema(), lists), ...lists }
  }
  return editorInfoCache
}

/** rt-app JSON to scenario text; the new document is named after the imported file. */
export function importRtApp(text: string, file: string): { ok: true; doc: ScenarioDoc } | { ok: false; problem: ScenarioProblem } {
  try {
    const converted = sim.importRtApp(text, file)
    const base = file.replace(/^.*[\\/]/, '').replace(/\.jsonc?$/i, '')
    return { ok: true, doc: { name: `${base}-scenario.json`, path: null, text: converted } }
  } catch (err) {
    return { ok: false, problem: problemOf(err, file) }
  }
}
