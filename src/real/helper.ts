import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { RealRefusal } from './errors'
import { makeDirs } from '../trace/make-dirs'

/**
 * The native helper (src/real/helper.c): built with the system's C compiler ($CC, else cc)
 * the first time a real run needs it, cached by the hash of its source under
 * $XDG_CACHE_HOME/schedlab (or ~/.cache/schedlab), so later runs start at once.
 */

/** The helper's C source (the guest of `schedlab vm` builds it static). */
export function helperSourceText(): { path: string; text: string } {
  // the source tree (CLI, web host, tests), the built app run from the repository, a packaged
  // app's resources (electron-builder.yml extraResources)
  const resources = (process as { resourcesPath?: string }).resourcesPath
  const candidates = [join(__dirname, 'helper.c'), join(__dirname, '..', '..', 'src', 'real', 'helper.c'), join(process.cwd(), 'src', 'real', 'helper.c'), ...(resources ? [join(resources, 'helper.c')] : [])]
  for (const p of candidates) {
    if (existsSync(p)) return { path: p, text: readFileSync(p, 'utf8') }
  }
  throw new RealRefusal(`the native helper's source (src/real/helper.c) is missing from this installation (looked in ${candidates.join(', ')})`)
}

export function helperCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'schedlab')
}

let built: string | null = null

/** The helper binary, built now if needed. Refuses clearly when there is no compiler. */
export function ensureHelper(): string {
  if (built && existsSync(built)) return built
  const src = helperSourceText()
  const hash = createHash('sha256').update(src.text).digest('hex').slice(0, 16)
  const dir = helperCacheDir()
  const bin = join(dir, `schedlab-helper-${hash}`)
  if (existsSync(bin)) return (built = bin)
  makeDirs(dir)
  const cc = process.env.CC || 'cc'
  const tmp = `${bin}.${process.pid}.tmp`
  const r = spawnSync(cc, ['-O2', '-pthread', '-o', tmp, src.path], { encoding: 'utf8' })
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') {
    throw new RealRefusal(`a real run needs a small native helper built with a C compiler, and there is none ("${cc}" not found): install Debian's gcc (apt-get install gcc) or set CC`)
  }
  if (r.status !== 0) {
    rmSync(tmp, { force: true })
    const first = (r.stderr || r.stdout || '').trim().split('\n').slice(0, 3).join(' | ')
    throw new RealRefusal(`building the native helper (${src.path}) with ${cc} failed: ${first || `exit ${r.status}`}`)
  }
  renameSync(tmp, bin)
  return (built = bin)
}

export interface SchedAttrs {
  policy?: 'other' | 'batch' | 'idle' | 'fifo' | 'rr'
  nice?: number
  priority?: number
  sliceNs?: number
  uclampMin?: number
  uclampMax?: number
  cpus?: readonly number[]
  timerSlackNs?: number
}

/** ATTRS of the supervisor's spawn line. */
export function attrsArg(a: SchedAttrs): string {
  const parts: string[] = []
  if (a.policy) parts.push(`policy=${a.policy}`)
  if (a.nice !== undefined) parts.push(`nice=${Math.trunc(a.nice)}`)
  if (a.priority !== undefined) parts.push(`prio=${Math.trunc(a.priority)}`)
  if (a.sliceNs) parts.push(`slice_ns=${Math.round(a.sliceNs)}`)
  if (a.uclampMin !== undefined) parts.push(`uclamp_min=${Math.trunc(a.uclampMin)}`)
  if (a.uclampMax !== undefined) parts.push(`uclamp_max=${Math.trunc(a.uclampMax)}`)
  if (a.cpus && a.cpus.length > 0) parts.push(`cpus=${a.cpus.map((c) => Math.trunc(c)).join(':')}`)
  if (a.timerSlackNs !== undefined) parts.push(`slack_ns=${Math.round(a.timerSlackNs)}`)
  return parts.length > 0 ? parts.join(',') : '-'
}

type Reply = { kind: string; fields: string[] }

/**
 * The helper's `supervise` mode: the one parent of the workload processes (one process group,
 * child subreaper), which kills them and removes the tracefs instance if we die.
 */
export class Supervisor {
  readonly pid: number
  private buf = ''
  private waiters: ((r: Reply) => boolean)[] = []
  private readonly exits = new Map<string, number>()
  private exitListeners: ((id: string, code: number) => void)[] = []
  private closed = false
  groupId = -1

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.pid = child.pid ?? -1
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (d: string) => this.onData(d))
    child.on('exit', () => {
      this.closed = true
      for (const w of this.waiters.splice(0)) w({ kind: 'closed', fields: [] })
    })
    child.stdin.on('error', () => {
      // the supervisor is gone; its exit handler reports that
    })
  }

  static async start(helper: string, cleanup: { instance?: string; mount?: string }): Promise<Supervisor> {
    const args = ['supervise']
    if (cleanup.instance) args.push('--cleanup-instance', cleanup.instance)
    if (cleanup.mount) args.push('--cleanup-mount', cleanup.mount)
    const s = new Supervisor(spawn(helper, args, { stdio: ['pipe', 'pipe', 'pipe'] }))
    const r = await s.next((x) => x.kind === 'group' || x.kind === 'fatal')
    if (r.kind !== 'group') throw new Error(`the native helper did not start: ${r.fields.join(' ') || 'it exited'}`)
    s.groupId = Number(r.fields[0])
    return s
  }

  private onData(d: string): void {
    this.buf += d
    let nl: number
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl)
      this.buf = this.buf.slice(nl + 1)
      const [kind, ...fields] = line.split('\t')
      const r = { kind, fields }
      if (kind === 'exit') {
        this.exits.set(fields[0], Number(fields[1]))
        for (const l of this.exitListeners) l(fields[0], Number(fields[1]))
      }
      this.waiters = this.waiters.filter((w) => !w(r))
    }
  }

  private next(match: (r: Reply) => boolean): Promise<Reply> {
    return new Promise((resolve) => {
      if (this.closed) return resolve({ kind: 'closed', fields: [] })
      this.waiters.push((r) => {
        if (r.kind !== 'closed' && !match(r)) return false
        resolve(r)
        return true
      })
    })
  }

  private send(line: string): void {
    if (!this.closed) this.child.stdin.write(line + '\n')
  }

  /** Start a process: stdout and stderr to `outFile`, attributes applied before exec. */
  async spawn(id: string, outFile: string, attrs: SchedAttrs, argv: readonly string[]): Promise<number> {
    for (const a of [id, outFile, ...argv]) if (/[\t\n]/.test(a)) throw new Error(`argument with a tab or newline: ${JSON.stringify(a)}`)
    const reply = this.next((r) => (r.kind === 'pid' || r.kind === 'error') && r.fields[0] === id)
    this.send(['spawn', id, outFile, attrsArg(attrs), ...argv].join('\t'))
    const r = await reply
    if (r.kind === 'pid') return Number(r.fields[1])
    if (r.kind === 'closed') throw new Error('the native helper exited')
    throw new RealRefusal(`${argv[0]}: ${r.fields.slice(1).join(' ')}`)
  }

  exitCode(id: string): number | undefined {
    return this.exits.get(id)
  }

  onExit(l: (id: string, code: number) => void): void {
    this.exitListeners.push(l)
  }

  /** A signal to the whole workload group. */
  signalGroup(sig: number): void {
    this.send(`signal\t${sig}`)
  }

  /** Kill what is left, reap everything, and report the CPU time of all descendants. */
  async quit(timeoutMs = 10_000): Promise<{ userUs: number; sysUs: number } | null> {
    if (this.closed) return null
    const r = this.next((x) => x.kind === 'rusage')
    this.send('quit')
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<Reply>((resolve) => {
      timer = setTimeout(() => resolve({ kind: 'timeout', fields: [] }), timeoutMs)
    })
    const got = await Promise.race([r, timeout])
    clearTimeout(timer)
    if (got.kind === 'timeout') {
      // it does not answer: leave the cleanup to it (stdin closed) and to the group kill
      this.abandon()
      return null
    }
    if (got.kind !== 'rusage') return null
    return { userUs: Number(got.fields[0]), sysUs: Number(got.fields[1]) }
  }

  /** Last resort (our own crash path): close its stdin; it kills the group and cleans up. */
  abandon(): void {
    if (this.closed) return
    try {
      this.child.stdin.end()
    } catch {
      // gone
    }
  }
}
