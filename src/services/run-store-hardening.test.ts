/**
 * The run store against a data folder that is not as it wrote it: dangling links, entries that
 * are not files, files that vanish mid-scan, content changed behind its back, byte-order marks,
 * leftovers of interrupted writes, and a second process writing the same folder.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, promises as fsp, readFileSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Conf from 'conf'
import { RunStore } from './run-store'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker, tempDir } from './test-helpers'
import { createBackend } from './backend'
import { cleanStaleTemps, withFileLockSync, writeFileAtomic } from './atomic-write'
import { lockedWrites, openKeyValueStore, type KeyValueStore } from './kv'
import { sampleRun } from './__fixtures__/sample-run'

const cleanups: (() => void)[] = []
afterEach(() => {
  vi.restoreAllMocks()
  cleanups.splice(0).forEach((c) => c())
})

function dataDir(): string {
  const t = tempDir()
  cleanups.push(t.cleanup)
  return t.dir
}

const runsOf = (dir: string): string => join(dir, 'runs')

async function storeWith(dir: string, ids: string[], kv: KeyValueStore = new MemoryKv()): Promise<RunStore> {
  const s = await RunStore.open(dir, kv)
  for (const [i, id] of ids.entries()) await s.save(sampleRun(id, `2026-01-0${i + 1}T00:00:00.000Z`))
  return s
}

describe('entries of runs/ the store did not write', () => {
  it('a dangling symlink is reported and moved aside; startup goes on', async () => {
    const dir = dataDir()
    await storeWith(dir, ['run-a'])
    symlinkSync(join(dir, 'nowhere.json'), join(runsOf(dir), 'run-link.json'))
    const b = await RunStore.open(dir, new MemoryKv())
    expect(b.list().map((r) => r.id)).toEqual(['run-a'])
    const [p] = b.getProblems()
    expect(p.file).toBe(join(runsOf(dir), 'run-link.json'))
    expect(p.message).toMatch(/dangling symbolic link/)
    expect(p.movedTo).toMatch(/corrupt/)
    expect(existsSync(join(runsOf(dir), 'run-link.json'))).toBe(false)
  })

  it('a folder and a FIFO named like run files are reported and moved aside, without hanging', async () => {
    const dir = dataDir()
    await storeWith(dir, ['run-a'])
    mkdirSync(join(runsOf(dir), 'run-dir.json'))
    const fifo = spawnSync('mkfifo', [join(runsOf(dir), 'run-fifo.json')])
    const b = await RunStore.open(dir, new MemoryKv())
    expect(b.list().map((r) => r.id)).toEqual(['run-a'])
    const problems = b.getProblems()
    expect(problems.map((p) => p.message).join('\n')).toMatch(/run-dir\.json is not a regular file/)
    if (fifo.status === 0) expect(problems.map((p) => p.message).join('\n')).toMatch(/run-fifo\.json is not a regular file/)
    expect(problems.every((p) => p.movedTo)).toBe(true)
  })

  it('a file that vanishes between listing and reading is skipped; the others load', async () => {
    const dir = dataDir()
    await storeWith(dir, ['run-a', 'run-b'])
    const readdir = fsp.readdir.bind(fsp)
    vi.spyOn(fsp, 'readdir').mockImplementation((async (p: string, ...rest: unknown[]) => {
      const names = (await (readdir as (...a: unknown[]) => Promise<string[]>)(p, ...rest)) as string[]
      return String(p).endsWith('runs') ? [...names, 'run-ghost.json'] : names
    }) as typeof fsp.readdir)
    const b = await RunStore.open(dir, new MemoryKv())
    expect(b.list().map((r) => r.id)).toEqual(['run-b', 'run-a'])
    expect(b.getProblems()).toEqual([])
  })

  it('an unreadable runs folder is reported; the store opens empty and says why saves fail', async () => {
    const dir = dataDir()
    writeFileSync(join(dir, 'runs'), 'not a folder')
    const b = await RunStore.open(dir, new MemoryKv())
    expect(b.list()).toEqual([])
    expect(b.getProblems()[0].message).toMatch(/runs folder .* cannot be read/)
    await expect(b.save(sampleRun('run-a', '2026-01-01T00:00:00.000Z'))).rejects.toThrow()
  })
})

describe('checksums', () => {
  it('each run file carries a checksum of its content', async () => {
    const dir = dataDir()
    await storeWith(dir, ['run-a'])
    expect(readFileSync(join(runsOf(dir), 'run-a.json'), 'utf8')).toMatch(/,"checksum":"sha256:[0-9a-f]{64}"\}$/)
  })

  it('a changed byte is a corrupt file: moved aside at open and reported once', async () => {
    const dir = dataDir()
    const kv = new MemoryKv()
    await storeWith(dir, ['run-a', 'run-b'], kv)
    const f = join(runsOf(dir), 'run-b.json')
    writeFileSync(f, readFileSync(f, 'utf8').replace('"wallMs":5', '"wallMs":6'))
    utimesSync(f, new Date(), new Date(Date.now() + 5000))
    const b = await RunStore.open(dir, kv)
    expect(b.list().map((r) => r.id)).toEqual(['run-a'])
    expect(b.getProblems()).toHaveLength(1)
    expect(b.getProblems()[0].message).toMatch(/checksum/)
    expect(existsSync(f)).toBe(false)
    const c = await RunStore.open(dir, kv)
    expect(c.getProblems()).toEqual([])
  })

  it('a file changed while the store is open fails on read, once, and is reported once', async () => {
    const dir = dataDir()
    const b = await storeWith(dir, ['run-a'])
    const f = join(runsOf(dir), 'run-a.json')
    writeFileSync(f, readFileSync(f, 'utf8').replace('"name":"run-a"', '"name":"run-A"'))
    await expect(b.get('run-a')).rejects.toThrow(/checksum/)
    await expect(b.get('run-a')).rejects.toThrow(/no saved run/)
    await b.refresh()
    expect(b.getProblems()).toHaveLength(1)
  })

  it('a run file without a checksum (written before checksums) still loads', async () => {
    const dir = dataDir()
    mkdirSync(runsOf(dir), { recursive: true })
    writeFileSync(join(runsOf(dir), 'run-old.json'), JSON.stringify(sampleRun('run-old', '2026-01-01T00:00:00.000Z')))
    const b = await RunStore.open(dir, new MemoryKv())
    expect(b.list().map((r) => r.id)).toEqual(['run-old'])
    expect((await b.get('run-old')).name).toBe('run-old')
  })

  it('tolerates a byte-order mark', async () => {
    const dir = dataDir()
    await storeWith(dir, ['run-a'])
    const f = join(runsOf(dir), 'run-a.json')
    writeFileSync(f, '\ufeff' + readFileSync(f, 'utf8'))
    writeFileSync(join(runsOf(dir), 'run-old.json'), '\ufeff' + JSON.stringify(sampleRun('run-old', '2026-01-02T00:00:00.000Z')))
    const b = await RunStore.open(dir, new MemoryKv())
    expect(b.getProblems()).toEqual([])
    expect(b.list().map((r) => r.id)).toEqual(['run-old', 'run-a'])
    expect((await b.get('run-a')).results).toHaveLength(1)
  })
})

describe('atomic writes', () => {
  it('fsyncs the file, renames, then fsyncs the folder', async () => {
    const dir = dataDir()
    const ops: string[] = []
    const open = fsp.open.bind(fsp)
    vi.spyOn(fsp, 'open').mockImplementation((async (p: string, flags?: string) => {
      const fh = await open(p, flags)
      const sync = fh.sync.bind(fh)
      fh.sync = async () => {
        ops.push(`sync ${p === dir ? 'dir' : 'file'}`)
        return sync()
      }
      return fh
    }) as typeof fsp.open)
    const rename = fsp.rename.bind(fsp)
    vi.spyOn(fsp, 'rename').mockImplementation(async (a, b) => {
      ops.push('rename')
      return rename(a, b)
    })
    await writeFileAtomic(join(dir, 'x.json'), '{}')
    expect(ops).toEqual(['sync file', 'rename', 'sync dir'])
    expect(readFileSync(join(dir, 'x.json'), 'utf8')).toBe('{}')
  })

  it('cleans stale temp files, never a live process\'s in-flight one', async () => {
    const dir = dataDir()
    const old = new Date(Date.now() - 3600_000)
    const sleeper = spawn('sleep', ['30'])
    try {
      const live = `.run-a.json.${sleeper.pid}.0a0b0c0d.tmp`
      const dead = `.run-b.json.999999999.0a0b0c0e.tmp`
      const liveOld = `.run-c.json.${sleeper.pid}.0a0b0c0f.tmp`
      for (const n of [live, dead, liveOld]) writeFileSync(join(dir, n), '{')
      utimesSync(join(dir, liveOld), old, old)
      writeFileSync(join(dir, 'config.json.tmp-1234567890abcdef'), '{')
      utimesSync(join(dir, 'config.json.tmp-1234567890abcdef'), old, old)
      writeFileSync(join(dir, 'config.json.tmp-1234567891abcdef'), '{')
      const removed = await cleanStaleTemps(dir)
      expect(removed.sort()).toEqual(['config.json.tmp-1234567890abcdef', dead, liveOld].sort())
      expect(readdirSync(dir).sort()).toEqual(['config.json.tmp-1234567891abcdef', live].sort())
    } finally {
      sleeper.kill()
    }
  })

  it('a starting store keeps another process\'s in-flight run temp file', async () => {
    const dir = dataDir()
    await storeWith(dir, ['run-a'])
    const tmp = join(runsOf(dir), `.run-z.json.${process.ppid}.0a0b0c0d.tmp`)
    writeFileSync(tmp, '{"format":1,')
    await RunStore.open(dir, new MemoryKv())
    expect(existsSync(tmp)).toBe(true)
  })

  it('leftover config.json.tmp-* files are cleaned when the settings store opens', () => {
    const dir = dataDir()
    const old = new Date(Date.now() - 3600_000)
    const leftover = join(dir, 'config.json.tmp-1234567890abcdef')
    writeFileSync(leftover, '{"theme":')
    utimesSync(leftover, old, old)
    openKeyValueStore(join(dir, 'config.json'), () => new Conf({ cwd: dir, configName: 'config', projectName: 'schedlab' }))
    expect(existsSync(leftover)).toBe(false)
  })

  it('config.json with a byte-order mark is read, not moved aside', () => {
    const dir = dataDir()
    writeFileSync(join(dir, 'config.json'), '\ufeff{"theme":"dark"}')
    const { kv, problems } = openKeyValueStore(join(dir, 'config.json'), () => new Conf({ cwd: dir, configName: 'config', projectName: 'schedlab' }))
    expect(problems).toEqual([])
    expect(kv.get('theme')).toBe('dark')
  })
})

describe('two processes on one data folder', () => {
  const conf = (dir: string): KeyValueStore => new Conf({ cwd: dir, configName: 'config', projectName: 'schedlab' })

  it('two stores on one folder merge the index and see each other\'s runs', async () => {
    const dir = dataDir()
    const a = await RunStore.open(dir, conf(dir))
    const b = await RunStore.open(dir, conf(dir))
    await a.save(sampleRun('run-a', '2026-01-01T00:00:00.000Z'))
    await b.save(sampleRun('run-b', '2026-01-02T00:00:00.000Z'))
    await a.refresh()
    expect(a.list().map((r) => r.id)).toEqual(['run-b', 'run-a'])
    await b.refresh()
    await b.delete('run-a')
    await a.refresh()
    expect(a.list().map((r) => r.id)).toEqual(['run-b'])
    await a.save(sampleRun('run-c', '2026-01-03T00:00:00.000Z'))
    const index = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).runs
    expect(Object.keys(index).sort()).toEqual(['run-b', 'run-c'])
    expect(a.getProblems()).toEqual([])
  })

  it('two real processes saving into one folder lose nothing and each lists the other\'s runs', async () => {
    const dir = dataDir()
    const script = join(__dirname, '__fixtures__', 'store-writer.ts')
    const N = 15
    const run = (name: string): Promise<{ code: number | null; out: string; err: string }> => new Promise((ok) => {
      const p = spawn(process.execPath, [...TSX_WORKER_ARGV, script, dir, name, String(N), String(2 * N)], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      p.stdout.on('data', (d) => (out += d))
      p.stderr.on('data', (d) => (err += d))
      p.on('exit', (code) => ok({ code, out, err }))
    })
    const [x, y] = await Promise.all([run('x'), run('y')])
    for (const r of [x, y]) {
      expect(r.code, r.err).toBe(0)
      const seen = JSON.parse(r.out) as { ids: string[]; problems: unknown[] }
      // Each process, without restarting, lists all runs of both.
      expect(seen.ids).toHaveLength(2 * N)
      expect(seen.problems).toEqual([])
    }
    const after = await RunStore.open(dir, conf(dir))
    expect(after.list()).toHaveLength(2 * N)
    expect(after.getProblems()).toEqual([])
    const index = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).runs
    expect(Object.keys(index)).toHaveLength(2 * N)
    expect(readdirSync(runsOf(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([])
  }, 120_000)

  it('two processes saving at once, with no listing between, leave every run in the stored index', async () => {
    // the index is read, changed and written by each save: without the index lock, 150 saves of
    // each process left 205-219 of the 300 runs in config.json (until a listing or a restart)
    const dir = dataDir()
    const script = join(__dirname, '__fixtures__', 'index-writer.ts')
    const N = 150
    const run = (name: string): Promise<{ code: number | null; err: string }> => new Promise((ok) => {
      const p = spawn(process.execPath, [...TSX_WORKER_ARGV, script, dir, name, String(N)], { stdio: ['ignore', 'ignore', 'pipe'] })
      let err = ''
      p.stderr.on('data', (d) => (err += d))
      p.on('exit', (code) => ok({ code, err }))
    })
    for (const r of await Promise.all([run('x'), run('y')])) expect(r.code, r.err).toBe(0)
    const index = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).runs as Record<string, unknown>
    expect(Object.keys(index)).toHaveLength(2 * N)
    expect(existsSync(join(dir, 'runs-index.lock'))).toBe(false)
  }, 120_000)

  it('two stores saving interleaved: each renames and deletes the other\'s runs without a refresh, and the index loses none', async () => {
    const dir = dataDir()
    const a = await RunStore.open(dir, conf(dir))
    const b = await RunStore.open(dir, conf(dir))
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()
    await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).save(sampleRun(`run-${i % 2 ? 'a' : 'b'}-${String(i).padStart(2, '0')}`, at(i)))))
    // each acts on a run only the other saved, with no listing first
    expect((await a.rename('run-b-00', 'renamed by a')).name).toBe('renamed by a')
    expect((await b.rename('run-a-01', 'renamed by b')).name).toBe('renamed by b')
    await a.delete('run-b-02')
    await b.delete('run-a-03')
    const index = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).runs as Record<string, { name: string }>
    expect(Object.keys(index)).toHaveLength(38)
    expect(index['run-b-00'].name).toBe('renamed by a')
    expect(index['run-a-01'].name).toBe('renamed by b')
    expect(index['run-b-02'] ?? index['run-a-03']).toBeUndefined()
    for (const s of [a, b]) {
      await s.refresh()
      expect(s.list()).toHaveLength(38)
      expect(s.getProblems()).toEqual([])
    }
  })

  it('settings writes hold the index lock too', () => {
    const dir = dataDir()
    const lock = join(dir, 'runs-index.lock')
    const held: string[] = []
    const kv = lockedWrites({ get: () => undefined, set: () => void held.push(readFileSync(lock, 'utf8')) }, lock)
    kv.set('theme', 'dark')
    expect(held).toEqual([String(process.pid)])
    expect(existsSync(lock)).toBe(false)
  })

  it('the index lock of a process that died is taken over; a held one is waited for', () => {
    const dir = dataDir()
    const lock = join(dir, 'runs-index.lock')
    writeFileSync(lock, '999999999')
    expect(withFileLockSync(lock, () => readFileSync(lock, 'utf8'))).toBe(String(process.pid))
    expect(existsSync(lock)).toBe(false)
    // held by a live process (this one, as another would): the wait ends at its limit, and fn runs
    writeFileSync(lock, String(process.ppid))
    expect(withFileLockSync(lock, () => 'ran', 30)).toBe('ran')
    expect(readFileSync(lock, 'utf8')).toBe(String(process.ppid))
  })

  it('a window of one process is told when the other saves a run, and lists it', async () => {
    const dir = dataDir()
    const backend = await createBackend({
      dataDir: dir, kv: conf(dir), workerPath: fixtureWorker('result-worker.ts'), execArgv: TSX_WORKER_ARGV,
      poolSize: 1, version: '0.0.0-test', platform: 'web'
    })
    try {
      const events: string[] = []
      backend.onEvent((e, p) => e === 'runs-changed' && events.push((p as { reason: string }).reason))
      const other = await RunStore.open(dir, conf(dir))
      await other.save(sampleRun('run-other', '2026-01-01T00:00:00.000Z'))
      await expect.poll(() => events).toContain('external')
      expect((await backend.service.listRuns()).runs.map((r) => r.id)).toEqual(['run-other'])
    } finally {
      await backend.close()
    }
  })
})

describe('a corrupt run opened from the history', () => {
  it('is reported once: in the store\'s problems, and the open error points there', async () => {
    const dir = dataDir()
    const backend = await createBackend({
      dataDir: dir, kv: new MemoryKv(), workerPath: fixtureWorker('result-worker.ts'), execArgv: TSX_WORKER_ARGV,
      poolSize: 1, version: '0.0.0-test', platform: 'web'
    })
    try {
      await backend.store.save(sampleRun('run-a', '2026-01-01T00:00:00.000Z'))
      writeFileSync(join(runsOf(dir), 'run-a.json'), '{"format": 1, "id": "trunc')
      const err = await backend.service.getRun('run-a').catch((e: Error) => e.message)
      expect(err).toMatch(/could not be read; it was moved aside/)
      expect(err).not.toMatch(/trunc|Unexpected|JSON/)
      const { problems } = await backend.service.listRuns()
      expect(problems).toHaveLength(1)
      expect(problems[0].message).toMatch(/run-a\.json is corrupt or unreadable .*; moved to /)
      await expect(backend.service.getRun('run-a')).rejects.toThrow(/no saved run/)
      expect((await backend.service.listRuns()).problems).toHaveLength(1)
    } finally {
      await backend.close()
    }
  })
})
