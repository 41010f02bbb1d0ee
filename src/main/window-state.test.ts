import { describe, expect, it } from 'vitest'
import { fitWindowState, parseSavedState } from './window-state'
import { isTrustedRendererUrl } from './sender'

const screen = { x: 0, y: 0, width: 1920, height: 1050 }

describe('window state', () => {
  it('restores saved bounds that are on a display', () => {
    const s = parseSavedState({ x: 100, y: 50, width: 1200, height: 800, maximized: false })
    expect(fitWindowState(s, [screen])).toEqual({ x: 100, y: 50, width: 1200, height: 800, maximized: false })
  })

  it('drops the position of a window left on an unplugged monitor', () => {
    const s = parseSavedState({ x: 2500, y: 100, width: 1200, height: 800, maximized: true })
    const fit = fitWindowState(s, [screen])
    expect(fit.x).toBeUndefined()
    expect(fit.maximized).toBe(true)
  })

  it('shrinks and pulls in bounds larger than the display', () => {
    const s = parseSavedState({ x: 1800, y: 0, width: 3000, height: 2000, maximized: false })
    expect(fitWindowState(s, [screen, { x: 1920, y: 0, width: 1280, height: 1000 }])).toEqual({ x: 1920, y: 0, width: 1280, height: 1000, maximized: false })
  })

  it('ignores garbage', () => {
    expect(parseSavedState({ x: 'a' })).toBeNull()
    expect(parseSavedState({ x: 0, y: 0, width: 10, height: 10 })).toBeNull()
    expect(fitWindowState(null, [screen]).width).toBe(1440)
  })
})

describe('IPC sender check', () => {
  it('accepts only our renderer page', () => {
    const built = 'file:///opt/schedlab/resources/app/out/renderer/index.html'
    expect(isTrustedRendererUrl(built + '#x', built)).toBe(true)
    expect(isTrustedRendererUrl('file:///tmp/evil.html', built)).toBe(false)
    expect(isTrustedRendererUrl('https://example.com/', built)).toBe(false)
    expect(isTrustedRendererUrl('http://localhost:5173/index.html', 'http://localhost:5173')).toBe(true)
    expect(isTrustedRendererUrl('http://localhost:5174/', 'http://localhost:5173')).toBe(false)
    expect(isTrustedRendererUrl('about:blank', built)).toBe(false)
  })
})
