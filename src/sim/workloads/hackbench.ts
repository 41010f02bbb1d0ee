import { WF_SYNC, type TaskContext, type TaskProgram } from '../kernel/api'
import type { HackbenchWorkload } from '../scenario/workload-specs'
import type { WorkloadResult } from '../../shared/result'
import { commonAttrs, delayNs } from './common'
import { US } from './stat'
import { timeBatches } from '../metrics/batches'
import { WaitQueue } from './sync'
import type { WorkloadHost, WorkloadInstance } from './types'
import { BatchReceiver, BatchSender, type BatchWorker } from './hackbench-batch'

/**
 * hackbench (rt-tests) / perf bench sched messaging. Per group, `fds` senders each write `loops`
 * messages to each of `fds` receivers; every receiver owns one pipe or socket that all senders of
 * its group write to. A write takes `writeUs` of CPU work and is visible when it completes; a
 * writer blocks on a full buffer, a reader on an empty one.
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
 *
 * Thread mode differs from process mode by the shared file table: fdget() then takes an atomic
 * reference on every read and write (modeled as THREAD_FDGET_US of extra work per call).
 */

export const PAGE_BYTES = 4096
export const PIPE_SLOTS = 16
/** sk_buff overhead charged to a socket's send buffer per message (truesize - data). */
export const SKB_OVERHEAD_BYTES = 576
export const THREAD_FDGET_US = 0.08

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
  receiver: BatchWorker | null = null
  senders: BatchWorker[] = []
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

  /** `n` writes that did not wait take their places (a coalesced batch's). */
  placeMany(n: number): void {
    for (let i = 0; i < n; i++) this.place(false)
  }

  /** `n` reads complete that wake no one (a coalesced batch's); true if one should have woken a writer. */
  consumeMany(n: number): boolean {
    if (!this.pipe) {
      this.committed -= n
      return false
    }
    let late = false
    for (let i = 0; i < n; i++) {
      this.committed--
      if (++this.tailRead < this.placed[this.tail]) continue
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
  readonly batching: BatchWorker[] = []
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

/**
 * A worker moves messages one syscall at a time: the syscall's CPU work runs first, its effect
 * (data visible, space freed, wakeups) happens when it completes. Blocks while it cannot proceed.
 */
abstract class Worker implements TaskProgram {
  private busy = false

  constructor(
    protected readonly bench: Bench,
    private readonly workNs: number
  ) {}

  /** Channel of the next syscall. */
  protected abstract channel(): Channel
  /** True when the syscall must wait (pipe full for a writer, empty for a reader). */
  protected abstract mustWait(ch: Channel): boolean
  protected abstract waitQueue(ch: Channel): WaitQueue
  protected abstract begin(ch: Channel): void
  /** The syscall in flight completed. */
  protected abstract complete(k: TaskContext): void
  /** All messages of this round moved; reset() starts the next round. */
  protected abstract roundDone(): boolean
  protected abstract reset(): void

  step(task: number, k: TaskContext): void {
    for (;;) {
      if (this.busy) {
        this.busy = false
        this.complete(k)
      }
      if (this.roundDone()) {
        this.reset()
        if (this.bench.endRound(task, k)) return
        continue
      }
      const ch = this.channel()
      if (this.mustWait(ch)) {
        this.waitQueue(ch).add(task)
        return k.block(task)
      }
      this.begin(ch)
      this.busy = true
      // the read or write is kernel work: under preempt none it is not preempted
      return k.runKernel(task, this.workNs)
    }
  }
}

/** Writes `loops` rounds of one message to each receiver of its group, in receiver order. */
class Sender extends Worker {
  private loop = 0
  private target = 0
  /** It slept on the pipe it writes to now (pipe_write's wake_next_writer). */
  private waited = false

  constructor(bench: Bench, private readonly group: Group, workNs: number) {
    super(bench, workNs)
  }

  protected channel(): Channel {
    return this.group.channels[this.target]
  }
  protected mustWait(ch: Channel): boolean {
    const wait = this.waited ? !ch.writable : ch.full
    if (wait) this.waited = true
    return wait
  }
  protected waitQueue(ch: Channel): WaitQueue {
    return ch.writers
  }
  protected begin(ch: Channel): void {
    ch.place(this.waited)
  }
  protected complete(k: TaskContext): void {
    this.channel().commit(k, this.waited)
    this.waited = false
    if (++this.target === this.bench.spec.fds) {
      this.target = 0
      this.loop++
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
class Receiver extends Worker {
  private got = 0

  constructor(bench: Bench, private readonly ch: Channel, workNs: number) {
    super(bench, workNs)
  }

  protected channel(): Channel {
    return this.ch
  }
  protected mustWait(ch: Channel): boolean {
    return ch.committed === 0
  }
  protected waitQueue(ch: Channel): WaitQueue {
    return ch.readers
  }
  protected begin(): void {}
  protected complete(k: TaskContext): void {
    this.ch.consume(k)
    this.got++
  }
  protected roundDone(): boolean {
    return this.got === this.bench.spec.fds * this.bench.spec.loops
  }
  protected reset(): void {
    this.got = 0
  }
}

export function createHackbench(spec: HackbenchWorkload, index: number): WorkloadInstance {
  let bench: Bench | undefined
  return {
    name: spec.name,
    type: 'hackbench',
    setup(host: WorkloadHost): void {
      bench = new Bench(spec, delayNs(spec))
      const extra = spec.mode === 'thread' ? THREAD_FDGET_US : 0
      // the workload's own costs, else the topology's calibration of this machine
      const writeNs = Math.round(spec.writeUs !== undefined ? (spec.writeUs + extra) * US : host.costs.hackbenchWriteWorkNs + extra * US)
      const readNs = Math.round(spec.readUs !== undefined ? (spec.readUs + extra) * US : host.costs.hackbenchReadWorkNs + extra * US)
      const kind = spec.mode === 'thread' ? 't' : 'p'
      bench.groups.forEach((g, gi) => {
        // Receivers first, as hackbench creates them before the senders of a group.
        // without work per syscall there is nothing to coalesce
        const coalesce = host.coalesce && readNs > 0 && writeNs > 0
        g.channels.forEach((ch, r) => {
          const program = coalesce ? new BatchReceiver(bench as Bench, ch, readNs) : new Receiver(bench as Bench, ch, readNs)
          const t = host.createTask(commonAttrs(spec, index, `${spec.name}-${kind}${gi}r${r}`, delayNs(spec)), program, spec.startCpu)
          if (program instanceof BatchReceiver) program.task = t
        })
        for (let s = 0; s < spec.fds; s++) {
          const program = coalesce ? new BatchSender(bench as Bench, g, writeNs) : new Sender(bench as Bench, g, writeNs)
          const t = host.createTask(commonAttrs(spec, index, `${spec.name}-${kind}${gi}s${s}`, delayNs(spec)), program, spec.startCpu)
          if (program instanceof BatchSender) program.task = t
        }
      })
      bench.workers = spec.groups * spec.fds * 2
      bench.round.left = bench.workers
    },
    resetStats(nowNs: number): void {
      if (!bench) return
      bench.roundTimes.length = 0
      bench.measureFrom = nowNs
    },
    done: () => bench?.finished ?? false,
    report(host: WorkloadHost, out: WorkloadResult): void {
      const b = bench
      if (!b) return
      if (b.roundTimes.length > 0) {
        const mean = b.roundTimes.reduce((a, x) => a + x, 0) / b.roundTimes.length
        out.timeSec = Math.round(mean / 1e3) / 1e6
        out.timeBatches = timeBatches(b.roundTimes)
      } else {
        host.warn(`${spec.name}: hackbench did not finish within ${host.durationNs / 1e6} ms; raise durationMs to get timeSec`)
      }
      out.extra = {
        ...out.extra,
        rounds: b.roundTimes.length,
        messages: b.roundTimes.length * spec.groups * spec.fds * spec.fds * spec.loops,
        channelCapacity: channelCapacity(spec),
        // a coalesced operation applied late would have woken or blocked someone: a model bug
        ...(b.coalesceFaults > 0 ? { coalesceFaults: b.coalesceFaults } : {})
      }
    }
  }
}
