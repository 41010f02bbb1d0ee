/**
 * The one module through which the workbench reaches the simulator, the scenario language and
 * the registries (patches, sched_feat flags, topologies, presets). Everything else in src/main
 * and src/cli/serve.ts imports these names from here, so the services depend on one surface.
 */
import type { NamedDoc, PresetInfo, ScenarioDoc } from '../shared/ipc'
import { SCHED_FEATURES } from '../sim/kernel/features'
import { PATCHES } from '../sim/patches/index'
import { TOPOLOGY_PRESETS } from '../sim/kernel/topologies'
import { ScenarioError, WORKLOAD_TYPES, rtappScenarioText } from '../sim/scenario/index'
import * as presets from './presets'

export { simulate } from '../sim/index'
export { explainRun, perfettoRun } from './sim-explain'
export { parseScenario, expandRuns, scenarioJsonSchema, ScenarioError } from '../sim/scenario/index'
export type { Scenario, RunSpec } from '../sim/scenario/index'

export function isScenarioError(err: unknown): err is ScenarioError {
  return err instanceof ScenarioError
}

/** An rt-app file as the text of a new scenario (checked first; ScenarioError names the file). */
export function importRtApp(text: string, file: string): string {
  return rtappScenarioText(text, file)
}

/** sched_feat flags, then the model switches the patches set (also accepted in `features`). */
export function featureDocs(): NamedDoc[] {
  const out: NamedDoc[] = SCHED_FEATURES.map((f) => ({ name: f.name, doc: f.doc }))
  const seen = new Set(out.map((f) => f.name))
  for (const p of PATCHES) {
    for (const sw of Object.keys(p.switches)) {
      if (seen.has(sw)) continue
      seen.add(sw)
      out.push({ name: sw, doc: `Model switch of patch ${p.name} (seed ${p.seed}): ${p.effect}` })
    }
  }
  return out
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

export async function listPresets(): Promise<PresetInfo[]> {
  return presets.listPresets().map((p) => ({ id: p.id, name: p.name, description: p.description }))
}

export async function readPreset(id: string): Promise<ScenarioDoc> {
  const p = presets.readPreset(id)
  if (!p) throw new Error(`no preset named "${id}"`)
  return { name: `${id}.json`, path: null, text: p.text }
}
