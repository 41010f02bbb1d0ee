/**
 * Binary min-heap of simulation events over parallel typed arrays: no allocation per event.
 *
 * Order: time, then the instant the event was posted (`clock`, set by the owner as time goes
 * on), then insertion sequence, so events at the same instant run in the order they were
 * posted (deterministic tie-breaking). Posting happens at non-decreasing instants, so the
 * posting instant only matters for an event posted on behalf of a later one (`pushPosted`): a
 * coalesced batch's completion sorts among same-instant events as its last operation's would
 * have, had it been posted when that operation began (core.ts armRunDone).
 * Each event carries a kind, a target (CPU or task)
 * and a generation number; owners cancel an event by bumping their generation, and stale
 * events are dropped when popped (cheaper than removal from the middle of the heap).
 */
export class EventQueue {
  private time: Float64Array
  private at: Float64Array
  private seq: Float64Array
  private kind: Int32Array
  private target: Int32Array
  private gen: Int32Array
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
    this.pushPosted(t, kind, target, gen, this.clock)
  }

  /** push() as if posted at `postedAt` (>= clock) instead of now. */
  pushPosted(t: number, kind: number, target: number, gen: number, postedAt: number): void {
    if (this.n === this.time.length) this.grow()
    const s = this.nextSeq++
    const time = this.time
    const at = this.at
    const seq = this.seq
    const tgt = this.target
    // sift up with a hole instead of swaps
    let i = this.n++
    while (i > 0) {
      const p = (i - 1) >> 1
      const pt = time[p]
      if (pt < t || (pt === t && (at[p] < postedAt || (at[p] === postedAt && (tgt[p] < target || (tgt[p] === target && seq[p] < s)))))) break
      this.move(p, i)
      i = p
    }
    time[i] = t
    at[i] = postedAt
    seq[i] = s
    this.kind[i] = kind
    this.target[i] = target
    this.gen[i] = gen
  }

  /** Remove the earliest event into popTime/popKind/popTarget/popGen. Returns false when empty. */
  pop(): boolean {
    if (this.n === 0) return false
    const time = this.time
    const at = this.at
    const seq = this.seq
    const tgt = this.target
    this.popTime = time[0]
    this.popPosted = at[0]
    this.popKind = this.kind[0]
    this.popTarget = this.target[0]
    this.popGen = this.gen[0]
    const last = --this.n
    if (last === 0) return true
    const t = time[last]
    const a = at[last]
    const s = seq[last]
    const k = this.kind[last]
    const tg = this.target[last]
    const g = this.gen[last]
    let i = 0
    const half = last >> 1
    while (i < half) {
      let c = 2 * i + 1
      const r = c + 1
      if (r < last && (time[r] < time[c] || (time[r] === time[c] && (at[r] < at[c] || (at[r] === at[c] && (tgt[r] < tgt[c] || (tgt[r] === tgt[c] && seq[r] < seq[c]))))))) c = r
      if (t < time[c] || (t === time[c] && (a < at[c] || (a === at[c] && (tg < tgt[c] || (tg === tgt[c] && s < seq[c])))))) break
      this.move(c, i)
      i = c
    }
    time[i] = t
    at[i] = a
    seq[i] = s
    this.kind[i] = k
    this.target[i] = tg
    this.gen[i] = g
    return true
  }

  clear(): void {
    this.n = 0
  }

  private move(from: number, to: number): void {
    this.time[to] = this.time[from]
    this.at[to] = this.at[from]
    this.seq[to] = this.seq[from]
    this.kind[to] = this.kind[from]
    this.target[to] = this.target[from]
    this.gen[to] = this.gen[from]
  }

  private grow(): void {
    const cap = this.time.length * 2
    const t = new Float64Array(cap); t.set(this.time); this.time = t
    const a = new Float64Array(cap); a.set(this.at); this.at = a
    const s = new Float64Array(cap); s.set(this.seq); this.seq = s
    const k = new Int32Array(cap); k.set(this.kind); this.kind = k
    const g = new Int32Array(cap); g.set(this.target); this.target = g
    const gg = new Int32Array(cap); gg.set(this.gen); this.gen = gg
  }
}
