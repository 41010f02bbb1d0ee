import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { quickScenario } from '../testing'
import { embedded18Spec, rb5Spec } from '../kernel/topologies'
import { PATCHES } from './index'
import type { VariantResult } from '../../shared/result'
import type { WorkloadSpec } from '../scenario/workload-specs'

function stable(r: VariantResult): string {
  return JSON.stringify({ ...r, name: '', stats: { ...r.stats, wallMs: 0 } })
}

const ALTERNATIVES = PATCHES.filter((p) => p.name.startsWith('alt-')).map((p) => p.name)

describe('the series and alternatives on a mixed load, with the kernel invariants checked', () => {
  const workloads = [
    { type: 'periodic', name: 'cyc', count: 2, runUs: 50, periodUs: 3777, sliceUs: 8000 },
    { type: 'periodic', name: 'short', count: 4, runUs: 1000, periodUs: 7777, sliceUs: 300, uclampMin: 512 },
    { type: 'periodic', name: 'rtapp', count: 12, runUs: 6000, periodUs: 20000, sliceUs: 16000, staggerUs: 333 },
    { type: 'hog', name: 'hog', count: 2, nice: 5 },
    { type: 'periodic', name: 'rt', count: 2, runUs: 300, periodUs: 2000, policy: 'fifo', priority: 50 }
  ] as WorkloadSpec[]
  const variants = [
    { name: 'base' },
    { name: 'short-slice-v1', patches: ['short-slice-v1'] },
    { name: 'short-slice-v2', patches: ['short-slice-v2'] },
    { name: 'lb-promote', patches: ['lb-promote'] },
    { name: 'alternatives', patches: ALTERNATIVES }
  ]
  for (const [topology, schedutil] of [[rb5Spec(), true], [embedded18Spec(), false]] as const) {
    it(`${topology.name}${schedutil ? ' with EAS' : ''}: each run is reproducible and differs from the baseline`, () => {
      const s = quickScenario({ topology, durationMs: 200, kernel: { debug: true, features: { SCHEDUTIL: schedutil } }, variants, workloads })
      const base = stable(simulate(s, 0, 7))
      for (let v = 1; v < variants.length; v++) {
        const r = stable(simulate(s, v, 7))
        expect(stable(simulate(s, v, 7))).toBe(r)
        expect(r).not.toBe(base)
      }
    })
  }
})
