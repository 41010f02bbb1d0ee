import { describe, expect, it } from 'vitest'
import { WF_SYNC, type TaskContext } from '../kernel/api'
import { Channel } from './pipe'
import { scenarioText, simulateText } from './testing/run-sim'

/**
 * fs/pipe.c as hackbench uses it (100-byte messages, 16 pages of 4096 bytes): the ring counts
 * buffers (pages), not bytes. Sources: torvalds/linux fs/pipe.c pipe_write() (a small write
 * merges into the last buffer while it fits; a writer that waited takes a new buffer and wakes
 * the next waiting writer only while a slot is free, wake_next_writer), pipe_read() (a writer is
 * woken only when a read releases a buffer of a full ring, "pipe_read: don't wake up the writer
 * if the pipe is still full", 6.14), pipe_writable() (what a woken writer re-checks: a free slot).
 */

/** Records the wakeups a channel issues. */
function recorder(): { k: TaskContext; woken: [number, number][] } {
  const woken: [number, number][] = []
  const k = { wake: (t: number, flags: number) => void woken.push([t, flags]) } as unknown as TaskContext
  return { k, woken }
}

function write(ch: Channel, k: TaskContext, n = 1, waited = false): void {
  for (let i = 0; i < n; i++) {
    ch.place(waited)
    ch.commit(k, waited)
  }
}

describe('pipe ring (fs/pipe.c)', () => {
  it('small writes share a page: 16 x 40 messages fill the ring, and a full ring with room in its last page still takes writes', () => {
    const { k } = recorder()
    const ch = new Channel(640, true, 16, 40)
    write(ch, k, 601)
    expect(ch.slots).toBe(16)
    // 16 buffers in use: pipe_full() for a writer woken from wr_wait, not for a new small write
    expect(ch.writable).toBe(false)
    expect(ch.full).toBe(false)
    write(ch, k, 39)
    expect(ch.full).toBe(true)
    expect(ch.committed).toBe(640)
  })

  it('a read wakes a writer only when it releases a buffer of a full ring (one per page, not one per read)', () => {
    const { k, woken } = recorder()
    const ch = new Channel(640, true, 16, 40)
    write(ch, k, 640)
    for (const t of [7, 8, 9]) ch.writers.add(t)
    for (let i = 0; i < 39; i++) ch.consume(k)
    expect(woken).toEqual([])
    ch.consume(k)
    expect(woken).toEqual([[7, WF_SYNC]])
    expect(ch.writable).toBe(true)
    // the ring is no longer full: draining the next page wakes no one
    for (let i = 0; i < 40; i++) ch.consume(k)
    expect(woken.length).toBe(1)
  })

  it('a writer that waited takes a fresh page and wakes the next waiter while a slot is free; one that never waited wakes no writer', () => {
    const { k, woken } = recorder()
    const ch = new Channel(640, true, 16, 40)
    write(ch, k, 1)
    for (const t of [7, 8]) ch.writers.add(t)
    woken.length = 0
    write(ch, k, 1)
    expect(woken).toEqual([])
    expect(ch.slots).toBe(1)
    write(ch, k, 1, true)
    expect(ch.slots).toBe(2)
    expect(woken).toEqual([[7, WF_SYNC]])
  })

  it('a read of the last message releases its page: the next write starts a new one and wakes the reader', () => {
    const { k, woken } = recorder()
    const ch = new Channel(640, true, 16, 40)
    write(ch, k, 3)
    for (let i = 0; i < 3; i++) ch.consume(k)
    expect(ch.slots).toBe(0)
    ch.readers.add(5)
    write(ch, k, 1)
    expect(woken).toEqual([[5, WF_SYNC]])
    expect(ch.slots).toBe(1)
  })

  it('one sender filling one receiver\'s pipe on one CPU: every message arrives, and the writer is woken at most once per page read', () => {
    const r = simulateText(scenarioText([{ type: 'hackbench', groups: 1, fds: 1, loops: 8000, ipc: 'pipe', mode: 'process' }], 'smp-1', 10000))
    const sender = r.tasks.find((t) => /s0$/.test(t.name))
    expect(r.workloads[0].extra?.messages).toBe(8000)
    // 8000 messages through a 640-message ring: (8000 - 640) / 40 = 184 page releases at most
    expect(sender?.wakeups).toBeGreaterThan(0)
    expect(sender?.wakeups).toBeLessThan(200)
  })
  it('a coalesced batch\'s writes and reads (placeMany, consumeMany), applied page by page, leave the ring as one by one', () => {
    const { k } = recorder()
    // a deterministic walk over ring states: full rings, wrapped tails, half-read pages
    let x = 12345
    const rnd = (n: number): number => {
      x = (x * 1103515245 + 12345) % 2147483648
      return x % n
    }
    for (const [slots, perPage] of [[16, 40], [4, 3], [2, 1], [1, 5]]) {
      const bulk = new Channel(slots * perPage, true, slots, perPage)
      const one = new Channel(slots * perPage, true, slots, perPage)
      const state = (c: Channel): number[] => [c.committed, c.reserved, c.slots, c.headUsed, c.tailRead, c.room(), c.full ? 1 : 0, c.writable ? 1 : 0]
      for (let step = 0; step < 2000; step++) {
        if (rnd(2) === 0) {
          const n = rnd(one.room() + 1)
          bulk.placeMany(n)
          for (let i = 0; i < n; i++) one.place(false)
          // the writes complete (readable), as applyBulk's completions
          bulk.reserved -= n
          bulk.committed += n
          for (let i = 0; i < n; i++) one.commit(k)
        } else {
          const waiting = rnd(3) === 0
          if (waiting) {
            bulk.writers.add(1)
            one.writers.add(1)
          }
          const n = rnd(one.committed + 1)
          const woken = recorder()
          for (let i = 0; i < n; i++) one.consume(woken.k)
          expect(bulk.consumeMany(n)).toBe(woken.woken.length > 0)
          if (waiting) {
            bulk.writers.remove(1)
            one.writers.remove(1)
          }
        }
        expect(state(bulk)).toEqual(state(one))
      }
    }
  })
})
