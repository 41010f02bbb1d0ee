import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { promises as fs } from 'node:fs'
import { extname, join, resolve } from 'node:path'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { rendererCsp } from '../shared/csp'
import { SERVICE_ARGS } from '../shared/ipc-schemas'
import { formatMb, MAX_MESSAGE_BYTES } from '../shared/limits'
import type { Backend } from '../services/backend'
import { createDispatcher } from '../services/dispatch'
import { MIME, parseTarget, servedFile } from '../services/static-files'

/**
 * The web host: serves the built renderer on 127.0.0.1 and the contract's service methods
 * over a WebSocket, backed by the same services as the desktop app. A random token in the URL
 * guards both; the WebSocket also refuses pages from other origins, so another site open in
 * the same browser cannot drive it, and both refuse a Host header other than the host's own
 * names (DNS rebinding). Whatever a page or a process sends fails only its own request or
 * connection: docs/security.md lists the threats and the checks.
 */

export interface WebHostOptions {
  backend: Backend
  rendererDir: string
  port?: number
  token?: string
  /** Tests lower these; `schedlab serve` uses the defaults (docs/security.md). */
  limits?: Partial<WebHostLimits>
}

/** What one client can hold of the host: each beyond is refused with an error naming the limit. */
export interface WebHostLimits {
  /** TCP connections at one time (pages, WebSockets, half-open ones); more are closed at once. */
  maxConnections: number
  /** WebSockets at one time. */
  maxSockets: number
  /** Calls of one WebSocket not yet answered. */
  maxCallsInFlight: number
  /** Runs (simulated, real, VM) one WebSocket has started that have not finished. */
  maxRunsPerConnection: number
  /** Time a connection has to send its request's headers (Node's default is 60 s). */
  headersTimeoutMs: number
  /** Bytes waiting to be sent to one WebSocket: a client that does not read is closed beyond it. */
  maxBufferedBytes: number
  /** Bytes of the messages whose calls are unanswered, all connections together. */
  maxBytesInFlight: number
}

export const DEFAULT_WEB_HOST_LIMITS: WebHostLimits = {
  maxConnections: 128,
  maxSockets: 32,
  maxCallsInFlight: 32,
  maxRunsPerConnection: 16,
  headersTimeoutMs: 5000,
  maxBufferedBytes: 64 * 1024 * 1024,
  // four scenarios at the 16 MB limit, JSON-escaped; ten clients sending 30 MB each peaked at 1.6 GB
  maxBytesInFlight: 4 * MAX_MESSAGE_BYTES
}

const RUN_METHODS = new Set(['startRun', 'startRealRun', 'startVmRun', 'resumeRun'])

/** How many Host headers a request carries (Node keeps only the first in `headers`). */
function hostHeaderCount(req: IncomingMessage): number {
  let n = 0
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'host') n++
  return n
}

export interface WebHost {
  url: string
  port: number
  token: string
  /** WebSockets open now. */
  sockets(): number
  close(): Promise<void>
}

/** Wire format: client -> host calls, host -> client answers and events. */
export type ClientMessage = { id: number; method: string; args: unknown[] }
/** `id: null` answers a message whose own id could not be read. */
export type HostMessage =
  | { id: number; ok: true; value: unknown }
  | { id: number | null; ok: false; error: string }
  | { event: string; payload: unknown }


function sameToken(a: string | null, b: string): boolean {
  if (!a) return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** A message from a page, checked field by field; `id` is null when it is not a finite number. */
export function parseClientMessage(data: string): { id: number | null; call?: { method: string; args: unknown[] }; error?: string } {
  let msg: unknown
  try {
    msg = JSON.parse(data)
  } catch {
    return { id: null, error: 'not JSON' }
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return { id: null, error: 'expected an object { id, method, args }' }
  const m = msg as Record<string, unknown>
  const id = Object.hasOwn(m, 'id') && typeof m.id === 'number' && Number.isFinite(m.id) ? m.id : null
  if (id === null) return { id, error: '"id" must be a finite number' }
  if (typeof m.method !== 'string') return { id, error: '"method" must be a string' }
  if (!Array.isArray(m.args)) return { id, error: '"args" must be an array' }
  return { id, call: { method: m.method, args: m.args } }
}

export { parseTarget }

export async function startWebHost(opts: WebHostOptions): Promise<WebHost> {
  const token = opts.token ?? randomBytes(24).toString('hex')
  const lim: WebHostLimits = { ...DEFAULT_WEB_HOST_LIMITS, ...opts.limits }
  const root = await fs.realpath(resolve(opts.rendererDir))
  const indexHtml = await fs.readFile(join(root, 'index.html'), 'utf8')
  const dispatch = createDispatcher(SERVICE_ARGS, opts.backend.service)
  // Set once the port is known: the names this host answers to, and the pages it trusts.
  let hosts = new Set<string>()
  let origins = new Set<string>()
  let csp = ''

  const baseHeaders = {
    'X-Content-Type-Options': 'nosniff',
    // The token is in the page URL: never send it to anyone in a Referer.
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin'
  }

  const send = (res: ServerResponse, status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}): void => {
    const html = type.startsWith('text/html')
    res.writeHead(status, {
      ...baseHeaders,
      'Content-Type': type,
      'Content-Length': Buffer.byteLength(body),
      // Every HTML page, whatever path reached it, runs under the policy (and is never framed).
      ...(html ? { 'Content-Security-Policy': csp, 'X-Frame-Options': 'DENY' } : {}),
      ...extra
    })
    res.end(body)
  }

  /** DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends Host: evil.example. */
  const trustedHost = (req: IncomingMessage): boolean => hosts.has((req.headers.host ?? '').toLowerCase())

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // two Host headers: which one a proxy or a cache believed is unknown (Node keeps the first)
    if (hostHeaderCount(req) > 1) return send(res, 400, 'schedlab serve: more than one Host header\n', 'text/plain', { Connection: 'close' })
    if (!trustedHost(req)) return send(res, 403, 'schedlab serve: unexpected Host header\n', 'text/plain')
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', 'text/plain')
    const target = parseTarget(req.url)
    if (!target) return send(res, 400, 'bad request target\n', 'text/plain')
    if (target.rel === '' || target.rel === 'index.html') {
      if (!sameToken(target.token, token)) {
        return send(res, 403, 'schedlab serve: open the URL printed by the command (it carries the access token)\n', 'text/plain')
      }
      return send(res, 200, indexHtml, MIME['.html'], { 'Cache-Control': 'no-store' })
    }
    const file = await servedFile(root, target.rel)
    if (!file) return send(res, 404, 'not found\n', 'text/plain')
    const body = await fs.readFile(file)
    const immutable = target.rel.startsWith('assets/')
    return send(res, 200, body, MIME[extname(file)] ?? 'application/octet-stream', {
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache'
    })
  }

  // connectionsCheckingInterval: how often Node enforces the header timeout (30 s by default)
  const server = createServer({ connectionsCheckingInterval: Math.min(1000, lim.headersTimeoutMs) }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'internal error\n', 'text/plain')
      else res.destroy()
    })
  })
  // Idle and half-open connections must not hold the host's sockets: headers in a few seconds,
  // and a cap on connections (under `ulimit -n 256`, 229 idle ones used to block every client).
  server.headersTimeout = lim.headersTimeoutMs
  server.requestTimeout = lim.headersTimeoutMs * 2
  server.maxConnections = lim.maxConnections
  // A malformed request or a reset connection ends that connection, nothing else.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
    else socket.destroy()
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES })
  wss.on('error', () => undefined)
  const clients = new Set<WebSocket>()

  server.on('upgrade', (req, socket, head) => {
    socket.on('error', () => socket.destroy())
    const refuse = (status: string): void => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
    }
    const target = parseTarget(req.url)
    if (!target || hostHeaderCount(req) > 1) return refuse('400 Bad Request')
    const reqOrigin = req.headers.origin
    if (!trustedHost(req) || target.rel !== 'ws' || !sameToken(target.token, token) || (reqOrigin !== undefined && !origins.has(reqOrigin))) {
      return refuse('403 Forbidden')
    }
    if (clients.size >= lim.maxSockets) return refuse('503 Service Unavailable')
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })

  /** Bytes of the messages whose calls are unanswered (maxBytesInFlight). */
  let bytesInFlight = 0

  /** Runs each WebSocket started that have not finished (run ids), and its start calls in flight. */
  const runsOf = new Map<WebSocket, { runs: Set<string>; starting: number }>()

  /** Send, unless the client does not read: beyond maxBufferedBytes waiting, it is closed (one answer larger than that still goes to a client that has read the rest). */
  const sendTo = (ws: WebSocket, text: string): void => {
    if (ws.readyState !== ws.OPEN) return
    if (ws.bufferedAmount > 0 && ws.bufferedAmount + text.length > lim.maxBufferedBytes) {
      // it has not read what it asked for: a close frame would queue behind the rest
      ws.terminate()
      return
    }
    ws.send(text)
  }

  wss.on('connection', (ws: WebSocket) => {
    clients.add(ws)
    const mine = { runs: new Set<string>(), starting: 0 }
    runsOf.set(ws, mine)
    let inFlight = 0
    ws.on('close', () => {
      clients.delete(ws)
      runsOf.delete(ws)
    })
    // Protocol errors (bad UTF-8, unmasked or oversized frames, reserved bits and opcodes, bad
    // close codes): ws has already failed the connection with the matching close code.
    ws.on('error', () => undefined)
    const reply = (m: HostMessage): void => {
      if (ws.readyState !== ws.OPEN) return
      let text: string
      try {
        text = JSON.stringify(m)
      } catch (err) {
        text = JSON.stringify({ id: "id" in m ? m.id : null, ok: false, error: `the answer could not be sent: ${(err as Error).message}` })
      }
      sendTo(ws, text)
    }
    ws.on('message', (data, isBinary) => {
      const size = (data as Buffer).length ?? 0
      const msg = isBinary ? { id: null, error: 'binary messages are not part of the protocol' } : parseClientMessage(data.toString())
      if (!msg.call) return reply({ id: msg.id, ok: false, error: `invalid message: ${msg.error}` })
      const { method, args } = msg.call
      const id = msg.id as number
      if (inFlight >= lim.maxCallsInFlight) return reply({ id, ok: false, error: `refused: ${lim.maxCallsInFlight} calls of this connection are still unanswered (the limit of calls in flight); wait for their answers` })
      const startsRun = RUN_METHODS.has(method)
      if (startsRun && mine.runs.size + mine.starting >= lim.maxRunsPerConnection) {
        return reply({ id, ok: false, error: `refused: this connection has ${lim.maxRunsPerConnection} runs queued or running (the limit per connection); wait for one to finish or cancel one` })
      }
      if (bytesInFlight > 0 && bytesInFlight + size > lim.maxBytesInFlight) {
        return reply({ id, ok: false, error: `refused: the host is busy with ${formatMb(bytesInFlight)} of calls not yet answered (the limit is ${formatMb(lim.maxBytesInFlight)}); try again` })
      }
      bytesInFlight += size
      inFlight++
      if (startsRun) mine.starting++
      dispatch(method, args).then(
        (env) => {
          const v = env.ok ? (env.value as { ok?: boolean; runId?: unknown } | null) : null
          if (startsRun && v?.ok && typeof v.runId === 'string') mine.runs.add(v.runId)
          reply({ id, ...env })
        },
        (err: unknown) => reply({ id, ok: false, error: err instanceof Error ? err.message : String(err) })
      ).finally(() => {
        bytesInFlight -= size
        inFlight--
        if (startsRun) mine.starting--
      })
    })
  })

  const off = opts.backend.onEvent((event, payload) => {
    if (event === 'run-finished') {
      const runId = (payload as { runId?: unknown } | null)?.runId
      if (typeof runId === 'string') for (const m of runsOf.values()) m.runs.delete(runId)
    }
    const text = JSON.stringify({ event, payload } satisfies HostMessage)
    for (const ws of clients) sendTo(ws, text)
  })

  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(opts.port ?? 0, '127.0.0.1', () => ok())
  })
  const port = (server.address() as AddressInfo).port
  // The page works from either name; nothing else reaches it.
  hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`])
  origins = new Set([...hosts].map((h) => `http://${h}`))
  csp = rendererCsp([...hosts].map((h) => `ws://${h}`))
  server.on('error', (err) => process.stderr.write(`schedlab serve: ${err.message}\n`))
  const origin = `http://127.0.0.1:${port}`

  return {
    url: `${origin}/?token=${token}`,
    port,
    token,
    sockets: () => clients.size,
    async close() {
      off()
      for (const ws of clients) ws.terminate()
      wss.close()
      const closed = new Promise<void>((ok) => server.close(() => ok()))
      server.closeAllConnections()
      await closed
    }
  }
}
