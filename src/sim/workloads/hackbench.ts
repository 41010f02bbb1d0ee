import type { TaskContext, TaskProgram } from '../kernel/api'
import type { HackbenchWorkload } from '../scenario/workload-specs'
import type { WorkloadResult } from '../../shared/result'
import { commonAttrs, delayNs } from './common'
import { US } from './stat'
import { timeBatches } from '../metrics/batches'
import type { WaitQueue } from './sync'
import type { WorkloadHost, WorkloadInstance } from './types'
import { Bench, channelCapacity, type Channel, type Group } from './pipe'
import { BatchReceiver, BatchSender } from './hackbench-batch'

/**
 * hackbench (rt-tests) / perf bench sched messaging. Per group, `fds` senders each write `loops`
 * messages to each of `fds` receivers; every receiver owns one pipe or socket that all senders of
 * its group write to. A write takes `writeUs` of CPU work and is visible when it completes; a
 * writer blocks on a full buffer, a reader on an empty one.
 *
 * Thread mode differs from process mode by the shared file table: fdget() then takes an atomic
 * reference on every read and write (modeled as THREAD_FDGET_US of extra work per call).
 * The pipes and sockets, the groups and the rounds: pipe.ts.
 */

export const THREAD_FDGET_US = 0.08

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
      const c = host.costs
      const socket = spec.ipc === 'socket'
      const calWrite = socket ? c.hackbenchSocketWriteWorkNs : c.hackbenchWriteWorkNs
      const calRead = socket ? c.hackbenchSocketReadWorkNs : c.hackbenchReadWorkNs
      const writeNs = Math.round(spec.writeUs !== undefined ? (spec.writeUs + extra) * US : calWrite + extra * US)
      const readNs = Math.round(spec.readUs !== undefined ? (spec.readUs + extra) * US : calRead + extra * US)
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
