import { describe, expect, it } from 'vitest'
import { EventQueue } from './event-queue'
import { Prng } from './prng'

describe('EventQueue', () => {
  it('pops in time order with FIFO tie-breaking, across growth', () => {
    for (const seed of [1, 2, 3]) {
      const rng = new Prng(seed)
      const q = new EventQueue(4)
      const ref: { t: number; i: number }[] = []
      for (let i = 0; i < 5000; i++) {
        const t = rng.below(200)
        q.push(t, 1, i, 0)
        ref.push({ t, i })
        if (rng.next() < 0.3) {
          ref.sort((a, b) => a.t - b.t || a.i - b.i)
          const e = ref.shift()!
          expect(q.pop()).toBe(true)
          expect([q.popTime, q.popTarget]).toEqual([e.t, e.i])
        }
      }
      ref.sort((a, b) => a.t - b.t || a.i - b.i)
      for (const e of ref) {
        expect(q.pop()).toBe(true)
        expect([q.popTime, q.popTarget]).toEqual([e.t, e.i])
      }
      expect(q.pop()).toBe(false)
    }
  })

  // the heap pops in the total order of the keys (so its shape is free: any heap gives the same
  // sequence), whatever replacements and posting instants come in between
  it('pops by (time, posting instant, target, sequence), with keyed events replaced in place', () => {
    for (const seed of [4, 5, 6]) popsInOrder(new Prng(seed), new EventQueue(2), { spread: 50, targets: 6, minTarget: 0, slots: 12, lateAt: 3, keyed: 0.3, pushed: 0.6 })
  })

  it('renumbers its sequence numbers without changing the order of the events it holds', () => {
    // a low renumbering point: the sequence restarts every few dozen pushes; negative targets
    for (const seed of [7, 8]) popsInOrder(new Prng(seed), new EventQueue(2, 40), { spread: 20, targets: 4, minTarget: -1, slots: 6, lateAt: 1, keyed: 0.25, pushed: 0.5 })
  })
})

interface OrderWalk {
  /** Events fall within `spread` ns of now, for targets minTarget..minTarget+targets-1. */
  spread: number
  targets: number
  minTarget: number
  /** Keyed events use `slots` slots and are posted up to lateAt - 1 ns before now. */
  slots: number
  lateAt: number
  /** Probabilities: a keyed push below `keyed`, a plain push below `pushed`, else a pop. */
  keyed: number
  pushed: number
}

/** 20000 random pushes, keyed pushes and pops, each pop checked against a sorted reference. */
function popsInOrder(rng: Prng, q: EventQueue, w: OrderWalk): void {
  type E = { t: number; at: number; tg: number; s: number; slot: number }
  let live: E[] = []
  let seq = 0
  const order = (x: E, y: E): number => x.t - y.t || x.at - y.at || x.tg - y.tg || x.s - y.s
  for (let i = 0; i < 20000; i++) {
    q.clock = Math.floor(i / 7)
    const t = q.clock + rng.below(w.spread)
    const tg = w.minTarget + rng.below(w.targets)
    const r = rng.next()
    if (r < w.keyed) {
      const slot = rng.below(w.slots)
      const at = q.clock - rng.below(w.lateAt)
      q.pushKeyed(slot, t, 1, tg, slot, at)
      live = live.filter((e) => e.slot !== slot)
      live.push({ t, at, tg, s: seq++, slot })
    } else if (r < w.pushed) {
      q.push(t, 1, tg, -1)
      live.push({ t, at: q.clock, tg, s: seq++, slot: -1 })
    } else if (live.length > 0) {
      live.sort(order)
      const e = live.shift()!
      expect(q.pop()).toBe(true)
      expect([q.popTime, q.popPosted, q.popTarget, q.popGen]).toEqual([e.t, e.at, e.tg, e.slot])
    }
    expect(q.size).toBe(live.length)
  }
}

describe('Prng', () => {
  it('is deterministic per seed and roughly uniform', () => {
    const a = new Prng(7)
    const b = new Prng(7)
    const c = new Prng(8)
    let same = 0
    let sum = 0
    for (let i = 0; i < 10_000; i++) {
      const x = a.next()
      expect(x).toBe(b.next())
      if (x === c.next()) same++
      sum += x
    }
    expect(same).toBeLessThan(5)
    expect(sum / 10_000).toBeGreaterThan(0.48)
    expect(sum / 10_000).toBeLessThan(0.52)
  })
})
