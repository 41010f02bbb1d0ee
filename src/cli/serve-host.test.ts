import { afterEach, describe, expect, it, vi } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'node:http'
import WebSocket from 'ws'
import { createBackend, type Backend } from '../services/backend'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker, tempDir } from '../services/test-helpers'
import { startWebHost, type WebHost } from './serve-host'
import { parseServeArgs } from './serve'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function setup(): Promise<{ host: WebHost; backend: Backend }> {
  const t = tempDir()
  const rendererDir = join(t.dir, 'renderer')
  mkdirSync(join(rendererDir, 'assets'), { recursive: true })
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>schedlab</title>')
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(t.dir, 'secret.txt'), 'secret')
  const backend = await createBackend({
    dataDir: join(t.dir, 'data'), kv: new MemoryKv(), workerPath: fixtureWorker('result-worker.ts'),
    execArgv: TSX_WORKER_ARGV, poolSize: 2, version: '0.0.0-test', platform: 'web'
  })
  const host = await startWebHost({ backend, rendererDir })
  cleanups.push(() => t.cleanup(), () => backend.close(), () => host.close())
  return { host, backend }
}

function get(port: number, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', fail)
    req.end()
  })
}

function connect(host: WebHost, opts: { token?: string; origin?: string } = {}): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${opts.token ?? host.token}`, { headers: opts.origin ? { Origin: opts.origin } : {} })
  cleanups.push(() => ws.terminate())
  return new Promise((ok, fail) => {
    ws.once('open', () => ok(ws))
    ws.once('error', fail)
    ws.once('unexpected-response', (_req, res) => fail(new Error(`HTTP ${res.statusCode}`)))
  })
}

function rpc(ws: WebSocket) {
  let id = 0
  const events: { event: string; payload: any }[] = []
  const waiting = new Map<number, (m: any) => void>()
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString())
    if (typeof m.id === 'number') waiting.get(m.id)?.(m)
    else events.push(m)
  })
  const call = (method: string, ...args: unknown[]): Promise<any> => {
    const n = ++id
    ws.send(JSON.stringify({ id: n, method, args }))
    return new Promise((ok) => waiting.set(n, ok))
  }
  return { call, events }
}

describe('schedlab serve web host', () => {
  it('serves the renderer only with the token, on 127.0.0.1, with a CSP and no referrer', async () => {
    const { host } = await setup()
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/)
    expect((await get(host.port, '/')).status).toBe(403)
    expect((await get(host.port, '/?token=wrong')).status).toBe(403)
    const page = await get(host.port, `/?token=${host.token}`)
    expect(page.status).toBe(200)
    expect(page.body).toContain('<title>schedlab</title>')
    expect(page.headers['content-security-policy']).toContain(`connect-src 'self' ws://127.0.0.1:${host.port}`)
    expect(page.headers['content-security-policy']).toContain("script-src 'self'")
    expect(page.headers['referrer-policy']).toBe('no-referrer')
    const js = await get(host.port, '/assets/app.js')
    expect(js.status).toBe(200)
    expect(js.headers['content-type']).toContain('text/javascript')
  })

  it('does not serve files outside the renderer folder', async () => {
    const { host } = await setup()
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt', '/..%2fsecret.txt']) {
      const r = await get(host.port, p)
      expect(r.status, p).toBe(404)
      expect(r.body).not.toContain('secret')
    }
  })

  it('refuses WebSockets without the token or from another origin', async () => {
    const { host } = await setup()
    await expect(connect(host, { token: 'nope' })).rejects.toThrow(/403/)
    await expect(connect(host, { origin: 'http://evil.example' })).rejects.toThrow(/403/)
    await expect(connect(host, { origin: `http://127.0.0.1:${host.port}` })).resolves.toBeInstanceOf(WebSocket)
  })

  it('serves the service methods, validating their arguments, and nothing else', async () => {
    const { host } = await setup()
    const { call } = rpc(await connect(host))
    expect(await call('listRuns')).toEqual({ id: 1, ok: true, value: { runs: [], problems: [] } })
    const bad = await call('renameRun', 'run-x', 42)
    expect(bad.ok).toBe(false)
    expect(bad.error).toMatch(/^invalid call to renameRun: argument 1: /)
    const traversal = await call('getRun', '../../etc/passwd')
    expect(traversal.error).toMatch(/invalid call to getRun/)
    // host methods (dialogs, file system) are not reachable over the web host
    expect((await call('openScenario')).error).toMatch(/unknown method/)
    expect((await call('constructor')).error).toMatch(/unknown method/)
    expect((await call('appInfo')).value).toMatchObject({ version: '0.0.0-test', platform: 'web', workers: 2 })
  })

  it('runs a scenario and pushes progress and completion events to the page', async () => {
    const { host } = await setup()
    const { call, events } = rpc(await connect(host))
    const text = JSON.stringify({ name: 'ws run', topology: 'smp-2', durationMs: 100, variants: [{ name: 'a' }, { name: 'b' }], workloads: [{ type: 'hog', name: 'w', count: 1 }] })
    const started = await call('startRun', { text, file: 'ws.json' })
    expect(started.ok).toBe(true)
    const runId = started.value.runId
    await vi.waitFor(() => expect(events.some((e) => e.event === 'run-finished')).toBe(true), { timeout: 60_000, interval: 50 })
    const fin = events.find((e) => e.event === 'run-finished')!
    expect(fin.payload).toMatchObject({ runId, status: 'done' })
    expect(events.filter((e) => e.event === 'run-job')).toHaveLength(2)
    const list = await call('listRuns')
    expect(list.value.runs.map((r: any) => r.id)).toEqual([runId])
    const exported = await call('exportContent', { columns: [{ runId, variant: 'a' }, { runId, variant: 'b' }], baseline: 0, format: 'md', title: 'ws run' })
    expect(exported.value.fileName).toBe('ws-run.md')
    expect(exported.value.text).toContain('| Maximum (us) | 51 | 51 (0 %) |')
  })
})

describe('serve arguments', () => {
  it('parses --port and --data-dir', () => {
    expect(parseServeArgs(['--port', '8080', '--data-dir', '/tmp/x'])).toEqual({ port: 8080, dataDir: '/tmp/x' })
    expect(parseServeArgs(['--port=0'])).toMatchObject({ port: 0 })
    expect(parseServeArgs(['--help'])).toBe('help')
    expect(parseServeArgs(['--max-events', '5000000', '--memory-share', '0.25', '--max-total-events=100000000'])).toMatchObject({
      limits: { maxEventsPerRun: 5_000_000, maxTotalEvents: 100_000_000, memoryShare: 0.25 }
    })
  })

  it('rejects bad arguments with a message', () => {
    expect(() => parseServeArgs(['--port', 'http'])).toThrow(/--port: expected a port number/)
    expect(() => parseServeArgs(['--port'])).toThrow(/--port needs a value/)
    expect(() => parseServeArgs(['--verbosity'])).toThrow(/unknown argument "--verbosity"/)
    expect(parseServeArgs(['--verbose'])).toMatchObject({ verbose: true })
    expect(() => parseServeArgs(['--memory-share', '3'])).toThrow(/--memory-share: must be a number in 0\.01\.\.0\.95/)
  })
})
