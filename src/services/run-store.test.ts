import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, readdirSync, readFileSync, writeFileSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import Conf from 'conf'
import type { StoredRun } from '../shared/ipc'
import { RunStore } from './run-store'
import { MemoryKv, tempDir } from './test-helpers'
import { openKeyValueStore, type KeyValueStore } from './kv'
import { sampleRun } from './__fixtures__/sample-run'

const cleanups: (() => void)[] = []
afterEach(() => cleanups.splice(0).forEach((c) => c()))

function dataDir(): string {
  const t = tempDir()
  cleanups.push(t.cleanup)
  return t.dir
}

const run = sampleRun

describe('RunStore', () => {
  it('saves each run in its own file and lists newest first', async () => {
    const dir = dataDir()
    const kv = new MemoryKv()
    const store = await RunStore.open(dir, kv)
    await store.save(run('run-a', '2026-01-01T00:00:00.000Z'))
    await store.save(run('run-b', '2026-01-02T00:00:00.000Z'))
    expect(store.list().map((r) => r.id)).toEqual(['run-b', 'run-a'])
    expect(readdirSync(join(dir, 'runs')).sort()).toEqual(['run-a.json', 'run-b.json'])
    const back = await store.get('run-a')
    expect(back.scenarioText).toBe('{ "name": "scn" }')
    expect(back.version).toBe('0.1.0')
    expect(back.results[0].seed).toBe(1)
    // no temp files remain after atomic writes
    expect(readdirSync(join(dir, 'runs')).some((n) => n.endsWith('.tmp'))).toBe(false)
  })

  it('renames and deletes', async () => {
    const dir = dataDir()
    const store = await RunStore.open(dir, new MemoryKv())
    await store.save(run('run-a', '2026-01-01T00:00:00.000Z'))
    await store.rename('run-a', 'my baseline')
    expect(store.list()[0].name).toBe('my baseline')
    expect((await store.get('run-a')).name).toBe('my baseline')
    await store.delete('run-a')
    expect(store.list()).toEqual([])
    expect(existsSync(join(dir, 'runs', 'run-a.json'))).toBe(false)
    await expect(store.get('run-a')).rejects.toThrow(/no saved run/)
  })

  it('survives a restart with the same index', async () => {
    const dir = dataDir()
    const kv = new MemoryKv()
    const a = await RunStore.open(dir, kv)
    await a.save(run('run-a', '2026-01-01T00:00:00.000Z'))
    const b = await RunStore.open(dir, kv)
    expect(b.list().map((r) => r.id)).toEqual(['run-a'])
    expect(b.getProblems()).toEqual([])
  })

  it('moves a corrupt run file aside at open and reports it, keeping the others', async () => {
    const dir = dataDir()
    const kv = new MemoryKv()
    const a = await RunStore.open(dir, kv)
    await a.save(run('run-a', '2026-01-01T00:00:00.000Z'))
    await a.save(run('run-b', '2026-01-02T00:00:00.000Z'))
    writeFileSync(join(dir, 'runs', 'run-b.json'), '{"format":1, "id": "run-b", trunc')
    const b = await RunStore.open(dir, kv)
    expect(b.list().map((r) => r.id)).toEqual(['run-a'])
    const [p] = b.getProblems()
    expect(p.file).toBe(join(dir, 'runs', 'run-b.json'))
    expect(p.message).toMatch(/corrupt or unreadable/)
    expect(p.movedTo).toBeDefined()
    expect(readFileSync(p.movedTo!, 'utf8')).toContain('trunc')
    expect(existsSync(join(dir, 'runs', 'run-b.json'))).toBe(false)
  })

  it('moves aside a file corrupted while the store is open, on read', async () => {
    const dir = dataDir()
    const store = await RunStore.open(dir, new MemoryKv())
    await store.save(run('run-a', '2026-01-01T00:00:00.000Z'))
    writeFileSync(join(dir, 'runs', 'run-a.json'), JSON.stringify({ format: 1, id: 'run-a' }))
    await expect(store.get('run-a')).rejects.toThrow(/not a schedlab run/)
    expect(store.list()).toEqual([])
    expect(store.getProblems()[0].movedTo).toMatch(/corrupt/)
  })

  it('rebuilds a lost index from the run files and reports files the index names but that are gone', async () => {
    const dir = dataDir()
    const kv = new MemoryKv()
    const a = await RunStore.open(dir, kv)
    await a.save(run('run-a', '2026-01-01T00:00:00.000Z', 'kept'))
    await a.save(run('run-b', '2026-01-02T00:00:00.000Z', 'gone'))
    const lost = await RunStore.open(dir, new MemoryKv())
    expect(lost.list().map((r) => r.name).sort()).toEqual(['gone', 'kept'])
    const { rmSync } = await import('node:fs')
    rmSync(join(dir, 'runs', 'run-b.json'))
    const c = await RunStore.open(dir, kv)
    expect(c.list().map((r) => r.id)).toEqual(['run-a'])
    expect(c.getProblems()[0].message).toMatch(/"gone" is in the index but its file .* is missing/)
  })

  it('re-reads a run file changed on disk since it was indexed', async () => {
    const dir = dataDir()
    const kv = new MemoryKv()
    const a = await RunStore.open(dir, kv)
    await a.save(run('run-a', '2026-01-01T00:00:00.000Z'))
    const f = join(dir, 'runs', 'run-a.json')
    writeFileSync(f, JSON.stringify(run('run-a', '2026-01-01T00:00:00.000Z', 'edited elsewhere')))
    utimesSync(f, new Date(), new Date(Date.now() + 5000))
    const b = await RunStore.open(dir, kv)
    expect(b.list()[0].name).toBe('edited elsewhere')
  })

  it('finishes a write interrupted before its rename, and drops torn temp files', async () => {
    const dir = dataDir()
    const store = await RunStore.open(dir, new MemoryKv())
    await store.save(run('run-a', '2026-01-01T00:00:00.000Z'))
    writeFileSync(join(dir, 'runs', '.run-c.json.1234.0a0b0c0d.tmp'), JSON.stringify(run('run-c', '2026-01-03T00:00:00.000Z')))
    writeFileSync(join(dir, 'runs', '.run-d.json.1234.0a0b0c0e.tmp'), '{"format":1,')
    const b = await RunStore.open(dir, new MemoryKv())
    expect(b.list().map((r) => r.id)).toEqual(['run-c', 'run-a'])
    expect(readdirSync(join(dir, 'runs')).filter((n) => n.endsWith('.tmp'))).toEqual([])
  })

  it('refuses to save a malformed run', async () => {
    const store = await RunStore.open(dataDir(), new MemoryKv())
    const bad = { ...run('run-a', '2026-01-01T00:00:00.000Z'), results: [{ name: 'x' }] } as unknown as StoredRun
    await expect(store.save(bad)).rejects.toThrow(/invalid run: results.0/)
  })
})

describe('settings and run index file (conf, as in schedlab serve)', () => {
  const open = (dir: string): KeyValueStore => new Conf({ cwd: dir, configName: 'config', projectName: 'schedlab' })

  it('moves a corrupt config.json aside and rebuilds the index from run files', async () => {
    const dir = dataDir()
    const first = openKeyValueStore(join(dir, 'config.json'), () => open(dir))
    const a = await RunStore.open(dir, first.kv)
    await a.save(run('run-a', '2026-01-01T00:00:00.000Z'))
    writeFileSync(join(dir, 'config.json'), '{ "runs": { nope')
    const second = openKeyValueStore(join(dir, 'config.json'), () => open(dir))
    expect(second.problems).toHaveLength(1)
    expect(second.problems[0].message).toMatch(/moved aside/)
    expect(readFileSync(second.problems[0].movedTo!, 'utf8')).toContain('nope')
    const b = await RunStore.open(dir, second.kv, second.problems)
    expect(b.list().map((r) => r.id)).toEqual(['run-a'])
    expect(b.getProblems()).toHaveLength(1)
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).runs['run-a'].name).toBe('run-a')
  })
})
