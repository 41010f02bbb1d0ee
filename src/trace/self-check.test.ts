import { describe, expect, it } from 'vitest'
import { readPreset } from '../services/presets'
import { simulateDetailed } from '../sim'
import { attachTracer, type Tracer } from '../sim/metrics/trace'
import { expandRuns, parseScenario, type Scenario } from '../sim/scenario'
import { analyzeText } from '.'

/**
 * The strong self-check of the analyzer and of the simulator's trace: `analyze` of a
 * simulated run's `--trace` reproduces that run's own figures. Latency distributions, sample
 * counts, switches, wakeups and migrations agree exactly; CPU and busy time within the modeled
 * switch cost (the trace stamps a switch where the next task starts, the model charges the
 * switch to the task it switches to).
 */
function check(s: Scenario, variantIndex: number, seed: number): void {
  const lines: string[] = []
  let tracer: Tracer | undefined
  const run = simulateDetailed(s, variantIndex, seed, {
    configure: (k) => {
      tracer = attachTracer(k, { emit: (l) => lines.push(l), workloads: s.workloads.map((w) => ({ name: w.name, type: w.type })) })
    }
  })
  tracer!.finish(run.kernel.now)
  const sim = run.result
  const got = analyzeText(lines.join('\n'), { name: 'sim' })
  expect(got.trace.malformed).toBe(0)
  expect(got.trace.timerLatency).toBe(true)
  expect(got.trace.inferredSwitches).toBe(0)
  expect(got.stats).toMatchObject({ contextSwitches: sim.stats.contextSwitches, migrations: sim.stats.migrations, wakeups: sim.stats.wakeups, simulatedMs: sim.stats.simulatedMs })
  let samples = 0
  for (const w of sim.workloads) {
    const a = got.workloads.find((x) => x.name === w.name)
    expect(a, w.name).toBeDefined()
    expect(a!.latencyUs, w.name).toEqual(w.latencyUs)
    expect(a!.latencyHist, w.name).toEqual(w.latencyHist)
    samples += w.latencyUs.count
  }
  expect(samples).toBeGreaterThan(100)
  sim.tasks.forEach((t, i) => {
    const a = got.tasks.find((x) => x.tid === i + 1)
    if (!a) {
      // never ran, never woke: not in the trace
      expect(t.contextSwitches + t.wakeups, t.name).toBe(0)
      return
    }
    expect(a.workload, t.name).toBe(t.workload)
    expect({ latencyUs: a.latencyUs, migrations: a.migrations, contextSwitches: a.contextSwitches, wakeups: a.wakeups }, t.name)
      .toEqual({ latencyUs: t.latencyUs, migrations: t.migrations, contextSwitches: t.contextSwitches, wakeups: t.wakeups })
    expect(Math.abs(a.cpuTimeMs - t.cpuTimeMs), t.name).toBeLessThanOrEqual(0.01 + t.contextSwitches * 0.02)
  })
  // the trace cannot place the modeled scheduler overhead (switch costs stamped where the next
  // task starts): busy time agrees within it, or within 1 % where the overhead is smaller
  sim.cpus.forEach((c, i) => expect(Math.abs(got.cpus[i].busyPct - c.busyPct), `CPU ${i}`).toBeLessThan(Math.max(1, c.sysPct ?? 0)))
}

describe('analyze reproduces the simulator from its own trace', () => {
  it('on a 2-CPU mix of cyclictest (fair and FIFO), pinned hogs, hackbench and sliced periodic tasks', () => {
    const s = parseScenario(JSON.stringify({
      name: 'self-check', topology: 'smp-2', durationMs: 600, variants: [{ name: 'base' }],
      workloads: [
        { type: 'cyclictest', name: 'ct', threads: 2, periodUs: 1000 },
        { type: 'cyclictest', name: 'rt', threads: 1, periodUs: 2777, policy: 'fifo', priority: 80 },
        { type: 'hog', name: 'hog', count: 2, cpus: [0] },
        { type: 'hackbench', name: 'hb', groups: 1, mode: 'thread', ipc: 'pipe', loops: 100, fds: 4, repeat: true },
        { type: 'periodic', name: 'per', count: 2, runUs: 300, periodUs: 2000, sliceUs: 500 }
      ]
    }), 'self-check.json')
    check(s, 0, 1)
  })

  it('on a preset with idle states, wake lists and background noise (RB5)', () => {
    const p = readPreset('cyclictest-hackbench-rb5')!
    const runs = expandRuns(parseScenario(p.text, p.file), { durationMs: 250 })
    check(runs[0].scenario, runs[0].variantIndex, runs[0].seed)
  })
})
