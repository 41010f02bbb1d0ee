/**
 * What one client can hold of the web host (issue: bounded by construction): connections, idle
 * half-open sockets (header timeout), WebSockets, calls in flight, runs per connection and per
 * host, and bytes queued to a client that never reads. The host runs in-process with small
 * limits so each is reached in a few calls; every test waits for events, never for time.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { connect as netConnect, type Socket } from 'node:net'
import WebSocket from 'ws'
import { createBackend } from '../services/backend'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker, tempDir } from '../services/test-helpers'
import { startWebHost, type WebHost, type WebHostLimits } from './serve-host'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup(limits: Partial<WebHostLimits> = {}, maxActiveRuns?: number, workerPath = fixtureWorker('result-worker.ts')): Promise<WebHost> {
  const t = tempDir()
  const rendererDir = join(t.dir, 'renderer')
  mkdirSync(rendererDir, { recursive: true })
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>schedlab</title>')
  const backend = await createBackend({
    dataDir: join(t.dir, 'data'), kv: new MemoryKv(), workerPath,
    execArgv: TSX_WORKER_ARGV, poolSize: 1, version: '0.0.0-test', platform: 'web', ...(maxActiveRuns ? { maxActiveRuns } : {})
  })
  const host = await startWebHost({ backend, rendererDir, limits })
  cleanups.push(() => t.cleanup(), () => backend.close(), () => host.close())
  return host
}

function raw(host: WebHost): Promise<Socket> {
  return new Promise((ok, fail) => {
    const s = netConnect(host.port, '127.0.0.1', () => ok(s))
    s.on('error', fail)
    cleanups.push(() => void s.destroy())
  })
}

/** The bytes a raw socket receives until the host closes it. */
function untilClosed(s: Socket): Promise<string> {
  let got = ''
  s.on('data', (d) => (got += d))
  s.on('error', () => undefined)
  return new Promise((ok) => s.once('close', () => ok(got)))
}

function connect(host: WebHost): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${host.token}`)
  cleanups.push(() => ws.terminate())
  return new Promise((ok, fail) => {
    ws.once('open', () => ok(ws))
    ws.once('error', fail)
    ws.once('unexpected-response', (_req, res) => fail(new Error(`HTTP ${res.statusCode}`)))
  })
}

type Answer = { id: number; ok: boolean; value?: any; error?: string }

/** Send calls in one burst; resolves with every answer, by id. */
function burst(ws: WebSocket, calls: { method: string; args: unknown[] }[], firstId = 0): Promise<Answer[]> {
  const answers = new Map<number, Answer>()
  return new Promise((ok) => {
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as Answer
      if (typeof m.id !== 'number' || m.id < firstId || m.id >= firstId + calls.length) return
      answers.set(m.id, m)
      if (answers.size === calls.length) ok([...answers.values()].sort((a, b) => a.id - b.id))
    })
    calls.forEach((c, i) => ws.send(JSON.stringify({ id: firstId + i, ...c })))
  })
}

const scenario = JSON.stringify({ name: 'lim', topology: 'smp-2', durationMs: 50, workloads: [{ type: 'hog', name: 'w', count: 1 }] })

describe('web host limits', () => {
  it('a request with two Host headers is answered 400', async () => {
    const host = await setup()
    const s = await raw(host)
    const closed = untilClosed(s)
    s.write(`GET /?token=${host.token} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nHost: evil.example\r\n\r\n`)
    expect(await closed).toMatch(/^HTTP\/1\.1 400 /)
  })

  it('an idle connection is closed at the header timeout; others are served meanwhile', async () => {
    const host = await setup({ headersTimeoutMs: 200 })
    const idle = await raw(host)
    const closed = untilClosed(idle)
    const ws = await connect(host)
    expect((await burst(ws, [{ method: 'appInfo', args: [] }]))[0].ok).toBe(true)
    await closed
  })

  it('connections beyond the cap are closed at once', async () => {
    const host = await setup({ maxConnections: 3 })
    for (let i = 0; i < 3; i++) await raw(host)
    const extra = await raw(host)
    expect(await untilClosed(extra)).toBe('')
  })

  it('WebSockets beyond the cap are refused with 503', async () => {
    const host = await setup({ maxSockets: 2 })
    await connect(host)
    await connect(host)
    await expect(connect(host)).rejects.toThrow('HTTP 503')
  })

  it('calls beyond the calls in flight of a connection are refused, naming the limit', async () => {
    const host = await setup({ maxCallsInFlight: 2 })
    const ws = await connect(host)
    const trace = Array.from({ length: 2000 }, (_, i) => `          <idle>-0     [000] d..2.  ${(100 + i / 1000).toFixed(6)}: sched_switch: prev_comm=swapper prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=${5 + (i % 7)} next_prio=120`).join('\n')
    const answers = await burst(ws, Array.from({ length: 6 }, () => ({ method: 'importTrace', args: [trace, 't.txt'] })))
    const refused = answers.filter((a) => !a.ok)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused[0].error).toBe('refused: 2 calls of this connection are still unanswered (the limit of calls in flight); wait for their answers')
    expect(answers[0].ok).toBe(true)
  })

  it('calls beyond the bytes in flight of the host are refused, whichever connection sends them', async () => {
    const host = await setup({ maxBytesInFlight: 1024 * 1024 })
    const a = await connect(host)
    const b = await connect(host)
    const trace = Array.from({ length: 6000 }, (_, i) => `          <idle>-0     [000] d..2.  ${(100 + i / 1000).toFixed(6)}: sched_switch: prev_comm=swapper prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=${5 + (i % 7)} next_prio=120`).join('\n')
    expect(trace.length).toBeGreaterThan(600 * 1024)
    const [first, second] = await Promise.all([
      burst(a, [{ method: 'importTrace', args: [trace, 't.txt'] }]),
      burst(b, [{ method: 'importTrace', args: [trace, 't.txt'] }])
    ])
    const answers = [...first, ...second]
    expect(answers.filter((x) => x.ok)).toHaveLength(1)
    expect(answers.find((x) => !x.ok)?.error).toBe('refused: the host is busy with 1 MB of calls not yet answered (the limit is 1 MB); try again')
  })

  it('runs beyond the limit per connection are refused; after they finish, more start', async () => {
    const host = await setup({ maxRunsPerConnection: 2 })
    const ws = await connect(host)
    const finished = new Promise<void>((ok) => {
      let n = 0
      ws.on('message', (d) => {
        if (JSON.parse(d.toString()).event === 'run-finished' && ++n === 2) ok()
      })
    })
    const answers = await burst(ws, Array.from({ length: 5 }, () => ({ method: 'startRun', args: [{ text: scenario, file: 'lim.json' }] })))
    expect(answers.map((a) => a.ok && a.value.ok)).toEqual([true, true, false, false, false])
    expect(answers[2].error).toBe('refused: this connection has 2 runs queued or running (the limit per connection); wait for one to finish or cancel one')
    await finished
    const again = await burst(ws, [{ method: 'startRun', args: [{ text: scenario, file: 'lim.json' }] }])
    expect(again[0].value.ok).toBe(true)
  })

  it('runs beyond the limit per host are refused, whichever connection starts them', async () => {
    const host = await setup({}, 3)
    const a = await connect(host)
    const b = await connect(host)
    const first = await burst(a, Array.from({ length: 2 }, () => ({ method: 'startRun', args: [{ text: scenario, file: 'lim.json' }] })))
    const second = await burst(b, Array.from({ length: 2 }, () => ({ method: 'startRun', args: [{ text: scenario, file: 'lim.json' }] })))
    expect([...first, ...second].map((x) => x.value.ok)).toEqual([true, true, true, false])
    expect(second[1].value.problem.message).toContain('refused: 3 runs are already queued or running on this host (the limit of runs at one time)')
  })

  it('a client that never reads is closed once its unsent answers pass the limit', async () => {
    const host = await setup({ maxBufferedBytes: 256 * 1024 })
    const ws = await connect(host)
    // stop reading: the kernel's buffers fill, then the host's
    const socket = (ws as unknown as { _socket: Socket })._socket
    socket.pause()
    const closed = new Promise<void>((ok) => ws.once('close', () => ok()))
    // 400 answers of 170 KB (68 MB): far past the kernel's buffers and the limit
    for (let i = 0; i < 400; i++) ws.send(JSON.stringify({ id: i, method: 'editorInfo', args: [] }))
    while (host.sockets() > 0) await new Promise((r) => setTimeout(r, 10))
    socket.resume()
    await closed
    // and the host serves the next client
    const next = await connect(host)
    expect((await burst(next, [{ method: 'appInfo', args: [] }]))[0].ok).toBe(true)
  })
})

describe('a large trace import', () => {
  it('runs on the worker pool: the host answers pages and calls of every client while it runs', async () => {
    const gate = tempDir('schedlab-gate-')
    cleanups.push(() => gate.cleanup())
    process.env.SCHEDLAB_TEST_GATE = gate.dir
    cleanups.push(() => void delete process.env.SCHEDLAB_TEST_GATE)
    const host = await setup({}, undefined, fixtureWorker('gated-trace-worker.ts'))
    // 15 MB of ftrace text: 4 tasks switching and waking on 4 CPUs
    const lines: string[] = []
    for (let i = 0; lines.length < 120_000; i++) {
      const cpu = i % 4
      const t = (100 + i / 10_000).toFixed(6)
      lines.push(`          task-${10 + cpu}  [00${cpu}] d..2.  ${t}: sched_waking: comm=task-${20 + cpu} pid=${20 + cpu} prio=120 target_cpu=00${cpu}`)
      lines.push(`          task-${10 + cpu}  [00${cpu}] d..2.  ${t}: sched_switch: prev_comm=task-${10 + cpu} prev_pid=${10 + cpu} prev_prio=120 prev_state=S ==> next_comm=task-${20 + cpu} next_pid=${20 + cpu} next_prio=120`)
    }
    const trace = lines.join('\n') + '\n'
    expect(trace.length).toBeGreaterThan(15_000_000)
    expect(trace.length).toBeLessThan(16 * 1024 * 1024)
    const importer = await connect(host)
    const imported = burst(importer, [{ method: 'importTrace', args: [trace, 'big.trace.txt'] }])
    let answered = false
    void imported.then(() => (answered = true))
    // the worker holds the trace: the import is under way, and stays so until the gate opens
    await expect.poll(() => existsSync(join(gate.dir, 'started')), { timeout: 60_000, interval: 20 }).toBe(true)
    expect(Number(readFileSync(join(gate.dir, 'started'), 'utf8'))).toBe(trace.length)
    const other = await connect(host)
    for (let round = 0; round < 10; round++) {
      const page = await fetch(`http://127.0.0.1:${host.port}/?token=${host.token}`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<title>schedlab</title>')
      const [info, list] = await burst(other, [{ method: 'appInfo', args: [] }, { method: 'listRuns', args: [] }])
      expect(info.ok && list.ok).toBe(true)
      // the importing connection is answered too
      const [mine] = await burst(importer, [{ method: 'getSettings', args: [] }], 1 + round)
      expect(mine.ok).toBe(true)
    }
    expect(answered).toBe(false)
    writeFileSync(join(gate.dir, 'open'), '')
    const [done] = await imported
    expect(done.ok, done.error).toBe(true)
    expect(done.value).toMatchObject({ ok: true, run: { source: 'trace', name: 'big.trace.txt' } })
    const [list] = await burst(other, [{ method: 'listRuns', args: [] }])
    expect(list.value.runs.map((r: { name: string }) => r.name)).toEqual(['big.trace.txt'])
  }, 120_000)
})
