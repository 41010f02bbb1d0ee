import { promises as fs } from 'node:fs'
import { extname, join, resolve } from 'node:path'
import { MIME, parseTarget, servedFile } from '../services/static-files'

/**
 * The desktop app's renderer is served from a custom protocol, app://schedlab/, not file://: a
 * file: page is an opaque origin whose CSP can only be a meta tag (no frame-ancestors) and
 * which can read other local files with the file fuse; here every response is ours, with the
 * CSP as a header, and nothing outside the built renderer folder is reachable. Electron-free
 * (Response is the web standard one), so it is tested in plain Node; window.ts registers it.
 */

export const APP_SCHEME = 'app'
export const APP_ORIGIN = `${APP_SCHEME}://schedlab`
export const APP_RENDERER_URL = `${APP_ORIGIN}/index.html`

/**
 * Privileges for protocol.registerSchemesAsPrivileged (before the app is ready): a standard,
 * secure origin (relative URLs, module scripts, workers, fetch); no service workers, no CORS
 * from other origins, no bypassing the CSP.
 */
export const APP_SCHEME_PRIVILEGES = {
  scheme: APP_SCHEME,
  privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true }
}

const BASE_HEADERS = { 'X-Content-Type-Options': 'nosniff', 'Cross-Origin-Opener-Policy': 'same-origin' }

function notFound(): Response {
  return new Response('not found\n', { status: 404, headers: { ...BASE_HEADERS, 'Content-Type': 'text/plain' } })
}

/** The protocol handler: `rendererDir`'s files, each HTML response with the CSP header. */
export function appProtocolHandler(rendererDir: string, csp: string): (req: { url: string; method?: string }) => Promise<Response> {
  let root: Promise<string> | null = null
  return async (req) => {
    if (req.method && req.method !== 'GET' && req.method !== 'HEAD') return new Response('method not allowed\n', { status: 405, headers: BASE_HEADERS })
    if (!req.url.startsWith(`${APP_ORIGIN}/`)) return notFound()
    const target = parseTarget(req.url.slice(APP_ORIGIN.length).replace(/#.*$/, ''))
    if (!target) return new Response('bad request\n', { status: 400, headers: BASE_HEADERS })
    root ??= fs.realpath(resolve(rendererDir))
    const dir = await root.catch(() => null)
    if (!dir) return notFound()
    const file = target.rel === '' || target.rel === 'index.html' ? join(dir, 'index.html') : await servedFile(dir, target.rel)
    if (!file) return notFound()
    let body: Buffer
    try {
      body = await fs.readFile(file)
    } catch {
      return notFound()
    }
    const type = MIME[extname(file)] ?? 'application/octet-stream'
    return new Response(new Uint8Array(body), {
      status: 200,
      headers: { ...BASE_HEADERS, 'Content-Type': type, ...(type.startsWith('text/html') ? { 'Content-Security-Policy': csp } : {}) }
    })
  }
}
