import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchChromium, chromiumMissing } from './host'
import { measureFrames } from './timeline-frames'

const missing = chromiumMissing()

/**
 * The timeline stays smooth with 100,000 slices in view: drawing is bounded by the canvas'
 * pixel columns, not by the number of slices, and a frame takes milliseconds (measured in
 * Chromium; `npm run bench:timeline` prints the figures). The time bound is loose (a loaded
 * 2-core CI machine), the structural bound is exact.
 */
describe.skipIf(missing !== null)('timeline drawing in Chromium', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it('draws 100,000 slices in view with at most one rectangle per pixel column and lane', async () => {
    const page = await browser.newPage()
    const r = await measureFrames(page, 100_000, 8, 24)
    expect(r.slices).toBeGreaterThanOrEqual(100_000)
    // lanes x (plot columns + idle spans + the wait frame): independent of the slice count
    expect(r.maxRects).toBeLessThanOrEqual(r.lanes * r.width + 50)
    expect(r.medianMs).toBeLessThan(250)
    await page.close()
  })
})
