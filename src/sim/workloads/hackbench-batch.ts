import type { TaskContext, TaskProgram } from '../kernel/api'
import type { Bench, Channel, Group, LazyWorker } from './pipe'
import type { WaitQueue } from './sync'

/**
 * Coalesced hackbench workers (kernel.coalesce, the default). A write into a pipe that has no
 * sleeping reader and is not full, or a read from a pipe that stays non-empty, wakes no one
 * and blocks no one: the kernel makes no decision there. A worker therefore runs a *batch* of
 * consecutive syscalls as one run of their summed work (runOps), split at the first one that
 * may wake or block someone; that one is completed by the program's next step, exactly as in
 * the message-by-message mode (hackbench.ts Sender/Receiver, kernel.coalesce false).
 *
 * The operations inside a batch are applied lazily: every worker is known to the channels it
 * uses, and whoever is about to look at such a channel first materializes the operations
 * the batch has completed by now (runOpsLeft), so every decision is taken on the state the
 * one-by-one run shows at that instant. What keeps the lazily applied operations silent:
 * - a write completes silently when its channel has no waiting reader, and, for a writer that
 *   waited on it, no waiting writer (pipe_write wakes the next writer only after a wait of its
 *   own: wake_next_writer); a read when its channel has no waiting writer. A task that starts
 *   waiting on a channel ends every batch there at its first operation on that channel that
 *   may wake it (`cut`), whose completion then does.
 * - a read never finds its pipe empty: a receiver batch reads at most what was readable when
 *   it was planned (others only add to it).
 * - a write never finds its pipe full: every channel keeps the writes batches will still begin
 *   (lazyWrites) within its room (Channel.room(): writes that can begin without waiting; each
 *   takes one, reads only add to it); a write begun outside a batch that breaks this (one that
 *   waited takes a whole new page) ends batches before their next write there (`makeRoom`).
 * The kernel keeps the batch's preemption points (a syscall's return to user mode) where a
 * reschedule waits for one (programs.ts batchPoint). Should a lazily applied operation still wake
 * or block someone (a bug), it is done anyway, late, and counted in `extra.coalesceFaults`.
 * Bookkeeping is per channel, not per operation: a batch of n writes over f receivers costs
 * O(min(n, f)).
 */

/** Longest batch, in operations. */
export const MAX_BATCH = 4096

export abstract class BatchWorker implements TaskProgram, LazyWorker {
  task = -1
  /** Operations in the current batch (0: none). */
  n = 0
  /** Operations of the batch applied so far; operation applied+1 is in flight (begun). */
  protected applied = 0
  /** Before this instant no operation beyond those applied completes (materialize). */
  protected notBefore = 0
  /** The batch's run is done and finish() applies it: it no longer grows. */
  protected ending = false
  constructor(
    protected readonly bench: Bench,
    protected readonly w: number
  ) {}

  /** Channel of operation applied+1+d of the batch (d = 0: the one in flight, or the next). */
  protected abstract channelAt(d: number): Channel
  /** Operations left in this round, the one in flight included. */
  protected abstract left(): number
  protected abstract mustWait(ch: Channel): boolean
  protected abstract waitQueue(ch: Channel): WaitQueue
  /** Make the exact state of `ch` visible before a decision on it. */
  protected abstract prepare(k: TaskContext, ch: Channel): void
  /** Begin operation 1 (it was checked); plan the others. Returns the batch length. */
  protected abstract plan(k: TaskContext, ch: Channel): number
  /** Complete the operation in flight (effects, wakeups) and move to the next. */
  protected abstract complete(k: TaskContext): void
  /** Begin the operation now in flight, inside a batch. */
  protected abstract beginLazy(): void
  /** Would completing an operation on ch wake nobody? `inFlight`: the operation in flight (offset 0), which may have waited. */
  protected abstract silent(ch: Channel, inFlight: boolean): boolean
  /** Apply operations applied+1..applied+m (completions, and the begins that follow) at once; false if one would not be silent. */
  protected abstract applyBulk(k: TaskContext, m: number): boolean
  /** Offset d (from the operation in flight) of the first operation on ch at or after `from`, or -1. */
  protected abstract offsetOf(ch: Channel, from: number): number
  /** Operations from+1..to of the batch will not happen (they were never begun). */
  protected abstract dropPlanned(from: number, to: number): void
  protected abstract roundDone(): boolean
  protected abstract reset(): void

  step(task: number, k: TaskContext): void {
    if (this.n > 0) this.finish(k)
    for (;;) {
      if (this.roundDone()) {
        this.reset()
        if (this.bench.endRound(task, k)) return
        continue
      }
      const ch = this.channelAt(0)
      this.prepare(k, ch)
      if (this.mustWait(ch)) {
        this.waitQueue(ch).add(task)
        // batches with an operation on ch must stop at it: its completion wakes us now
        if (ch.receiver !== null) ch.receiver.cut(k, ch)
        const senders = ch.senders
        for (let i = 0; i < senders.length; i++) senders[i].cut(k, ch)
        return k.block(task)
      }
      return this.startBatch(task, k, ch)
    }
  }

  /** Plan a batch beginning with an operation on ch (it was checked) and run it. */
  protected startBatch(task: number, k: TaskContext, ch: Channel): void {
    this.n = this.plan(k, ch)
    this.applied = 0
    this.notBefore = 0
    if (this.n > 0) this.batchBegins()
    k.runOps(task, this.n, this.w)
  }

  /** The batch's run is done: apply its operations, the last one with its wakeups. */
  private finish(k: TaskContext): void {
    this.ending = true
    this.applyTo(k, this.n - 1)
    const ch = this.channelAt(0)
    this.prepare(k, ch)
    this.complete(k)
    this.n = 0
    this.applied = 0
    this.ending = false
    this.batchEnds()
  }

  /** A batch is under way (n > 0): others must materialize it before they look at its channels. */
  protected batchBegins(): void {}
  /** The batch is done (n = 0). */
  protected batchEnds(): void {}

  private applyTo(k: TaskContext, done: number): void {
    if (done <= this.applied) return
    if (this.applyBulk(k, done - this.applied)) {
      this.applied = done
      return
    }
    // a waiter appeared where none may be: one by one, waking it late (a fault)
    while (this.applied < done) {
      if (!this.silent(this.channelAt(0), true)) this.bench.coalesceFaults++
      this.complete(k)
      this.applied++
      this.beginLazy()
    }
  }

  /** Apply the operations completed by now (called by others before they look at a channel). */
  materialize(k: TaskContext): void {
    // nothing to apply before the last operation, which finish() completes (about half the
    // calls), nor before the operation in flight can have completed
    if (this.applied >= this.n - 1 || k.now < this.notBefore) return
    const done = this.n - k.runOpsLeft(this.task)
    this.notBefore = k.opDoneNotBefore()
    this.applyTo(k, done < this.n - 1 ? done : this.n - 1)
  }

  /** Others' batches on ch, materialized. */
  protected syncOthers(k: TaskContext, ch: Channel): void {
    const r = ch.receiver
    if (r !== null && r !== this && r.n > 0) r.materialize(k)
    const senders = ch.senders
    for (let i = 0; i < senders.length; i++) {
      const b = senders[i]
      if (b !== this && b.n > 0) b.materialize(k)
    }
  }

  /** Someone waits on ch: end the batch at its first operation there still to complete, if that may wake it. */
  cut(k: TaskContext, ch: Channel): void {
    if (this.n === 0) return
    this.materialize(k)
    const d = this.offsetOf(ch, 0)
    if (d >= 0 && this.mayWake(ch, d)) this.shorten(k, this.applied + 1 + d)
  }

  /** Messages landed on a pipe it reads (LazyWorker.readsMore): a sender's batch takes none. */
  readsMore(_k: TaskContext): void {}

  /** May the operation at offset d (on ch) wake a task waiting there now? */
  protected mayWake(_ch: Channel, _d: number): boolean {
    return true
  }

  /** ch must lose planned writes: end the batch before its first one not begun yet. */
  makeRoom(k: TaskContext, ch: Channel): boolean {
    if (this.n === 0) return false
    this.materialize(k)
    const d = this.offsetOf(ch, 1)
    if (d < 0) return false
    return this.shorten(k, this.applied + d)
  }

  private shorten(k: TaskContext, n: number): boolean {
    if (n >= this.n) return false
    this.dropPlanned(n, this.n)
    const left = k.runLeft(this.task) - (this.n - n) * this.w
    this.n = n
    k.setRunLeft(this.task, left > 0 ? left : 0)
    return true
  }
}

/** Ring buffers the writes planned for pipe `c` (lazyWrites) may still open: after the head page's room. */
function pagesAhead(c: Channel): number {
  const free = c.slots === 0 ? 0 : c.perPage - c.headUsed
  const over = c.lazyWrites - free
  return over > 0 ? Math.ceil(over / c.perPage) : 0
}

/** How many offsets j in lo..hi (lo >= 0) are congruent to d modulo f (0 <= d < f). */
function countOn(d: number, f: number, lo: number, hi: number): number {
  let r = (d - lo) % f
  if (r < 0) r += f
  const first = lo + r
  return first > hi ? 0 : (((hi - first) / f) | 0) + 1
}

/** Writes `loops` rounds of one message to each receiver of its group, in receiver order. */
export class BatchSender extends BatchWorker {
  private loop = 0
  private target = 0
  /** It slept on the pipe its next write goes to (hackbench.ts Sender). */
  private waited = false
  /** Creation order within the group: its place in Group.batching. */
  private readonly rank: number

  constructor(bench: Bench, private readonly group: Group, workNs: number) {
    super(bench, workNs)
    this.rank = group.senders++
  }

  // every channel it writes to sees its batch while one is under way (a batch with nothing
  // planned on a channel does nothing there), in creation order as the kernel's run would
  // (by hand rather than splice(): this runs at every batch)
  protected override batchBegins(): void {
    const list = this.group.batching
    let i = list.length
    while (i > 0 && (list[i - 1] as BatchSender).rank > this.rank) i--
    if (i > 0 && list[i - 1] === this) return
    list.push(this)
    for (let j = list.length - 1; j > i; j--) list[j] = list[j - 1]
    list[i] = this
  }
  protected override batchEnds(): void {
    const list = this.group.batching
    let i = 0
    while (i < list.length && list[i] !== this) i++
    if (i === list.length) return
    for (; i < list.length - 1; i++) list[i] = list[i + 1]
    list.pop()
  }

  protected channelAt(d: number): Channel {
    const ch = this.group.channels
    let i = this.target + d
    // d is below fds nearly always: subtract rather than divide
    while (i >= ch.length) i -= ch.length
    return ch[i]
  }
  protected left(): number {
    return (this.bench.spec.loops - this.loop) * this.bench.spec.fds - this.target
  }
  protected offsetOf(ch: Channel, from: number): number {
    const chans = this.group.channels
    const fds = chans.length
    let d = (ch.index - this.target + fds) % fds
    while (d < from) d += fds
    return this.applied + 1 + d <= this.n ? d : -1
  }
  protected mustWait(ch: Channel): boolean {
    const wait = this.waited ? !ch.writable : ch.full
    if (wait) this.waited = true
    return wait
  }
  protected waitQueue(ch: Channel): WaitQueue {
    return ch.writers
  }
  protected silent(ch: Channel, inFlight: boolean): boolean {
    return ch.readers.size === 0 && (!(inFlight && this.waited) || ch.writers.size === 0)
  }
  // a writer that starts waiting is woken by a read, or by a write that waited itself
  protected override mayWake(ch: Channel, d: number): boolean {
    return !this.silent(ch, d === 0)
  }
  protected prepare(k: TaskContext, ch: Channel): void {
    // only a channel close to full, or with waiting writers, needs its exact fill
    if (ch.room() <= ch.lazyWrites || ch.writers.size > 0 || this.waited) this.syncOthers(k, ch)
  }
  protected plan(k: TaskContext, ch: Channel): number {
    const n = this.planWrites(k, ch)
    this.fillsRings(k, n)
    return n
  }

  /**
   * A pipe's reader batches its reads while writers wait as long as the ring cannot fill up
   * (BatchReceiver.readsSilently). A plan that may fill a ring with waiting writers ends the
   * reader's batch at its read in flight, whose completion then decides the wakeup.
   */
  private fillsRings(k: TaskContext, n: number): void {
    const chans = this.group.channels
    const fds = chans.length
    for (let d = 0, i = this.target; d < fds && d < n; d++, i = i + 1 === fds ? 0 : i + 1) {
      const c = chans[i]
      const r = c.receiver
      if (r !== null && c.pipe && c.writers.size > 0 && c.slots + pagesAhead(c) >= c.maxSlots) r.cut(k, c)
    }
  }

  private planWrites(k: TaskContext, ch: Channel): number {
    ch.place(this.waited)
    if (ch.room() < ch.lazyWrites) {
      // our write took room others' batches counted on
      // the channel's receiver first, then the group's senders, until the writes fit
      const r = ch.receiver
      let fits = r !== null && r !== this && r.makeRoom(k, ch) && ch.room() >= ch.lazyWrites
      const senders = ch.senders
      for (let i = 0; !fits && i < senders.length; i++) {
        const b = senders[i]
        fits = b !== this && b.makeRoom(k, ch) && ch.room() >= ch.lazyWrites
      }
    }
    if (!this.silent(ch, true)) return 1
    // the longest run of writes that begin with room and complete silently, channel by channel:
    // the one at offset d gets writes d, d + fds, ...
    // (i: the channel at offset d, walked without a division)
    const chans = this.group.channels
    const fds = chans.length
    let n = Math.min(MAX_BATCH, this.left())
    for (let d = 0, i = this.target; d < fds && d < n; d++, i = i + 1 === fds ? 0 : i + 1) {
      const c = chans[i]
      let room = c.room() - c.lazyWrites
      // the reads its reader's batch has done by now free room too
      if (d > 0 && d + room * fds < n && c.receiver !== null && c.receiver.n > 0) {
        c.receiver.materialize(k)
        room = c.room() - c.lazyWrites
      }
      const byRoom = d === 0 ? (room + 1) * fds : d + room * fds
      if (byRoom < n) n = byRoom
      if (d > 0 && d < n && !this.silent(c, false)) n = d + 1
    }
    for (let d = 0, i = this.target; d < fds && d < n; d++, i = i + 1 === fds ? 0 : i + 1) {
      chans[i].lazyWrites += (((n - 1 - d) / fds) | 0) + 1 - (d === 0 ? 1 : 0)
    }
    return n
  }
  protected complete(k: TaskContext): void {
    this.channelAt(0).commit(k, this.waited)
    this.waited = false
    if (++this.target === this.bench.spec.fds) {
      this.target = 0
      this.loop++
    }
  }
  protected beginLazy(): void {
    const ch = this.channelAt(0)
    if (ch.full) this.bench.coalesceFaults++
    ch.lazyWrites--
    ch.place(false)
  }
  protected applyBulk(k: TaskContext, m: number): boolean {
    const chans = this.group.channels
    const fds = chans.length
    for (let d = 0, i = this.target; d < fds && d < m; d++, i = i + 1 === fds ? 0 : i + 1) if (!this.silent(chans[i], d === 0)) return false
    // the write in flight completes silently: a writer that waited wakes no one without waiters
    this.waited = false
    // operations applied+1 .. applied+m complete (offsets 0..m-1 from the one in flight) and
    // the ones after them begin (offsets 1..m)
    for (let d = 0, i = this.target; d < fds && d <= m; d++, i = i + 1 === fds ? 0 : i + 1) {
      const c = chans[i]
      // offsets 0..m-1 and 1..m congruent to d
      const done = d < m ? (((m - 1 - d) / fds) | 0) + 1 : 0
      const begun = d === 0 ? (m / fds) | 0 : (((m - d) / fds) | 0) + 1
      c.committed += done
      c.reserved -= done
      if (begun > c.room()) this.bench.coalesceFaults++
      c.placeMany(begun)
      c.lazyWrites -= begun
      // its reader's batch may read them too
      if (done > 0 && c.receiver !== null && c.receiver.n > 0) c.receiver.readsMore(k)
    }
    const pos = this.loop * fds + this.target + m
    this.loop = Math.floor(pos / fds)
    this.target = pos - this.loop * fds
    return true
  }
  protected dropPlanned(from: number, to: number): void {
    const chans = this.group.channels
    const fds = chans.length
    const a = this.applied
    const lo = from - a
    const hi = to - a - 1
    if (hi - lo + 1 < fds) {
      // offsets lo..hi, fewer than fds: each channel at most once (i: offset j's channel)
      let i = (this.target + (lo % fds)) % fds
      for (let j = lo; j <= hi; j++, i = i + 1 === fds ? 0 : i + 1) chans[i].lazyWrites--
    } else {
      for (let d = 0, i = this.target; d < fds; d++, i = i + 1 === fds ? 0 : i + 1) chans[i].lazyWrites -= countOn(d, fds, lo, hi)
    }
  }
  protected roundDone(): boolean {
    return this.loop === this.bench.spec.loops
  }
  protected reset(): void {
    this.loop = 0
  }
}

/** Reads fds x loops messages from its own channel. */
export class BatchReceiver extends BatchWorker {
  private got = 0

  constructor(bench: Bench, private readonly ch: Channel, workNs: number) {
    super(bench, workNs)
    ch.receiver = this
  }

  protected channelAt(): Channel {
    return this.ch
  }
  protected left(): number {
    return this.bench.spec.fds * this.bench.spec.loops - this.got
  }
  protected offsetOf(ch: Channel, from: number): number {
    return ch === this.ch && this.applied + 1 + from <= this.n ? from : -1
  }
  protected mustWait(ch: Channel): boolean {
    return ch.committed === 0
  }
  protected waitQueue(ch: Channel): WaitQueue {
    return ch.readers
  }
  protected silent(ch: Channel, _inFlight: boolean): boolean {
    // pipe_read wakes a writer only when it frees a buffer of a full ring (reads only free
    // buffers); a socket's read may wake them whenever they wait (unix_writable)
    return ch.writers.size === 0 || (ch.pipe && ch.slots < ch.maxSlots)
  }
  protected prepare(k: TaskContext, ch: Channel): void {
    this.syncOthers(k, ch)
  }
  protected plan(_k: TaskContext, ch: Channel): number {
    if (!this.readsSilently(ch)) return 1
    return Math.max(1, Math.min(MAX_BATCH, ch.committed, this.left()))
  }
  /**
   * Will every read of a batch planned now complete silently? With writers waiting on a pipe
   * (one read freed a buffer and woke one of them), yes while the buffers in use plus those the
   * planned writes may still open stay below the ring's size: reads and the planned writes
   * beginning never raise that sum, only a writer's plan does, and one that reaches the ring's
   * size ends this batch (BatchSender.fillsRings).
   */
  private readsSilently(ch: Channel): boolean {
    if (ch.writers.size === 0) return true
    return ch.pipe && ch.slots + pagesAhead(ch) < ch.maxSlots
  }
  protected complete(k: TaskContext): void {
    this.ch.consume(k)
    this.got++
  }
  protected beginLazy(): void {
    if (this.ch.committed === 0) this.bench.coalesceFaults++
  }
  protected applyBulk(_k: TaskContext, m: number): boolean {
    if (!this.silent(this.ch, true)) return false
    if (this.ch.committed < m + 1) this.bench.coalesceFaults++
    if (this.ch.consumeMany(m)) this.bench.coalesceFaults++
    this.got += m
    return true
  }
  protected dropPlanned(): void {}

  /**
   * Messages landed on its pipe while its batch reads (a write completed, or a sender's batch
   * applied): the batch reads them too instead of ending where it was planned and starting
   * another, as long as every read stays silent (readsSilently) and the one-by-one run has not
   * come to its next read yet (an operation of the batch is still to complete).
   */
  override readsMore(k: TaskContext): void {
    if (this.n === 0 || this.ending) return
    const ch = this.ch
    const planned = this.n - this.applied
    let more = ch.committed - planned
    if (more <= 0) return
    const left = this.left() - planned
    if (more > left) more = left
    if (more > MAX_BATCH - this.n) more = MAX_BATCH - this.n
    if (more <= 0 || !this.readsSilently(ch)) return
    if (k.now >= this.notBefore && k.runOpsLeft(this.task) === 0) return
    this.n += more
    k.extendRun(this.task, more * this.w)
  }
  protected roundDone(): boolean {
    return this.got === this.bench.spec.fds * this.bench.spec.loops
  }
  protected reset(): void {
    this.got = 0
  }
}
