import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { parseScenario, type Scenario } from '../scenario'
import type { VariantResult } from '../../shared/result'

/**
 * kernel.coalesce (hackbench syscalls that wake and block no one run as one batch) against
 * the message-by-message mode it replaces (on the presets with hackbench: src/golden/coalesce.test.ts).
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
})
