import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { simulate } from '../sim/index'
import { parseScenario, type Scenario } from '../sim/scenario'
import { applySets, setArgsOf } from '../sim/scenario/set'
import { digestOf } from '../golden/cases'
import { listPresets } from './presets'
import { EXAMPLE_PATCH_DIR, patchModuleFromText } from './patch-loader'

/**
 * The proof that the patch API is enough: four seed patches re-expressed as patch modules
 * (resources/patches) give, on their presets, the results of the model's built-in switches
 * byte for byte.
 */
interface Port {
  module: string
  preset: string
  /** The variant that applies the built-in patch, and what replaces it. */
  variant: string
  builtin: string[]
  /** Built-in patches both sides keep (the rest of the series). */
  others?: string[]
  features?: Record<string, boolean>
  /** --set edits of the preset, where its default run does not exercise the patch. */
  sets?: Record<string, unknown>
}

const PORTS: Port[] = [
  { module: 'seed002-dd-neglag', preset: 'cyclictest-hackbench-dd-neglag-rb5', variant: 'dd-neglag 8/20 ms', builtin: ['dd-neglag'] },
  { module: 'seed000-vprot-minslice', preset: 'short-slice-uclamp-rb5', variant: 'tip + v1 1-3', builtin: ['short-slice-v1/1'], others: ['short-slice-v1/2', 'short-slice-v1/3'] },
  { module: 'seed003-next-buddy-v4', preset: 'hackbench-next-buddy-x86', variant: 'next-buddy-v4', builtin: ['next-buddy-v4'], features: { NEXT_BUDDY: true }, sets: { 'workloads[0].groups': 48 } },
  // on seed 004's own fillback mix this patch changes nothing (its CPUs never idle for less than
  // the balance costs): the RB5 hackbench, where it does, is the proof
  { module: 'seed004-newidle-avg-idle', preset: 'hackbench-groups-rb5', variant: 'tip/sched/core', builtin: ['lb-promote/8'], features: { LB_PROMOTE: true } }
]

const MS = 200

function presetScenario(id: string, sets: Record<string, unknown> = {}): Scenario {
  const p = listPresets().find((x) => x.id === id)!
  // 1 group's 40 tasks on x86-2s's 80 CPUs hardly ever share one: NEXT_BUDDY needs the load of 48
  return parseScenario(applySets(readFileSync(p.file, 'utf8'), setArgsOf(sets)), p.file, { durationMs: MS })
}

/** The variant with the built-in patch replaced by the module (its other patches kept). */
function ported(s: Scenario, vi: number, port: Port): Scenario {
  const file = join(EXAMPLE_PATCH_DIR, `${port.module}.ts`)
  const v = s.variants[vi]
  const variants = s.variants.slice()
  variants[vi] = {
    ...v,
    patches: v.patches.filter((x) => !port.builtin.includes(x)),
    features: { ...v.features, ...(port.features ?? {}) },
    userPatches: [patchModuleFromText(readFileSync(file, 'utf8'), file)]
  }
  return { ...s, variants }
}

/** Only the switch (or series) the module stands for: the variant's other patches stay built in. */
function withOnly(s: Scenario, vi: number, port: Port): Scenario {
  const v = s.variants[vi]
  const variants = s.variants.slice()
  variants[vi] = { ...v, patches: [...(port.others ?? []), ...port.builtin] }
  return { ...s, variants }
}

const bare = (r: ReturnType<typeof simulate>): string => digestOf({ ...r, patchSources: undefined })

describe('seed patches as patch modules', () => {
  for (const port of PORTS) {
    it(`${port.module} gives ${port.builtin.join(' + ')}'s results on ${port.preset}, byte for byte`, () => {
      const s = presetScenario(port.preset, port.sets)
      const vi = s.variants.findIndex((v) => v.name === port.variant)
      expect(vi).toBeGreaterThanOrEqual(0)
      const builtin = withOnly(s, vi, port)
      const mod = ported(builtin, vi, port)
      expect(mod.variants[vi].patches.some((x) => port.builtin.includes(x))).toBe(false)
      for (const seed of [1, 2]) {
        const a = simulate(builtin, vi, seed)
        const b = simulate(mod, vi, seed)
        expect(b.patchSources?.[0].name).toBe(port.module)
        expect(bare(b)).toBe(bare(a))
      }
      // and the patch does something on this preset
      const base = { ...builtin, variants: builtin.variants.map((v, i) => (i === vi ? { ...v, patches: v.patches.filter((x) => !port.builtin.includes(x)) } : v)) }
      expect(bare(simulate(base, vi, 1))).not.toBe(bare(simulate(builtin, vi, 1)))
    })
  }
})
