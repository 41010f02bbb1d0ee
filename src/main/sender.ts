/**
 * Which frames may call the IPC API: only the top frame of our window, showing our renderer
 * (app://schedlab/index.html, or the dev server in development). Checked on every call, so a
 * navigated or embedded frame cannot reach the services.
 */
export function isTrustedRendererUrl(frameUrl: string, rendererUrl: string): boolean {
  let f: URL
  let r: URL
  try {
    f = new URL(frameUrl)
    r = new URL(rendererUrl)
  } catch {
    return false
  }
  if (r.protocol === 'file:') return f.protocol === 'file:' && decodeURIComponent(f.pathname) === decodeURIComponent(r.pathname)
  // A custom scheme (app://) has an opaque origin ("null" for every such URL): compare its parts.
  if (r.protocol !== 'http:' && r.protocol !== 'https:') {
    return f.protocol === r.protocol && f.host === r.host && decodeURIComponent(f.pathname) === decodeURIComponent(r.pathname)
  }
  return f.origin === r.origin
}
