/**
 * A fresh machine has no Debian Chromium: with SCHEDLAB_CHROMIUM pointing nowhere (and so
 * /usr/bin/chromium out of the picture) the browser tests still find a browser, the one that
 * the @sparticuz/chromium devDependency ships, and it launches headless and draws on a canvas.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { chromiumMissing, findChromium, launchChromium } from './chromium'

describe.skipIf(process.platform !== 'linux' || process.arch !== 'x64')('the browser of the browser tests', () => {
  const saved = process.env.SCHEDLAB_CHROMIUM
  afterEach(() => {
    if (saved === undefined) delete process.env.SCHEDLAB_CHROMIUM
    else process.env.SCHEDLAB_CHROMIUM = saved
  })

  it('is the packaged Chromium where no system one is present, and it renders a canvas', async () => {
    process.env.SCHEDLAB_CHROMIUM = '/nonexistent/chromium'
    expect(chromiumMissing()).toBeNull()
    expect(findChromium().source).toBe('package')
    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      await page.setContent('<canvas id="c" width="8" height="8"></canvas>')
      const pixel = await page.evaluate(() => {
        const ctx = (document.getElementById('c') as HTMLCanvasElement).getContext('2d')!
        ctx.fillStyle = 'rgb(255, 0, 0)'
        ctx.fillRect(0, 0, 8, 8)
        return Array.from(ctx.getImageData(4, 4, 1, 1).data)
      })
      expect(pixel).toEqual([255, 0, 0, 255])
    } finally {
      await browser.close()
    }
  })

  it('is the one SCHEDLAB_CHROMIUM names where that file exists', () => {
    process.env.SCHEDLAB_CHROMIUM = process.execPath // any existing file stands for a browser here
    expect(findChromium()).toEqual({ executablePath: process.execPath, source: 'system' })
  })
})
