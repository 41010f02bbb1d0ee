import type { SchedEvent, TraceMeta } from './events'

/**
 * One line of ftrace text, in any of the layouts researchers hand us:
 * - the tracefs `trace` / `trace_pipe` files: `comm-pid [cpu] flags sec.usec: event: key=value ...`,
 *   optionally with a `(tgid)` column and with or without the irq-info flags;
 * - `trace-cmd report` (libtraceevent's pretty forms `prev:pid [prio] S ==> next:pid [prio]` and
 *   `comm:pid [prio] success=1 CPU:002`, or the raw key=value form with `-R`, numeric states);
 * - `perf script` (`comm pid [cpu] sec.usec: sched:sched_switch: ...`);
 * - our simulator's `--trace` output (nanosecond timestamps and `# schedlab:` lines).
 * Timestamps may carry 6 (microseconds) or 9 (nanoseconds) decimals.
 */

export type LineResult =
  | SchedEvent
  | { type: 'meta'; meta: TraceMeta }
  | { type: 'lost'; cpu: number; count: number }
  | { type: 'comment' }
  | { type: 'other'; event: string }
  | { type: 'malformed'; reason: string }

const COMMENT: LineResult = Object.freeze({ type: 'comment' })

// comm (may hold spaces and dashes) - or blank pid [/tid] (tgid)? [cpu] flags? sec.frac: [system:]event: args
const HEAD = /^\s*(.+?)(?:-|\s+)(\d+)(?:\/\d+)?\s+(?:\(\s*(?:\d+|-+)\)\s+)?\[(\d+)\]\s+(?:\S{1,8}\s+)?(\d+)\.(\d+):\s+(?:\w+:)?(\w+):\s*(.*)$/

const SWITCH_KV = /^prev_comm=(.*?) prev_pid=(-?\d+) prev_prio=(-?\d+) prev_state=(\S+)(?: ==>)? next_comm=(.*?) next_pid=(-?\d+) next_prio=(-?\d+)/
const SWITCH_PRETTY = /^(.*?):(-?\d+) \[(-?\d+)\] (\S+) ==> (.*?):(-?\d+) \[(-?\d+)\]/
const WAKE_KV = /^comm=(.*?) pid=(-?\d+) prio=(-?\d+)(?: success=\d+)?(?: target_cpu=(\d+))?/
const WAKE_PRETTY = /^(.*?):(-?\d+) \[(-?\d+)\](?: success=\d+)?(?: CPU:(\d+))?/
const MIGRATE_KV = /^comm=(.*?) pid=(-?\d+) prio=(-?\d+) orig_cpu=(\d+) dest_cpu=(\d+)/
const FORK_KV = /^comm=(.*?) pid=(-?\d+) child_comm=(.*?) child_pid=(-?\d+)/
const LOST = /^CPU:?\s*(\d+) \[LOST (\d+) EVENTS?\]/

const STATE_LETTERS = 'SDTtXZPI'

/** A numeric prev_state (trace-cmd -R, perf raw) in the kernel's letters. */
export function stateLetters(s: string): string {
  if (!/^\d+$/.test(s)) return s
  const v = Number(s)
  const low = v & 0xff
  let out = ''
  for (let i = 0; i < STATE_LETTERS.length; i++) if (low & (1 << i)) out += (out ? '|' : '') + STATE_LETTERS[i]
  if (out === '') out = 'R'
  return v & 0x100 ? out + '+' : out
}

/** Seconds and fraction digits -> integer nanoseconds (exact for 9 or fewer digits). */
export function tsToNs(sec: string, frac: string): number {
  const digits = frac.length > 9 ? frac.slice(0, 9) : frac
  return Number(sec) * 1e9 + Number(digits) * 10 ** (9 - digits.length)
}

/** key=value tokens of an argument list whose values hold no spaces (hrtimer events). */
function kvTokens(args: string): Map<string, string> {
  const m = new Map<string, string>()
  for (const tok of args.split(/\s+/)) {
    const eq = tok.indexOf('=')
    if (eq > 0) m.set(tok.slice(0, eq), tok.slice(eq + 1))
  }
  return m
}

function num(s: string | undefined): number {
  return s === undefined ? NaN : Number(s)
}

function parseMeta(rest: string): LineResult {
  const kv = (k: string): string | undefined => new RegExp(`(?:^|\\s)${k}=(\\S+)`).exec(rest)?.[1]
  if (rest.startsWith('span ')) {
    const start = Number(kv('start'))
    const end = Number(kv('end'))
    if (Number.isFinite(start) && Number.isFinite(end) && end >= start) return { type: 'meta', meta: { type: 'span', startNs: Math.round(start * 1e9), endNs: Math.round(end * 1e9) } }
  } else if (rest.startsWith('task ')) {
    const pid = Number(kv('pid'))
    const wl = /\sworkload=(.*)$/.exec(rest)?.[1]
    if (Number.isSafeInteger(pid) && wl !== undefined) {
      const type = kv('type')
      return { type: 'meta', meta: { type: 'task', pid, workload: wl, recordLatency: kv('latency') !== '0', ...(type ? { workloadType: type } : {}) } }
    }
  }
  return COMMENT
}

export function parseFtraceLine(line: string): LineResult {
  const c0 = line.charCodeAt(0)
  if (line.length === 0 || c0 === 35 /* # */) {
    if (line.startsWith('# schedlab: ')) return parseMeta(line.slice(12))
    const p = /#P:(\d+)/.exec(line)
    if (p) return { type: 'meta', meta: { type: 'cpus', count: Number(p[1]) } }
    return COMMENT
  }
  const h = HEAD.exec(line)
  if (!h) {
    if (line.trim() === '') return COMMENT
    const cpus = /^cpus=(\d+)\s*$/.exec(line)
    if (cpus) return { type: 'meta', meta: { type: 'cpus', count: Number(cpus[1]) } }
    const lost = LOST.exec(line.trim())
    if (lost) return { type: 'lost', cpu: Number(lost[1]), count: Number(lost[2]) }
    // trace-cmd's own banners ("version = 6", "CPU 0 is empty", "Buffer: x")
    if (/^(version = |CPU \d+ is empty|Buffer: |\s*cpus=)/.test(line)) return COMMENT
    return { type: 'malformed', reason: 'not an ftrace event line' }
  }
  const comm = h[1].trim()
  const pid = Number(h[2])
  const cpu = Number(h[3])
  const ts = tsToNs(h[4], h[5])
  const name = h[6]
  const args = h[7]
  switch (name) {
    case 'sched_switch': {
      const m = SWITCH_KV.exec(args) ?? SWITCH_PRETTY.exec(args)
      if (!m) return { type: 'malformed', reason: 'sched_switch without prev/next fields' }
      return {
        type: 'sched_switch', ts, cpu, pid, comm,
        prevComm: m[1], prevPid: Number(m[2]), prevPrio: Number(m[3]), prevState: stateLetters(m[4]),
        nextComm: m[5], nextPid: Number(m[6]), nextPrio: Number(m[7])
      }
    }
    case 'sched_waking':
    case 'sched_wakeup':
    case 'sched_wakeup_new': {
      const m = WAKE_KV.exec(args) ?? WAKE_PRETTY.exec(args)
      if (!m) return { type: 'malformed', reason: `${name} without comm/pid fields` }
      return { type: name, ts, cpu, pid, comm, taskComm: m[1], taskPid: Number(m[2]), prio: Number(m[3]), targetCpu: m[4] === undefined ? -1 : Number(m[4]) }
    }
    case 'sched_migrate_task': {
      const m = MIGRATE_KV.exec(args)
      if (!m) return { type: 'malformed', reason: 'sched_migrate_task without its fields' }
      return { type: name, ts, cpu, pid, comm, taskComm: m[1], taskPid: Number(m[2]), prio: Number(m[3]), origCpu: Number(m[4]), destCpu: Number(m[5]) }
    }
    case 'sched_process_fork': {
      const m = FORK_KV.exec(args)
      if (!m) return { type: 'malformed', reason: 'sched_process_fork without its fields' }
      return { type: name, ts, cpu, pid, comm, parentComm: m[1], parentPid: Number(m[2]), childComm: m[3], childPid: Number(m[4]) }
    }
    case 'hrtimer_start': {
      const kv = kvTokens(args)
      const timer = kv.get('hrtimer')
      const soft = num(kv.get('softexpires'))
      const expires = num(kv.get('expires'))
      if (timer === undefined || !Number.isFinite(soft)) return { type: 'malformed', reason: 'hrtimer_start without hrtimer/softexpires' }
      return { type: name, ts, cpu, pid, comm, timer, function: kv.get('function') ?? '', softexpires: soft, expires: Number.isFinite(expires) ? expires : soft }
    }
    case 'hrtimer_expire_entry': {
      const kv = kvTokens(args)
      const timer = kv.get('hrtimer')
      if (timer === undefined) return { type: 'malformed', reason: 'hrtimer_expire_entry without hrtimer' }
      const now = num(kv.get('now'))
      return { type: name, ts, cpu, pid, comm, timer, function: kv.get('function') ?? '', now: Number.isFinite(now) ? now : ts }
    }
    case 'hrtimer_cancel': {
      const timer = kvTokens(args).get('hrtimer')
      if (timer === undefined) return { type: 'malformed', reason: 'hrtimer_cancel without hrtimer' }
      return { type: name, ts, cpu, pid, comm, timer }
    }
    default:
      return { type: 'other', event: name }
  }
}
