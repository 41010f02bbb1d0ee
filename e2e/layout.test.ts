/**
 * End-to-end: every variant visible (issue 28), in Chromium through `schedlab serve`: four
 * variants side by side at 1280x800 and three at 1024x700 without a horizontal scroll, n/a
 * reasons under the table instead of in the cells, Results at its top after a run, the progress
 * card gone once another run is shown, the newest run shown after a reload, History names that
 * keep their distinguishing end, a sweep's entry with its cell count, and a run bar on one line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { parse as parseJsonc } from 'jsonc-parser'
import { ensureBuilt } from '../src/cli/serve'
import { WorkbenchHost, chromiumMissing } from './host'
import { Workbench, editJson, openWorkbench, pngPixels, shortPreset } from './workbench-ui'

const missing = chromiumMissing()
const LONG_NAME = 'cyclictest beside hackbench with one group of thread pipes on the RB5 board'

describe.skipIf(missing !== null)('every variant visible (Chromium, schedlab serve)', () => {
  let host: WorkbenchHost
  let page: Page
  let ui: Workbench
  /** The preset, shortened: 4 variants, noise + cyclictest + hackbench, one seed. */
  let base: string
  const pageErrors: string[] = []

  beforeAll(async () => {
    ensureBuilt()
    host = new WorkbenchHost('schedlab-layout-')
    base = await shortPreset('cyclictest-hackbench-rb5', LONG_NAME)
    await host.start()
    ;({ page, ui } = await openWorkbench(host.browser, host.url, { width: 1280, height: 800 }, pageErrors))
    await page.getByTestId('blank-scenario').click()
  }, 180_000)

  afterAll(async () => {
    await host?.stop()
  })

  /** Each table of the tab: its columns and whether it needs a horizontal scroll. */
  const tables = (testid: string) => page.locator(`[data-testid="${testid}"] .table-scroll`).evaluateAll((els) => els.map((e) => ({
    columns: e.querySelectorAll('thead th').length - 1,
    scrolls: e.scrollWidth > e.clientWidth + 1
  })))

  it('fits 4 variants at 1280x800 and 3 at 1024x700 without scrolling; n/a reasons go under the table', async () => {
    expect(await ui.typeScenario(base)).toMatch(/✓/)
    await ui.runAndWait('done')
    await expect.poll(() => tables('results-table')).not.toEqual([])
    for (const t of await tables('results-table')) expect(t).toEqual({ columns: 4, scrolls: false })
    // n/a cells are short; their reason is on hover and under the table
    const na = page.locator('[data-testid="results-table"] td.na').first()
    expect(await na.textContent()).toBe('n/a')
    expect(await na.getAttribute('title')).toMatch(/^n\/a \(\d+ samples; need \d+\)/)
    expect(await page.getByTestId('na-notes').first().textContent()).toMatch(/99\.9th Percentile \(us\): \d+ samples; need 10000/)

    await page.setViewportSize({ width: 1024, height: 700 })
    await ui.runOnlyVariants(['tip/sched/core', 'short-slice v1', 'short-slice v2'])
    await ui.runAndWait('done')
    await expect.poll(async () => (await tables('results-table'))[0]?.columns).toBe(3)
    for (const t of await tables('results-table')) expect(t).toEqual({ columns: 3, scrolls: false })
    await page.getByTestId('compare-variants').click()
    await expect.poll(() => tables('compare-table')).not.toEqual([])
    for (const t of await tables('compare-table')) expect(t).toEqual({ columns: 3, scrolls: false })
    await page.setViewportSize({ width: 1280, height: 800 })
  }, 180_000)

  it('keeps the run bar on one line at 1280x800 and 1024x700', async () => {
    expect(await ui.typeScenario(base)).toMatch(/✓/)
    // (the longest published label of this scenario shows)
    await expect.poll(() => page.getByTestId('published-toggle').isDisabled()).toBe(false)
    const rows = () => page.locator('.run-bar > *').evaluateAll((els) => {
      const shown = els.map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0 && r.height > 0)
      return { rows: new Set(shown.map((r) => Math.round(r.top + r.height / 2) >> 3)).size, right: Math.max(...shown.map((r) => r.right)), width: window.innerWidth }
    })
    for (const viewport of [{ width: 1280, height: 800 }, { width: 1024, height: 700 }]) {
      await page.setViewportSize(viewport)
      await expect.poll(async () => (await rows()).rows, { message: `run bar rows at ${viewport.width} px` }).toBe(1)
      const r = await rows()
      expect(r.right).toBeLessThanOrEqual(r.width)
    }
    // Cancel is its sign at 1024 px, named for screen readers and in its title
    expect(await page.getByTestId('cancel-button').getAttribute('aria-label')).toBe('Cancel')
    await page.setViewportSize({ width: 1280, height: 800 })
  }, 60_000)

  it('opens Results at its top after a run; the progress card leaves once another run is shown; a reload shows the newest run', async () => {
    await page.getByTestId('tab-results').click()
    const scroller = page.getByTestId('right-scroll')
    await scroller.evaluate((e) => { e.scrollTop = e.scrollHeight })
    expect(await scroller.evaluate((e) => e.scrollTop)).toBeGreaterThan(100)
    await ui.runAndWait('done')
    const newest = await page.getByTestId('run-progress').getAttribute('data-run-id')
    await expect.poll(() => page.getByTestId('results-view').getAttribute('data-run-id')).toBe(newest)
    await expect.poll(() => scroller.evaluate((e) => e.scrollTop)).toBe(0)
    // the card of the run just done stays beside its results...
    expect(await page.getByTestId('run-progress').isVisible()).toBe(true)
    // ...and leaves when another run is shown
    const older = page.locator('[data-testid="history-item"]').nth(1)
    const olderId = await older.getAttribute('data-run-id')
    await older.locator('.run-name').click()
    await expect.poll(() => page.getByTestId('results-view').getAttribute('data-run-id')).toBe(olderId)
    await expect.poll(() => page.getByTestId('run-progress').isVisible()).toBe(false)
    await page.reload()
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 })
    expect(await page.locator('[data-testid="results-view"] .empty-state').count()).toBe(0)
    expect(await page.getByTestId('results-view').getAttribute('data-run-id')).toBe(newest)
    await page.getByTestId('blank-scenario').click()
  }, 120_000)

  it('keeps the distinguishing end of a History name visible, the whole name on hover', async () => {
    const ct = (parseJsonc(base) as { workloads: { type: string }[] }).workloads.findIndex((w) => w.type === 'cyclictest')
    expect(await ui.typeScenario(editJson(base, ['workloads', ct, 'sliceUs'], 4000))).toMatch(/✓/)
    await ui.runAndWait('done')
    const first = page.locator('[data-testid="history-item"]').first()
    const name = first.locator('.run-name')
    const full = (await name.getAttribute('title'))!.split('\n')[0]
    expect(full).toMatch(new RegExp(`^${LONG_NAME} · .*ct slice 4 ms`))
    // the start is cut (it does not fit), the end that differs from the other runs is whole
    const tail = name.locator('.tail')
    expect(await tail.textContent()).toMatch(/ct slice 4 ms$/)
    const [nb, tb] = await Promise.all([name.boundingBox(), tail.boundingBox()])
    expect(tb!.x + tb!.width).toBeLessThanOrEqual(nb!.x + nb!.width + 1)
    expect(await name.locator('.head').evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true)
  }, 120_000)

  it('says a sweep\'s cell count in its History entry', async () => {
    const sweep = JSON.stringify({
      name: 'tiny sweep', topology: 'smp-2', durationMs: 30,
      workloads: [{ type: 'cyclictest', periodUs: 1000, sliceUs: 3000 }],
      sweep: { 'workloads[0].sliceUs': [3000, 8000], 'workloads[0].periodUs': [1000, 2000, 3000] }
    }, null, 2)
    expect(await ui.typeScenario(sweep)).toMatch(/✓/)
    await ui.runAndWait('done')
    const item = page.locator('[data-testid="history-item"]').first()
    expect(await item.getAttribute('data-kind')).toBe('sweep')
    expect(await item.locator('.run-meta').textContent()).toMatch(/6 cells × 1 variant × 1 seed/)
    expect(pageErrors).toEqual([])
  }, 120_000)

  it('exports a mailing-list reply can use: Copy as text per table, a caption wrapped whole, files named after the whole run name', async () => {
    const run = page.locator('[data-testid="history-item"][data-kind="run"]').first()
    const runName = (await run.locator('.run-name').getAttribute('title'))!.split('\n')[0]
    await run.locator('.run-name').click()
    await page.getByTestId('tab-results').click()
    const table = page.locator('[data-testid="results-table"] .seeds-table').first()
    await table.locator('[data-action="copy-text"]').click()
    await expect.poll(() => table.locator('[data-action="copy-text"]').textContent()).toBe('Copied')
    const text = await page.evaluate(() => navigator.clipboard.readText())
    const lines = text.split('\n')
    // (wide tables come in blocks of columns under 100 characters)
    expect(lines[0].startsWith((await table.evaluate((t) => (t as HTMLTableElement).caption!.firstChild!.textContent))!)).toBe(true)
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(100)
    expect(lines[1]).toContain('tip/sched/core')
    expect(text).toMatch(/Maximum \(us\) +\d+/)
    expect(text).toContain('±h: half-width of the 95 % interval')
    expect(text).not.toContain('Copy as text')

    // a PNG: twice the chart's CSS size, its caption wrapped onto whole lines under it
    const chart = page.getByTestId('latency-chart')
    await expect.poll(() => chart.getAttribute('data-drawn')).toBe('true')
    const css = await chart.locator('canvas').evaluate((c) => c.getBoundingClientRect())
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()])
    const caption = (await chart.getAttribute('data-export-caption'))!.split('\n')
    expect(caption.length).toBeGreaterThan(1)
    expect(caption.join(' ')).toContain(LONG_NAME)
    expect(caption.join(' ')).not.toContain('…')
    const px = await pngPixels(page, readFileSync((await png.path())!), [[1, 1]])
    expect(px.width).toBe(Math.round(css.width) * 2)
    expect(px.height).toBe((Math.round(css.height) + caption.length * 15 + 8) * 2)

    // a table download is named after the whole run name, not its first 60 characters
    const [md] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="results-view"] [data-export="md"]').click()])
    expect(md.suggestedFilename()).toBe(`${runName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}.md`)
    expect(md.suggestedFilename().length).toBeGreaterThan(70)
  }, 120_000)
})
