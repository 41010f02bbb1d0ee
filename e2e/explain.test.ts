/**
 * End-to-end: from the results of the seed 002 preset (cyclictest-hackbench-dd-neglag-rb5),
 * one click on the cyclictest maximum opens the timeline at that sample with its explanation,
 * the same one `schedlab explain` gives; a second variant aligns below it; the window exports
 * as a Perfetto trace. Screenshots go to artifacts/ (README's docs/screenshots/timeline*.png are copies).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ensureBuilt } from '../src/cli/serve'
import { readPreset } from '../src/services/sim-adapter'
import { explainSample } from '../src/sim/explain'
import { expandRuns, parseScenario } from '../src/sim/scenario'
import { WorkbenchHost, chromiumMissing } from './host'
import { ARTIFACTS, Workbench, openWorkbench } from './workbench-ui'

const missing = chromiumMissing()
const PRESET = 'cyclictest-hackbench-dd-neglag-rb5'
const VARIANT = 'tip 8/20 ms'

describe.skipIf(missing !== null)('timeline and explanation in Chromium', () => {
  let host: WorkbenchHost
  let page: Page
  let ui: Workbench
  let text: string
  const pageErrors: string[] = []

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    ensureBuilt()
    host = new WorkbenchHost('schedlab-e2e-explain-')
    text = (await readPreset(PRESET)).text
    await host.start()
    ;({ page, ui } = await openWorkbench(host.browser, host.url, { width: 1600, height: 1000 }, pageErrors))
  }, 180_000)

  afterAll(async () => {
    await host?.stop()
  })

  it('one click on the cyclictest maximum shows its timeline and the explanation schedlab explain gives', async () => {
    // the preset as a user opens it: from the Presets menu
    await expect.poll(() => page.getByTestId('welcome').isVisible()).toBe(true)
    await page.getByTestId('preset-select').selectOption(PRESET)
    await ui.waitEditorText(text)
    await ui.waitValidated(text)
    await ui.runOnlyVariants(['tip (default slices)', VARIANT])
    await ui.runAndWait('done')
    const table = page.locator('[data-testid="results-table"] table[data-workload="cyclictest"]')
    await expect.poll(() => table.count()).toBe(1)
    const col = await table.locator('thead th').evaluateAll((ths, v) => ths.findIndex((t) => t.textContent === v) - 1, VARIANT)
    expect(col).toBeGreaterThanOrEqual(0)
    const maxCell = table.locator(`tr[data-metric="max"] td[data-col="${col}"]`)
    const shownMax = Number(((await maxCell.textContent()) ?? '').replace(/[^\d.].*$/, ''))
    expect(shownMax).toBeGreaterThan(0)

    await maxCell.click()
    const panel = page.getByTestId('explain-panel')
    await expect.poll(() => panel.getAttribute('data-state'), { timeout: 120_000 }).toBe('shown')
    const timeline = page.getByTestId('timeline')
    expect(await timeline.isVisible()).toBe(true)
    await expect.poll(async () => Number(await timeline.getAttribute('data-drawn') ?? 0)).toBeGreaterThan(0)
    expect(Number(await timeline.getAttribute('data-slices'))).toBeGreaterThan(100)
    // the sample is the table's maximum (the table rounds it to the microsecond)
    const latency = Number(await panel.getAttribute('data-latency-us'))
    expect(Math.abs(latency - shownMax), `${await maxCell.textContent()} vs ${latency}`).toBeLessThanOrEqual(0.5)

    // the same explanation as the command line's (same seed, same decisions, same cause)
    const spec = expandRuns(parseScenario(text, `${PRESET}.json`), { variants: [VARIANT] })[0]
    const cli = explainSample({ scenario: spec.scenario, variantIndex: spec.variantIndex, seed: spec.seed, workload: 'cyclictest', sample: 'max' })
    expect(await panel.getAttribute('data-cause')).toBe(cli.cause)
    expect(await panel.getAttribute('data-task')).toBe(cli.sample.task)
    expect(await page.getByTestId('explain-summary').textContent()).toBe(cli.summary)
    expect(await panel.locator('.explain-decisions li').evaluateAll((lis) => lis.map((l) => l.getAttribute('data-code')))).toEqual(cli.decisions.map((d) => d.code))
    // README's docs/screenshots/timeline.png is a copy of this one
    await page.getByTestId('timeline-pane').screenshot({ path: join(ARTIFACTS, 'timeline.png') })

    // zoom and pan by keyboard and wheel change the view, 0 fits again
    const canvas = timeline.locator('canvas')
    await canvas.focus()
    const view = async () => `${await timeline.getAttribute('data-view-from')}..${await timeline.getAttribute('data-view-to')}`
    const fitted = await view()
    await page.keyboard.press('+')
    await expect.poll(view).not.toBe(fitted)
    const zoomed = await view()
    await page.keyboard.press('ArrowRight')
    await expect.poll(view).not.toBe(zoomed)
    const box = (await canvas.boundingBox())!
    await page.mouse.move(box.x + box.width * 0.6, box.y + 40)
    const beforeWheel = await view()
    await page.mouse.wheel(0, 300)
    await expect.poll(view).not.toBe(beforeWheel)
    // a click on a decision moves the view to its moment
    await panel.locator('.explain-decisions li').first().click()
    await expect.poll(view).not.toBe(beforeWheel)
  }, 300_000)

  it('keeps tooltips inside the canvas, lists the causes in the timeline\'s order and the decisions as sentences; Align with fits its card', async () => {
    const timeline = page.getByTestId('timeline')
    const canvas = timeline.locator('canvas')
    await canvas.focus()
    await page.keyboard.press('0')
    const box = (await timeline.boundingBox())!
    const tip = page.locator('.timeline-tip')
    // slices at the right edge and in the lowest lanes: the tooltip flips rather than leave the canvas
    let shown = 0
    for (const fy of [0.92, 0.8, 0.65, 0.5, 0.35]) {
      for (const fx of [0.995, 0.985, 0.97]) {
        await page.mouse.move(box.x + box.width * fx, box.y + box.height * fy)
        if (!(await tip.isVisible())) continue
        shown++
        const t = (await tip.boundingBox())!
        expect(t.x).toBeGreaterThanOrEqual(box.x)
        expect(t.y).toBeGreaterThanOrEqual(box.y)
        expect(t.x + t.width).toBeLessThanOrEqual(box.x + box.width + 0.5)
        expect(t.y + t.height).toBeLessThanOrEqual(box.y + box.height + 0.5)
        expect(await tip.textContent()).toMatch(/^\S+ ran on CPU \d+ from \S+ (ms|us|s) to \S+ (ms|us|s) \([\d.]+ us\)\.$/)
      }
    }
    expect(shown, 'no slice under the pointer near the right edge').toBeGreaterThan(0)
    await page.mouse.move(0, 0)

    const panel = page.getByTestId('explain-panel')
    const from = await panel.locator('[data-testid="explain-causes"] .cause-chip').evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('data-from-ns'))))
    expect(from.length).toBeGreaterThan(0)
    expect(from).toEqual([...from].sort((a, b) => a - b))
    for (const text of await panel.locator('.explain-decisions li .text').allTextContents()) expect(text).toMatch(/[.!?]$/)
    expect(await panel.locator('.explain-sample').textContent()).toMatch(/^\S+ waited [\d.]+ us on CPU \d+ \(.*\): runnable at [\d.]+ s, running at [\d.]+ s\.$/)

    // the run picker of "Align with…" stays inside its card, at 1600 px and at 1024 px
    for (const viewport of [{ width: 1600, height: 1000 }, { width: 1024, height: 700 }]) {
      await page.setViewportSize(viewport)
      const pick = page.getByTestId('timeline-compare')
      await expect.poll(() => pick.count()).toBe(1)
      await expect.poll(async () => {
        const [p, card] = await Promise.all([pick.boundingBox(), page.getByTestId('timeline-pane').boundingBox()])
        return p!.x >= card!.x && p!.x + p!.width <= card!.x + card!.width
      }, { message: `Align with… inside its card at ${viewport.width} px` }).toBe(true)
    }
    await page.setViewportSize({ width: 1600, height: 1000 })
  }, 120_000)

  it('aligns the other variant\'s maximum below it, and exports the window as a Perfetto trace', async () => {
    const pick = page.getByTestId('timeline-compare')
    await expect.poll(() => pick.count()).toBe(1)
    const label = await pick.locator('option').evaluateAll((os) => os.map((o) => o.textContent ?? '').find((t) => t.includes('default slices')) ?? '')
    expect(label).not.toBe('')
    await pick.selectOption({ label })
    const timeline = page.getByTestId('timeline')
    await expect.poll(() => timeline.getAttribute('data-rows'), { timeout: 120_000 }).toBe('2')
    await page.getByTestId('timeline-pane').screenshot({ path: join(ARTIFACTS, 'timeline-two-rows.png') })

    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120_000 }), page.getByTestId('export-perfetto').click()])
    expect(download.suggestedFilename()).toMatch(/\.perfetto-trace$/)
    const bytes = readFileSync((await download.path())!)
    // a Trace: packets (field 1, length-delimited) from the first byte
    expect(bytes[0]).toBe(0x0a)
    expect(bytes.length).toBeGreaterThan(1000)
    expect(pageErrors).toEqual([])
  }, 300_000)

  it('a point of the latency CDF and an unreasonable-idle count open the timeline too', async () => {
    await page.getByTestId('tab-results').click()
    const panel = page.getByTestId('explain-panel')
    // the CDF's upper half: a percentile sample of the workload the charts show
    const cdf = page.locator('[data-testid="latency-chart"] canvas')
    const box = (await cdf.boundingBox())!
    await cdf.click({ position: { x: box.width * 0.7, y: box.height * 0.3 } })
    await expect.poll(() => page.getByTestId('timeline-pane').getAttribute('data-state'), { timeout: 120_000 }).toBe('shown')
    await expect.poll(() => panel.textContent()).toMatch(/cyclictest p\d/)
    const idle = page.locator('[data-testid="idle-table"] td[data-explain="idle"]')
    if (await idle.count() > 0) {
      await page.getByTestId('tab-results').click()
      await idle.first().click()
      await expect.poll(() => page.getByTestId('explain-summary').textContent(), { timeout: 120_000 }).toMatch(/CPU \d+ was idle for/)
    }
    expect(pageErrors).toEqual([])
  }, 300_000)
})
