import { describe, expect, it } from 'vitest'
import { simulate } from '../sim'
import { expandRuns, parseScenario, resolveTopologyName } from '../sim/scenario'
import { listPresets, readPreset } from './presets'

const presets = listPresets()

describe('scenario presets (resources/scenarios)', () => {
  it('has one preset per test setup of the seed threads, each documented', () => {
    expect(presets.map((p) => p.id)).toEqual([
      'cyclictest-alone-rb5',
      'cyclictest-hackbench-dd-neglag-rb5',
      'cyclictest-hackbench-rb5',
      'cyclictest-rtapp-rb5',
      'hackbench-groups-rb5',
      'hackbench-next-buddy-x86',
      'lb-promote-fillback-embedded18',
      'schbench-next-buddy',
      'short-slice-uclamp-rb5'
    ])
    for (const p of presets) {
      expect(p.description.length, p.id).toBeGreaterThan(40)
      expect(p.durationMs ?? 1000, p.id).toBeLessThanOrEqual(30000)
    }
    expect(presets.filter((p) => p.publishedDurationMs).length).toBeGreaterThanOrEqual(7)
  })

  it('describes itself without sending the workbench user to command-line flags the GUI lacks', () => {
    // the run bar has seeds, duration, published and precision; everything else is edited
    const guiFlags = ['--seeds', '--duration-ms', '--published', '--precision']
    for (const p of presets) {
      const flags = p.description.match(/--[a-z][\w-]*/g) ?? []
      expect(flags.filter((f) => !guiFlags.includes(f)), p.id).toEqual([])
    }
  })

  it('reads a preset by id and refuses path tricks', () => {
    expect(readPreset('cyclictest-alone-rb5')?.text).toContain('"periodUs": 3777')
    expect(readPreset('../package')).toBeUndefined()
    expect(readPreset('nope')).toBeUndefined()
  })

  for (const p of presets) {
    const text = readPreset(p.id)?.text ?? ''
    const topo = /"topology":\s*"([^"]+)"/.exec(text)?.[1] ?? ''
    const known = typeof resolveTopologyName(topo) !== 'string'
    if (!known) {
      it.skip(`SKIPPED ${p.id}: topology "${topo}" is not in this build`, () => {})
      continue
    }
    it(`${p.id} is a valid scenario and every variant runs`, () => {
      const s = parseScenario(text, p.file)
      expect(s.variants.length).toBeGreaterThanOrEqual(2)
      expect(s.warnings).toEqual([])
      for (const run of expandRuns(s, { durationMs: 100 })) {
        const r = simulate(run.scenario, run.variantIndex, run.seed)
        expect(r.workloads.map((w) => w.name)).toEqual(run.scenario.workloads.map((w) => w.name))
        expect(r.workloads.some((w) => w.latencyUs.count > 0), `${p.id} / ${run.variant}`).toBe(true)
      }
    })
  }
})
