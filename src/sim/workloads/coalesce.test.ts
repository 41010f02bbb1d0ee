import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { simulate } from '../index'
import { expandRuns, parseScenario, type Scenario } from '../scenario'
import { listPresets } from '../../services/presets'
import { compareModes, type ModeComparison } from './coalesce-check'
import type { VariantResult } from '../../shared/result'

/**
 * kernel.coalesce (hackbench syscalls that wake and block no one run as one batch) against
 * the message-by-message mode it replaces.
 */

function hackbench(topology: string, over: Record<string, unknown>, coalesce: boolean, ms = 100): Scenario {
  return parseScenario(JSON.stringify({
    topology, durationMs: ms, kernel: { hz: 250, coalesce },
    workloads: [{ type: 'hackbench', name: 'hb', groups: 2, fds: 6, loops: 100, repeat: true, ...over }]
  }), 'coalesce.json')
}

/** Everything but the event count (and the wall clock). */
function scheduling(r: VariantResult): unknown {
  const { events: _e, wallMs: _w, ...stats } = r.stats
  return { ...r, stats, counters: undefined }
}

describe('coalesced hackbench (kernel.coalesce)', () => {
  // One and two CPUs of one speed: every switch, wakeup, migration and latency is the same,
  // with a fraction of the events. (With more CPUs, simultaneous events may be ordered
  // differently and runs diverge, statistically alike: below.)
  for (const topology of ['smp-1', 'smp-2']) {
    // the last three fill their pipes (4 messages a page, or a one-page ring) or socket (48
    // messages): writers wait there while other writers' batches go on writing
    for (const over of [{}, { ipc: 'socket' }, { mode: 'thread', fds: 10 }, { groups: 1, loops: 400 }, { messageBytes: 1000 }, { pipeBufferBytes: 4096, fds: 10 }, { ipc: 'socket', socketBufferBytes: 32768 }]) {
      it(`${topology} ${JSON.stringify(over)}: the same scheduling as one by one, in fewer events`, () => {
        for (const seed of [1, 2]) {
          const exact = simulate(hackbench(topology, over, false), 0, seed)
          const batched = simulate(hackbench(topology, over, true), 0, seed)
          expect(batched.workloads[0].extra?.coalesceFaults).toBeUndefined()
          expect(scheduling(batched)).toEqual(scheduling(exact))
          expect(batched.stats.events).toBeLessThan(exact.stats.events / 3)
        }
      })
    }
  }

  it('a variant can ask for the one-by-one mode (kernel.coalesce false)', () => {
    const s = parseScenario(JSON.stringify({
      topology: 'smp-4', durationMs: 50,
      variants: [{ name: 'batched' }, { name: 'exact', kernel: { coalesce: false } }],
      workloads: [{ type: 'hackbench', name: 'hb', groups: 1, fds: 4, loops: 100, repeat: true }]
    }), 'v.json')
    const [a, b] = [simulate(s, 0, 1), simulate(s, 1, 1)]
    expect(b.stats.events).toBeGreaterThan(3 * a.stats.events)
  })

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
