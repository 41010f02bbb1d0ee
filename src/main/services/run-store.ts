import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { RunSummary, StoreProblem, StoredRun } from '../../shared/ipc'
import type { KeyValueStore } from './kv'
import { isAtomicTemp, writeFileAtomic } from './atomic-write'
import { moveAside } from './aside'

/**
 * Saved runs. Each run's result lives in its own file, `<dataDir>/runs/<id>.json`, written
 * atomically; the key-value store keeps an index (summaries) so the history lists without
 * reading every file. The run files are the truth: at open the index is reconciled with them,
 * a file that fails to parse is moved to `runs/corrupt/` and reported, and a run file the
 * index lost is put back.
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
  errors: z.array(z.object({ variant: z.string(), seed: num, kind: z.string(), message: z.string() }).loose())
}).loose()

interface IndexEntry extends RunSummary {
  size: number
  mtimeMs: number
}

const INDEX_KEY = 'runs'

export class RunNotFoundError extends Error {}

function summaryOf(run: StoredRun): RunSummary {
  const { id, name, scenarioName, scenarioFile, createdAt, status, variants, seeds, durationMs, wallMs, version } = run
  return { id, name, scenarioName, scenarioFile, createdAt, status, variants, seeds, durationMs, wallMs, version }
}

function describeZod(err: z.ZodError): string {
  const i = err.issues[0]
  return `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`
}

export class RunStore {
  readonly runsDir: string
  private index = new Map<string, IndexEntry>()
  private readonly problems: StoreProblem[] = []

  private constructor(readonly dataDir: string, private readonly kv: KeyValueStore) {
    this.runsDir = join(dataDir, 'runs')
  }

  static async open(dataDir: string, kv: KeyValueStore, problems: StoreProblem[] = []): Promise<RunStore> {
    const store = new RunStore(dataDir, kv)
    store.problems.push(...problems)
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
    await writeFileAtomic(file, JSON.stringify(run))
    const st = await fs.stat(file)
    this.index.set(run.id, { ...summaryOf(run), size: st.size, mtimeMs: st.mtimeMs })
    this.flushIndex()
    return summaryOf(run)
  }

  /** Read and validate a run; a corrupt file is moved aside, reported and thrown as an error. */
  async get(id: string): Promise<StoredRun> {
    if (!this.index.has(id)) throw new RunNotFoundError(`no saved run with id ${id}`)
    const file = this.fileOf(id)
    const res = await this.readRunFile(file)
    if (res.ok) return res.run
    this.index.delete(id)
    this.flushIndex()
    throw new Error(res.problem.message)
  }

  async rename(id: string, name: string): Promise<RunSummary> {
    const run = await this.get(id)
    run.name = name
    return this.save(run)
  }

  async delete(id: string): Promise<void> {
    if (!this.index.has(id)) throw new RunNotFoundError(`no saved run with id ${id}`)
    await fs.rm(this.fileOf(id), { force: true })
    this.index.delete(id)
    this.flushIndex()
  }

  private flushIndex(): void {
    this.kv.set(INDEX_KEY, Object.fromEntries(this.index))
  }

  private async readRunFile(file: string): Promise<{ ok: true; run: StoredRun } | { ok: false; problem: StoreProblem }> {
    let reason: string
    try {
      const text = await fs.readFile(file, 'utf8')
      const parsed = runFile.safeParse(JSON.parse(text))
      if (parsed.success) return { ok: true, run: parsed.data as unknown as StoredRun }
      reason = `not a schedlab run (${describeZod(parsed.error)})`
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        const problem = { file, message: `run file ${file} is missing` }
        this.problems.push(problem)
        return { ok: false, problem }
      }
      reason = (err as Error).message
    }
    let movedTo: string | undefined
    try {
      movedTo = await moveAside(file)
    } catch {
      // Leave it where it is; the report still names it.
    }
    const problem: StoreProblem = {
      file,
      message: `run file ${file} is corrupt or unreadable (${reason})${movedTo ? `; moved to ${movedTo}` : ''}`,
      movedTo
    }
    this.problems.push(problem)
    return { ok: false, problem }
  }

  private loadIndex(): Map<string, IndexEntry> {
    const raw = this.kv.get(INDEX_KEY)
    const out = new Map<string, IndexEntry>()
    if (raw && typeof raw === 'object') {
      for (const [id, e] of Object.entries(raw as Record<string, IndexEntry>)) {
        if (e && typeof e === 'object' && e.id === id && typeof e.createdAt === 'string') out.set(id, e)
      }
    }
    return out
  }

  private async reconcile(): Promise<void> {
    const known = this.loadIndex()
    await fs.mkdir(this.runsDir, { recursive: true })
    const names = await fs.readdir(this.runsDir)
    await this.recoverTemps(names)
    const files = (await fs.readdir(this.runsDir)).filter((n) => n.endsWith('.json'))
    const seen = new Set<string>()
    for (const name of files) {
      const file = join(this.runsDir, name)
      const st = await fs.stat(file)
      if (!st.isFile()) continue
      const id = name.slice(0, -'.json'.length)
      const cached = known.get(id)
      if (cached && cached.size === st.size && cached.mtimeMs === st.mtimeMs) {
        this.index.set(id, cached)
        seen.add(id)
        continue
      }
      const res = await this.readRunFile(file)
      if (!res.ok) continue
      if (res.run.id !== id) {
        this.problems.push({ file, message: `run file ${file} holds run ${res.run.id}; left in place, not listed` })
        continue
      }
      this.index.set(id, { ...summaryOf(res.run), size: st.size, mtimeMs: st.mtimeMs })
      seen.add(id)
    }
    for (const id of known.keys()) {
      if (!seen.has(id) && !this.index.has(id)) {
        this.problems.push({ file: this.fileOf(id), message: `run "${known.get(id)!.name}" is in the index but its file ${this.fileOf(id)} is missing` })
      }
    }
    this.flushIndex()
  }

  /**
   * A kill between writing a temp file and renaming it leaves `.<id>.json.<pid>.<rand>.tmp`.
   * If it holds a complete run whose file does not exist, finish the rename; else drop it.
   */
  private async recoverTemps(names: string[]): Promise<void> {
    for (const name of names.filter(isAtomicTemp)) {
      const tmp = join(this.runsDir, name)
      const target = join(this.runsDir, name.slice(1).replace(/\.\d+\.[0-9a-f]{8}\.tmp$/, ''))
      let complete = false
      try {
        complete = runFile.safeParse(JSON.parse(await fs.readFile(tmp, 'utf8'))).success
      } catch {
        complete = false
      }
      const exists = await fs.stat(target).then(() => true, () => false)
      if (complete && !exists) await fs.rename(tmp, target)
      else await fs.rm(tmp, { force: true })
    }
  }
}
