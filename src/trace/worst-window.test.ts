import { describe, expect, it } from 'vitest'
import { simulateDetailed } from '../sim'
import { explainSample } from '../sim/explain'
import { attachTracer, type Tracer } from '../sim/metrics/trace'
import { parseScenario } from '../sim/scenario'
import { analyzeText } from '.'

/**
 * The timeline a trace keeps around each workload's maximum (what the workbench aligns with a
 * simulated explanation) is checked against the simulator itself: analyzing a simulated run's
 * own trace finds the same maximum at the same instants as `explain` of that run, and the
 * window shows what the explanation's timeline shows there.
 */
describe('the timeline around a trace\'s worst samples', () => {
  const s = parseScenario(JSON.stringify({
    name: 'worst-window', topology: 'smp-2', durationMs: 300, variants: [{ name: 'base' }],
    workloads: [
      { type: 'cyclictest', name: 'ct', threads: 2, periodUs: 1000 },
      { type: 'hog', name: 'hog', count: 2, cpus: [0] },
      { type: 'hackbench', name: 'hb', groups: 1, mode: 'thread', ipc: 'pipe', loops: 100, fds: 4, repeat: true }
    ]
  }), 'worst-window.json')
  const lines: string[] = []
  let tracer: Tracer | undefined
  const run = simulateDetailed(s, 0, 1, {
    configure: (k) => {
      tracer = attachTracer(k, { emit: (l) => lines.push(l), workloads: s.workloads.map((w) => ({ name: w.name, type: w.type })) })
    }
  })
  tracer!.finish(run.kernel.now)
  const text = lines.join('\n')

  it('is absent unless asked for', () => {
    expect(analyzeText(text, { name: 'sim' }).timelines).toBeUndefined()
  })

  it('finds each workload\'s maximum where explain finds it, with the CPUs\' slices around it', () => {
    const got = analyzeText(text, { name: 'sim', timelines: true })
    const timelines = got.timelines!
    expect(timelines.map((t) => t.workload).sort()).toEqual(['ct', 'hb'])
    for (const t of timelines) {
      const w = got.workloads.find((x) => x.name === t.workload)!
      expect(t.sample.latencyUs, t.workload).toBeCloseTo(w.latencyUs.max, 2)
      expect(t.window.startNs).toBe(t.sample.readyNs - 2_000_000)
      expect(t.window.endNs).toBe(t.sample.ranNs + 1_000_000)
      expect(t.lanes.map((l) => l.cpu)).toEqual([0, 1])
      // the sample's task starts running on its CPU at ranNs
      const lane = t.lanes.find((l) => l.cpu === t.sample.cpu)!
      expect(lane.slices.some((x) => x.task === t.sample.task && x.startNs === t.sample.ranNs), t.workload).toBe(true)
      for (const l of t.lanes) {
        for (const x of [...l.slices, ...l.idle]) {
          expect(x.startNs).toBeGreaterThanOrEqual(t.window.startNs)
          expect(x.endNs).toBeLessThanOrEqual(t.window.endNs)
          expect(x.endNs).toBeGreaterThan(x.startNs)
        }
        // slices of one CPU do not overlap
        for (let i = 1; i < l.slices.length; i++) expect(l.slices[i].startNs).toBeGreaterThanOrEqual(l.slices[i - 1].endNs)
      }
    }
    const ct = timelines.find((t) => t.workload === 'ct')!
    const e = explainSample({ scenario: s, variantIndex: 0, seed: 1, workload: 'ct', sample: 'max', allCpus: true })
    expect({ cpu: ct.sample.cpu, readyNs: ct.sample.readyNs, ranNs: ct.sample.ranNs }).toEqual({ cpu: e.sample.cpu, readyNs: e.sample.readyNs, ranNs: e.sample.ranNs })
    // the same tasks ran on each CPU during the wait (the trace names tasks comm-tid, and stamps
    // a switch where the next task starts: after the modeled switch cost of a few us)
    const during = (slices: { task: string; startNs: number; endNs: number }[], strip: boolean): string[] =>
      [...new Set(slices
        .filter((x) => Math.min(x.endNs, ct.sample.ranNs) - Math.max(x.startNs, ct.sample.readyNs) > 20_000)
        .map((x) => (strip ? x.task.replace(/-\d+$/, '') : x.task)))].sort()
    for (const l of e.lanes!) {
      const mine = ct.lanes.find((x) => x.cpu === l.cpu)!
      expect(during(mine.slices, true), `CPU ${l.cpu}`).toEqual(during(l.slices, false))
    }
    expect(e.lanes!.some((l) => during(l.slices, false).length > 0)).toBe(true)
  })
})
