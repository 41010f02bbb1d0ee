/**
 * `npm run bench:timeline`: frame times of the workbench timeline's drawing code in Chromium,
 * with 10,000 / 100,000 / 300,000 slices in view over 8 CPU lanes (zooming in to 1/64 of the
 * span and back). A benchmark: it prints figures and asserts nothing.
 */
import { launchChromium, chromiumMissing } from '../e2e/host'
import { measureFrames } from '../e2e/timeline-frames'

const missing = chromiumMissing()
if (missing) {
  console.error(missing)
  process.exit(1)
}
const browser = await launchChromium()
try {
  const page = await browser.newPage()
  const rows = []
  for (const n of [10_000, 100_000, 300_000]) {
    const r = await measureFrames(page, n, 8, 60)
    rows.push({ slices: r.slices, frames: r.frames, 'median ms': +r.medianMs.toFixed(2), 'p90 ms': +r.p90Ms.toFixed(2), 'max ms': +r.maxMs.toFixed(2), 'max rects/frame': r.maxRects })
  }
  console.table(rows)
} finally {
  await browser.close()
}
