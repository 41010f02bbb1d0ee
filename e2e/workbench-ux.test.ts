/**
 * End-to-end: the workbench as a researcher uses it every day (issue 15), in Chromium through
 * `schedlab serve`: the welcome and blank scenarios, the Variants menu, the run bar, keys that
 * stay Monaco's, one source of problems, the tail view and the other charts, PNG export, the
 * task table, layouts at 1024x700 and 1920x1080, splitters, and comparisons of many columns
 * with their scenario difference. Every step waits for the state it needs, never for time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { parse as parseJsonc } from 'jsonc-parser'
import { ensureBuilt } from '../src/cli/serve'
import { textHash } from '../src/shared/text-hash'
import { WorkbenchHost, chromiumMissing } from './host'
import { ARTIFACTS, Workbench, editJson, openWorkbench, pngPixels, shortPreset } from './workbench-ui'

const missing = chromiumMissing()
const PRESET = 'cyclictest-hackbench-rb5'

describe.skipIf(missing !== null)('the workbench every day (Chromium, schedlab serve)', () => {
  let host: WorkbenchHost
  let page: Page
  let ui: Workbench
  /** The preset, shortened: 4 variants, noise + cyclictest + hackbench. */
  let base: string
  const pageErrors: string[] = []

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    ensureBuilt()
    host = new WorkbenchHost('schedlab-ux-')
    base = await shortPreset(PRESET, 'ux')
    await host.start()
    ;({ page, ui } = await openWorkbench(host.browser, host.url, { width: 1440, height: 900 }, pageErrors))
  }, 180_000)

  afterAll(async () => {
    await host?.stop()
  })

  const variantsOf = (text: string) => (parseJsonc(text) as { variants: { name: string }[] }).variants.map((v) => v.name)

  it('offers a blank scenario and a paste on the welcome, and lists the presets as a list', async () => {
    const welcome = page.getByTestId('welcome')
    await expect.poll(() => welcome.isVisible()).toBe(true)
    // each preset: its name on the first line of its item, its description under it
    const items = page.locator('[data-testid="preset-list"] li')
    expect(await items.count()).toBeGreaterThan(3)
    for (const li of await items.all()) {
      const [l, b] = await Promise.all([li.boundingBox(), li.locator('button').boundingBox()])
      expect(b!.y - l!.y).toBeLessThan(12)
    }
    // Blank: a skeleton (topology, kernel, one workload, one variant) that validates, its name
    // selected for typing; emptying it again does not bring the welcome back
    await page.getByTestId('blank-scenario').click()
    await expect.poll(() => welcome.isVisible()).toBe(false)
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[data-testid="scenario-editor"]'))).toBe(true)
    await page.keyboard.insertText('abc')
    await expect.poll(() => page.getByTestId('validation-status').textContent()).toMatch(/^✓ abc: 1 variant × 1 seed$/)
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.press('Delete')
    await ui.waitEditorText('')
    expect(await welcome.isVisible()).toBe(false)
    // New, then Ctrl+V on the welcome: the paste lands in the editor
    await page.getByTestId('new-button').click()
    await expect.poll(() => welcome.isVisible()).toBe(true)
    await page.evaluate((t) => navigator.clipboard.writeText(t), base)
    await page.keyboard.press('ControlOrMeta+V')
    await ui.waitEditorText(base)
    expect(await ui.waitValidated(base)).toMatch(/^✓ ux: 4 variants × 1 seed$/)
    expect(await welcome.isVisible()).toBe(false)
  })

  it('writes a scenario as in any editor: the welcome gives way to a click or a key, the problem count opens the list, New resets the run bar', async () => {
    const welcome = page.getByTestId('welcome')
    // the run bar's overrides belong to the scenario they were set for
    await page.getByTestId('duration-input').fill('750')
    await page.getByTestId('published-toggle').check()
    await page.getByTestId('new-button').click()
    await expect.poll(() => welcome.isVisible()).toBe(true)
    expect(await page.getByTestId('duration-input').inputValue()).toBe('')
    expect(await page.getByTestId('published-toggle').isChecked()).toBe(false)
    // a click on the welcome's text opens the editor
    await welcome.locator('h2').click()
    await expect.poll(() => welcome.isVisible()).toBe(false)
    await expect.poll(() => page.evaluate(() => !!document.activeElement?.closest('[data-testid="scenario-editor"]'))).toBe(true)
    // a key typed on the welcome goes into the editor
    await page.getByTestId('new-button').click()
    await expect.poll(() => welcome.isVisible()).toBe(true)
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    await page.keyboard.press('{')
    await expect.poll(() => welcome.isVisible()).toBe(false)
    await ui.waitEditorText('{}')
    // the status bar's problem count opens the Problems list, and the list's count is its items'
    const bad = JSON.stringify({ topology: 'smp-2', durationMs: -1, workloads: [{ type: 'cyclictest', periodUs: 0 }] }, null, 2)
    expect(await ui.typeScenario(bad)).toMatch(/^✗ (\d+) problems in the scenario$/)
    const n = Number(/\d+/.exec((await page.getByTestId('validation-status').textContent())!)![0])
    await page.getByTestId('validation-status').click()
    const panel = page.getByTestId('error-panel')
    await expect.poll(() => panel.isVisible()).toBe(true)
    expect(await panel.locator('.error-entry li').count()).toBe(n)
    expect(await panel.locator('header .count').textContent()).toBe(`(${n})`)
    await panel.getByText('Dismiss all').click()
  })

  it('opens the Variants menu above everything; its items pick what runs, Esc closes it', async () => {
    await ui.typeScenario(base)
    const menu = page.getByTestId('variants-menu')
    await page.getByTestId('variants-button').click()
    await expect.poll(() => menu.isVisible()).toBe(true)
    const boxes = await menu.locator('input[type="checkbox"]').all()
    expect(boxes).toHaveLength(4)
    for (const item of await menu.locator('label').all()) {
      // nothing clips or covers an item: the element at its centre is the item (or inside it)
      const onTop = await item.evaluate((el) => {
        const r = el.getBoundingClientRect()
        const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)
        return r.width > 0 && r.height > 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth && !!hit && el.contains(hit)
      })
      expect(onTop).toBe(true)
    }
    await ui.runOnlyVariants([variantsOf(base)[0]])
    expect(await page.getByTestId('variants-button').textContent()).toMatch(/^Variants 1\/4/)
    await page.getByTestId('variants-button').click()
    await expect.poll(() => menu.isVisible()).toBe(true)
    await menu.locator('input').first().focus()
    await page.keyboard.press('Escape')
    await expect.poll(() => menu.isVisible()).toBe(false)
  })

  it('keeps Monaco\'s keys: Ctrl+Alt+Enter in the replace box does not start a run', async () => {
    await ui.focusEditor()
    await page.keyboard.press('ControlOrMeta+H')
    await expect.poll(() => page.locator('.find-widget.visible').count()).toBe(1)
    await page.keyboard.press('Control+Alt+Enter')
    // a run would mark the window busy at once
    expect(await page.getByTestId('run-button').isEnabled()).toBe(true)
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('.find-widget.visible').count()).toBe(0)
    // and whatever reached the host before this edit's validation answered: no run
    await ui.typeScenario(editJson(base, ['description'], 'checked'))
    expect(await page.getByTestId('run-progress').isVisible()).toBe(false)
    await ui.typeScenario(base)
  })

  it('runs with the run bar\'s seeds and duration, and collapses the progress card when done', async () => {
    const seeds = page.getByTestId('seeds-input')
    const duration = page.getByTestId('duration-input')
    expect(await seeds.getAttribute('placeholder')).toBe('1')
    expect(await duration.getAttribute('placeholder')).toBe('300')
    expect(await page.getByTestId('published-toggle').isEnabled()).toBe(true)
    await seeds.fill('2')
    await duration.fill('200')
    await ui.runAndWait('done')
    const item = page.locator('[data-testid="history-item"]').first()
    expect(await item.locator('.run-name').textContent()).toBe('ux [tip/sched/core]')
    expect(await item.locator('.run-meta').textContent()).toContain('1 variant × 2 seeds')
    await expect.poll(() => page.locator('.results-head .run-meta').first().textContent()).toMatch(/seeds 1, 2 · 200 ms simulated/)
    const progress = page.getByTestId('run-progress')
    await expect.poll(() => progress.evaluate((e) => e.classList.contains('collapsed'))).toBe(true)
    expect(await progress.locator('.progress-rows').isVisible()).toBe(false)
    const [p, t] = await Promise.all([progress.boundingBox(), page.getByTestId('results-table').boundingBox()])
    expect(p!.y + p!.height).toBeLessThanOrEqual(t!.y)
    await seeds.fill('')
    await duration.fill('')
  })

  it('draws the tail (1 - CDF, log-log) by default, the CDF with a log y on request, and zooms', async () => {
    const chart = page.getByTestId('latency-chart')
    await expect.poll(() => chart.getAttribute('data-title')).toBe('Latency tail (1 − CDF, log-log): cyclictest')
    await expect.poll(() => ui.seriesPixels('[data-testid="latency-chart"] canvas')).toBeGreaterThan(100)
    await page.getByTestId('dist-view').selectOption('cdf')
    await expect.poll(() => page.getByTestId('latency-chart').getAttribute('data-title')).toBe('Latency CDF: cyclictest')
    await page.getByTestId('dist-logy').check()
    await expect.poll(() => page.getByTestId('latency-chart').getAttribute('data-title')).toBe('Latency CDF (log y): cyclictest')
    await page.getByTestId('dist-view').selectOption('ccdf')
    await expect.poll(() => page.getByTestId('latency-chart').getAttribute('data-title')).toMatch(/^Latency tail/)
    // drag a zoom box, then reset. The chart is below the fold at 1440x900: scroll it into view
    // first, as a user does (mouse events outside the viewport reach nothing); a relayout during
    // the drag drops it, as it would a user's: drag again until zoomed.
    await expect.poll(async () => {
      await page.locator('[data-testid="latency-chart"] canvas').scrollIntoViewIfNeeded()
      const box = (await page.locator('[data-testid="latency-chart"] canvas').boundingBox())!
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.3)
      await page.mouse.down()
      await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6, { steps: 5 })
      await page.mouse.up()
      return page.getByTestId('latency-chart').getAttribute('data-zoomed')
    }, { timeout: 20_000 }).toBe('true')
    const reset = page.locator('.chart-card', { has: page.getByTestId('latency-chart') }).locator('[data-action="reset-zoom"]')
    expect(await reset.isVisible()).toBe(true)
    await reset.click()
    await expect.poll(() => page.getByTestId('latency-chart').getAttribute('data-zoomed')).toBe('false')
  })

  it('follows the workload selector in the per-task views; the task table sorts with its headers in view', async () => {
    await page.getByTestId('workload-select').selectOption('hackbench')
    await expect.poll(() => page.getByTestId('task-chart').getAttribute('data-title')).toMatch(/^p99 latency per task of hackbench/)
    await expect.poll(() => page.getByTestId('latency-chart').getAttribute('data-title')).toBe('Latency tail (1 − CDF, log-log): hackbench')
    const card = page.locator('details.task-card')
    await card.locator('summary').click()
    const table = page.getByTestId('task-table')
    const column = (key: string) => table.locator(`tbody td[data-key="${key}"]`).allTextContents()
    expect(new Set(await column('workload'))).toEqual(new Set(['hackbench']))
    // all workloads: the background noise's kworkers record no latency, shown as –, not 0.0
    await card.getByTestId('task-all').check()
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('th,td')].map((c) => c.textContent)))
    const kworkers = rows.filter((r) => String(r[0]).startsWith('kworker'))
    expect(kworkers.length).toBeGreaterThan(0)
    for (const r of kworkers) expect(r.slice(4, 7)).toEqual(['–', '–', '–'])
    // sort by p99: descending first, again for ascending; tasks without latency last both ways
    const p99 = table.locator('thead th[data-key="p99"]')
    const values = async () => (await column('p99')).map((v) => (v === '–' ? null : Number(v)))
    const sortedBy = (xs: (number | null)[], dir: 1 | -1) => {
      const nums = xs.filter((x): x is number => x !== null)
      return xs.slice(0, nums.length).every((x) => x !== null) && nums.every((x, i) => i === 0 || (x - nums[i - 1]) * dir >= 0)
    }
    expect(await p99.getAttribute('aria-sort')).toBe('descending')
    expect(sortedBy(await values(), -1)).toBe(true)
    await p99.click()
    expect(await p99.getAttribute('aria-sort')).toBe('ascending')
    expect(sortedBy(await values(), 1)).toBe(true)
    await table.locator('thead th[data-key="task"]').click()
    const names = await table.locator('tbody th').allTextContents()
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, undefined, { numeric: true })))
    // sticky headers: scrolled, the header row stays at the top of its scroll box
    const scroller = card.locator('.table-scroll')
    await scroller.evaluate((el) => { el.scrollTop = el.scrollHeight })
    await expect.poll(() => scroller.evaluate((el) => el.scrollTop)).toBeGreaterThan(0)
    const [s, h] = await Promise.all([scroller.boundingBox(), p99.boundingBox()])
    expect(Math.abs(h!.y - s!.y)).toBeLessThan(3)
    await page.getByTestId('workload-select').selectOption('cyclictest')
  })

  it('exports a chart as PNG at 2x and 3x, light by default, with a caption, without hover state', async () => {
    await page.getByTestId('theme-toggle').click()
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark')
    const canvas = page.locator('[data-testid="latency-chart"] canvas')
    await expect.poll(() => page.getByTestId('latency-chart').getAttribute('data-drawn')).toBe('true')
    const cssWidth = await canvas.evaluate((c) => Math.round(c.getBoundingClientRect().width))
    const exportPng = async () => {
      const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()])
      return readFileSync((await d.path())!)
    }
    expect(await page.getByTestId('export-theme').inputValue()).toBe('light')
    const plain = await exportPng()
    const box = (await canvas.boundingBox())!
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.5)
    const hovered = await exportPng()
    expect(Buffer.compare(plain, hovered)).toBe(0)
    const px = await pngPixels(page, plain, [[2, 2]])
    expect(px.width).toBe(cssWidth * 2)
    expect(px.rgba[0]).toEqual([255, 255, 255, 255])
    expect(px.darkRowsFromBottom).toBeGreaterThan(4)
    await page.getByTestId('export-scale').selectOption('3')
    const big = await pngPixels(page, await exportPng(), [[2, 2]])
    expect(big.width).toBe(cssWidth * 3)
    await page.getByTestId('export-scale').selectOption('2')
    await page.getByTestId('theme-toggle').click()
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light')
  })

  it('names runs after what changed, warns when compared scenarios differ, shows the diff', async () => {
    // run 2: every variant, plus one identical to the first (its curves must stay visible)
    const five = editJson(base, ['variants'], [...(parseJsonc(base) as { variants: object[] }).variants, { name: 'same as tip' }])
    await ui.typeScenario(five)
    await ui.runOnlyVariants(variantsOf(five))
    await ui.runAndWait('done')
    expect(await page.locator('[data-testid="history-item"] .run-name').first().textContent()).toBe('ux · variants +same as tip, duration 300 ms, 1 seed')
    // identical curves are named and dashed, not hidden
    await page.getByTestId('compare-variants').click()
    await expect.poll(() => page.getByTestId('compare-view').isVisible()).toBe(true)
    await expect.poll(async () => JSON.parse((await page.getByTestId('compare-chart').getAttribute('data-legend')) ?? '[]')).toContain('same as tip (identical to tip/sched/core)')
    // run 3: the cyclictest slice changed
    const ct = (parseJsonc(five) as { workloads: { type: string }[] }).workloads.findIndex((w) => w.type === 'cyclictest')
    await ui.typeScenario(editJson(five, ['workloads', ct, 'sliceUs'], 4000))
    await ui.runAndWait('done')
    expect(await page.locator('[data-testid="history-item"] .run-name').first().textContent()).toBe('ux · ct slice 4 ms')
    // compare runs 2 and 3: 10 columns
    await page.getByTestId('tab-results').click()
    for (const i of [0, 1]) await page.locator('[data-testid="history-item"] input.select').nth(i).check()
    await page.getByTestId('compare-selected').click()
    const view = page.getByTestId('compare-view')
    const warning = view.getByTestId('scenario-diff-warning')
    await expect.poll(() => warning.isVisible()).toBe(true)
    await warning.locator('[data-action="show-diff"]').first().click()
    const diff = page.getByTestId('scenario-diff')
    try {
      await expect.poll(() => diff.locator('.monaco-diff-editor').count()).toBe(1)
      // the diff is computed in Monaco's worker: one change (the slice), brought into view
      await expect.poll(() => diff.getAttribute('data-changes'), { timeout: 30_000 }).toBe('1')
      await expect.poll(() => diff.locator('.line-insert, .char-insert, .line-delete, .char-delete').count()).toBeGreaterThan(0)
      expect(await diff.locator('.diff-count').textContent()).toBe('1 difference')
      await page.screenshot({ path: join(ARTIFACTS, 'scenario-diff.png') })
    } finally {
      // a modal dialog left open would take every later click
      if (await diff.count()) await diff.locator('[data-action="close"]').click()
    }
    await expect.poll(() => page.getByTestId('scenario-diff').count()).toBe(0)
  })

  it('keeps a comparison of 10 columns readable: turned, chosen columns and metrics, text export under 100 columns', async () => {
    const view = page.getByTestId('compare-view')
    const table = view.getByTestId('compare-table')
    await expect.poll(() => table.getAttribute('data-transposed')).toBe('true')
    const turned = table.locator('.seeds-table.transposed').first()
    expect(await turned.locator('tbody tr').count()).toBe(10)
    // choose columns: untick two (the baseline cannot be unticked)
    await view.getByTestId('compare-columns').locator('summary').click()
    const boxes = view.getByTestId('compare-columns').locator('input[type="checkbox"]')
    expect(await boxes.first().isDisabled()).toBe(true)
    await boxes.nth(3).uncheck()
    await expect.poll(() => view.locator('.seeds-table.transposed').first().locator('tbody tr').count()).toBe(9)
    await view.getByTestId('compare-columns').locator('input[type="checkbox"]').nth(4).uncheck()
    await expect.poll(() => view.locator('.seeds-table.transposed').first().locator('tbody tr').count()).toBe(8)
    // choose metrics: p99 and max only
    await view.getByTestId('compare-metrics').locator('summary').click()
    for (const k of ['count', 'avg', 'p50', 'p90', 'p99_9', 'timeSec']) await view.getByTestId('compare-metrics').locator(`input[value="${k}"]`).uncheck()
    await expect.poll(() => view.locator('.seeds-table').first().locator('thead th[data-metric]').allTextContents()).toEqual(['99th Percentile (us)', 'Maximum (us)'])
    // the table fits its card (it scrolls inside it when it must)
    const fits = await view.locator('.table-scroll').evaluateAll((els) => els.every((el) => {
      const card = el.closest('.card')!.getBoundingClientRect()
      return el.getBoundingClientRect().right <= card.right + 1 && (el.scrollWidth <= el.clientWidth + 1 || getComputedStyle(el).overflowX === 'auto')
    }))
    expect(fits).toBe(true)
    await page.screenshot({ path: join(ARTIFACTS, 'compare-many.png') })
    const [dl] = await Promise.all([page.waitForEvent('download'), view.locator('button[data-export="txt"]').click()])
    const text = readFileSync((await dl.path())!, 'utf8')
    const lines = text.split('\n')
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(100)
    expect(text).toMatch(/99th Percentile \(us\)/)
    expect(text).not.toMatch(/Median \(P50\)/)
    expect(text.match(/^scheduling latency \(us\) for cyclictest/gm)!.length).toBeGreaterThan(1)
  })

  it('agrees with the status bar: no false problems on rt-app tasks, the same count otherwise, none drawn for a dropped file', async () => {
    await page.getByTestId('preset-select').selectOption('cyclictest-rtapp-rb5')
    await expect.poll(() => page.getByTestId('validation-status').getAttribute('data-state')).toBe('ok')
    const text = await ui.waitValidatedCurrent()
    expect(text).toMatch(/^✓ /)
    const host = ui.editorHost
    expect(await host.getAttribute('data-monaco-markers')).toBe('0')
    expect(await page.locator('.squiggly-error').count()).toBe(0)
    // three problems: the status bar and Monaco count three
    const bad = editJson(editJson(editJson(base, ['durationMs'], -5), ['kernel', 'hz'], 251), ['variants', 0, 'patches'], ['no-such-patch'])
    expect(await ui.typeScenario(bad)).toBe('✗ 3 problems in the scenario')
    await expect.poll(() => host.getAttribute('data-monaco-markers')).toBe('3')
    // a dropped rt-app file with a problem: listed, never drawn on the open document
    await ui.typeScenario(base)
    await expect.poll(() => host.getAttribute('data-monaco-markers')).toBe('0')
    const dt = await page.evaluateHandle((t) => {
      const d = new DataTransfer()
      d.items.add(new File([t], 'broken.json', { type: 'application/json' }))
      return d
    }, JSON.stringify({ tasks: { t: { run: 100, slep: 5 } } }))
    await page.dispatchEvent('body', 'dragover', { dataTransfer: dt })
    await page.dispatchEvent('body', 'drop', { dataTransfer: dt })
    const panel = page.getByTestId('error-panel')
    await expect.poll(() => panel.textContent()).toContain('broken.json')
    expect(await host.getAttribute('data-model-hash')).toBe(textHash(base))
    expect(await host.getAttribute('data-monaco-markers')).toBe('0')
    expect(await panel.locator('a').count()).toBe(0)
    await panel.getByText('Dismiss all').click()
  })

  it('fits 1024x700 and 1920x1080: every table and chart reachable, the editor wraps its lines, splitters are remembered', async () => {
    const runId = (await page.locator('[data-testid="history-item"]').first().getAttribute('data-run-id'))!
    for (const viewport of [{ width: 1024, height: 700 }, { width: 1920, height: 1080 }]) {
      const { page: p } = await openWorkbench(host.browser, host.url, viewport, pageErrors)
      await p.locator(`[data-testid="history-item"][data-run-id="${runId}"] .run-name`).click()
      await expect.poll(() => p.getByTestId('results-table').isVisible()).toBe(true)
      await expect.poll(() => p.getByTestId('latency-chart').getAttribute('data-drawn')).toBe('true')
      const report = await p.evaluate(() => {
        const pane = document.querySelector('[data-testid="right-pane"]')!
        const scroll = pane.querySelector('.right-scroll')!
        const pr = pane.getBoundingClientRect()
        const out: string[] = []
        if (scroll.scrollWidth > scroll.clientWidth + 1) out.push(`the results pane scrolls sideways (${scroll.scrollWidth} > ${scroll.clientWidth})`)
        for (const el of pane.querySelectorAll<HTMLElement>('.table-scroll')) {
          const r = el.getBoundingClientRect()
          if (r.right > pr.right + 1) out.push(`a table box ends past the pane (${r.right} > ${pr.right})`)
          if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'auto') out.push('a wide table cannot scroll in its card')
        }
        for (const c of pane.querySelectorAll('canvas')) if (c.getBoundingClientRect().right > pr.right + 1) out.push('a chart ends past the pane')
        return out
      })
      expect(report, `${viewport.width}x${viewport.height}`).toEqual([])
      // word wrap: the editor never scrolls sideways
      expect(await p.locator('[data-testid="scenario-editor"] .scrollbar.horizontal').evaluate((e) => e.getBoundingClientRect().height === 0 || e.classList.contains('invisible') || getComputedStyle(e).display === 'none' || (e.querySelector('.slider') as HTMLElement | null)?.offsetWidth === e.getBoundingClientRect().width)).toBe(true)
      await p.screenshot({ path: join(ARTIFACTS, `layout-${viewport.width}x${viewport.height}.png`) })
      await p.context().close()
    }
    // splitters: drag both, reload: the panes come back as they were left
    const layout = page.getByTestId('layout')
    const before = Number(await layout.getAttribute('data-history-px'))
    const s = (await page.getByTestId('splitter-history').boundingBox())!
    await page.mouse.move(s.x + s.width / 2, s.y + 200)
    await page.mouse.down()
    await page.mouse.move(s.x + s.width / 2 + 90, s.y + 200, { steps: 4 })
    await page.mouse.up()
    await expect.poll(async () => Number(await layout.getAttribute('data-history-px'))).toBeGreaterThan(before + 60)
    const e = (await page.getByTestId('splitter-editor').boundingBox())!
    const pct = Number(await layout.getAttribute('data-editor-pct'))
    await page.mouse.move(e.x + e.width / 2, e.y + 200)
    await page.mouse.down()
    await page.mouse.move(e.x + e.width / 2 - 120, e.y + 200, { steps: 4 })
    await page.mouse.up()
    await expect.poll(async () => Number(await layout.getAttribute('data-editor-pct'))).toBeLessThan(pct - 5)
    const want = [await layout.getAttribute('data-history-px'), await layout.getAttribute('data-editor-pct')]
    // saved when the drag ends: wait until the host has confirmed it, then open the window again
    await expect.poll(() => layout.getAttribute('data-saved')).toBe(want.join(' '))
    const { page: again } = await openWorkbench(host.browser, host.url, { width: 1440, height: 900 }, pageErrors)
    await expect.poll(async () => [await again.getByTestId('layout').getAttribute('data-history-px'), await again.getByTestId('layout').getAttribute('data-editor-pct')]).toEqual(want)
    await again.context().close()
    expect(pageErrors).toEqual([])
  })
})
