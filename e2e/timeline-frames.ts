/**
 * The timeline's drawing code (src/renderer/src/timeline/draw.ts, self-contained) run in
 * Chromium on its own page, over synthetic lanes: what the frame-time test and
 * `npm run bench:timeline` measure. The module is transpiled (vite's oxc transform) as it is.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { transformWithOxc } from 'vite'
import type { Page } from 'playwright-core'
import { ROOT } from './host'

export async function drawModuleScript(): Promise<string> {
  const file = join(ROOT, 'src/renderer/src/timeline/draw.ts')
  const js = (await transformWithOxc(readFileSync(file, 'utf8'), file, { lang: 'ts' })).code
  return `${js}\nwindow.__timeline = { prepareRow, drawTimeline, layoutHeight };`
}

export interface FrameReport {
  slices: number
  frames: number
  medianMs: number
  p90Ms: number
  maxMs: number
  maxRects: number
  width: number
  lanes: number
}

/**
 * Draw `slices` slices spread over `lanes` lanes, in frames that zoom from the whole span to
 * 1/64 of it and pan: the canvas is flushed (getImageData) so raster time counts too.
 */
export async function measureFrames(page: Page, slices: number, lanes: number, frames: number): Promise<FrameReport> {
  await page.setContent('<!doctype html><html><body style="margin:0"><canvas id="c"></canvas></body></html>')
  await page.addScriptTag({ type: 'module', content: await drawModuleScript() })
  await page.waitForFunction('window.__timeline !== undefined')
  // plain JS in a string: the page runs it as written (a bundler's helpers are not there)
  return page.evaluate(`(({ slices, lanes, frames }) => {
    const T = window.__timeline
    const perLane = Math.ceil(slices / lanes)
    const names = Array.from({ length: 40 }, (_, i) => \`hackbench-t\${i % 2}s\${i}\`)
    let seed = 12345
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296)
    const laneData = Array.from({ length: lanes }, (_, cpu) => {
      const out = []
      let t = 0
      for (let i = 0; i < perLane; i++) {
        const len = 2000 + Math.floor(rnd() * 30000)
        out.push({ task: names[Math.floor(rnd() * names.length)], startNs: t, endNs: t + len })
        t += len + Math.floor(rnd() * 3000)
      }
      return { cpu, slices: out, idle: [{ state: 'WFI', startNs: t, endNs: t + 1e6 }] }
    })
    const end = Math.max(...laneData.map((l) => l.slices[l.slices.length - 1].endNs))
    const row = T.prepareRow({ title: 'synthetic', anchorNs: end / 2, startNs: 0, endNs: end, lanes: laneData, waits: [], focus: { task: names[0], cpu: 0, readyNs: end / 2 - 5e5, ranNs: end / 2 } })
    const canvas = document.getElementById('c')
    const width = 1400
    const height = T.layoutHeight([row])
    canvas.width = width
    canvas.height = height
    const ctx = canvas.getContext('2d')
    const times = []
    let maxRects = 0
    for (let f = 0; f < frames; f++) {
      // zoom in from the whole span to 1/64 of it, then back, panning as it goes
      const phase = f / Math.max(1, frames - 1)
      const zoom = 2 ** (-6 * Math.sin(Math.PI * phase))
      const half = (end / 2) * zoom
      const centre = (phase - 0.5) * end * 0.3
      const t0 = performance.now()
      const st = T.drawTimeline(ctx, [row], { fromNs: centre - half, toNs: centre + half }, width, height, { dark: false, selectedTask: names[0] })
      ctx.getImageData(0, 0, 1, 1)
      times.push(performance.now() - t0)
      maxRects = Math.max(maxRects, st.rects)
    }
    const s = [...times].sort((a, b) => a - b)
    return { slices: perLane * lanes, frames, medianMs: s[Math.floor(s.length / 2)], p90Ms: s[Math.floor(s.length * 0.9)], maxMs: s[s.length - 1], maxRects, width, lanes }
  })(${JSON.stringify({ slices, lanes, frames })})`) as Promise<FrameReport>
}
