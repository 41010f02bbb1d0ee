import { promises as fs } from 'node:fs'
import { join, posix, resolve, sep } from 'node:path'

/**
 * Serving the built renderer's files, for both hosts (the web host over HTTP, the desktop app
 * over its app:// protocol): one way to decode a path, one containment rule.
 */

export const MIME: Record<string, string> = {
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

/**
 * A request target (origin-form `/path?query`) decoded and normalized once, before any check:
 * `/%69ndex.html`, `//index.html` and `/assets/../index.html` are all `index.html`. Null when it
 * cannot be decoded (or is not origin-form, like `//[` that `new URL` throws on).
 */
export function parseTarget(raw: string | undefined): { rel: string; token: string | null } | null {
  if (!raw || raw[0] !== '/') return null
  const q = raw.indexOf('?')
  let path: string
  try {
    path = decodeURIComponent(q < 0 ? raw : raw.slice(0, q))
  } catch {
    return null
  }
  if (path.includes('\0')) return null
  // Backslashes are separators on Windows; treat them as such everywhere.
  const rel = posix.normalize(path.replace(/\\/g, '/')).replace(/^\/+/, '')
  if (rel === '..' || rel.startsWith('../')) return null
  const token = q < 0 ? null : new URLSearchParams(raw.slice(q + 1)).get('token')
  return { rel: rel === '.' ? '' : rel, token }
}

/**
 * The real path of `rel` inside `root` (itself a real path), or null: outside it (after
 * resolving symlinks), not a regular file, or the page itself by another path than the one that
 * serves it (`index.html` is only served through the page route).
 */
export async function servedFile(root: string, rel: string): Promise<string | null> {
  const file = resolve(root, rel)
  if (!file.startsWith(root + sep)) return null
  try {
    const real = await fs.realpath(file)
    if (!real.startsWith(root + sep) || real === join(root, 'index.html')) return null
    return (await fs.stat(real)).isFile() ? real : null
  } catch {
    return null
  }
}
