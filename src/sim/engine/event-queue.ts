/**
 * Binary min-heap of simulation events over parallel typed arrays: no allocation per event.
 *
 * Order: time, then insertion sequence, so events at the same instant run in the order they
 * were posted (deterministic tie-breaking). Each event carries a kind, a target (CPU or task)
 * and a generation number; owners cancel an event by bumping their generation, and stale
 * events are dropped when popped (cheaper than removal from the middle of the heap).
 */
export class EventQueue {
  private time: Float64Array
  private seq: Float64Array
  private kind: Int32Array
  private target: Int32Array
  private gen: Int32Array
  private n = 0
  private nextSeq = 0

  /** Fields of the last popped event. */
  popTime = 0
  popKind = 0
  popTarget = 0
  popGen = 0

  constructor(capacity = 1024) {
    this.time = new Float64Array(capacity)
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
    if (this.n === this.time.length) this.grow()
    const s = this.nextSeq++
    const time = this.time
    const seq = this.seq
    // sift up with a hole instead of swaps
    let i = this.n++
    while (i > 0) {
      const p = (i - 1) >> 1
      const pt = time[p]
      if (pt < t || (pt === t && seq[p] < s)) break
      this.move(p, i)
      i = p
    }
    time[i] = t
    seq[i] = s
    this.kind[i] = kind
    this.target[i] = target
    this.gen[i] = gen
  }

  /** Remove the earliest event into popTime/popKind/popTarget/popGen. Returns false when empty. */
  pop(): boolean {
    if (this.n === 0) return false
    const time = this.time
    const seq = this.seq
    this.popTime = time[0]
    this.popKind = this.kind[0]
    this.popTarget = this.target[0]
    this.popGen = this.gen[0]
    const last = --this.n
    if (last === 0) return true
    const t = time[last]
    const s = seq[last]
    const k = this.kind[last]
    const tg = this.target[last]
    const g = this.gen[last]
    let i = 0
    const half = last >> 1
    while (i < half) {
      let c = 2 * i + 1
      const r = c + 1
      if (r < last && (time[r] < time[c] || (time[r] === time[c] && seq[r] < seq[c]))) c = r
      if (t < time[c] || (t === time[c] && s < seq[c])) break
      this.move(c, i)
      i = c
    }
    time[i] = t
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
    this.seq[to] = this.seq[from]
    this.kind[to] = this.kind[from]
    this.target[to] = this.target[from]
    this.gen[to] = this.gen[from]
  }

  private grow(): void {
    const cap = this.time.length * 2
    const t = new Float64Array(cap); t.set(this.time); this.time = t
    const s = new Float64Array(cap); s.set(this.seq); this.seq = s
    const k = new Int32Array(cap); k.set(this.kind); this.kind = k
    const g = new Int32Array(cap); g.set(this.target); this.target = g
    const gg = new Int32Array(cap); gg.set(this.gen); this.gen = gg
  }
}
