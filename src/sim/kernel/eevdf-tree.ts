/**
 * The per-runqueue timeline of queued fair entities, ordered by deadline (ties after existing
 * equal keys, as the kernel's rbtree insertion does) and augmented, like the kernel's
 * min_vruntime_cb, with each subtree's minimum vruntime, minimum slice and maximum slice.
 * That augmentation is what makes pick_eevdf an O(log n) eligible-earliest-deadline search.
 *
 * A treap over task ids in typed arrays: deterministic priorities from a fixed xorshift
 * stream, no allocation after construction (arrays grow only when tasks are added).
 */
export const NIL = -1

export class EevdfTree {
  left: Int32Array
  right: Int32Array
  parent: Int32Array
  prio: Uint32Array
  seq: Float64Array
  minV: Float64Array
  minSlice: Float64Array
  maxSlice: Float64Array
  readonly root: Int32Array
  private insertSeq = 0
  private rnd = 0x2545f491

  constructor(
    capacity: number,
    ncpus: number,
    /** Entity fields owned by the kernel: keys and augmented values are read from them. */
    private fields: { deadline: Float64Array; vruntime: Float64Array; slice: Float64Array }
  ) {
    this.left = new Int32Array(capacity).fill(NIL)
    this.right = new Int32Array(capacity).fill(NIL)
    this.parent = new Int32Array(capacity).fill(NIL)
    this.prio = new Uint32Array(capacity)
    this.seq = new Float64Array(capacity)
    this.minV = new Float64Array(capacity)
    this.minSlice = new Float64Array(capacity)
    this.maxSlice = new Float64Array(capacity)
    this.root = new Int32Array(ncpus).fill(NIL)
  }

  /** Re-point at the kernel's (possibly regrown) entity arrays and grow our own. */
  resize(capacity: number, fields: { deadline: Float64Array; vruntime: Float64Array; slice: Float64Array }): void {
    this.fields = fields
    const grow32 = (a: Int32Array): Int32Array => { const b = new Int32Array(capacity).fill(NIL); b.set(a); return b }
    const grow64 = (a: Float64Array): Float64Array => { const b = new Float64Array(capacity); b.set(a); return b }
    this.left = grow32(this.left)
    this.right = grow32(this.right)
    this.parent = grow32(this.parent)
    const p = new Uint32Array(capacity); p.set(this.prio); this.prio = p
    this.seq = grow64(this.seq)
    this.minV = grow64(this.minV)
    this.minSlice = grow64(this.minSlice)
    this.maxSlice = grow64(this.maxSlice)
  }

  private nextPrio(): number {
    let x = this.rnd
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    this.rnd = x >>> 0
    return this.rnd
  }

  private less(a: number, b: number): boolean {
    const d = this.fields.deadline
    return d[a] < d[b] || (d[a] === d[b] && this.seq[a] < this.seq[b])
  }

  private pull(n: number): void {
    const { vruntime, slice } = this.fields
    let mv = vruntime[n]
    let mn = slice[n]
    let mx = mn
    const l = this.left[n]
    const r = this.right[n]
    if (l !== NIL) {
      if (this.minV[l] < mv) mv = this.minV[l]
      if (this.minSlice[l] < mn) mn = this.minSlice[l]
      if (this.maxSlice[l] > mx) mx = this.maxSlice[l]
    }
    if (r !== NIL) {
      if (this.minV[r] < mv) mv = this.minV[r]
      if (this.minSlice[r] < mn) mn = this.minSlice[r]
      if (this.maxSlice[r] > mx) mx = this.maxSlice[r]
    }
    this.minV[n] = mv
    this.minSlice[n] = mn
    this.maxSlice[n] = mx
  }

  private replaceChild(cpu: number, p: number, old: number, nw: number): void {
    if (p === NIL) this.root[cpu] = nw
    else if (this.left[p] === old) this.left[p] = nw
    else this.right[p] = nw
    if (nw !== NIL) this.parent[nw] = p
  }

  /** Rotate n above its parent. */
  private rotateUp(cpu: number, n: number): void {
    const p = this.parent[n]
    const g = this.parent[p]
    if (this.left[p] === n) {
      const b = this.right[n]
      this.left[p] = b
      if (b !== NIL) this.parent[b] = p
      this.right[n] = p
    } else {
      const b = this.left[n]
      this.right[p] = b
      if (b !== NIL) this.parent[b] = p
      this.left[n] = p
    }
    this.parent[p] = n
    this.replaceChild(cpu, g, p, n)
    this.pull(p)
    this.pull(n)
  }

  insert(cpu: number, n: number): void {
    this.left[n] = NIL
    this.right[n] = NIL
    this.seq[n] = this.insertSeq++
    this.prio[n] = this.nextPrio()
    this.pull(n)
    let cur = this.root[cpu]
    if (cur === NIL) {
      this.parent[n] = NIL
      this.root[cpu] = n
      return
    }
    for (;;) {
      if (this.less(n, cur)) {
        if (this.left[cur] === NIL) { this.left[cur] = n; break }
        cur = this.left[cur]
      } else {
        if (this.right[cur] === NIL) { this.right[cur] = n; break }
        cur = this.right[cur]
      }
    }
    this.parent[n] = cur
    while (this.parent[n] !== NIL && this.prio[n] < this.prio[this.parent[n]]) this.rotateUp(cpu, n)
    for (let a = this.parent[n]; a !== NIL; a = this.parent[a]) this.pull(a)
  }

  remove(cpu: number, n: number): void {
    // rotate n down until it has at most one child, then splice it out
    for (;;) {
      const l = this.left[n]
      const r = this.right[n]
      if (l === NIL || r === NIL) break
      this.rotateUp(cpu, this.prio[l] < this.prio[r] ? l : r)
    }
    const child = this.left[n] !== NIL ? this.left[n] : this.right[n]
    const p = this.parent[n]
    this.replaceChild(cpu, p, n, child)
    for (let a = p; a !== NIL; a = this.parent[a]) this.pull(a)
    this.left[n] = NIL
    this.right[n] = NIL
    this.parent[n] = NIL
  }

  /** Earliest-deadline entity, or NIL. */
  first(cpu: number): number {
    let n = this.root[cpu]
    if (n === NIL) return NIL
    while (this.left[n] !== NIL) n = this.left[n]
    return n
  }

  /** In-order walk, for debug checks and tests. */
  forEach(cpu: number, fn: (n: number) => void): void {
    const walk = (n: number): void => {
      if (n === NIL) return
      walk(this.left[n])
      fn(n)
      walk(this.right[n])
    }
    walk(this.root[cpu])
  }
}
