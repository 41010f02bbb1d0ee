/**
 * Binary min-heap of simulation events over parallel typed arrays: no allocation per event.
 *
 * Order: time, then the instant the event was posted (`clock`, set by the owner as time goes
 * on), then target, then insertion sequence, so events at the same instant posted at the same
 * instant run in a fixed order by target (a CPU; a task for timers), and in posting order for
 * one target. Posting happens at non-decreasing instants, so the posting instant only matters
 * for an event posted on behalf of a later one (`pushPosted`): a coalesced batch's completion
 * sorts among same-instant events as its last operation's would have, had it been posted when
 * that operation began (programs.ts armRunDone).
 *
 * Each event carries a kind, a target (CPU or task) and a generation number; owners cancel an
 * event by bumping their generation, and stale events are dropped when popped (cheaper than
 * removal from the middle of the heap). An event that has at most one live instance per owner
 * (a CPU's run completion or tick, a task's timer) can be posted under a *slot*
 * (`pushKeyed`): a new one replaces the slot's previous one in place, so a re-armed completion
 * (every switch, every frequency change) does not leave a stale event behind and the heap
 * holds the live events only, plus at most one cancelled event per slot.
 */
export class EventQueue {
  private time: Float64Array
  private at: Float64Array
  private seq: Float64Array
  private kind: Int32Array
  private target: Int32Array
  private gen: Int32Array
  /** Slot of each heap entry (-1: none) and heap position of each slot (-1: absent). */
  private slot: Int32Array
  private posOf: Int32Array
  private n = 0
  private nextSeq = 0

  /** The current instant: the posting time of pushed events. */
  clock = 0

  /** Fields of the last popped event. */
  popTime = 0
  /** The instant the last popped event was posted. */
  popPosted = 0
  popKind = 0
  popTarget = 0
  popGen = 0

  constructor(capacity = 1024) {
    this.time = new Float64Array(capacity)
    this.at = new Float64Array(capacity)
    this.seq = new Float64Array(capacity)
    this.kind = new Int32Array(capacity)
    this.target = new Int32Array(capacity)
    this.gen = new Int32Array(capacity)
    this.slot = new Int32Array(capacity)
    this.posOf = new Int32Array(64).fill(-1)
  }

  get size(): number {
    return this.n
  }

  peekTime(): number {
    return this.n > 0 ? this.time[0] : Infinity
  }

  /** Kind and target of the earliest event (valid when size > 0). */
  peekKind(): number {
    return this.kind[0]
  }

  peekTarget(): number {
    return this.target[0]
  }

  push(t: number, kind: number, target: number, gen: number): void {
    if (this.n === this.time.length) this.grow()
    this.siftUp(this.n++, t, this.clock, target, this.nextSeq++, kind, gen, -1)
  }

  /** push() as if posted at `postedAt` instead of now. */
  pushPosted(t: number, kind: number, target: number, gen: number, postedAt: number): void {
    if (this.n === this.time.length) this.grow()
    this.siftUp(this.n++, t, postedAt, target, this.nextSeq++, kind, gen, -1)
  }

  /** pushPosted() under `slot` (>= 0): replaces the event the slot holds, if any. */
  pushKeyed(slot: number, t: number, kind: number, target: number, gen: number, postedAt: number): void {
    if (slot >= this.posOf.length) {
      const p = new Int32Array(Math.max(slot + 1, this.posOf.length * 2)).fill(-1)
      p.set(this.posOf)
      this.posOf = p
    }
    const s = this.nextSeq++
    const i = this.posOf[slot]
    if (i < 0) {
      if (this.n === this.time.length) this.grow()
      this.siftUp(this.n++, t, postedAt, target, s, kind, gen, slot)
      return
    }
    // the replaced event was earlier than the new one: it can only move down, else up
    const ot = this.time[i]
    if (ot < t || (ot === t && (this.at[i] < postedAt || (this.at[i] === postedAt && (this.target[i] < target || (this.target[i] === target && this.seq[i] < s)))))) {
      this.siftDown(i, t, postedAt, target, s, kind, gen, slot)
    } else {
      this.siftUp(i, t, postedAt, target, s, kind, gen, slot)
    }
  }

  /** Remove the earliest event into popTime/popKind/popTarget/popGen. Returns false when empty. */
  pop(): boolean {
    if (this.n === 0) return false
    this.popTime = this.time[0]
    this.popPosted = this.at[0]
    this.popKind = this.kind[0]
    this.popTarget = this.target[0]
    this.popGen = this.gen[0]
    const sl = this.slot[0]
    if (sl >= 0) this.posOf[sl] = -1
    const last = --this.n
    if (last === 0) return true
    this.siftDown(0, this.time[last], this.at[last], this.target[last], this.seq[last], this.kind[last], this.gen[last], this.slot[last])
    return true
  }

  clear(): void {
    this.n = 0
    this.posOf.fill(-1)
  }

  /** Place an event at hole i, moving it up (sift up with a hole instead of swaps). */
  private siftUp(i: number, t: number, a: number, tg: number, s: number, k: number, g: number, sl: number): void {
    const time = this.time
    const at = this.at
    const target = this.target
    const seq = this.seq
    while (i > 0) {
      const p = (i - 1) >> 1
      const pt = time[p]
      if (pt < t || (pt === t && (at[p] < a || (at[p] === a && (target[p] < tg || (target[p] === tg && seq[p] < s)))))) break
      this.move(p, i)
      i = p
    }
    this.put(i, t, a, tg, s, k, g, sl)
  }

  /** Place an event at hole i, moving it down. */
  private siftDown(i: number, t: number, a: number, tg: number, s: number, k: number, g: number, sl: number): void {
    const time = this.time
    const at = this.at
    const target = this.target
    const seq = this.seq
    const n = this.n
    const half = n >> 1
    while (i < half) {
      let c = 2 * i + 1
      const r = c + 1
      if (r < n && (time[r] < time[c] || (time[r] === time[c] && (at[r] < at[c] || (at[r] === at[c] && (target[r] < target[c] || (target[r] === target[c] && seq[r] < seq[c]))))))) c = r
      if (t < time[c] || (t === time[c] && (a < at[c] || (a === at[c] && (tg < target[c] || (tg === target[c] && s < seq[c])))))) break
      this.move(c, i)
      i = c
    }
    this.put(i, t, a, tg, s, k, g, sl)
  }

  private put(i: number, t: number, a: number, tg: number, s: number, k: number, g: number, sl: number): void {
    this.time[i] = t
    this.at[i] = a
    this.target[i] = tg
    this.seq[i] = s
    this.kind[i] = k
    this.gen[i] = g
    this.slot[i] = sl
    if (sl >= 0) this.posOf[sl] = i
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from]
    this.at[to] = this.at[from]
    this.seq[to] = this.seq[from]
    this.kind[to] = this.kind[from]
    this.target[to] = this.target[from]
    this.gen[to] = this.gen[from]
    const sl = this.slot[from]
    this.slot[to] = sl
    if (sl >= 0) this.posOf[sl] = to
  }

  private grow(): void {
    const cap = this.time.length * 2
    const f64 = (a: Float64Array): Float64Array => { const b = new Float64Array(cap); b.set(a); return b }
    const i32 = (a: Int32Array): Int32Array => { const b = new Int32Array(cap); b.set(a); return b }
    this.time = f64(this.time)
    this.at = f64(this.at)
    this.seq = f64(this.seq)
    this.kind = i32(this.kind)
    this.target = i32(this.target)
    this.gen = i32(this.gen)
    this.slot = i32(this.slot)
  }
}
