/**
 * End-to-end: the workbench in Debian's Chromium, through `schedlab serve`, driven like a user
 * would: presets, Monaco, runs, charts, comparison, exports, errors, cancel, restart.
 * Screenshots of the editor, results and comparison go to artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { SCHED_FEATURES } from '../src/sim/kernel/features'
import { parse as parseJsonc } from 'jsonc-parser'
import { ensureBuilt } from '../src/cli/serve'
import { pngSize } from '../src/services/export'
import { listPresets, readPreset } from '../src/services/sim-adapter'
import { WorkbenchHost, chromiumMissing } from './host'
import { ARTIFACTS, Workbench, editJson, openWorkbench } from './workbench-ui'

const missing = chromiumMissing()

/** Duration of the runs the test waits for: short, the simulator answers in seconds. */
const RUN_MS = Number(process.env.SCHEDLAB_E2E_RUN_MS ?? 1000)

describe.skipIf(missing !== null)('workbench in Chromium through schedlab serve', () => {
  let host: WorkbenchHost
  let page: Page
  let presetId: string
  let scenarioText: string
  let variants: string[]
  const pageErrors: string[] = []
  let ui: Workbench

  /** A fresh context on the workbench; `ui` follows the newest page. */
  async function openPage(url: string): Promise<Page> {
    const opened = await openWorkbench(host.browser, url, { width: 1440, height: 900 }, pageErrors)
    ui = opened.ui
    return opened.page
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    ensureBuilt()
    host = new WorkbenchHost('schedlab-e2e-')
    const presets = await listPresets()
    expect(presets.length, 'resources/scenarios has no presets').toBeGreaterThan(0)
    presetId = (presets.find((p) => p.id === 'cyclictest-hackbench-rb5') ?? presets.find((p) => /cyclictest/.test(p.id)) ?? presets[0]).id
    // The user's edit of the preset: a shorter run, one seed, two variants. Computed here, not
    // in the first test, so one failing test does not leave the others without a scenario.
    const preset = await readPreset(presetId)
    let text = editJson(preset.text, ['durationMs'], RUN_MS)
    text = editJson(text, ['seeds'], 1)
    text = editJson(text, ['name'], `e2e ${presetId}`)
    const pv = (parseJsonc(text) as { variants?: { name: string }[] }).variants ?? []
    if (pv.length < 2) {
      text = editJson(text, ['variants'], [{ name: 'tip/sched/core' }, { name: 'no RUN_TO_PARITY', features: { RUN_TO_PARITY: false } }])
    }
    scenarioText = text
    variants = ((parseJsonc(text) as { variants: { name: string }[] }).variants).map((v) => v.name)
    await host.start()
    page = await openPage(host.url)
  }, 180_000)

  afterAll(async () => {
    await host?.stop()
  })

  it('opens a preset and edits it in Monaco', async () => {
    await expect.poll(() => page.getByTestId('welcome').isVisible()).toBe(true)
    await page.getByTestId('preset-select').selectOption(presetId)
    await expect.poll(() => page.locator('[data-testid="scenario-editor"] .view-lines').textContent()).toContain('workloads')
    await expect.poll(() => page.getByTestId('welcome').isVisible()).toBe(false)
    expect(await page.getByTestId('dirty-indicator').isVisible()).toBe(false)

    expect(await ui.typeScenario(scenarioText)).toMatch(new RegExp(`✓ .*${variants.length} variants`))
    expect(await page.getByTestId('dirty-indicator').isVisible()).toBe(true)

    // Completion from the schema: sched_feat flags inside "features", typed key by key.
    // (Pasted, so that Monaco's auto-closing does not add to it; the caret ends after "RUN_".)
    await ui.typeScenario('{ "kernel": { "features": { "RUN_')
    await page.keyboard.press('Control+Space')
    await expect.poll(() => page.locator('.suggest-widget .monaco-list-rows').textContent(), { timeout: 10_000 }).toContain('RUN_TO_PARITY')
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('.suggest-widget.visible').count()).toBe(0)
    // Hover docs: the flag's documentation from the sched_feat registry.
    await ui.typeScenario('{\n  "kernel": { "features": { "RUN_TO_PARITY": false } }\n}')
    await page.locator('.view-lines span', { hasText: 'RUN_TO_PARITY' }).last().hover()
    await expect.poll(async () => (await page.locator('.monaco-hover').allTextContents()).join(' '), { timeout: 10_000 }).toContain(SCHED_FEATURES.find((f) => f.name === 'RUN_TO_PARITY')!.doc.slice(0, 30))
    expect(await ui.typeScenario(scenarioText)).toMatch(/✓/)
    await page.screenshot({ path: join(ARTIFACTS, 'editor.png') })
  })

  it('runs the scenario and shows progress, the seeds-format table and a drawn CDF', async () => {
    expect(await ui.typeScenario(scenarioText)).toMatch(/✓/)
    await ui.runOnlyVariants([variants[0]])
    await ui.runAndWait('done')
    const bars = await page.locator('[data-testid="run-progress"] progress').evaluateAll((els) => els.map((e) => (e as HTMLProgressElement).value))
    expect(bars).toEqual([1000])
    const table = page.getByTestId('results-table')
    await expect.poll(() => table.isVisible()).toBe(true)
    const t = await table.textContent()
    expect(t).toContain('99.9th Percentile (us)')
    expect(t).toContain('Maximum (us)')
    expect(t).toContain(variants[0])
    await expect.poll(() => ui.seriesPixels('[data-testid="latency-chart"] canvas')).toBeGreaterThan(150)
    await expect.poll(() => ui.historyNames()).toEqual([`e2e ${presetId} [${variants[0]}]`])
    await page.screenshot({ path: join(ARTIFACTS, 'results.png') })
  })

  it('runs a second variant and compares the two runs', async () => {
    expect(await ui.typeScenario(scenarioText)).toMatch(/✓/)
    await ui.runOnlyVariants([variants[1]])
    await ui.runAndWait('done')
    await expect.poll(() => page.locator('[data-testid="history-item"]').count()).toBe(2)
    // pin the first run as the baseline, select both, compare
    await page.locator('[data-testid="history-item"]').nth(1).locator('[data-action="pin"]').click()
    await expect.poll(() => page.locator('[data-testid="history-item"].baseline').count()).toBe(1)
    for (const i of [0, 1]) await page.locator('[data-testid="history-item"] input.select').nth(i).check()
    await page.getByTestId('compare-selected').click()
    const view = page.getByTestId('compare-view')
    await expect.poll(() => view.isVisible()).toBe(true)
    const head = await view.locator('.seeds-table thead').first().textContent()
    expect(head).toContain(variants[0])
    expect(head).toContain(variants[1])
    // every compared value carries its interval and change in the threads' form, "1018 ±35 (+55 %)*",
    // or is n/a for too few samples; only a marked (significant) change is coloured
    const tds = view.locator('.seeds-table').first().locator('tbody tr[data-metric="p99"] td')
    const cells = await tds.allTextContents()
    expect(cells).toHaveLength(2)
    expect(cells[1]).toMatch(/^(\d+(\.\d)? (±\d+(\.\d)?|\[\d+(\.\d)?, \d+(\.\d)?\]) \([+-]?\d+ %\)\*?|n\/a)$/)
    const cls = (await tds.nth(1).getAttribute('class')) ?? ''
    if (!cells[1].endsWith('*')) expect(cls).not.toMatch(/better|worse/)
    else expect(cls).toMatch(/better|worse/)
    await expect.poll(() => ui.seriesPixels('[data-testid="compare-chart"] canvas')).toBeGreaterThan(150)
    await page.screenshot({ path: join(ARTIFACTS, 'compare.png') })
  })

  it('exports the table as Markdown and a chart as a valid PNG (browser downloads)', async () => {
    const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-view').locator('button[data-export="md"]').click()])
    const mdFile = join(ARTIFACTS, 'comparison.md')
    await md.saveAs(mdFile)
    const text = readFileSync(mdFile, 'utf8')
    expect(text).toMatch(/\| Maximum \(us\) \| [\d.]+ \| [\d.]+ \([+-]?\d+ %\) \|/)

    await page.getByTestId('tab-results').click()
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-png').click()])
    expect(download.suggestedFilename()).toMatch(/\.png$/)
    const file = join(ARTIFACTS, 'latency-cdf.png')
    await download.saveAs(file)
    const bytes = readFileSync(file)
    const size = pngSize(new Uint8Array(bytes))
    expect(size).not.toBeNull()
    expect(size!.width).toBeGreaterThan(200)
    expect(size!.height).toBeGreaterThan(150)
    expect(bytes.length).toBeGreaterThan(2000)
  })

  it('shows the error panel for an invalid scenario and loses no saved run', async () => {
    const before = await ui.historyNames()
    const broken = editJson(scenarioText, ['durationMs'], -5)
    await ui.typeScenario(broken.replace('"workloads"', '"workloads": [ ], "oops": , "w2"'))
    await page.getByTestId('run-button').click()
    const panel = page.getByTestId('error-panel')
    await expect.poll(() => panel.isVisible()).toBe(true)
    expect(await panel.textContent()).toMatch(/\.json/)
    expect(await panel.textContent()).toMatch(/:\d+:\d+/)
    // Monaco draws marker decorations on its next render: wait for them.
    await expect.poll(() => page.locator('.squiggly-error').count()).toBeGreaterThan(0)
    expect(await ui.historyNames()).toEqual(before)
    // the saved runs are intact: the oldest one still opens with its table
    await page.locator('[data-testid="history-item"] .run-name').last().click()
    await expect.poll(() => page.getByTestId('results-table').textContent()).toContain('Maximum (us)')
    // fixing the text clears the panel
    await ui.typeScenario(scenarioText)
    await ui.runAndWait('done')
    expect(await panel.isVisible()).toBe(false)
  })

  it('cancel stops a long run', async () => {
    // the previous test's run must be listed in the history before we count it
    await ui.waitLastRunListed()
    const before = await ui.historyNames()
    const last = JSON.parse(readFileSync(join(host.dataDir, 'runs', `${await page.locator('[data-testid="history-item"]').first().getAttribute('data-run-id')}.json`), 'utf8')) as { wallMs: number; durationMs: number }
    // A run long enough to take a minute at the speed just measured.
    const longMs = Math.min(3_600_000, Math.ceil((60_000 * last.durationMs) / Math.max(1, last.wallMs)))
    // It is canceled long before the event limit matters.
    expect(await ui.typeScenario(editJson(editJson(scenarioText, ['durationMs'], longMs), ['maxEvents'], 1e12))).toMatch(/✓/)
    await ui.startRun()
    await expect.poll(() => page.locator('[data-testid="run-progress"] .progress-row[data-state="running"]').count(), { timeout: 30_000 }).toBeGreaterThan(0)
    const mid = await page.locator('[data-testid="run-progress"] progress').first().evaluate((e) => (e as HTMLProgressElement).value)
    expect(mid).toBeLessThan(1000)
    // Esc in Monaco's find box closes the box; it does not cancel the run
    await ui.focusEditor()
    await page.keyboard.press('ControlOrMeta+F')
    await expect.poll(() => page.locator('.find-widget.visible').count()).toBe(1)
    await page.keyboard.press('Escape')
    await expect.poll(() => page.locator('.find-widget.visible').count()).toBe(0)
    expect(await page.getByTestId('run-progress').getAttribute('data-status')).toBe('running')
    expect(await page.getByTestId('cancel-button').isEnabled()).toBe(true)
    const t0 = Date.now()
    await page.getByTestId('cancel-button').click()
    await expect.poll(() => page.getByTestId('run-progress').getAttribute('data-status'), { timeout: 15_000 }).toBe('canceled')
    expect(Date.now() - t0).toBeLessThan(10_000)
    expect(await page.getByTestId('run-button').isEnabled()).toBe(true)
    expect(await page.getByTestId('cancel-button').isEnabled()).toBe(false)
    // what the canceled simulation computed is kept, marked partial; nothing saved before was lost
    await ui.waitLastRunListed()
    const first = page.locator('[data-testid="history-item"]').first()
    expect(await first.getAttribute('data-status')).toBe('canceled')
    expect((await ui.historyNames()).slice(1)).toEqual(before)
    await expect.poll(() => page.getByTestId('partial-notice').textContent()).toMatch(/the run was canceled; .* of /)
    await expect.poll(() => page.getByTestId('results-table').textContent()).toContain('Maximum (us)')
  })

  it('opens, imports and saves files through the browser, and switches themes', async () => {
    // Drag and drop of an rt-app file: imported as a new scenario.
    const rtapp = JSON.stringify({ global: { duration: 1 }, tasks: { thread0: { instance: 2, loop: -1, run: 8177, sleep: 17777 } } })
    const dt = await page.evaluateHandle((t) => {
      const d = new DataTransfer()
      d.items.add(new File([t], 'thread.json', { type: 'application/json' }))
      return d
    }, rtapp)
    await page.dispatchEvent('body', 'dragover', { dataTransfer: dt })
    await page.dispatchEvent('body', 'drop', { dataTransfer: dt })
    await expect.poll(() => page.getByTestId('doc-name').textContent()).toBe('thread-scenario.json')
    await expect.poll(() => page.locator('[data-testid="scenario-editor"] .view-lines').textContent()).toContain('"rt-app"')
    expect(await ui.waitValidatedCurrent()).toMatch(/✓/)

    // Open through the browser's file picker.
    const file = join(host.dataDir, 'picked.json')
    writeFileSync(file, scenarioText)
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('open-button').click()])
    await chooser.setFiles(file)
    await expect.poll(() => page.getByTestId('doc-name').textContent()).toBe('picked.json')
    expect(await page.getByTestId('dirty-indicator').isVisible()).toBe(false)

    // Edit, then Save arrives as a download of exactly the editor's text.
    await ui.waitEditorText(scenarioText)
    const edited = editJson(scenarioText, ['name'], 'saved by e2e')
    await ui.typeScenario(edited)
    expect(await page.getByTestId('dirty-indicator').isVisible()).toBe(true)
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('ControlOrMeta+S')])
    expect(download.suggestedFilename()).toBe('picked.json')
    const saved = join(host.dataDir, 'saved.json')
    await download.saveAs(saved)
    expect(readFileSync(saved, 'utf8')).toBe(edited)
    await expect.poll(() => page.getByTestId('dirty-indicator').isVisible()).toBe(false)

    // Theme: toggled here, remembered across the restart below.
    const before = await page.evaluate(() => document.documentElement.dataset.theme)
    await page.getByTestId('theme-toggle').click()
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).not.toBe(before)
  })

  it('keeps the history across a restart of the host', async () => {
    const before = await ui.historyNames()
    const theme = await page.evaluate(() => document.documentElement.dataset.theme)
    await page.close()
    await host.restartServe()
    page = await openPage(host.url)
    await expect.poll(() => ui.historyNames()).toEqual(before)
    expect(await page.locator('[data-testid="history-item"].baseline').count()).toBe(1)
    await page.locator('[data-testid="history-item"] .run-name').first().click()
    await expect.poll(() => page.getByTestId('results-table').textContent()).toContain('Maximum (us)')
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme)
    expect(pageErrors).toEqual([])
  })

  it('moves a corrupt run file aside, reports it, and keeps the other runs', async () => {
    const items = page.locator('[data-testid="history-item"]')
    const count = await items.count()
    const victim = (await items.last().getAttribute('data-run-id'))!
    writeFileSync(join(host.dataDir, 'runs', `${victim}.json`), '{"format": 1, "id": "trunc')
    await items.last().locator('.run-name').click()
    const panel = page.getByTestId('error-panel')
    await expect.poll(() => panel.textContent()).toContain('moved to')
    expect(await panel.textContent()).toContain(`${victim}.json`)
    await expect.poll(() => items.count()).toBe(count - 1)
    expect(readdirSync(join(host.dataDir, 'runs', 'corrupt')).some((f) => f.startsWith(`${victim}.json`))).toBe(true)
    await items.first().locator('.run-name').click()
    await expect.poll(() => page.getByTestId('results-table').textContent()).toContain('Maximum (us)')
  })
})

describe.skipIf(missing === null)('workbench e2e prerequisites', () => {
  it('needs Chromium', () => {
    throw new Error(missing!)
  })
})
