import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { simulate, simulateDetailed } from '../index'
import { quickScenario } from '../testing'
import { allReasonCodes, Recorder } from './recorder'

/** The decision recorder (every preset with it attached: src/golden/recorder.test.ts). */
describe('decision recorder', () => {
  it('keeps only its window: a ring by time, and the CPUs state at its start', () => {
    const s = quickScenario({ topology: 2, durationMs: 100, workloads: [{ type: 'hog', name: 'h', count: 3 }, { type: 'periodic', name: 'p', count: 2, runUs: 200, periodUs: 1000 }] })
    let rec: Recorder | null = null
    const run = simulateDetailed(s, 0, 1, { configure: (k) => { rec = Recorder.attach(k, { windowNs: 5_000_000 }) } })
    const kept = rec!.kept()
    expect(rec!.dropped).toBeGreaterThan(0)
    expect(kept[0].at).toBeGreaterThanOrEqual(kept[kept.length - 1].at - 5_000_000)
    // the start state names what ran on each CPU when the kept records begin
    const start = rec!.startState()
    expect(start.length).toBe(2)
    for (let c = 0; c < 2; c++) {
      const firstSwitch = kept.find((r) => r.cpu === c && r.kind === 'switch')
      if (firstSwitch) expect(firstSwitch.other).toBe(start[c].task)
    }
    expect(run.result.stats.simulatedMs).toBe(100)
  })

  it('records picks with their candidates: vruntime, deadline, lag, slice, eligibility', () => {
    const s = quickScenario({ topology: 1, durationMs: 20, workloads: [{ type: 'hog', name: 'h', count: 3 }] })
    let rec: Recorder | null = null
    simulate(s, 0, 1, { configure: (k) => { rec = Recorder.attach(k) } })
    const picks = rec!.kept().filter((r) => r.kind === 'pick' && r.code === 'PICK_EEVDF')
    expect(picks.length).toBeGreaterThan(5)
    for (const p of picks) {
      expect(p.cands!.length).toBe(3)
      const chosen = p.cands!.find((c) => c.task === p.task)!
      expect(chosen.eligible).toBe(true)
      // earliest deadline among the eligible
      for (const c of p.cands!) if (c.eligible) expect(chosen.deadline).toBeLessThanOrEqual(c.deadline)
      for (const c of p.cands!) expect(c.lag).toBe(p.V! - c.vruntime)
    }
  })

  it('every reason code is documented in docs/explain.md', () => {
    const doc = readFileSync(new URL('../../../docs/explain.md', import.meta.url), 'utf8')
    const missing = [...new Set(allReasonCodes())].filter((c) => !doc.includes('`' + c + '`'))
    expect(missing).toEqual([])
  })
})
