import { promises as fs, watch, type FSWatcher } from 'node:fs'
import { join } from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { RunSummary, StoreProblem, StoredRun } from '../shared/ipc'
import type { KeyValueStore } from './kv'
import { alive, isAtomicTemp, isStaleTemp, withFileLockSync, writeFileAtomic } from './atomic-write'
import { moveAside } from './aside'
import { makeDirsAsync } from './data-dir'

/**
 * Saved runs. Each run's result lives in its own file, `<dataDir>/runs/<id>.json`, written
 * atomically and closed by a checksum of its content; the key-value store keeps an index
 * (summaries) so the history lists without reading every file. The run files are the truth: at
 * open the index is reconciled with them, a file that fails to parse or to match its checksum is
 * moved to `runs/corrupt/` and reported (once), and a run file the index lost is put back.
 *
 * Several processes may share the folder (the desktop app and `schedlab serve` do by default):
 * run ids are unique, temporary files name their writer's pid and are only recovered once it is
 * gone, the index is written as this process's changes merged into what is stored, and
 * `refresh()` (on every listing, and when the folder changes) picks up the others' runs.
 * docs/security.md says why this rather than a lock.
 */

const num = z.number().finite()
const latency = z.object({ count: num, avg: num, p50: num, p90: num, p99: num, p99_9: num, max: num }).loose()
const hist = z.object({ lowUs: z.array(num), highUs: z.array(num), counts: z.array(num) }).loose()
const variantResult = z.object({
  name: z.string(),
  seed: num,
  stats: z.object({ events: num, wallMs: num, simulatedMs: num }).loose(),
  workloads: z.array(z.object({ name: z.string(), type: z.string(), latencyUs: latency, latencyHist: hist.optional() }).loose()),
  tasks: z.array(z.object({ name: z.string(), workload: z.string(), latencyUs: latency }).loose()),
  cpus: z.array(z.object({ id: num, busyPct: num }).loose()),
  unreasonableIdle: z.object({ events: z.record(z.string(), num) }).loose()
}).loose()

const runFile = z.object({
  format: z.literal(1),
  id: z.string().regex(/^[A-Za-z0-9._-]{1,120}$/),
  name: z.string(),
  scenarioName: z.string(),
  scenarioFile: z.string(),
  createdAt: z.string(),
  status: z.enum(['running', 'done', 'partial', 'failed', 'canceled']),
  variants: z.array(z.string()),
  seeds: z.array(num),
  durationMs: num,
  wallMs: num,
  version: z.string(),
  scenarioText: z.string(),
  results: z.array(variantResult),
  errors: z.array(z.object({ variant: z.string(), seed: num, kind: z.string(), message: z.string() }).loose()),
  interrupted: z.literal(true).optional()
}).loose()

interface IndexEntry extends RunSummary {
  size: number
  mtimeMs: number
}

const INDEX_KEY = 'runs'
/** In the data folder: held while a process rewrites config.json's run index or settings (withFileLockSync). */
export const INDEX_LOCK = 'runs-index.lock'
/** Far above any real run (a few MB); a larger file is not read into memory. */
const MAX_RUN_FILE_BYTES = 256 * 1024 * 1024
const CHECKSUM = /,"checksum":"sha256:([0-9a-f]{64})"\}\s*$/

export class RunNotFoundError extends Error {}

function summaryOf(run: StoredRun): RunSummary {
  const { id, name, scenarioName, scenarioFile, createdAt, status, variants, seeds, durationMs, wallMs, version } = run
  const source = run.source ?? run.results.find((r) => r.source)?.source
  return {
    id, name, scenarioName, scenarioFile, createdAt, status, variants, seeds, durationMs, wallMs, version,
    ...(source && source !== 'sim' ? { source } : {}), ...(run.sweep ? { kind: 'sweep' as const, cells: run.sweep.total } : {}),
    ...(run.interrupted ? { interrupted: true as const } : {})
  }
}

function describeZod(err: z.ZodError): string {
  const i = err.issues[0]
  return `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex')

/** The file's text: the run's JSON with `"checksum":"sha256:<hex of the JSON before it>"` last. */
export function runFileText(run: StoredRun): string {
  const body = JSON.stringify(run)
  return `${body.slice(0, -1)},"checksum":"sha256:${sha256(body)}"}`
}

/** Parse a run file's text, checking its checksum when it has one (files from before do not). */
export function parseRunFileText(raw: string): unknown {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
  const m = CHECKSUM.exec(text)
  if (m) {
    const body = text.slice(0, m.index) + '}'
    if (sha256(body) !== m[1]) throw new Error('its content does not match its checksum (changed after it was saved)')
    return JSON.parse(body)
  }
  const parsed = JSON.parse(text) as Record<string, unknown> | null
  if (parsed && typeof parsed === 'object' && 'checksum' in parsed) throw new Error('its checksum is not where schedlab writes it (the file was edited)')
  return parsed
}

const summaryEntry = runFile.pick({ id: true, name: true, scenarioName: true, scenarioFile: true, createdAt: true, status: true, variants: true, seeds: true, durationMs: true, wallMs: true, version: true, interrupted: true })
  .extend({ size: z.number(), mtimeMs: z.number(), source: z.enum(['sim', 'real', 'trace', 'vm']).optional(), kind: z.literal('sweep').optional(), cells: num.optional() })

type ReadResult = { ok: true; run: StoredRun } | { ok: false; problem: StoreProblem | null }

export class RunStore {
  readonly runsDir: string
  private index = new Map<string, IndexEntry>()
  private readonly problems: StoreProblem[] = []
  /** Index entries this process changed (null: deleted) and has not yet merged into the stored index. */
  private readonly pending = new Map<string, IndexEntry | null>()
  private scanning: Promise<boolean> = Promise.resolve(false)
  private watcher: FSWatcher | null = null

  private constructor(readonly dataDir: string, private readonly kv: KeyValueStore) {
    this.runsDir = join(dataDir, 'runs')
  }

  static async open(dataDir: string, kv: KeyValueStore, problems: StoreProblem[] = []): Promise<RunStore> {
    const store = new RunStore(dataDir, kv)
    for (const p of problems) store.report(p)
    await store.reconcile()
    return store
  }

  /** Problems found since the store was opened (corrupt files moved aside, missing files). */
  getProblems(): StoreProblem[] {
    return [...this.problems]
  }

  list(): RunSummary[] {
    return [...this.index.values()]
      .map(({ size: _s, mtimeMs: _m, ...summary }) => summary)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1))
  }

  has(id: string): boolean {
    return this.index.has(id)
  }

  /** Runs whose host stopped before they finished, newest first: each can be resumed (RunService.resume). */
  interrupted(): RunSummary[] {
    return this.list().filter((r) => r.interrupted)
  }

  newId(now = new Date()): string {
    const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, '').replace('T', '-')
    return `run-${stamp}-${randomBytes(3).toString('hex')}`
  }

  fileOf(id: string): string {
    return join(this.runsDir, `${id}.json`)
  }

  async save(run: StoredRun): Promise<RunSummary> {
    const parsed = runFile.safeParse(run)
    if (!parsed.success) throw new Error(`refusing to save an invalid run: ${describeZod(parsed.error)}`)
    const file = this.fileOf(run.id)
    await writeFileAtomic(file, runFileText(run))
    const st = await fs.stat(file)
    this.setEntry(run.id, { ...summaryOf(run), size: st.size, mtimeMs: st.mtimeMs })
    this.flushIndex()
    return summaryOf(run)
  }

  /** A run in progress: what has finished so far, written as it goes (checkpointFile). */
  async saveCheckpoint(run: StoredRun): Promise<void> {
    await writeFileAtomic(this.checkpointFile(run.id), runFileText(run))
  }

  async removeCheckpoint(id: string): Promise<void> {
    await fs.rm(this.checkpointFile(id), { force: true }).catch(() => undefined)
  }

  /** `ID.PID.checkpoint`: the writer's pid tells a run in flight from one whose host is gone. */
  private checkpointFile(id: string, pid = process.pid): string {
    return join(this.runsDir, `${id}.${pid}.checkpoint`)
  }

  /**
   * Checkpoints of runs whose host stopped (killed, a power cut): each becomes a partial run of
   * the seeds and sweep cells that had finished, marked interrupted, and is reported, so the user
   * can resume it (RunService.resume runs the rest).
   */
  private async recoverCheckpoints(names: string[]): Promise<void> {
    for (const name of names) {
      const m = /^(.+)\.(\d+)\.checkpoint$/.exec(name)
      if (!m || alive(Number(m[2]))) continue
      const file = join(this.runsDir, name)
      const target = this.fileOf(m[1])
      try {
        const parsed = runFile.safeParse(parseRunFileText(await fs.readFile(file, 'utf8')))
        // a run file already there is left alone, unless it is the interrupted run this checkpoint resumed
        const existing = await this.readRunFile(target)
        const exists = existing.ok ? !existing.run.interrupted : await fs.stat(target).then(() => true, () => false)
        if (parsed.success && !exists && parsed.data.id === m[1]) {
          const run = parsed.data as unknown as StoredRun
          const done = run.sweep ? run.sweep.cells.reduce((n, c) => n + c.results.length, 0) : run.results.length
          run.status = 'partial'
          const resumable = !!run.request && !run.precision
          if (resumable) run.interrupted = true
          run.errors = [...run.errors, { variant: '*', seed: 0, kind: 'canceled', message: `the host stopped before the run finished: the ${done} finished run(s) were kept from its checkpoint; ${resumable ? 'resume it for the rest' : 'run the scenario again for the rest'}` }]
          await writeFileAtomic(target, runFileText(run))
          this.report({ file: target, message: `run "${run.name}" was interrupted when its host stopped; its ${done} finished run(s) are kept as a partial run${resumable ? ' (Resume in History runs the rest)' : ''}` })
        }
        await fs.rm(file, { force: true })
      } catch (err) {
        this.report({ file, message: `the checkpoint ${file} cannot be recovered (${(err as Error).message}); left in place` })
      }
    }
  }

  /** Read and validate a run; a corrupt file is moved aside, reported and thrown as an error. */
  async get(id: string): Promise<StoredRun> {
    // another process may have saved it since this one last listed the folder
    if (!this.index.has(id)) await this.refresh()
    if (!this.index.has(id)) throw new RunNotFoundError(`no saved run with id ${id}`)
    const res = await this.readRunFile(this.fileOf(id))
    if (res.ok) return res.run
    this.setEntry(id, null)
    this.flushIndex()
    if (!res.problem) throw new RunNotFoundError(`no saved run with id ${id} (it was deleted)`)
    throw new Error(res.problem.message)
  }

  async rename(id: string, name: string): Promise<RunSummary> {
    const run = await this.get(id)
    run.name = name
    return this.save(run)
  }

  async delete(id: string): Promise<void> {
    if (!this.index.has(id)) await this.refresh()
    if (!this.index.has(id)) throw new RunNotFoundError(`no saved run with id ${id}`)
    await fs.rm(this.fileOf(id), { force: true })
    this.setEntry(id, null)
    this.flushIndex()
  }

  /**
   * Bring the history up to date with the folder: runs another process saved or deleted since.
   * Resolves true when the list changed. Concurrent calls share one scan.
   */
  refresh(): Promise<boolean> {
    const next = this.scanning.then(() => this.scan(this.index, false))
    this.scanning = next.catch(() => false)
    return next
  }

  /** Call `onChange` after another process changes the folder (debounced); returns a stop function. */
  watch(onChange: () => void, debounceMs = 200): () => void {
    let timer: NodeJS.Timeout | undefined
    try {
      this.watcher = watch(this.runsDir, () => {
        clearTimeout(timer)
        timer = setTimeout(() => void this.refresh().then((changed) => changed && onChange(), () => undefined), debounceMs)
      })
      this.watcher.on('error', () => this.watcher?.close())
    } catch {
      // No file watching here (some network file systems): listings still refresh.
    }
    return () => {
      clearTimeout(timer)
      this.watcher?.close()
      this.watcher = null
    }
  }

  private setEntry(id: string, e: IndexEntry | null): void {
    if (e) this.index.set(id, e)
    else this.index.delete(id)
    this.pending.set(id, e)
  }

  /**
   * Merge this process's changes into the stored index: another process's entries stay. The
   * read-modify-write holds the folder's index lock, so that two processes saving at once do not
   * write over each other's entries (two processes saving 150 runs each left 205-219 of 300 in
   * the index).
   */
  private flushIndex(): void {
    if (this.pending.size === 0) return
    withFileLockSync(join(this.dataDir, INDEX_LOCK), () => {
      const stored = this.loadIndex()
      for (const [id, e] of this.pending) {
        if (e) stored.set(id, e)
        else stored.delete(id)
      }
      this.pending.clear()
      this.kv.set(INDEX_KEY, Object.fromEntries(stored))
    })
  }

  /** Record a problem once: the same file with the same trouble is not reported twice. */
  private report(p: StoreProblem): void {
    if (!this.problems.some((q) => q.file === p.file && q.message === p.message)) this.problems.push(p)
  }

  /** Move a bad entry aside and report it; left in place (and named) when it cannot be moved. */
  private async condemn(file: string, reason: string): Promise<StoreProblem> {
    let movedTo: string | undefined
    try {
      movedTo = await moveAside(file)
    } catch {
      // Leave it where it is; the report still names it.
    }
    const problem: StoreProblem = {
      file,
      message: `run file ${file} ${reason}${movedTo ? `; moved to ${movedTo}` : '; left in place'}`,
      movedTo
    }
    this.report(problem)
    return problem
  }

  /** Read a run file; `problem: null` when it is simply gone (deleted, by us or another process). */
  private async readRunFile(file: string): Promise<ReadResult> {
    let st
    try {
      st = await fs.lstat(file)
    } catch {
      return { ok: false, problem: null }
    }
    if (st.isSymbolicLink()) {
      const target = await fs.stat(file).catch(() => null)
      if (!target) return { ok: false, problem: await this.condemn(file, 'is a dangling symbolic link') }
      st = target
    }
    if (!st.isFile()) return { ok: false, problem: await this.condemn(file, 'is not a regular file') }
    if (st.size > MAX_RUN_FILE_BYTES) return { ok: false, problem: await this.condemn(file, `is too large to be a run (${st.size} bytes)`) }
    let reason: string
    try {
      const parsed = runFile.safeParse(parseRunFileText(await fs.readFile(file, 'utf8')))
      if (parsed.success) {
        const { checksum: _c, ...run } = parsed.data as Record<string, unknown>
        return { ok: true, run: run as unknown as StoredRun }
      }
      reason = `not a schedlab run (${describeZod(parsed.error)})`
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, problem: null }
      reason = (err as Error).message
    }
    return { ok: false, problem: await this.condemn(file, `is corrupt or unreadable (${reason})`) }
  }

  private loadIndex(): Map<string, IndexEntry> {
    const raw = this.kv.get(INDEX_KEY)
    const out = new Map<string, IndexEntry>()
    if (raw && typeof raw === 'object') {
      for (const [id, e] of Object.entries(raw as Record<string, unknown>)) {
        const ok = summaryEntry.safeParse(e)
        if (ok.success && ok.data.id === id) out.set(id, ok.data as IndexEntry)
      }
    }
    return out
  }

  private async reconcile(): Promise<void> {
    const known = this.loadIndex()
    try {
      await makeDirsAsync(this.runsDir)
      await this.recoverTemps(await fs.readdir(this.runsDir))
      await this.recoverCheckpoints(await fs.readdir(this.runsDir))
    } catch (err) {
      this.report({ file: this.runsDir, message: `the runs folder ${this.runsDir} cannot be read (${(err as Error).message}); no saved runs are listed` })
      return
    }
    await this.scan(known, true)
    this.flushIndex()
  }

  /**
   * Make the in-memory index match the folder, reading only files that are new or changed since
   * `known`. At open, index entries whose file is gone are reported; later, they were deleted
   * by another process. Returns true when the list changed.
   */
  private async scan(known: Map<string, IndexEntry>, atOpen: boolean): Promise<boolean> {
    let names: string[]
    try {
      names = (await fs.readdir(this.runsDir)).filter((n) => n.endsWith('.json'))
    } catch (err) {
      if (atOpen) this.report({ file: this.runsDir, message: `the runs folder ${this.runsDir} cannot be read (${(err as Error).message}); no saved runs are listed` })
      return false
    }
    let changed = false
    const seen = new Set<string>()
    for (const name of names) {
      const file = join(this.runsDir, name)
      const id = name.slice(0, -'.json'.length)
      const st = await fs.stat(file).catch(() => null)
      const cached = known.get(id)
      if (st && cached && st.isFile() && cached.size === st.size && cached.mtimeMs === st.mtimeMs) {
        seen.add(id)
        if (!this.index.has(id)) {
          this.index.set(id, cached)
          changed = true
        }
        continue
      }
      const res = await this.readRunFile(file)
      if (!res.ok) {
        // Reported as corrupt (or deleted meanwhile): not also "missing" below.
        seen.add(id)
        if (this.index.has(id) || known.has(id)) {
          this.setEntry(id, null)
          changed = true
        }
        continue
      }
      if (res.run.id !== id) {
        this.report({ file, message: `run file ${file} holds run ${res.run.id}; left in place, not listed` })
        continue
      }
      const now = await fs.stat(file).catch(() => st)
      this.setEntry(id, { ...summaryOf(res.run), size: now?.size ?? 0, mtimeMs: now?.mtimeMs ?? 0 })
      seen.add(id)
      changed = true
    }
    for (const id of [...(atOpen ? known.keys() : this.index.keys())]) {
      if (seen.has(id)) continue
      if (atOpen) {
        this.report({ file: this.fileOf(id), message: `run "${known.get(id)!.name}" is in the index but its file ${this.fileOf(id)} is missing` })
        this.pending.set(id, null)
      } else {
        this.setEntry(id, null)
        changed = true
      }
    }
    if (!atOpen) this.flushIndex()
    return changed
  }

  /**
   * A kill between writing a temp file and renaming it leaves `.<id>.json.<pid>.<rand>.tmp`.
   * Once its writer is gone: if it holds a complete run whose file does not exist, finish the
   * rename; else drop it. A temp whose writer is alive is another process's write in flight.
   */
  private async recoverTemps(names: string[]): Promise<void> {
    for (const name of names.filter(isAtomicTemp)) {
      const tmp = join(this.runsDir, name)
      const st = await fs.stat(tmp).catch(() => null)
      if (!st || !isStaleTemp(name, st.mtimeMs)) continue
      const target = join(this.runsDir, name.slice(1).replace(/\.\d+\.[0-9a-f]{8}\.tmp$/, ''))
      let complete = false
      try {
        complete = runFile.safeParse(parseRunFileText(await fs.readFile(tmp, 'utf8'))).success
      } catch {
        complete = false
      }
      const exists = await fs.stat(target).then(() => true, () => false)
      if (complete && !exists) await fs.rename(tmp, target).catch(() => undefined)
      else await fs.rm(tmp, { force: true })
    }
  }
}
