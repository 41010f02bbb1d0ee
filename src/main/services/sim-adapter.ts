/**
 * The one module through which the workbench reaches the simulator, the scenario language and
 * the registries (patches, sched_feat flags, topologies, presets). Everything else in src/main
 * and src/cli/serve.ts imports these names from here, so wiring a module that lands on main is
 * a change to this file only.
 *
 * INTERIM: src/sim/scenario/index.ts (the scenario language) is not on main yet. Until it is,
 * parsing is a plain JSONC parse with structural checks (workload types, patch names and
 * topology names against the registries).
 */
import { promises as fs } from 'node:fs'
import { join, resolve } from 'node:path'
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser'
import type { Scenario } from '../../sim/scenario/types'
import type { NamedDoc, PresetInfo, ScenarioDoc, ScenarioIssue } from '../../shared/ipc'
import { SCHED_FEATURES } from '../../sim/kernel/features'
import { PATCHES, findPatch } from '../../sim/patches/index'
import { WORKLOAD_TYPES } from '../../sim/workloads/index'
import { TOPOLOGY_PRESETS, presetSpec } from '../../sim/kernel/topologies'

export type { Scenario }

export { simulate } from '../../sim/index'

/** Invalid scenario input: the file and every issue found. */
export class ScenarioError extends Error {
  constructor(readonly file: string, readonly issues: ScenarioIssue[]) {
    super(issues.map((i) => `${file}${i.line ? `:${i.line}:${i.column ?? 1}` : ''}: ${i.path}: ${i.message}`).join('\n'))
    this.name = 'ScenarioError'
  }

  format(): string {
    return this.message
  }
}

export function isScenarioError(err: unknown): err is ScenarioError {
  return err instanceof ScenarioError
}

function lineCol(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let last = -1
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      last = i
    }
  }
  return { line, column: offset - last }
}

export function parseScenario(text: string, file: string): Scenario {
  const errors: ParseError[] = []
  const raw = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false }) as Record<string, unknown>
  if (errors.length > 0) {
    throw new ScenarioError(file, errors.map((e) => ({ path: '(root)', message: printParseErrorCode(e.error), ...lineCol(text, e.offset) })))
  }
  const issues: ScenarioIssue[] = []
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) issues.push({ path: '(root)', message: 'expected an object' })
  else if (!Array.isArray(raw.workloads) || raw.workloads.length === 0) issues.push({ path: 'workloads', message: 'expected a non-empty array of workloads' })
  else {
    ;(raw.workloads as { type?: unknown }[]).forEach((w, i) => {
      if (!WORKLOAD_TYPES.includes(String(w?.type))) issues.push({ path: `workloads[${i}].type`, message: `unknown workload type ${JSON.stringify(w?.type)} (known: ${WORKLOAD_TYPES.join(', ')})` })
    })
    ;((raw.variants ?? []) as { patches?: unknown[] }[]).forEach((v, i) => {
      ;(v?.patches ?? []).forEach((p, j) => {
        if (!findPatch(String(p))) issues.push({ path: `variants[${i}].patches[${j}]`, message: `unknown patch ${JSON.stringify(p)}` })
      })
    })
    if (raw.durationMs !== undefined && !(typeof raw.durationMs === 'number' && raw.durationMs > 0)) issues.push({ path: 'durationMs', message: 'must be a positive number of milliseconds' })
  }
  const topology = presetSpec(String(raw.topology ?? 'smp-8'))
  if (!topology) issues.push({ path: 'topology', message: `unknown topology ${JSON.stringify(raw.topology)} (known: ${TOPOLOGY_PRESETS.map((t) => t.name).join(', ')})` })
  if (issues.length || !topology) throw new ScenarioError(file, issues)
  const variants = Array.isArray(raw.variants) && raw.variants.length > 0
    ? (raw.variants as { name?: string; patches?: string[]; features?: Record<string, boolean> }[]).map((v, i) => ({
        name: v.name ?? `variant-${i}`, patches: v.patches ?? [], features: v.features ?? {}
      }))
    : [{ name: 'default', patches: [], features: {} }]
  return {
    name: typeof raw.name === 'string' ? raw.name : file,
    file,
    topology,
    kernel: { hz: 250, profile: 'tip-2026', features: (raw.kernel as { features?: Record<string, boolean> } | undefined)?.features ?? {} },
    durationMs: typeof raw.durationMs === 'number' ? raw.durationMs : 10000,
    seed: typeof raw.seed === 'number' ? raw.seed : 1,
    seeds: typeof raw.seeds === 'number' ? raw.seeds : 1,
    variants,
    workloads: raw.workloads as Scenario['workloads']
  }
}

export interface RunSpec {
  scenario: Scenario
  variantIndex: number
  seed: number
}

export function expandRuns(s: Scenario, opts: { variants?: string[] } = {}): RunSpec[] {
  const out: RunSpec[] = []
  s.variants.forEach((v, variantIndex) => {
    if (opts.variants && !opts.variants.includes(v.name)) return
    for (let k = 0; k < s.seeds; k++) out.push({ scenario: s, variantIndex, seed: s.seed + k })
  })
  return out
}

export function scenarioJsonSchema(): Record<string, unknown> {
  const features = { type: 'object', additionalProperties: { type: 'boolean' } }
  return {
    type: 'object',
    properties: {
      name: { type: 'string' },
      topology: { type: 'string' },
      kernel: { type: 'object', properties: { features } },
      variants: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, patches: { type: 'array', items: { type: 'string' } }, features } } },
      workloads: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } } } }
    }
  }
}

/** Wrap an rt-app JSON file as the one workload of a new scenario. */
export function importRtApp(text: string, file: string): string {
  const errors: ParseError[] = []
  const raw = parseJsonc(text, errors, { allowTrailingComma: true }) as Record<string, unknown>
  if (errors.length > 0 || !raw || typeof raw !== 'object' || !raw.tasks) {
    throw new ScenarioError(file, [{ path: 'tasks', message: 'not an rt-app file (no "tasks" object)' }])
  }
  return JSON.stringify({ name: file, topology: 'smp-8', variants: [{ name: 'base' }], workloads: [{ type: 'rt-app', name: 'rtapp', ...raw }] }, null, 2)
}

export function featureDocs(): NamedDoc[] {
  return SCHED_FEATURES.map((f) => ({ name: f.name, doc: f.doc }))
}

export function patchDocs(): NamedDoc[] {
  return PATCHES.map((p) => ({ name: p.name, doc: `${p.title} (seed ${p.seed}). ${p.effect}` }))
}

export function topologyDocs(): NamedDoc[] {
  return TOPOLOGY_PRESETS.flatMap((t) =>
    t.name === 'smp-N'
      ? [2, 4, 8, 16].map((n) => ({ name: `smp-${n}`, doc: t.description }))
      : [{ name: t.name, doc: `${t.description} (${t.source})` }])
}

export function workloadTypeDocs(): NamedDoc[] {
  return WORKLOAD_TYPES.map((name) => ({ name, doc: '' }))
}

const PRESET_DIR = resolve(__dirname, '../../../resources/scenarios')

export async function listPresets(dir = PRESET_DIR): Promise<PresetInfo[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[])
  return names.filter((n) => n.endsWith('.json')).sort().map((n) => ({ id: n.slice(0, -5), name: n.slice(0, -5), description: '' }))
}

export async function readPreset(id: string, dir = PRESET_DIR): Promise<ScenarioDoc> {
  const file = join(dir, `${id}.json`)
  return { name: `${id}.json`, path: null, text: await fs.readFile(file, 'utf8') }
}
