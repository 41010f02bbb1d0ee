import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { promises as fs } from 'node:fs'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { rendererCsp } from '../shared/csp'
import { SERVICE_ARGS } from '../shared/ipc-schemas'
import type { Backend } from '../main/services/backend'
import { createDispatcher } from '../main/services/dispatch'

/**
 * The web host: serves the built renderer on 127.0.0.1 and the contract's service methods
 * over a WebSocket, backed by the same services as the desktop app. A random token in the URL
 * guards both; the WebSocket also refuses pages from other origins, so another site open in
 * the same browser cannot drive it.
 */

export interface WebHostOptions {
  backend: Backend
  rendererDir: string
  port?: number
  token?: string
}

export interface WebHost {
  url: string
  port: number
  token: string
  close(): Promise<void>
}

/** Wire format: client -> host calls, host -> client answers and events. */
export type ClientMessage = { id: number; method: string; args: unknown[] }
export type HostMessage =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string }
  | { event: string; payload: unknown }

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ttf': 'font/ttf',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.map': 'application/json'
}

function sameToken(a: string | null, b: string): boolean {
  if (!a) return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

export async function startWebHost(opts: WebHostOptions): Promise<WebHost> {
  const token = opts.token ?? randomBytes(24).toString('hex')
  const root = resolve(opts.rendererDir)
  const indexHtml = await fs.readFile(join(root, 'index.html'), 'utf8')
  const dispatch = createDispatcher(SERVICE_ARGS, opts.backend.service)
  let origin = ''

  const baseHeaders = {
    'X-Content-Type-Options': 'nosniff',
    // The token is in the page URL: never send it to anyone in a Referer.
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin'
  }

  const send = (res: ServerResponse, status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}): void => {
    res.writeHead(status, { ...baseHeaders, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...extra })
    res.end(body)
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed\n', 'text/plain')
    const url = new URL(req.url ?? '/', origin)
    if (url.pathname === '/' || url.pathname === '/index.html') {
      if (!sameToken(url.searchParams.get('token'), token)) {
        return send(res, 403, 'schedlab serve: open the URL printed by the command (it carries the access token)\n', 'text/plain')
      }
      return send(res, 200, indexHtml, MIME['.html'], {
        'Content-Security-Policy': rendererCsp([origin.replace(/^http/, 'ws')]),
        'Cache-Control': 'no-store'
      })
    }
    let rel: string
    try {
      rel = normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '')
    } catch {
      return send(res, 400, 'bad path\n', 'text/plain')
    }
    const file = resolve(root, rel)
    if (!file.startsWith(root + sep)) return send(res, 404, 'not found\n', 'text/plain')
    try {
      const body = await fs.readFile(file)
      const immutable = rel.startsWith('assets' + sep) || rel.startsWith('assets/')
      return send(res, 200, body, MIME[extname(file)] ?? 'application/octet-stream', {
        'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache'
      })
    } catch {
      return send(res, 404, 'not found\n', 'text/plain')
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'internal error\n', 'text/plain')
    })
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 })
  const clients = new Set<WebSocket>()

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', origin)
    const reqOrigin = req.headers.origin
    if (url.pathname !== '/ws' || !sameToken(url.searchParams.get('token'), token) || (reqOrigin !== undefined && reqOrigin !== origin)) {
      socket.write('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')
      socket.destroy()
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))
  })

  wss.on('connection', (ws: WebSocket) => {
    clients.add(ws)
    ws.on('close', () => clients.delete(ws))
    ws.on('message', (data) => {
      let msg: ClientMessage
      try {
        msg = JSON.parse(data.toString()) as ClientMessage
      } catch {
        return
      }
      if (typeof msg !== 'object' || msg === null || typeof msg.id !== 'number') return
      void dispatch(String(msg.method), msg.args).then((env) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id: msg.id, ...env } satisfies HostMessage))
      })
    })
  })

  const off = opts.backend.onEvent((event, payload) => {
    const text = JSON.stringify({ event, payload } satisfies HostMessage)
    for (const ws of clients) if (ws.readyState === ws.OPEN) ws.send(text)
  })

  await new Promise<void>((ok, fail) => {
    server.once('error', fail)
    server.listen(opts.port ?? 0, '127.0.0.1', () => ok())
  })
  const port = (server.address() as AddressInfo).port
  origin = `http://127.0.0.1:${port}`

  return {
    url: `${origin}/?token=${token}`,
    port,
    token,
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
