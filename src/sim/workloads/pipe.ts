import { WF_SYNC, type TaskContext } from '../kernel/api'
import type { HackbenchWorkload } from '../scenario/workload-specs'
import { WaitQueue } from './sync'

/**
 * hackbench's shared state: its pipes and AF_UNIX sockets (Channel), its groups and its rounds
 * (Bench), used message by message (hackbench.ts) and by the coalesced workers
 * (hackbench-batch.ts).
 *
 * Wakeups follow the kernel: both pipes and AF_UNIX sockets wake with the sync variants
 * (WF_SYNC). A pipe is fs/pipe.c's ring of page buffers (16 of 4096 bytes): a small write merges
 * into the last buffer while it fits, else takes a new one; the ring is full when every slot is
 * in use. A write wakes the reader only when it lands in an empty pipe. A writer waits when the
 * last page has no room and no slot is free, exclusively, one at a time; woken, it re-checks only
 * for a free slot (pipe_writable), takes a new page, and wakes the next waiting writer if a slot
 * is still free (wake_next_writer; a writer that never waited wakes none). A read wakes a writer
 * only when it releases a buffer of a full ring (6.14+: once per drained page, not per read). A
 * socket wakes a sleeping reader on every write, and all writers once the queued data drops to a
 * quarter of the send buffer (unix_writable).
 */

/** A coalesced worker (hackbench-batch.ts BatchWorker) as the channels it has operations on see it. */
export interface LazyWorker {
  /** Operations in its current batch (0: none). */
  readonly n: number
  /** Apply the operations of its batch completed by now. */
  materialize(k: TaskContext): void
  /** Someone waits on ch: end the batch at its first operation there still to complete, if that may wake it. */
  cut(k: TaskContext, ch: Channel): void
  /** ch must lose planned writes: end the batch before its first one not begun yet. */
  makeRoom(k: TaskContext, ch: Channel): boolean
  /** Messages landed on the channel it reads: its batch may read them too. */
  readsMore(k: TaskContext): void
}

export const PAGE_BYTES = 4096
export const PIPE_SLOTS = 16
/** sk_buff overhead charged to a socket's send buffer per message (truesize - data). */
export const SKB_OVERHEAD_BYTES = 576

/** Messages a channel holds before a writer blocks. */
export function channelCapacity(spec: HackbenchWorkload): number {
  if (spec.ipc === 'pipe') {
    const slots = Math.max(1, Math.floor(spec.pipeBufferBytes / PAGE_BYTES))
    // Small writes merge into the last page while they fit; larger ones span pages.
    if (spec.messageBytes <= PAGE_BYTES) return slots * Math.floor(PAGE_BYTES / spec.messageBytes)
    return Math.max(1, Math.floor(spec.pipeBufferBytes / spec.messageBytes))
  }
  return Math.max(1, Math.floor(spec.socketBufferBytes / (spec.messageBytes + SKB_OVERHEAD_BYTES)))
}

export class Channel {
  /** Messages readable. */
  committed = 0
  /** Writes in progress (space taken, not yet readable). */
  reserved = 0
  readonly readers = new WaitQueue()
  readonly writers = new WaitQueue()
  /**
   * Coalesced workers using this channel (hackbench-batch.ts) whose batches may have
   * operations on it not applied yet: its receiver, and the senders of its group with a batch
   * under way (`Group.batching`, shared by the group's channels).
   */
  receiver: LazyWorker | null = null
  senders: LazyWorker[] = []
  /** Writes those batches will begin later (each will take a slot). */
  lazyWrites = 0
  /** Position among its group's channels (its receiver's index). */
  index = 0
  /** Pipe ring (fs/pipe.c): buffers in use (head - tail), the first one's index, messages read from it. */
  slots = 0
  private tail = 0
  tailRead = 0
  /** Messages placed in each buffer of the ring. */
  private readonly placed: Int32Array

  constructor(
    readonly capacity: number,
    readonly pipe: boolean,
    /** Pipe: ring slots (pipe->max_usage) and messages a page holds. */
    readonly maxSlots = 0,
    readonly perPage = 0
  ) {
    this.placed = new Int32Array(Math.max(1, maxSlots))
  }

  /** Messages placed in the head buffer (0: the ring is empty). */
  get headUsed(): number {
    return this.slots === 0 ? 0 : this.placed[(this.tail + this.slots - 1) % this.maxSlots]
  }

  /** A new write must wait: no room in the head page (a small write merges there) and no free slot. */
  get full(): boolean {
    if (!this.pipe) return this.committed + this.reserved >= this.capacity
    return this.slots >= this.maxSlots && this.headUsed >= this.perPage
  }

  /** pipe_writable(): what a writer woken from wr_wait re-checks (a free ring slot). */
  get writable(): boolean {
    return this.pipe ? this.slots < this.maxSlots : !this.full
  }

  /** Writes that can still begin without waiting (no writer that waited among them); reads only add to it. */
  room(): number {
    if (!this.pipe) return this.capacity - this.committed - this.reserved
    if (this.slots === 0) return this.maxSlots * this.perPage
    return this.perPage - this.headUsed + (this.maxSlots - this.slots) * this.perPage
  }

  /**
   * `n` writes that did not wait take their places (a coalesced batch's): as place(false) n
   * times, page by page: they fill the head page's room, then new pages of perPage each.
   */
  placeMany(n: number): void {
    if (n <= 0) return
    this.reserved += n
    if (!this.pipe) return
    const placed = this.placed
    const max = this.maxSlots
    if (this.slots > 0) {
      const head = (this.tail + this.slots - 1) % max
      const fit = this.perPage - placed[head]
      if (fit > 0) {
        const r = fit < n ? fit : n
        placed[head] += r
        n -= r
      }
    }
    while (n > 0) {
      const r = this.perPage < n ? this.perPage : n
      placed[(this.tail + this.slots) % max] = r
      this.slots++
      n -= r
    }
  }

  /** `n` reads complete that wake no one (a coalesced batch's); true if one should have woken a writer. */
  consumeMany(n: number): boolean {
    if (!this.pipe) {
      this.committed -= n
      return false
    }
    // as consume() n times without its wakeups, page by page: the tail page's unread
    // messages (at least one: a read always advances), then the next page's
    this.committed -= n
    let late = false
    while (n > 0) {
      const unread = this.placed[this.tail] - this.tailRead
      const need = unread > 1 ? unread : 1
      if (n < need) {
        this.tailRead += n
        break
      }
      n -= need
      if (this.slots >= this.maxSlots && this.writers.size > 0) late = true
      this.slots--
      this.tail = (this.tail + 1) % this.maxSlots
      this.tailRead = 0
    }
    return late
  }

  /** A write takes its place (pipe: merged into the head page, or a new page for a writer that waited or when the head page is full). */
  place(waited: boolean): void {
    this.reserved++
    if (!this.pipe) return
    if (!waited && this.slots > 0 && this.headUsed < this.perPage) {
      this.placed[(this.tail + this.slots - 1) % this.maxSlots]++
      return
    }
    this.placed[(this.tail + this.slots) % this.maxSlots] = 1
    this.slots++
  }

  /** A write completed. */
  commit(k: TaskContext, waited = false): void {
    this.reserved--
    const wasEmpty = this.committed === 0
    this.committed++
    // a coalesced reader in the middle of a batch may read it in that batch (hackbench-batch.ts)
    if (this.receiver !== null && this.receiver.n > 0) this.receiver.readsMore(k)
    if (this.pipe) {
      if (wasEmpty) this.readers.wakeAll(k, WF_SYNC)
      // pipe_write: a writer that had to wait and leaves a free slot wakes the next waiting writer
      if (waited && this.slots < this.maxSlots) this.writers.wakeOne(k, WF_SYNC)
    } else {
      this.readers.wakeAll(k, WF_SYNC)
    }
  }

  /** A read completed. */
  consume(k: TaskContext): void {
    this.committed--
    if (!this.pipe) {
      if ((this.committed + this.reserved) * 4 <= this.capacity) this.writers.wakeAll(k, WF_SYNC)
      return
    }
    if (++this.tailRead < this.placed[this.tail]) return
    // pipe_read: a drained buffer is released; writers are woken only if the ring was full
    const wasFull = this.slots >= this.maxSlots
    this.slots--
    this.tail = (this.tail + 1) % this.maxSlots
    this.tailRead = 0
    if (wasFull) this.writers.wakeOne(k, WF_SYNC)
  }
}

interface Round {
  startNs: number
  left: number
}

export class Group {
  readonly channels: Channel[]
  /**
   * The coalesced senders (every one writes to every channel of the group) whose batch is
   * under way, in creation order: those a look at one of its channels must materialize
   * (hackbench-batch.ts), without visiting the ones that have nothing in flight.
   */
  readonly batching: LazyWorker[] = []
  /** Coalesced senders created so far (each one's rank in `batching` order). */
  senders = 0
  constructor(spec: HackbenchWorkload, capacity: number) {
    const slots = Math.max(1, Math.floor(spec.pipeBufferBytes / PAGE_BYTES))
    const perPage = spec.messageBytes <= PAGE_BYTES ? Math.floor(PAGE_BYTES / spec.messageBytes) : 1
    this.channels = Array.from({ length: spec.fds }, () => new Channel(capacity, spec.ipc === 'pipe', slots, perPage))
    this.channels.forEach((c, i) => {
      c.index = i
      c.senders = this.batching
    })
  }
}

/** Shared state of a hackbench instance: rounds, completion times, who waits for the next round. */
export class Bench {
  readonly groups: Group[]
  readonly roundTimes: number[] = []
  /** Coalesced operations found to wake or block when applied late (must stay 0; see hackbench-batch.ts). */
  coalesceFaults = 0
  /** Rounds that began before this instant (a discarded warm-up) are not measured. */
  measureFrom = 0
  readonly nextRound = new WaitQueue()
  round: Round
  workers = 0
  exited = 0
  finished = false

  constructor(
    readonly spec: HackbenchWorkload,
    startNs: number
  ) {
    const cap = channelCapacity(spec)
    this.groups = Array.from({ length: spec.groups }, () => new Group(spec, cap))
    this.round = { startNs, left: 0 }
  }

  /** A worker finished its round: it exits or waits for the next one (true: its step is over), or goes on. */
  endRound(task: number, k: TaskContext): boolean {
    const next = this.workerDone(task, k)
    if (next === 'exit') k.exit(task)
    else if (next === 'wait') k.block(task)
    return next !== 'continue'
  }

  /** A worker finished its messages. Returns true when it must wait for the next round. */
  workerDone(task: number, k: TaskContext): 'exit' | 'wait' | 'continue' {
    this.round.left--
    if (this.round.left > 0) {
      if (!this.spec.repeat) return 'exit'
      this.nextRound.add(task)
      return 'wait'
    }
    if (this.round.startNs >= this.measureFrom) this.roundTimes.push(k.now - this.round.startNs)
    if (!this.spec.repeat) {
      this.finished = true
      return 'exit'
    }
    this.round = { startNs: k.now, left: this.workers }
    this.nextRound.wakeAll(k, 0)
    return 'continue'
  }
}
