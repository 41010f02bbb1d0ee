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
})

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
