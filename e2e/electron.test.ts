/**
 * The same workbench in the real desktop app, through Playwright's Electron support. Runs only
 * where an Electron binary is installed (it cannot be downloaded on our build machines; the
 * main bundle is covered there by electron-bundle.test.ts and the UI by workbench.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { _electron, type ElectronApplication, type Page } from 'playwright-core'
import { API_METHODS } from '../src/shared/ipc'
import { ensureBuilt } from '../src/cli/serve'
import { pngSize } from '../src/services/export'
import { listPresets } from '../src/services/sim-adapter'
import { ROOT, electronBinary } from './host'
import { Workbench } from './workbench-ui'

const bin = electronBinary()

describe.skipIf(bin === null)('workbench in Electron', () => {
  let app: ElectronApplication
  let page: Page
  let ui: Workbench
  let userData: string

  async function launch(): Promise<void> {
    app = await _electron.launch({ executablePath: bin!, args: [ROOT], env: { ...process.env, SCHEDLAB_USER_DATA: userData } })
    page = await app.firstWindow()
    await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 })
    ui = new Workbench(page, (t) => app.evaluate(({ clipboard }, text) => clipboard.writeText(text), t))
  }

  beforeAll(async () => {
    ensureBuilt()
    userData = mkdtempSync(join(tmpdir(), 'schedlab-electron-e2e-'))
    await launch()
  }, 120_000)

  afterAll(async () => {
    await app?.close()
    if (userData) rmSync(userData, { recursive: true, force: true })
  })

  it('gives the page one API object and no Node', async () => {
    expect(await page.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe('undefined')
    expect(await page.evaluate(() => typeof (window as unknown as { process?: unknown }).process)).toBe('undefined')
    expect(await page.evaluate(() => Object.keys((window as unknown as { schedlab?: object }).schedlab ?? {}).sort())).toEqual([...API_METHODS, 'on', 'platform'].sort())
    // A pop-up is refused and navigation away is blocked.
    await page.evaluate(() => window.open('https://example.com/'))
    expect(app.windows()).toHaveLength(1)
    await page.evaluate(() => { location.href = 'https://example.com/' }).catch(() => undefined)
    await expect.poll(() => page.url()).toMatch(/out\/renderer\/index\.html/)
  })

  it('runs a preset, draws its charts and compares its variants', async () => {
    const presets = await listPresets()
    await page.getByTestId('preset-select').selectOption(presets[0].id)
    await expect.poll(() => page.getByTestId('validation-status').textContent(), { timeout: 15_000 }).toMatch(/✓/)
    await ui.runAndWait('done')
    await expect.poll(() => page.getByTestId('results-table').textContent()).toContain('Maximum (us)')
    await expect.poll(() => ui.seriesPixels('[data-testid="latency-chart"] canvas')).toBeGreaterThan(150)
    if (await page.getByTestId('compare-variants').count()) {
      await page.getByTestId('compare-variants').click()
      await expect.poll(() => page.getByTestId('compare-view').isVisible()).toBe(true)
      await page.getByTestId('tab-results').click()
    }
  })

  it('exports a PNG through the save dialog', async () => {
    const target = join(userData, 'cdf.png')
    await app.evaluate(({ dialog }, p) => {
      dialog.showSaveDialog = (async () => ({ canceled: false, filePath: p })) as typeof dialog.showSaveDialog
    }, target)
    await page.getByTestId('export-png').click()
    await expect.poll(() => existsSync(target)).toBe(true)
    expect(pngSize(new Uint8Array(readFileSync(target)))?.width).toBeGreaterThan(200)
  })

  it('keeps the history and the window across a restart', async () => {
    const before = await ui.historyNames()
    expect(before.length).toBeGreaterThan(0)
    await app.close()
    await launch()
    await expect.poll(() => ui.historyNames()).toEqual(before)
  })
})
