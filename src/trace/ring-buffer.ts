import { closeSync, openSync, readSync } from 'node:fs'
import type { SchedEvent } from './events'

/**
 * Decoder of tracefs' binary ring buffer (`per_cpu/cpuN/trace_pipe_raw` pages), so a real run
 * can be recorded by copying pages (cheap while the workload runs) instead of having the kernel
 * format text. Event layouts come from the events' `format` files, so no kernel's struct
 * layout is assumed. The page and event headers are the ring buffer's ABI (the same that
 * trace-cmd's libtraceevent reads):
 * - page: u64 timestamp, then the commit word (8 bytes on 64-bit kernels: data length in the
 *   low 30 bits, bit 31 = events were lost before this page, bit 30 = their count is stored
 *   after the data), then the data;
 * - event: u32 header, type_len in the low 5 bits, time_delta in the upper 27; type_len 1..28
 *   = a record of type_len*4 bytes after the header; 0 = a record whose length (including that
 *   word) is the next u32; 29 = padding (time_delta 0: the rest of the page); 30 = time extend
 *   (delta += next u32 << 27); 31 = absolute time stamp (same encoding).
 */

export interface FieldFormat {
  name: string
  offset: number
  size: number
  signed: boolean
  /** 'str': char[N] in place; 'loc': __data_loc (u32: offset | length << 16 from the record). */
  kind: 'num' | 'str' | 'loc' | 'relloc'
}

export interface EventFormat {
  name: string
  id: number
  fields: Map<string, FieldFormat>
}

/** Parse an event's tracefs `format` file. */
export function parseEventFormat(text: string): EventFormat {
  const name = /^name:\s*(\S+)/m.exec(text)?.[1]
  const id = Number(/^ID:\s*(\d+)/m.exec(text)?.[1])
  if (!name || !Number.isInteger(id)) throw new Error('not a tracefs event format (no name/ID)')
  const fields = new Map<string, FieldFormat>()
  const re = /field:([^;]*);\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);/g
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const decl = m[1].trim()
    const fname = /(\w+)(?:\[[^\]]*\])?$/.exec(decl)?.[1]
    if (!fname) continue
    const kind = decl.startsWith('__data_loc') ? 'loc' : decl.startsWith('__rel_loc') ? 'relloc' : /^(unsigned |signed )?char\s+\w+\[\d+\]$/.test(decl) ? 'str' : 'num'
    fields.set(fname, { name: fname, offset: Number(m[2]), size: Number(m[3]), signed: m[4] === '1', kind })
  }
  return { name, id, fields }
}

const TYPE_PADDING = 29
const TYPE_TIME_EXTEND = 30
const TYPE_TIME_STAMP = 31
const MISSED_EVENTS = 2 ** 31
const MISSED_STORED = 2 ** 30
const TS_SHIFT = 2 ** 27
const PAGE_HEADER = 16

export interface PageInfo {
  events: number
  /** Events the kernel lost before this page (-1: some, count not stored). */
  missed: number
}

type RecordDecoder = (rec: Buffer, ts: number, cpu: number) => SchedEvent

/**
 * Decodes pages into SchedEvents. `symbol` names a kernel text address given as 16 hex digits
 * (hrtimer functions); without it functions print as hex addresses.
 */
export class RingBufferDecoder {
  private readonly byId = new Map<number, RecordDecoder>()
  otherEvents = 0

  constructor(formats: readonly EventFormat[], private readonly symbol: (hexAddr: string) => string | undefined = () => undefined) {
    for (const f of formats) {
      const d = this.compile(f)
      if (d) this.byId.set(f.id, d)
    }
  }

  /** Decode one page of `cpu` (its bytes, as read from trace_pipe_raw). */
  decodePage(page: Buffer, cpu: number, emit: (e: SchedEvent) => void): PageInfo {
    if (page.length < PAGE_HEADER) return { events: 0, missed: 0 }
    let ts = readU64(page, 0)
    const commitWord = page.readUInt32LE(8)
    const size = commitWord & 0x3fffffff
    let missed = 0
    if (commitWord & MISSED_EVENTS) missed = commitWord & MISSED_STORED && PAGE_HEADER + size + 8 <= page.length ? readU64(page, PAGE_HEADER + size) : -1
    const end = Math.min(page.length, PAGE_HEADER + size)
    let off = PAGE_HEADER
    let events = 0
    while (off + 4 <= end) {
      const h = page.readUInt32LE(off)
      const typeLen = h & 0x1f
      const delta = h >>> 5
      if (typeLen === TYPE_PADDING) {
        if (delta === 0) break
        ts += delta
        off += 4 + page.readUInt32LE(off + 4)
        continue
      }
      if (typeLen === TYPE_TIME_EXTEND) {
        ts += delta + page.readUInt32LE(off + 4) * TS_SHIFT
        off += 8
        continue
      }
      if (typeLen === TYPE_TIME_STAMP) {
        ts = delta + page.readUInt32LE(off + 4) * TS_SHIFT
        off += 8
        continue
      }
      ts += delta
      let dataOff: number
      let len: number
      if (typeLen === 0) {
        len = page.readUInt32LE(off + 4) - 4
        dataOff = off + 8
      } else {
        len = typeLen * 4
        dataOff = off + 4
      }
      if (len < 8 || dataOff + len > end) break
      off = dataOff + ((len + 3) & ~3)
      const dec = this.byId.get(page.readUInt16LE(dataOff))
      if (!dec) {
        this.otherEvents++
        continue
      }
      events++
      emit(dec(page.subarray(dataOff, dataOff + len), ts, cpu))
    }
    return { events, missed }
  }

  /** A decoder for one event's layout, with its fields' offsets resolved once. */
  private compile(fmt: EventFormat): RecordDecoder | null {
    const field = (name: string): FieldFormat => {
      const f = fmt.fields.get(name)
      if (!f) throw new Error(`${fmt.name}: no field ${name} in its format`)
      return f
    }
    const str = (name: string): ((r: Buffer) => string) => {
      const f = field(name)
      if (f.kind === 'str') return (r) => cstr(r, f.offset, f.offset + f.size)
      return (r) => {
        const v = r.readUInt32LE(f.offset)
        const start = (v & 0xffff) + (f.kind === 'relloc' ? f.offset + f.size : 0)
        return cstr(r, start, Math.min(r.length, start + (v >>> 16)))
      }
    }
    const num = (name: string): ((r: Buffer) => number) => {
      const f = field(name)
      return (r) => readNum(r, f)
    }
    const ptr = (name: string): ((r: Buffer) => string) => {
      const f = field(name)
      return (r) => (f.size === 8 ? hex32(r.readUInt32LE(f.offset + 4)) + hex32(r.readUInt32LE(f.offset)) : hex32(r.readUInt32LE(f.offset)))
    }
    const pid = num('common_pid')
    const fn = (name: string): ((r: Buffer) => string) => {
      const p = ptr(name)
      return (r) => {
        const a = p(r)
        return this.symbol(a) ?? a
      }
    }
    switch (fmt.name) {
      case 'sched_switch': {
        const [pc, pp, ppr, ps, nc, np, npr] = [str('prev_comm'), num('prev_pid'), num('prev_prio'), num('prev_state'), str('next_comm'), num('next_pid'), num('next_prio')]
        return (r, ts, cpu) => ({ type: 'sched_switch', ts, cpu, pid: pid(r), comm: '', prevComm: pc(r), prevPid: pp(r), prevPrio: ppr(r), prevState: prevStateLetters(ps(r)), nextComm: nc(r), nextPid: np(r), nextPrio: npr(r) })
      }
      case 'sched_waking':
      case 'sched_wakeup':
      case 'sched_wakeup_new': {
        const type = fmt.name
        const [c, p, pr, t] = [str('comm'), num('pid'), num('prio'), num('target_cpu')]
        return (r, ts, cpu) => ({ type, ts, cpu, pid: pid(r), comm: '', taskComm: c(r), taskPid: p(r), prio: pr(r), targetCpu: t(r) })
      }
      case 'sched_migrate_task': {
        const [c, p, pr, o, d] = [str('comm'), num('pid'), num('prio'), num('orig_cpu'), num('dest_cpu')]
        return (r, ts, cpu) => ({ type: 'sched_migrate_task', ts, cpu, pid: pid(r), comm: '', taskComm: c(r), taskPid: p(r), prio: pr(r), origCpu: o(r), destCpu: d(r) })
      }
      case 'sched_process_fork': {
        const [pc, pp, cc, cp] = [str('parent_comm'), num('parent_pid'), str('child_comm'), num('child_pid')]
        return (r, ts, cpu) => ({ type: 'sched_process_fork', ts, cpu, pid: pid(r), comm: '', parentComm: pc(r), parentPid: pp(r), childComm: cc(r), childPid: cp(r) })
      }
      case 'hrtimer_start': {
        const [t, f, e, se] = [ptr('hrtimer'), fn('function'), num('expires'), num('softexpires')]
        return (r, ts, cpu) => ({ type: 'hrtimer_start', ts, cpu, pid: pid(r), comm: '', timer: t(r), function: f(r), expires: e(r), softexpires: se(r) })
      }
      case 'hrtimer_expire_entry': {
        const [t, f, n] = [ptr('hrtimer'), fn('function'), num('now')]
        return (r, ts, cpu) => ({ type: 'hrtimer_expire_entry', ts, cpu, pid: pid(r), comm: '', timer: t(r), function: f(r), now: n(r) })
      }
      case 'hrtimer_cancel': {
        const t = ptr('hrtimer')
        return (r, ts, cpu) => ({ type: 'hrtimer_cancel', ts, cpu, pid: pid(r), comm: '', timer: t(r) })
      }
      default:
        return null
    }
  }
}

/** The sched_switch prev_state number in the kernel's letters (TASK_REPORT bits, + for preempted). */
function prevStateLetters(v: number): string {
  const letters = 'SDTtXZPI'
  let out = ''
  for (let i = 0; i < letters.length; i++) if (v & (1 << i)) out += (out ? '|' : '') + letters[i]
  // TASK_REPORT_MAX (0x100) marks a preempted, still runnable task
  return (out || 'R') + (v & 0x100 ? '+' : '')
}

function readU64(b: Buffer, off: number): number {
  return b.readUInt32LE(off) + b.readUInt32LE(off + 4) * 2 ** 32
}

/** Integers up to 8 bytes (8-byte values within 2^53, as times in ns are). */
function readNum(b: Buffer, f: FieldFormat): number {
  switch (f.size) {
    case 1:
      return f.signed ? b.readInt8(f.offset) : b.readUInt8(f.offset)
    case 2:
      return f.signed ? b.readInt16LE(f.offset) : b.readUInt16LE(f.offset)
    case 4:
      return f.signed ? b.readInt32LE(f.offset) : b.readUInt32LE(f.offset)
    case 8:
      return f.signed ? b.readInt32LE(f.offset + 4) * 2 ** 32 + b.readUInt32LE(f.offset) : readU64(b, f.offset)
    default:
      return 0
  }
}

function hex32(v: number): string {
  return v.toString(16).padStart(8, '0')
}

function cstr(b: Buffer, start: number, end: number): string {
  let e = start
  while (e < end && b[e] !== 0) e++
  return b.toString('utf8', start, e)
}

export interface RawDecodeStats {
  events: number
  otherEvents: number
  pages: number
  /** Events the kernel reported lost (pages marked "missed"; -1 counts as 1 when unknown). */
  lostEvents: number
  pagesWithLoss: number
}

/**
 * Decode per-CPU files of raw pages (trace_pipe_raw copies) into one stream in time order:
 * each CPU's events are in order already; a merge by timestamp interleaves the CPUs. Memory is
 * one decoded page per CPU.
 */
export function decodeRawFiles(files: readonly { cpu: number; path: string }[], pageSize: number, decoder: RingBufferDecoder, emit: (e: SchedEvent) => void): RawDecodeStats {
  const st: RawDecodeStats = { events: 0, otherEvents: 0, pages: 0, lostEvents: 0, pagesWithLoss: 0 }
  const heads = files.map((f) => ({ cpu: f.cpu, fd: openSync(f.path, 'r'), buf: Buffer.alloc(pageSize), queue: [] as SchedEvent[], at: 0, done: false }))
  const refill = (h: (typeof heads)[number]): void => {
    while (!h.done && h.at >= h.queue.length) {
      h.queue = []
      h.at = 0
      const n = readSync(h.fd, h.buf, 0, pageSize, null)
      if (n <= 0) {
        h.done = true
        break
      }
      st.pages++
      const info = decoder.decodePage(n === pageSize ? h.buf : h.buf.subarray(0, n), h.cpu, (e) => h.queue.push(e))
      if (info.missed !== 0) {
        st.pagesWithLoss++
        st.lostEvents += info.missed > 0 ? info.missed : 1
      }
    }
  }
  try {
    for (const h of heads) refill(h)
    for (;;) {
      let best: (typeof heads)[number] | null = null
      for (const h of heads) {
        if (h.at >= h.queue.length) continue
        if (!best || h.queue[h.at].ts < best.queue[best.at].ts) best = h
      }
      if (!best) break
      emit(best.queue[best.at++])
      st.events++
      refill(best)
    }
  } finally {
    for (const h of heads) closeSync(h.fd)
  }
  st.otherEvents = decoder.otherEvents
  return st
}
