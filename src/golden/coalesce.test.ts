import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { simulate } from '../sim/index'
import { expandRuns, parseScenario } from '../sim/scenario'
import { compareModes, type ModeComparison } from '../sim/workloads/coalesce-check'
import { listPresets } from '../services/presets'

/**
 * kernel.coalesce (hackbench syscalls that wake and block no one run as one batch) against the
 * message-by-message mode, on the presets with hackbench (the small cases:
 * src/sim/workloads/coalesce.test.ts).
 */
describe('coalesced hackbench on the presets', () => {
  // Seed 002's setup (8 CPUs, 2 x 20 threads on pipes): writers often wait on a pipe.
  // - Its ring one read has already freed (a buffer released, one writer woken): the reader's
  //   next reads wake no one and run as one batch (BatchReceiver.readsSilently), not one event
  //   each (about 8 events per context switch over the first 200 ms without that).
  // - pipe_write wakes a waiting writer only after a wait of its own (wake_next_writer): a
  //   write that did not wait completes silently beside waiting writers, and a writer's batch
  //   goes on past such a pipe (6.14 events per switch over the first 200 ms without that,
  //   4.77 with it; over 1 s 4.34 and 3.69).
  it('batches go on while writers wait: reads on a ring that cannot fill up, writes that did not wait', () => {
    const p = listPresets().find((x) => x.id === 'cyclictest-hackbench-dd-neglag-rb5')
    if (!p) throw new Error('preset missing')
    const s = parseScenario(readFileSync(p.file, 'utf8'), p.file, { durationMs: 200 })
    const [run] = expandRuns(s, { variants: ['tip 8/20 ms'], seeds: 1 })
    const r = simulate(run.scenario, run.variantIndex, run.seed)
    expect(r.workloads.find((w) => w.type === 'hackbench')?.extra?.coalesceFaults).toBeUndefined()
    expect(r.stats.events / r.stats.contextSwitches).toBeLessThan(5.5)
  })

  // Each preset with hackbench, briefly, over seeds: context switches, migrations and wakeups
  // within 2 % or statistically indistinguishable, hackbench time within 1 % or
  // indistinguishable, and so the latency percentiles of every workload (coalesce-check.ts).
  const presets = listPresets().filter((p) => /"type":\s*"hackbench"/.test(readFileSync(p.file, 'utf8')))
  for (const p of presets) {
    it(`preset ${p.id}: statistically the same as one by one`, () => {
      const s = parseScenario(readFileSync(p.file, 'utf8'), p.file, { durationMs: 150, maxEvents: 1e12 })
      const [run] = expandRuns(s, { seeds: 1 })
      const c: ModeComparison = compareModes(run.scenario, run.variantIndex, [1, 2, 3, 4, 5])
      const off = c.rows.filter((r) => !r.equivalent)
      expect(off, off.map((r) => `${r.metric}: exact ${r.exact.toFixed(2)}, coalesced ${r.coalesced.toFixed(2)} (${(r.change * 100).toFixed(1)} %, ±${(r.halfWidth * 100).toFixed(1)} %)`).join('; ')).toEqual([])
      expect(c.faults).toBe(0)
      expect(c.coalescedEvents).toBeLessThan(c.exactEvents / 2)
    })
  }
})
