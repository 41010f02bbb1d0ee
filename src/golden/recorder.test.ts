import { describe, expect, it } from 'vitest'
import { simulate } from '../sim/index'
import { Recorder } from '../sim/metrics/recorder'
import { digestOf, goldenCases, readGolden } from './cases'

/**
 * The recorder reads the kernel, never changes it: with it attached (recording everything)
 * every golden case gives its committed digest, the same as without it.
 */
describe('decision recorder', () => {
  it('leaves every preset and bench result byte-identical (golden digests with the recorder on)', () => {
    const golden = readGolden()
    const moved: string[] = []
    for (const c of goldenCases()) {
      let rec: Recorder | null = null
      const r = simulate(c.scenario, c.variantIndex, c.seed, { configure: (k) => { rec = Recorder.attach(k, { windowNs: 2_000_000 }) } })
      if (digestOf(r) !== golden[c.id]) moved.push(c.id)
      expect(rec!.kept().length).toBeGreaterThan(0)
    }
    expect(moved, 'results changed with the recorder on').toEqual([])
  })
})
