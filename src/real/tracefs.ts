import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmdirSync, statSync, writeFileSync, writeSync, constants } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { parseEventFormat, type EventFormat } from '../trace/ring-buffer'
import { RealRefusal } from './errors'
import { makeDirs } from '../trace/make-dirs'

/**
 * tracefs for a real run: a private instance (instances/NAME) with its own clock, events and
 * buffers, so nothing of the global tracing state changes, and binary pages read from
 * per_cpu/cpuN/trace_pipe_raw while the run goes on (copying pages costs little CPU, unlike
 * having the kernel print text). When tracefs is not mounted, it is mounted on a private
 * directory for the run and unmounted afterwards.
 */

export interface TracefsRoot {
  path: string
  /** We mounted it (on a temporary directory): unmount when done. */
  mountedByUs: boolean
}

function mounts(): string[] {
  try {
    return readFileSync('/proc/mounts', 'utf8').split('\n')
  } catch {
    return []
  }
}

/** The tracefs mount point, or null. */
export function findTracefs(): string | null {
  for (const line of mounts()) {
    const f = line.split(' ')
    if (f[2] === 'tracefs' && existsSync(join(f[1], 'instances'))) return f[1]
  }
  return null
}

const PRIVATE_MOUNT = /^schedlab-tracefs-(?:(\d+)-)?/

/**
 * Whether a tracefs mount point is another run's private mount (openTracefs below): not to be
 * shared, since its run unmounts it when done, and a run still reading it would keep it busy and
 * leave it mounted for good. `pid` is the mounting process, when the name says (older runs did
 * not name it).
 */
export function privateMountOf(path: string, tmp = tmpdir()): { pid: number | null } | null {
  if (dirname(path) !== tmp) return null
  const m = PRIVATE_MOUNT.exec(basename(path))
  return m ? { pid: m[1] ? Number(m[1]) : null } : null
}

/**
 * Unmount the private tracefs mounts of runs that are gone (killed before they could clean up,
 * or unmounted while another run kept them busy). Unnamed ones (older runs) count as gone after
 * an hour. A busy mount stays.
 */
function removeStaleMounts(): void {
  for (const line of mounts()) {
    const f = line.split(' ')
    if (f[2] !== 'tracefs') continue
    const p = privateMountOf(f[1])
    if (!p) continue
    let gone = p.pid !== null ? !existsSync(`/proc/${p.pid}`) : false
    if (p.pid === null) {
      try {
        gone = Date.now() - statSync(f[1]).mtimeMs > 3_600_000
      } catch {
        gone = false
      }
    }
    if (!gone || spawnSync('umount', [f[1]]).status !== 0) continue
    try {
      rmdirSync(f[1])
    } catch {
      // left for tmp cleaning
    }
  }
}

/**
 * Find tracefs (not another run's private mount), or mount it on a private directory (root
 * only). Refuses with the reason.
 */
export function openTracefs(): TracefsRoot {
  removeStaleMounts()
  for (const line of mounts()) {
    const f = line.split(' ')
    if (f[2] === 'tracefs' && !privateMountOf(f[1]) && existsSync(join(f[1], 'instances'))) return { path: f[1], mountedByUs: false }
  }
  let supported = false
  try {
    supported = /\ttracefs$/m.test(readFileSync('/proc/filesystems', 'utf8'))
  } catch {
    // no /proc: not Linux, refused earlier
  }
  if (!supported) throw new RealRefusal('this kernel has no tracefs (CONFIG_TRACING); a real run needs its sched and hrtimer events')
  const dir = mkdtempSync(join(tmpdir(), `schedlab-tracefs-${process.pid}-`))
  const r = spawnSync('mount', ['-t', 'tracefs', 'nodev', dir], { encoding: 'utf8' })
  if (r.status !== 0 || !existsSync(join(dir, 'instances'))) {
    try {
      rmdirSync(dir)
    } catch {
      // left for tmp cleaning
    }
    const why = (r.error?.message ?? r.stderr ?? '').trim().split('\n')[0]
    throw new RealRefusal(`tracefs is not mounted and mounting it failed (${why || `exit ${r.status}`}); run as root, or mount it: mount -t tracefs nodev /sys/kernel/tracing`)
  }
  return { path: dir, mountedByUs: true }
}

export function closeTracefs(root: TracefsRoot): void {
  if (!root.mountedByUs) return
  spawnSync('umount', [root.path])
  try {
    rmdirSync(root.path)
  } catch {
    // still busy: the supervisor's cleanup or tmp cleaning removes it
  }
}

/** What of the global (top-level) tracing state a run must leave as it found it. */
export function globalTracingState(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const f of ['tracing_on', 'current_tracer', 'trace_clock', 'set_event', 'buffer_size_kb', 'trace_options']) {
    try {
      out[f] = readFileSync(join(root, f), 'utf8').trim()
    } catch {
      out[f] = '?'
    }
  }
  try {
    out.instances = readdirSync(join(root, 'instances')).filter((n) => !n.startsWith('schedlab-')).sort().join(' ')
  } catch {
    out.instances = '?'
  }
  return out
}

export interface CpuBufferStats {
  cpu: number
  entries: number
  overrun: number
  commitOverrun: number
  dropped: number
}

export interface InstanceOptions {
  /** Per-CPU ring buffer size. */
  bufferKb: number
  /** "system/event" names. */
  events: readonly string[]
  clock?: string
  /** Where the raw pages of each CPU go (a file per CPU). */
  rawDir: string
}

const ALIVE_PID = /^schedlab-(\d+)-/

/** Remove instances of earlier schedlab runs whose process is gone (a crash we could not clean). */
export function removeStaleInstances(root: string): string[] {
  const removed: string[] = []
  let names: string[] = []
  try {
    names = readdirSync(join(root, 'instances'))
  } catch {
    return removed
  }
  for (const n of names) {
    const m = ALIVE_PID.exec(n)
    if (!m || existsSync(`/proc/${m[1]}`)) continue
    try {
      rmdirSync(join(root, 'instances', n))
      removed.push(n)
    } catch {
      // busy: leave it
    }
  }
  return removed
}

export class TraceInstance {
  readonly cpus: number[]
  private fds: number[] = []
  private outFds: number[] = []
  readonly pageSize: number
  private readonly page: Buffer
  readonly bytes: number[]
  readonly missedPages: number[]
  private removed = false

  private constructor(readonly root: string, readonly dir: string, private readonly opts: InstanceOptions) {
    this.cpus = readdirSync(join(dir, 'per_cpu'))
      .map((n) => /^cpu(\d+)$/.exec(n)?.[1])
      .filter((x): x is string => x !== undefined)
      .map(Number)
      .sort((a, b) => a - b)
    let sub = 4
    try {
      sub = Number(readFileSync(join(dir, 'buffer_subbuf_size_kb'), 'utf8').trim()) || 4
    } catch {
      // older kernels: one page
    }
    this.pageSize = sub * 1024
    this.page = Buffer.alloc(this.pageSize)
    this.bytes = this.cpus.map(() => 0)
    this.missedPages = this.cpus.map(() => 0)
  }

  /** Create and configure (not yet started). Refuses when not permitted. */
  static create(root: string, name: string, opts: InstanceOptions): TraceInstance {
    const dir = join(root, 'instances', name)
    try {
      mkdirSync(dir)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      throw new RealRefusal(`cannot create a tracefs instance in ${join(root, 'instances')}: ${code === 'EACCES' || code === 'EPERM' ? 'not permitted (run as root)' : (e as Error).message}`)
    }
    const inst = new TraceInstance(root, dir, opts)
    try {
      inst.write('tracing_on', '0')
      inst.write('trace_clock', opts.clock ?? 'mono')
      inst.write('buffer_size_kb', String(opts.bufferKb))
      for (const ev of opts.events) {
        const f = join(dir, 'events', ev, 'enable')
        if (!existsSync(f)) throw new RealRefusal(`this kernel has no ${ev} trace event`)
        writeFileSync(f, '1')
      }
    } catch (e) {
      inst.remove()
      if (e instanceof RealRefusal) throw e
      throw new RealRefusal(`cannot configure the tracefs instance ${dir}: ${(e as Error).message}`)
    }
    makeDirs(opts.rawDir)
    for (const cpu of inst.cpus) {
      inst.fds.push(openSync(join(dir, 'per_cpu', `cpu${cpu}`, 'trace_pipe_raw'), constants.O_RDONLY | constants.O_NONBLOCK))
      inst.outFds.push(openSync(join(opts.rawDir, `cpu${cpu}.raw`), 'w'))
    }
    return inst
  }

  private write(file: string, value: string): void {
    writeFileSync(join(this.dir, file), value)
  }

  start(): void {
    this.write('tracing_on', '1')
  }

  stop(): void {
    this.write('tracing_on', '0')
  }

  /** Copy every complete (or, after stop, partial) page waiting in the buffers; returns bytes. */
  drain(): number {
    let total = 0
    for (let i = 0; i < this.fds.length; i++) {
      for (;;) {
        let n: number
        try {
          n = readSync(this.fds[i], this.page, 0, this.pageSize, null)
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code
          if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') break
          throw e
        }
        if (n <= 0) break
        writeSync(this.outFds[i], this.page, 0, n)
        this.bytes[i] += n
        total += n
        // the page's commit word: bit 31 = events were lost before it
        if (n >= 12 && this.page.readUInt32LE(8) & 0x80000000) this.missedPages[i]++
      }
    }
    return total
  }

  stats(): CpuBufferStats[] {
    return this.cpus.map((cpu) => {
      const text = readFileSync(join(this.dir, 'per_cpu', `cpu${cpu}`, 'stats'), 'utf8')
      const v = (k: string): number => Number(new RegExp(`^${k}:\\s*(\\d+)`, 'm').exec(text)?.[1] ?? 0)
      return { cpu, entries: v('entries'), overrun: v('overrun'), commitOverrun: v('commit overrun'), dropped: v('dropped events') }
    })
  }

  /** The layouts of the enabled events (for the decoder). */
  formats(): EventFormat[] {
    return this.opts.events.map((ev) => parseEventFormat(readFileSync(join(this.dir, 'events', ev, 'format'), 'utf8')))
  }

  rawFiles(): { cpu: number; path: string }[] {
    return this.cpus.map((cpu) => ({ cpu, path: join(this.opts.rawDir, `cpu${cpu}.raw`) }))
  }

  /** Stop, close and remove the instance (idempotent). */
  remove(): void {
    if (this.removed) return
    this.removed = true
    try {
      this.stop()
    } catch {
      // already gone
    }
    for (const fd of [...this.fds, ...this.outFds]) {
      try {
        closeSync(fd)
      } catch {
        // closed
      }
    }
    this.fds = []
    this.outFds = []
    for (let i = 0; i < 50; i++) {
      try {
        rmdirSync(this.dir)
        return
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        if (code === 'ENOENT') return
        if (code !== 'EBUSY') throw e
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
    }
  }
}
