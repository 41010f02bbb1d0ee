/**
 * Content Security Policy of the renderer, for both hosts: only our own scripts and workers
 * (Monaco's workers are same-origin files), inline styles for Monaco and Chart.js, images
 * from data:/blob: for chart exports. `connect` adds the web host's WebSocket.
 */
export function rendererCsp(connect: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "worker-src 'self' blob:",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${connect.length ? ' ' + connect.join(' ') : ''}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'"
  ].join('; ')
}
