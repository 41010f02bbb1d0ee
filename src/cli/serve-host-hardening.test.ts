/**
 * What any web page, or any local process, can send to `schedlab serve`: malformed upgrade
 * URLs, WebSocket protocol violations, malformed messages, foreign Host and Origin headers,
 * encoded and symlinked paths. The host runs in its own process (src/cli/__fixtures__/
 * host-child.ts), so an exception escaping a listener shows as that process ending; after each
 * attack the test checks the host still answers a normal call.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { connect as netConnect, type Socket } from 'node:net'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { mkdtempSync } from 'node:fs'
import WebSocket from 'ws'
import { TSX_WORKER_ARGV, tempDir } from '../services/test-helpers'
import { MAX_MESSAGE_BYTES } from '../shared/limits'

let child: ChildProcess | undefined
let port = 0
let token = ''
let exited: string | null = null
let stderr = ''
const t = tempDir('schedlab-host-')

/** Start the host process; each test gets a live one (a test that killed it leaves it dead). */
async function startHost(): Promise<void> {
  exited = null
  stderr = ''
  const c = spawn(process.execPath, [...TSX_WORKER_ARGV, join(__dirname, '__fixtures__', 'host-child.ts'), mkdtempSync(join(t.dir, 'h-'))], { stdio: ['pipe', 'pipe', 'pipe'] })
  child = c
  c.stderr!.on('data', (d) => (stderr += d))
  c.on('exit', (code, signal) => {
    if (child === c) exited = `exit ${code} ${signal ?? ''}: ${stderr.slice(0, 2000)}`
  })
  const line = await new Promise<string>((ok, fail) => {
    let out = ''
    c.stdout!.on('data', (d) => {
      out += d
      if (out.includes('\n')) ok(out.split('\n')[0])
    })
    c.once('exit', () => fail(new Error(`host did not start: ${stderr}`)))
  })
  ;({ port, token } = JSON.parse(line) as { port: number; token: string })
}

async function stopHost(): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  const c = child
  const gone = new Promise((ok) => c.once('exit', ok))
  c.kill('SIGTERM')
  await gone
}

beforeEach(async () => {
  const alive = child && !exited && (await open().then((s) => (s.destroy(), true), () => false))
  if (!alive) {
    await stopHost().catch(() => undefined)
    await startHost()
  }
})

afterAll(async () => {
  await stopHost()
  t.cleanup()
})

type Head = { status: number; headers: Record<string, string | string[] | undefined>; body: string }

function get(path: string, headers: Record<string, string> = {}): Promise<Head> {
  return new Promise((ok, fail) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET', headers }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', fail)
    req.end()
  })
}

/** The host is alive and serving: a fresh connection answers a call. */
async function expectAlive(): Promise<void> {
  // Give a crash in flight the time to show.
  await new Promise((ok) => setImmediate(ok))
  expect(exited).toBeNull()
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`)
  try {
    await new Promise((ok, fail) => {
      ws.once('open', ok)
      ws.once('error', fail)
    })
    const answer = new Promise<any>((ok) => ws.once('message', (d) => ok(JSON.parse(d.toString()))))
    ws.send(JSON.stringify({ id: 7, method: 'appInfo', args: [] }))
    expect(await answer).toMatchObject({ id: 7, ok: true })
  } finally {
    ws.terminate()
  }
  expect(exited).toBeNull()
}

function open(): Promise<Socket> {
  return new Promise((ok, fail) => {
    const socket = netConnect(port, '127.0.0.1')
    socket.once('error', fail)
    socket.once('connect', () => {
      socket.off('error', fail)
      socket.on('error', () => undefined)
      ok(socket)
    })
  })
}

/** A raw HTTP upgrade over a socket: the response head, and the socket for raw frames. */
async function rawUpgrade(path: string, headers: Record<string, string> = {}): Promise<{ status: number; head: string; socket: Socket; rest: Buffer }> {
  const socket = await open()
  const all = { Host: `127.0.0.1:${port}`, Upgrade: 'websocket', Connection: 'Upgrade', 'Sec-WebSocket-Key': randomBytes(16).toString('base64'), 'Sec-WebSocket-Version': '13', ...headers }
  socket.write(`GET ${path} HTTP/1.1\r\n${Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`)
  let buf = Buffer.alloc(0)
  await new Promise<void>((ok) => {
    const onData = (d: Buffer): void => {
      buf = Buffer.concat([buf, d])
      if (buf.includes('\r\n\r\n')) {
        socket.off('data', onData)
        ok()
      }
    }
    socket.on('data', onData)
    socket.once('close', () => ok())
  })
  const end = buf.indexOf('\r\n\r\n')
  const head = buf.subarray(0, end < 0 ? buf.length : end).toString()
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), head, socket, rest: end < 0 ? Buffer.alloc(0) : buf.subarray(end + 4) }
}

/** A client frame; `mask: false` and `rsv` make it invalid on purpose. */
function frame(opcode: number, payload: Buffer, opts: { mask?: boolean; rsv?: number; claimedLength?: number } = {}): Buffer {
  const mask = opts.mask ?? true
  const len = opts.claimedLength ?? payload.length
  const head: number[] = [0x80 | ((opts.rsv ?? 0) << 4) | opcode]
  const m = mask ? 0x80 : 0
  if (len < 126) head.push(m | len)
  else if (len < 65536) head.push(m | 126, len >> 8, len & 255)
  else {
    head.push(m | 127)
    const b = Buffer.alloc(8)
    b.writeBigUInt64BE(BigInt(len))
    head.push(...b)
  }
  if (!mask) return Buffer.concat([Buffer.from(head), payload])
  const key = randomBytes(4)
  const body = Buffer.from(payload.map((x, i) => x ^ key[i % 4]))
  return Buffer.concat([Buffer.from(head), key, body])
}

/** Send a frame on an open connection; resolves with the close code of the server's close frame. */
async function sendRaw(bytes: Buffer): Promise<number | null> {
  const { status, socket, rest } = await rawUpgrade(`/ws?token=${token}`)
  expect(status).toBe(101)
  let buf = rest
  socket.on('data', (d) => (buf = Buffer.concat([buf, d])))
  const closed = new Promise((ok) => socket.once('close', ok))
  socket.write(bytes)
  await closed
  // The server's close frame: opcode 8, unmasked, 2-byte code first.
  const at = buf.findIndex((b, i) => (b & 0x0f) === 8 && (b & 0x80) !== 0 && i + 3 < buf.length)
  return at >= 0 && (buf[at + 1] & 0x7f) >= 2 ? buf.readUInt16BE(at + 2) : null
}

describe('the web host survives what a page or a process sends', () => {
  it('an upgrade whose URL new URL() cannot parse (ws://127.0.0.1:PORT//[, no token needed) is refused', async () => {
    const r = await rawUpgrade('//[')
    expect(r.status).toBe(403)
    r.socket.destroy()
    expect((await get('//[')).status).toBe(404)
    // Undecodable targets are a bad request.
    for (const p of ['/%E0%A4%A', '/%00', '/ws%ZZ']) {
      const u = await rawUpgrade(`${p}?token=${token}`)
      expect(u.status, p).toBe(400)
      u.socket.destroy()
      expect((await get(p)).status, p).toBe(400)
    }
    await expectAlive()
  })

  const protocolErrors: [string, () => Buffer, number][] = [
    ['invalid UTF-8 in a text frame', () => frame(1, Buffer.from([0xc3, 0x28, 0xff])), 1007],
    ['an unmasked client frame', () => frame(1, Buffer.from('{}'), { mask: false }), 1002],
    ['a reserved bit (RSV1 without an extension)', () => frame(1, Buffer.from('{}'), { rsv: 4 }), 1002],
    ['an unknown opcode', () => frame(3, Buffer.from('x')), 1002],
    ['a bad close code', () => frame(8, Buffer.from([0x03, 0xe7])), 1002],
    ['a frame over the payload limit', () => frame(2, Buffer.alloc(0), { claimedLength: MAX_MESSAGE_BYTES + 1 }).subarray(0, 14), 1009]
  ]
  for (const [what, bytes, code] of protocolErrors) {
    it(`${what} closes that connection only (close code ${code})`, async () => {
      expect(await sendRaw(bytes())).toBe(code)
      await expectAlive()
    })
  }

  it('a connection reset in the middle of a handshake', async () => {
    const socket = await open()
    socket.write(`GET /ws?token=${token} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`)
    socket.resetAndDestroy()
    const refused = await rawUpgrade('/ws?token=nope')
    expect(refused.status).toBe(403)
    refused.socket.resetAndDestroy()
    await expectAlive()
  })

  it('messages with a non-string method, non-array args or a non-finite id get an error answer', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`)
    await new Promise((ok) => ws.once('open', ok))
    const answers: any[] = []
    ws.on('message', (d) => answers.push(JSON.parse(d.toString())))
    const bad = [
      '{"id": 1, "method": {"toString": 1}, "args": []}',
      '{"id": 2, "method": {"toString": {}, "valueOf": {}}, "args": []}',
      '{"id": 3, "method": ["appInfo"], "args": []}',
      '{"id": 4, "method": "appInfo", "args": {"length": 0}}',
      '{"id": 5, "method": "appInfo"}',
      '{"id": 1e400, "method": "appInfo", "args": []}',
      '{"id": "6", "method": "appInfo", "args": []}',
      '{"id": null, "method": "appInfo", "args": []}',
      'null', '[]', '"x"', '{', '{"__proto__": {"id": 9}, "method": "appInfo", "args": []}'
    ]
    for (const m of bad) ws.send(m)
    ws.send(JSON.stringify({ id: 10, method: 'appInfo', args: [] }))
    await expect.poll(() => answers.some((a) => a.id === 10)).toBe(true)
    for (const id of [1, 2, 3, 4, 5]) {
      expect(answers.find((a) => a.id === id), `id ${id}`).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid message: /) })
    }
    expect(answers.filter((a) => a.id === null).length).toBeGreaterThanOrEqual(4)
    expect(answers.find((a) => a.id === 10)).toMatchObject({ ok: true })
    expect(ws.readyState).toBe(WebSocket.OPEN)
    ws.terminate()
    await expectAlive()
  })

  it('refuses a foreign Host header (DNS rebinding) on pages and WebSockets', async () => {
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1:${port + 1}`, `localhost.evil.example:${port}`]) {
      expect((await get(`/?token=${token}`, { Host: host })).status, host).toBe(403)
      const r = await rawUpgrade(`/ws?token=${token}`, { Host: host })
      expect(r.status, host).toBe(403)
      r.socket.destroy()
    }
    expect((await get(`/?token=${token}`, { Host: `localhost:${port}` })).status).toBe(200)
    expect((await get(`/?token=${token}`, { Host: `127.0.0.1:${port}` })).status).toBe(200)
    await expectAlive()
  })

  it('accepts the Origin http://localhost:PORT as well as http://127.0.0.1:PORT, and no other', async () => {
    for (const [origin, status] of [[`http://localhost:${port}`, 101], [`http://127.0.0.1:${port}`, 101], [`http://localhost:${port + 1}`, 403], ['null', 403], ['http://evil.example', 403]] as const) {
      const r = await rawUpgrade(`/ws?token=${token}`, { Origin: origin, Host: `localhost:${port}` })
      expect(r.status, origin).toBe(status)
      r.socket.destroy()
    }
    await expectAlive()
  })

  it('decodes and normalizes the path before the token check: /%69ndex.html needs the token and carries the CSP', async () => {
    for (const p of ['/%69ndex.html', '/./index.html', '//index.html', '/assets/../index.html', '/index.html', '/%2e/index.html']) {
      const without = await get(p)
      expect(without.status, p).toBe(403)
      expect(without.body).not.toContain('<title>')
      const withToken = await get(`${p}?token=${token}`)
      expect(withToken.status, p).toBe(200)
      expect(withToken.headers['content-security-policy'], p).toContain("frame-ancestors 'none'")
    }
  })

  it('every HTML response carries the CSP header', async () => {
    const r = await get('/help.html')
    expect(r.headers['content-type']).toContain('text/html')
    expect(r.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    expect(r.headers['content-security-policy']).toContain("script-src 'self'")
  })

  it('never follows a symlink out of the served folder', async () => {
    for (const p of ['/assets/leak.txt', '/up/secret.txt', '/up/renderer/index.html']) {
      const r = await get(p)
      expect(r.status, p).toBe(404)
      expect(r.body).not.toContain('secret')
    }
    expect((await get('/assets/app.js')).status).toBe(200)
  })
})
