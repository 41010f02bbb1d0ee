/**
 * The simulator's run as a Perfetto protobuf trace (`*.perfetto-trace`), which ui.perfetto.dev
 * and trace_processor open with CPU and thread tracks, and whose `sched` and `thread_state`
 * tables are filled.
 *
 * Written from Perfetto's published trace format (protos/perfetto/trace/, field numbers as
 * facts): a `Trace` is a sequence of `TracePacket`s (field 1). We write
 * - a `SystemInfo` packet (45) with a Linux utsname, so prev_state is decoded with the 4.14+
 *   TASK_REPORT bits (R 0, S 1, D 2, X 0x10, preempted R+ 0x100);
 * - `ProcessTree` packets (2): each workload a process, each task a thread (names thread tracks);
 * - per-CPU `FtraceEventBundle`s (1) of plain `FtraceEvent`s: sched_switch (4), sched_waking
 *   (20), cpu_idle (13), sched_migrate_task (491);
 * - the recorder's decisions as `TrackEvent` instants (11) on one `TrackDescriptor` (60) track
 *   per CPU ("CPU n decisions"), named by reason code, with the sentence and the task as debug
 *   annotations.
 * Timestamps are the simulated nanoseconds (the BOOTTIME clock). sched_switch is stamped when
 * __schedule() switches, as a kernel does (the text tracer stamps the instant the next task
 * starts, after the modeled switch cost).
 */
import type { Kernel } from '../kernel/sched'
import { isRtPolicy } from '../kernel/api'
import { NIL } from '../kernel/eevdf-tree'
import { Recorder, STOPPER_TASK, type DecisionRecord, type RecorderOptions } from './recorder'
import { describe, Namer } from './explain-text'
import { ProtoWriter } from './protobuf'

// TracePacket fields
const P_FTRACE_EVENTS = 1
const P_PROCESS_TREE = 2
const P_TIMESTAMP = 8
const P_SEQ_ID = 10
const P_TRACK_EVENT = 11
const P_SEQ_FLAGS = 13
const P_SYSTEM_INFO = 45
const P_TRACK_DESCRIPTOR = 60
// FtraceEventBundle / FtraceEvent
const B_CPU = 1
const B_EVENT = 2
const B_LOST = 3
const E_TIMESTAMP = 1
const E_PID = 2
const E_SCHED_SWITCH = 4
const E_CPU_IDLE = 13
const E_SCHED_WAKING = 20
const E_SCHED_MIGRATE = 491

const SEQ_FTRACE = 1
const SEQ_TRACK = 2
const SEQ_INCREMENTAL_STATE_CLEARED = 1
const TYPE_INSTANT = 3
const PWR_EVENT_EXIT = 4294967295

/** Pseudo pids outside Linux's pid_max: the stopper threads, the workloads' processes. */
const STOPPER_PID = 4_100_000
const PROCESS_PID = 4_000_000
const TRACK_UUID = 0x5c4ed000

/** Events per CPU bundle before it is written out. */
const BUNDLE_EVENTS = 1024

export const DEFAULT_PERFETTO_EVENTS = 10_000_000

export interface PerfettoOptions {
  /** Receives the file's bytes in order (the caller streams them to a file). */
  write(chunk: Uint8Array): void
  /** The scenario's workloads (by TaskAttrs.workload index): one process each. */
  workloads?: readonly { name: string }[]
  /** Stop after this many events (switches, wakeups, decisions...); the bundle says events were lost. */
  maxEvents?: number
  /** Include the decision records as track events (default true). */
  decisions?: boolean
}

export interface PerfettoCounts {
  switches: number
  wakings: number
  migrations: number
  idle: number
  decisions: number
  truncated: boolean
}

export class PerfettoWriter {
  private readonly out = new ProtoWriter(1 << 20)
  private readonly bundles: ProtoWriter[]
  private readonly bundleN: Int32Array
  private readonly current: Int32Array
  private readonly known: Uint8Array
  private readonly names: Namer
  private readonly maxEvents: number
  private readonly withDecisions: boolean
  private threadsSent = 0
  private lost = false
  readonly counts: PerfettoCounts = { switches: 0, wakings: 0, migrations: 0, idle: 0, decisions: 0, truncated: false }
  private events = 0

  constructor(private readonly k: Kernel, private readonly opts: PerfettoOptions) {
    this.bundles = k.topo.cpus.map(() => new ProtoWriter(1 << 14))
    this.bundleN = new Int32Array(k.ncpus)
    this.current = new Int32Array(k.ncpus).fill(NIL)
    this.known = new Uint8Array(k.ncpus)
    this.names = new Namer(k)
    this.maxEvents = opts.maxEvents ?? DEFAULT_PERFETTO_EVENTS
    this.withDecisions = opts.decisions ?? true
    this.header()
  }

  private header(): void {
    const o = this.out
    o.begin(1)
    o.begin(P_SYSTEM_INFO)
    o.begin(1)
    o.string(1, 'Linux')
    o.string(2, '#1 SMP PREEMPT schedlab')
    o.string(3, '6.18.0-schedlab')
    o.string(4, 'schedlab')
    o.end()
    o.end()
    o.end()
    if (this.withDecisions) {
      this.k.topo.cpus.forEach((_, c) => {
        o.begin(1)
        o.uint(P_SEQ_ID, SEQ_TRACK)
        if (c === 0) o.uint(P_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED)
        o.begin(P_TRACK_DESCRIPTOR)
        o.uint(1, TRACK_UUID + c)
        o.string(2, `CPU ${c} decisions`)
        o.end()
        o.end()
      })
    }
    this.flushOut()
  }

  private flushOut(): void {
    if (this.out.len > 0) this.opts.write(this.out.take())
  }

  private pid(t: number, cpu: number): number {
    if (t === NIL) return 0
    if (t === STOPPER_TASK) return STOPPER_PID + cpu
    return t + 1
  }

  private comm(t: number, cpu: number): string {
    if (t === NIL) return `swapper/${cpu}`
    if (t === STOPPER_TASK) return `migration/${cpu}`
    return this.k.attrs[t].name
  }

  private prio(t: number): number {
    if (t < 0) return t === STOPPER_TASK ? 0 : 120
    return isRtPolicy(this.k.policy[t]) ? 99 - this.k.rtPrio[t] : 120 + this.k.attrs[t].nice
  }

  /** The ProcessTree of the tasks not described yet (each workload a process). */
  private threads(at: number): void {
    const k = this.k
    if (this.threadsSent >= k.ntasks) return
    const o = this.out
    o.begin(1)
    o.uint(P_TIMESTAMP, at)
    o.begin(P_PROCESS_TREE)
    if (this.threadsSent === 0) {
      const wl = this.opts.workloads ?? []
      const seen = new Set<number>()
      for (let t = 0; t < k.ntasks; t++) seen.add(k.attrs[t].workload)
      for (let w = 0; w < Math.max(wl.length, seen.size); w++) {
        o.begin(1)
        o.int(1, PROCESS_PID + w)
        o.int(2, 1)
        o.string(3, wl[w]?.name ?? `workload-${w}`)
        o.end()
      }
      for (let c = 0; c < k.ncpus; c++) {
        o.begin(2)
        o.int(1, STOPPER_PID + c)
        o.string(2, `migration/${c}`)
        o.end()
      }
    }
    for (let t = this.threadsSent; t < k.ntasks; t++) {
      o.begin(2)
      o.int(1, t + 1)
      o.int(3, PROCESS_PID + Math.max(0, k.attrs[t].workload))
      o.string(2, k.attrs[t].name)
      o.end()
    }
    this.threadsSent = k.ntasks
    o.end()
    o.end()
    this.flushOut()
  }

  /** One FtraceEvent into cpu's bundle: its header, then the caller writes the event field. */
  private event(cpu: number): ProtoWriter | null {
    if (this.events >= this.maxEvents) {
      this.counts.truncated = true
      this.lost = true
      return null
    }
    this.events++
    const b = this.bundles[cpu]
    b.begin(B_EVENT)
    b.uint(E_TIMESTAMP, this.k.now)
    b.uint(E_PID, this.pid(this.current[cpu], cpu))
    return b
  }

  private done(cpu: number): void {
    this.bundles[cpu].end()
    if (++this.bundleN[cpu] >= BUNDLE_EVENTS) this.flushBundle(cpu)
  }

  private flushBundle(cpu: number): void {
    const b = this.bundles[cpu]
    if (b.len === 0 && !this.lost) return
    const o = this.out
    o.begin(1)
    o.uint(P_SEQ_ID, SEQ_FTRACE)
    o.begin(P_FTRACE_EVENTS)
    o.uint(B_CPU, cpu)
    o.raw(b.buf, b.len)
    if (this.lost) o.bool(B_LOST, true)
    o.end()
    o.end()
    b.len = 0
    this.bundleN[cpu] = 0
    this.flushOut()
  }

  /** The recorder's sink: every record, in time order. */
  record(r: DecisionRecord): void {
    if (this.threadsSent < this.k.ntasks) this.threads(r.at)
    switch (r.kind) {
      case 'switch': return this.sched(r.cpu, r.other, r.task, r.prevState ?? 'R')
      case 'stopper': return this.sched(r.cpu, r.other, STOPPER_TASK, 'R+')
      case 'wakeup': return this.waking(r)
      case 'migrate': return this.migrate(r)
      case 'idle': return this.idle(r.cpu, r.state ?? 0)
      case 'idle-exit': return this.idle(r.cpu, PWR_EVENT_EXIT)
      case 'sample': return
      default: return this.decision(r)
    }
  }

  private sched(cpu: number, prevIn: number, next: number, state: string): void {
    // what this CPU ran as far as the trace said so far (before its first switch: the record's)
    const prev = this.known[cpu] !== 0 ? this.current[cpu] : prevIn
    const b = this.event(cpu)
    this.current[cpu] = next
    this.known[cpu] = 1
    if (!b) return
    b.begin(E_SCHED_SWITCH)
    b.string(1, this.comm(prev, cpu))
    b.int(2, this.pid(prev, cpu))
    b.int(3, this.prio(prev))
    b.int(4, prev === NIL ? 0 : STATE_BITS[state] ?? 0)
    b.string(5, this.comm(next, cpu))
    b.int(6, this.pid(next, cpu))
    b.int(7, this.prio(next))
    b.end()
    this.done(cpu)
    this.counts.switches++
  }

  private waking(r: DecisionRecord): void {
    const cpu = r.cpu >= 0 ? r.cpu : 0
    const b = this.event(cpu)
    if (!b) return
    b.begin(E_SCHED_WAKING)
    b.string(1, this.comm(r.task, cpu))
    b.int(2, this.pid(r.task, cpu))
    b.int(3, this.prio(r.task))
    b.int(4, 1)
    b.int(5, Math.max(0, r.prev ?? cpu))
    b.end()
    this.done(cpu)
    this.counts.wakings++
  }

  private migrate(r: DecisionRecord): void {
    const b = this.event(r.cpu)
    if (!b) return
    b.begin(E_SCHED_MIGRATE)
    b.string(1, this.comm(r.task, r.cpu))
    b.int(2, this.pid(r.task, r.cpu))
    b.int(3, this.prio(r.task))
    b.int(4, r.prev ?? 0)
    b.int(5, r.cpu)
    b.end()
    this.done(r.cpu)
    this.counts.migrations++
  }

  private idle(cpu: number, state: number): void {
    const b = this.event(cpu)
    if (!b) return
    b.begin(E_CPU_IDLE)
    b.uint(1, state)
    b.uint(2, cpu)
    b.end()
    this.done(cpu)
    this.counts.idle++
  }

  private decision(r: DecisionRecord): void {
    if (!this.withDecisions) return
    if (this.events >= this.maxEvents) {
      this.counts.truncated = true
      return
    }
    this.events++
    const o = this.out
    o.begin(1)
    o.uint(P_TIMESTAMP, r.at)
    o.uint(P_SEQ_ID, SEQ_TRACK)
    o.begin(P_TRACK_EVENT)
    o.uint(9, TYPE_INSTANT)
    o.uint(11, TRACK_UUID + Math.max(0, r.cpu))
    o.string(22, 'sched')
    o.string(23, r.code)
    annotation(o, 'text', describe(r, this.names))
    if (r.task >= 0) annotation(o, 'task', this.names.task(r.task))
    annotation(o, 'kind', r.kind)
    o.end()
    o.end()
    this.counts.decisions++
    if (o.len > 1 << 20) this.flushOut()
  }

  /** Write what is pending: the bundles, the late threads. Call once after the run. */
  finish(endNs: number): PerfettoCounts {
    this.threads(endNs)
    for (let c = 0; c < this.k.ncpus; c++) this.flushBundle(c)
    this.flushOut()
    return this.counts
  }
}

function annotation(o: ProtoWriter, name: string, value: string): void {
  o.begin(4)
  o.string(10, name)
  o.string(6, value)
  o.end()
}

/** prev_state as the kernel reports it (TASK_REPORT bits, 4.14+; preempted = TASK_REPORT_MAX). */
const STATE_BITS: Record<string, number> = { R: 0, 'R+': 0x100, S: 1, D: 2, X: 0x10 }

/** Record a run into a Perfetto trace: installs a streaming recorder on the kernel. */
export function attachPerfetto(k: Kernel, opts: PerfettoOptions, rec: Omit<RecorderOptions, 'sink' | 'keep'> = {}): PerfettoWriter {
  const w = new PerfettoWriter(k, opts)
  Recorder.attach(k, { ...rec, keep: false, sink: (r) => w.record(r) })
  return w
}
