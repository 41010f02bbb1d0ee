import { readdirSync, readFileSync } from 'node:fs'

/**
 * CPU time from /proc: who used the CPUs while a real run measured them. Everything not ours
 * (our process, the helper and the workload process group) is foreign: other users' programs,
 * daemons, kernel threads. /proc/PID/stat counts in clock ticks (USER_HZ, 100 on Linux).
 */

const TICK_SEC = 0.01

export interface ProcTimes {
  pid: number
  ppid: number
  pgrp: number
  comm: string
  /** utime + stime, seconds. */
  self: number
  /** cutime + cstime: reaped children, seconds. */
  children: number
  kthread: boolean
  /** Start time in ticks since boot: with the pid, the process's identity (comm changes on exec). */
  start: number
}

/** Parse /proc/PID/stat (the comm is in parentheses and may hold spaces or parentheses). */
export function parseProcStat(text: string): ProcTimes | null {
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return null
  const pid = Number(text.slice(0, open).trim())
  const f = text.slice(close + 2).split(' ')
  // f[0] = state (field 3); utime is field 14 -> f[11]
  const n = (i: number): number => Number(f[i])
  if (!Number.isFinite(n(11))) return null
  const flags = n(6)
  return {
    pid,
    ppid: n(1),
    pgrp: n(2),
    comm: text.slice(open + 1, close),
    self: (n(11) + n(12)) * TICK_SEC,
    children: (n(13) + n(14)) * TICK_SEC,
    // PF_KTHREAD
    kthread: (flags & 0x00200000) !== 0 || n(1) === 2 || pid === 2,
    start: n(19)
  }
}

export function snapshotProcs(): Map<number, ProcTimes> {
  const out = new Map<number, ProcTimes>()
  let names: string[]
  try {
    names = readdirSync('/proc')
  } catch {
    return out
  }
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue
    try {
      const p = parseProcStat(readFileSync(`/proc/${n}/stat`, 'utf8'))
      if (p) out.set(p.pid, p)
    } catch {
      // exited while we looked
    }
  }
  return out
}

export interface ForeignCpu {
  /** CPU seconds of processes that are not ours, kernel threads included (sum over processes). */
  totalSec: number
  kernelThreadSec: number
  /** The biggest consumers, for the report. */
  top: { comm: string; pid: number; cpuSec: number }[]
}

/**
 * Foreign CPU time between two snapshots, per process, for the report: a process alive at both
 * counts its own time meanwhile, one that appeared all of its own. (Children that came and went
 * are missed: their time is in their parent's cutime, which also holds time from before the
 * run, and pid 1 reaps every orphan; the total to trust is /proc/stat's busy time minus ours.)
 */
export function foreignCpu(before: Map<number, ProcTimes>, after: Map<number, ProcTimes>, isOurs: (p: ProcTimes) => boolean): ForeignCpu {
  let total = 0
  let kthreads = 0
  const per: { comm: string; pid: number; cpuSec: number }[] = []
  for (const p of after.values()) {
    if (isOurs(p)) continue
    const b = before.get(p.pid)
    const same = b && b.start === p.start
    const d = same ? Math.max(0, p.self - b.self) : p.self
    if (d <= 0) continue
    total += d
    if (p.kthread) kthreads += d
    per.push({ comm: p.comm, pid: p.pid, cpuSec: round2(d) })
  }
  per.sort((a, b) => b.cpuSec - a.cpuSec)
  return { totalSec: round2(total), kernelThreadSec: round2(kthreads), top: per.slice(0, 5) }
}

/** Busy and total CPU time of all CPUs from /proc/stat, seconds. */
export function systemCpu(): { busy: number; total: number; steal: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]
  const v = line.trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const [user, nice, system, idle, iowait, irq, softirq, steal] = v
  const busy = user + nice + system + irq + softirq
  return { busy: busy * TICK_SEC, total: (busy + idle + iowait + steal) * TICK_SEC, steal: steal * TICK_SEC }
}

export function loadavg(): number[] {
  try {
    return readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/).slice(0, 3).map(Number)
  } catch {
    return []
  }
}

export interface QuietResult {
  quiet: boolean
  waitedSec: number
  /** Foreign CPU use in the last window, in CPUs. */
  lastLoadCpus: number
}

/**
 * Wait until the machine is quiet: the CPU use of everything but us (all CPUs' busy time from
 * /proc/stat minus our own) stays under `maxCpus`
 * (in CPUs, e.g. 0.1) for `windows` consecutive windows of `windowMs`; give up after
 * `timeoutMs` (the run then goes ahead, and its foreign CPU time says how it went).
 */
export async function waitForQuiet(opts: { maxCpus: number; windowMs: number; windows: number; timeoutMs: number; signal?: AbortSignal }): Promise<QuietResult> {
  const started = Date.now()
  let good = 0
  let last = 0
  let sys = systemCpu()
  let self = process.cpuUsage()
  for (;;) {
    if (opts.signal?.aborted) return { quiet: false, waitedSec: round2((Date.now() - started) / 1000), lastLoadCpus: last }
    const t0 = Date.now()
    await sleepMs(opts.windowMs, opts.signal)
    const sys2 = systemCpu()
    const self2 = process.cpuUsage()
    const dt = Math.max(0.001, (Date.now() - t0) / 1000)
    const mine = (self2.user - self.user + self2.system - self.system) / 1e6
    last = Math.max(0, sys2.busy - sys.busy - mine) / dt
    sys = sys2
    self = self2
    good = last <= opts.maxCpus ? good + 1 : 0
    const waited = (Date.now() - started) / 1000
    if (good >= opts.windows) return { quiet: true, waitedSec: round2(waited), lastLoadCpus: round2(last) }
    if (Date.now() - started >= opts.timeoutMs) return { quiet: false, waitedSec: round2(waited), lastLoadCpus: round2(last) }
  }
}

export function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const t = setTimeout(done, ms)
    function done(): void {
      clearTimeout(t)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}

function round2(x: number): number {
  return Math.round(x * 100) / 100
}
