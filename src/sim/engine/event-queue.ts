/**
 * Binary min-heap of simulation events over parallel typed arrays: no allocation per event.
 *
 * Order: time, then the instant the event was posted (`clock`, set by the owner as time goes
 * on), then target, then insertion sequence, so events at the same instant posted at the same
 * instant run in a fixed order by target (a CPU; a task for timers), and in posting order for
 * one target. Target and sequence compare as one packed key, target x 2^32 + sequence (targets
 * below 2^20 in magnitude; the sequence is renumbered, order kept, before it reaches 2^32). Posting happens at non-decreasing instants, so the posting instant only matters
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
/** Sequence numbers per target in the packed key (see EventQueue). */
const SEQ_SPAN = 2 ** 32

export class EventQueue {
  private time: Float64Array
  private at: Float64Array
  /** target x SEQ_SPAN + sequence: the last two levels of the order in one comparison. */
  private key: Float64Array
  private kind: Int32Array
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

  /**
   * @param seqLimit the sequence number that triggers renumbering (tests lower it; at most
   *   SEQ_SPAN)
   */
  constructor(capacity = 1024, private readonly seqLimit = SEQ_SPAN) {
    this.time = new Float64Array(capacity)
    this.at = new Float64Array(capacity)
    this.key = new Float64Array(capacity)
    this.kind = new Int32Array(capacity)
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
    return Math.floor(this.key[0] / SEQ_SPAN)
  }

  push(t: number, kind: number, target: number, gen: number): void {
    if (this.n === this.time.length) this.grow()
    this.siftUp(this.n++, t, this.clock, this.keyOf(target), kind, gen, -1)
  }

  /** push() as if posted at `postedAt` instead of now. */
  pushPosted(t: number, kind: number, target: number, gen: number, postedAt: number): void {
    if (this.n === this.time.length) this.grow()
    this.siftUp(this.n++, t, postedAt, this.keyOf(target), kind, gen, -1)
  }

  /** The packed key of a new event for `target`: later than every event posted before. */
  private keyOf(target: number): number {
    if (this.nextSeq >= this.seqLimit) this.renumber()
    return target * SEQ_SPAN + this.nextSeq++
  }

  /** Sequence numbers 0..n-1 for the events held, in their order: the heap stays as it is. */
  private renumber(): void {
    const idx = Array.from({ length: this.n }, (_, i) => i)
    const seqOf = (i: number): number => this.key[i] - Math.floor(this.key[i] / SEQ_SPAN) * SEQ_SPAN
    idx.sort((a, b) => seqOf(a) - seqOf(b))
    idx.forEach((i, rank) => {
      this.key[i] = Math.floor(this.key[i] / SEQ_SPAN) * SEQ_SPAN + rank
    })
    this.nextSeq = this.n
  }

  /** pushPosted() under `slot` (>= 0): replaces the event the slot holds, if any. */
  pushKeyed(slot: number, t: number, kind: number, target: number, gen: number, postedAt: number): void {
    if (slot >= this.posOf.length) {
      const p = new Int32Array(Math.max(slot + 1, this.posOf.length * 2)).fill(-1)
      p.set(this.posOf)
      this.posOf = p
    }
    const key = this.keyOf(target)
    const i = this.posOf[slot]
    if (i < 0) {
      if (this.n === this.time.length) this.grow()
      this.siftUp(this.n++, t, postedAt, key, kind, gen, slot)
      return
    }
    // the replaced event was earlier than the new one: it can only move down, else up
    const ot = this.time[i]
    if (ot < t || (ot === t && (this.at[i] < postedAt || (this.at[i] === postedAt && this.key[i] < key)))) {
      this.siftDown(i, t, postedAt, key, kind, gen, slot)
    } else {
      this.siftUp(i, t, postedAt, key, kind, gen, slot)
    }
  }

  /** Remove the earliest event into popTime/popKind/popTarget/popGen. Returns false when empty. */
  pop(): boolean {
    if (this.n === 0) return false
    this.popTime = this.time[0]
    this.popPosted = this.at[0]
    this.popKind = this.kind[0]
    this.popTarget = Math.floor(this.key[0] / SEQ_SPAN)
    this.popGen = this.gen[0]
    const sl = this.slot[0]
    if (sl >= 0) this.posOf[sl] = -1
    const last = --this.n
    if (last === 0) return true
    this.siftDown(0, this.time[last], this.at[last], this.key[last], this.kind[last], this.gen[last], this.slot[last])
    return true
  }

  clear(): void {
    this.n = 0
    this.posOf.fill(-1)
  }

  /** Place an event at hole i, moving it up (sift up with a hole instead of swaps). */
  private siftUp(i: number, t: number, a: number, ky: number, k: number, g: number, sl: number): void {
    const time = this.time
    const at = this.at
    const key = this.key
    while (i > 0) {
      const p = (i - 1) >> 1
      const pt = time[p]
      if (pt < t || (pt === t && (at[p] < a || (at[p] === a && key[p] < ky)))) break
      this.move(p, i)
      i = p
    }
    this.put(i, t, a, ky, k, g, sl)
  }

  /** Place an event at hole i, moving it down. */
  private siftDown(i: number, t: number, a: number, ky: number, k: number, g: number, sl: number): void {
    const time = this.time
    const at = this.at
    const key = this.key
    const n = this.n
    const half = n >> 1
    while (i < half) {
      let c = 2 * i + 1
      const r = c + 1
      if (r < n && (time[r] < time[c] || (time[r] === time[c] && (at[r] < at[c] || (at[r] === at[c] && key[r] < key[c]))))) c = r
      if (t < time[c] || (t === time[c] && (a < at[c] || (a === at[c] && ky < key[c])))) break
      this.move(c, i)
      i = c
    }
    this.put(i, t, a, ky, k, g, sl)
  }

  private put(i: number, t: number, a: number, ky: number, k: number, g: number, sl: number): void {
    this.time[i] = t
    this.at[i] = a
    this.key[i] = ky
    this.kind[i] = k
    this.gen[i] = g
    this.slot[i] = sl
    if (sl >= 0) this.posOf[sl] = i
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from]
    this.at[to] = this.at[from]
    this.key[to] = this.key[from]
    this.kind[to] = this.kind[from]
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
    this.key = f64(this.key)
    this.kind = i32(this.kind)
    this.gen = i32(this.gen)
    this.slot = i32(this.slot)
  }
}
