/** The desktop app's app:// protocol handler, in plain Node (no Electron binary here). */
import { afterAll, describe, expect, it } from 'vitest'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { rendererCsp } from '../shared/csp'
import { APP_RENDERER_URL, APP_SCHEME_PRIVILEGES, appProtocolHandler } from './app-protocol'
import { isTrustedRendererUrl } from './sender'
import { tempDir } from '../services/test-helpers'

const t = tempDir()
afterAll(() => t.cleanup())
const renderer = join(t.dir, 'renderer')
mkdirSync(join(renderer, 'assets'), { recursive: true })
writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>schedlab</title>')
writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)')
writeFileSync(join(t.dir, 'secret.txt'), 'secret')
symlinkSync(join(t.dir, 'secret.txt'), join(renderer, 'assets', 'leak.txt'))
const handle = appProtocolHandler(renderer, rendererCsp())

describe('app:// protocol', () => {
  it('serves the renderer with the CSP as a header, frame-ancestors included', async () => {
    const r = await handle({ url: APP_RENDERER_URL, method: 'GET' })
    expect(r.status).toBe(200)
    expect(await r.text()).toContain('<title>schedlab</title>')
    expect(r.headers.get('content-security-policy')).toBe(rendererCsp())
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    const js = await handle({ url: 'app://schedlab/assets/app.js' })
    expect(js.headers.get('content-type')).toContain('text/javascript')
    expect((await handle({ url: 'app://schedlab/%69ndex.html' })).headers.get('content-security-policy')).toBe(rendererCsp())
  })

  it('serves nothing outside the renderer folder', async () => {
    for (const url of ['app://schedlab/../secret.txt', 'app://schedlab/%2e%2e/secret.txt', 'app://schedlab/assets/leak.txt', 'app://other/index.html', 'app://schedlab/%E0%A4%A', 'file:///etc/passwd']) {
      const r = await handle({ url })
      expect(r.status, url).toBeGreaterThanOrEqual(400)
      expect(await r.text()).not.toContain('secret')
    }
    expect((await handle({ url: APP_RENDERER_URL, method: 'POST' })).status).toBe(405)
  })

  it('is registered as a standard, secure scheme', () => {
    expect(APP_SCHEME_PRIVILEGES).toMatchObject({ scheme: 'app', privileges: { standard: true, secure: true } })
    expect(APP_SCHEME_PRIVILEGES.privileges).not.toHaveProperty('bypassCSP')
  })

  it('IPC trusts the app:// renderer page only', () => {
    expect(isTrustedRendererUrl(APP_RENDERER_URL, APP_RENDERER_URL)).toBe(true)
    expect(isTrustedRendererUrl(`${APP_RENDERER_URL}#x`, APP_RENDERER_URL)).toBe(true)
    expect(isTrustedRendererUrl('app://schedlab/assets/app.js', APP_RENDERER_URL)).toBe(false)
    expect(isTrustedRendererUrl('app://evil/index.html', APP_RENDERER_URL)).toBe(false)
    expect(isTrustedRendererUrl('other://schedlab/index.html', APP_RENDERER_URL)).toBe(false)
    expect(isTrustedRendererUrl('https://example.com/', APP_RENDERER_URL)).toBe(false)
  })
})
