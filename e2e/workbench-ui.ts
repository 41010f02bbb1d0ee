import { afterAll, beforeAll, expect } from 'vitest'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { applyEdits, modify } from 'jsonc-parser'
import type { RunStatus } from '../src/shared/ipc'
import { textHash } from '../src/shared/text-hash'
import { ROOT, WorkbenchHost } from './host'
import { ensureBuilt } from '../src/cli/serve'
import { readPreset } from '../src/services/sim-adapter'

/** The same user actions for the workbench in Chromium (web host) and in Electron. */

export const ARTIFACTS = join(ROOT, 'artifacts')

/** Set a value in JSONC text, keeping its comments, as an editor would. */
export function editJson(text: string, path: (string | number)[], value: unknown): string {
  return applyEdits(text, modify(text, path, value, { formattingOptions: { insertSpaces: true, tabSize: 2 } }))
}

/** A preset's text shortened for a browser test: `durationMs`, one seed, and a name of its own. */
export async function shortPreset(id: string, name: string, durationMs = 300): Promise<string> {
  return editJson(editJson(editJson((await readPreset(id)).text, ['durationMs'], durationMs), ['seeds'], 1), ['name'], name)
}

export class Workbench {
  constructor(readonly page: Page, private readonly setClipboard: (text: string) => Promise<unknown>) {}

  /** The editor host, which carries the Monaco model's fingerprint (data-model-hash). */
  get editorHost() {
    return this.page.getByTestId('scenario-editor')
  }

  /** Focus Monaco as a user does (a click in its text) and wait until it has the focus. */
  async focusEditor(): Promise<void> {
    const inEditor = () => this.page.evaluate(() => !!document.activeElement?.closest('[data-testid="scenario-editor"]'))
    if (await inEditor()) return
    await this.page.locator('[data-testid="scenario-editor"] .view-lines').click()
    await expect.poll(inEditor).toBe(true)
  }

  /** Wait until the Monaco model holds exactly `text`. */
  async waitEditorText(text: string): Promise<void> {
    const want = textHash(text)
    await expect.poll(() => this.editorHost.getAttribute('data-model-hash'), { message: `the editor never held the expected ${text.length} characters` }).toBe(want)
  }

  /** Wait until the validation status describes exactly `text` (not an earlier version). */
  async waitValidated(text: string): Promise<string> {
    const want = textHash(text)
    const status = this.page.getByTestId('validation-status')
    await expect.poll(async () => {
      const [state, hash] = await Promise.all([status.getAttribute('data-state'), status.getAttribute('data-hash')])
      return hash === want && state !== 'pending' ? 'validated' : `${state} ${hash}`
    }, { timeout: 30_000 }).toBe('validated')
    return (await status.textContent()) ?? ''
  }

  /** Wait until the validation status describes whatever the editor holds now. */
  async waitValidatedCurrent(): Promise<string> {
    const status = this.page.getByTestId('validation-status')
    await expect.poll(async () => {
      const [state, hash, model] = await Promise.all([status.getAttribute('data-state'), status.getAttribute('data-hash'), this.editorHost.getAttribute('data-model-hash')])
      return hash === model && state !== 'pending' ? 'validated' : `${state} ${hash} (editor ${model})`
    }, { timeout: 30_000 }).toBe('validated')
    return (await status.textContent()) ?? ''
  }

  /**
   * Replace the whole editor content as a user pasting into Monaco (select all, paste): typed
   * text would be auto-closed and auto-indented by the editor. Returns once the model holds
   * exactly the text and the validation status describes it.
   */
  async typeScenario(text: string): Promise<string> {
    const page = this.page
    await this.focusEditor()
    await this.setClipboard(text)
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.press('ControlOrMeta+V')
    await this.waitEditorText(text)
    return this.waitValidated(text)
  }

  /** Tick exactly `names` in the Variants menu (variants-button, variants-menu), then close it. */
  async runOnlyVariants(names: string[]): Promise<void> {
    const menu = this.page.getByTestId('variants-menu')
    if (!(await menu.isVisible())) await this.page.getByTestId('variants-button').click()
    await expect.poll(() => menu.isVisible()).toBe(true)
    for (const box of await menu.locator('input[type="checkbox"]').all()) {
      if (names.includes((await box.getAttribute('value')) ?? '')) await box.check()
      else await box.uncheck()
    }
    await menu.locator('button[data-action="close"]').click()
    await expect.poll(() => menu.isVisible()).toBe(false)
    await expect.poll(() => this.page.getByTestId('variants-button').textContent()).toContain(`${names.length}/`)
  }

  /** Press Run and wait until the new run's progress shows (a refused scenario fails here, with its problems). */
  async startRun(): Promise<void> {
    const progress = this.page.getByTestId('run-progress')
    const before = await progress.getAttribute('data-run-id')
    await this.page.getByTestId('run-button').click()
    await expect.poll(async () => {
      if (await this.page.getByTestId('error-panel').isVisible()) return `refused: ${await this.page.getByTestId('error-panel').textContent()}`
      return (await progress.getAttribute('data-run-id')) === before ? 'waiting' : 'started'
    }, { timeout: 30_000 }).toBe('started')
    expect(await progress.isVisible()).toBe(true)
  }

  /** Start a run and wait for it (not an earlier one) to end with `status`, and, when it was saved, to be listed. */
  async runAndWait(status: RunStatus): Promise<void> {
    await this.startRun()
    await expect.poll(() => this.page.getByTestId('run-progress').getAttribute('data-status'), { timeout: 120_000 }).toBe(status)
    if (status === 'done' || status === 'partial') await this.waitLastRunListed()
  }

  /**
   * Open a preset (past the welcome screen), paste `scenario` over it and simulate it; then
   * start a measured run of it with the button `measureTestId` and wait for it to be done and
   * listed. Returns both runs' ids and the measured run's history item.
   */
  async simulateThenMeasure(scenario: string, measureTestId: string, timeoutMs: number) {
    const page = this.page
    const preset = await page.locator('[data-testid="preset-select"] option[value]:not([value=""])').first().getAttribute('value')
    await page.getByTestId('preset-select').selectOption(preset!)
    await expect.poll(() => page.getByTestId('welcome').isVisible()).toBe(false)
    expect(await this.typeScenario(scenario)).toMatch(/✓/)
    await this.runAndWait('done')
    const progress = page.getByTestId('run-progress')
    const simId = (await progress.getAttribute('data-run-id'))!
    await page.getByTestId(measureTestId).click()
    await expect.poll(async () => ((await progress.getAttribute('data-run-id')) !== simId ? progress.getAttribute('data-status') : 'waiting'), { timeout: timeoutMs }).toBe('done')
    const id = (await progress.getAttribute('data-run-id'))!
    const item = page.locator(`[data-testid="history-item"][data-run-id="${id}"]`)
    await expect.poll(() => item.count(), { timeout: 30_000 }).toBe(1)
    return { simId, id, item }
  }

  /** Compare two saved runs: the measured-beside-simulated table (its heading, cyclictest's verdicts). */
  async compareMeasured(simId: string, id: string): Promise<{ heading: string; verdicts: (string | null)[] }> {
    const page = this.page
    for (const x of [simId, id]) await page.locator(`[data-testid="history-item"][data-run-id="${x}"] input.select`).check()
    await page.getByTestId('compare-selected').click()
    const table = page.getByTestId('real-vs-sim')
    await expect.poll(() => table.isVisible()).toBe(true)
    const verdicts = await table.locator('tr[data-workload="cyclictest"] td[data-verdict]').evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict')))
    return { heading: (await table.locator('h4').textContent()) ?? '', verdicts }
  }

  /** Wait until the run the progress card shows is listed in the history. */
  async waitLastRunListed(): Promise<void> {
    const id = await this.page.getByTestId('run-progress').getAttribute('data-run-id')
    expect(id, 'no run was started').toBeTruthy()
    await expect.poll(() => this.page.locator(`[data-testid="history-item"][data-run-id="${id}"]`).count(), { timeout: 30_000 }).toBe(1)
  }

  /** Pixels of a canvas in the first series colour: proof that a curve or bars were drawn. */
  seriesPixels(selector: string): Promise<number> {
    return this.page.locator(selector).evaluate((c) => {
      const canvas = c as HTMLCanvasElement
      const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data
      const dark = document.documentElement.dataset.theme === 'dark'
      const [r, g, b] = dark ? [0x58, 0xa6, 0xff] : [0x1f, 0x6f, 0xeb]
      let n = 0
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - r) < 24 && Math.abs(d[i + 1] - g) < 24 && Math.abs(d[i + 2] - b) < 24) n++
      return n
    })
  }

  historyNames(): Promise<string[]> {
    return this.page.locator('[data-testid="history-item"] .run-name').allTextContents()
  }
}

/** Open the workbench of `url` in a fresh browser context (clipboard allowed, downloads accepted). */
export async function openWorkbench(browser: import('playwright-core').Browser, url: string, viewport = { width: 1440, height: 900 }, pageErrors: string[] = []): Promise<{ page: Page; ui: Workbench }> {
  const context = await browser.newContext({ viewport, acceptDownloads: true })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin })
  const page = await context.newPage()
  page.on('pageerror', (e) => pageErrors.push(e.message))
  page.on('dialog', (d) => void d.accept())
  await page.goto(url)
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 })
  return { page, ui: new Workbench(page, (t) => page.evaluate((x) => navigator.clipboard.writeText(x), t)) }
}

/** Decode a PNG in the page: its size and a few pixels, for checks of exported images. */
export async function pngPixels(page: Page, bytes: Buffer, points: [number, number][]): Promise<{ width: number; height: number; rgba: number[][]; darkRowsFromBottom: number }> {
  return page.evaluate(async ({ b64, points }) => {
    // (the page's CSP allows no fetch of data: URLs)
    const blob = new Blob([Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0))], { type: 'image/png' })
    const bmp = await createImageBitmap(blob)
    const c = new OffscreenCanvas(bmp.width, bmp.height)
    const ctx = c.getContext('2d')!
    ctx.drawImage(bmp, 0, 0)
    const d = ctx.getImageData(0, 0, bmp.width, bmp.height).data
    const at = (x: number, y: number) => Array.from(d.subarray((y * bmp.width + x) * 4, (y * bmp.width + x) * 4 + 4))
    // The caption band: how many of the last rows carry dark (text) pixels.
    let dark = 0
    for (let y = bmp.height - 1; y >= bmp.height - 60 && y >= 0; y--) {
      let any = false
      for (let x = 0; x < bmp.width && !any; x++) { const p = at(x, y); if (p[0] < 120 && p[1] < 120 && p[2] < 120) any = true }
      if (any) dark++
    }
    return { width: bmp.width, height: bmp.height, rgba: points.map(([x, y]) => at(Math.round(x), Math.round(y))), darkRowsFromBottom: dark }
  }, { b64: bytes.toString('base64'), points })
}

/**
 * The workbench of one describe block: `schedlab serve` on a fresh data folder and Chromium on
 * its page at `viewport`, opened before the tests (beforeAll) and closed after them (afterAll).
 * Read `page` and `ui` inside tests; `pageErrors` collects the page's uncaught errors.
 */
export function workbenchSession(prefix: string, viewport = { width: 1280, height: 800 }): { readonly page: Page; readonly ui: Workbench; readonly host: WorkbenchHost; pageErrors: string[] } {
  let opened: { page: Page; ui: Workbench; host: WorkbenchHost } | null = null
  const host = (): WorkbenchHost => opened?.host ?? (() => { throw new Error('workbenchSession: not open (read it inside a test)') })()
  const session = {
    pageErrors: [] as string[],
    get page() { host(); return opened!.page },
    get ui() { host(); return opened!.ui },
    get host() { return host() }
  }
  let started: WorkbenchHost | null = null
  beforeAll(async () => {
    ensureBuilt()
    started = new WorkbenchHost(prefix)
    await started.start()
    opened = { host: started, ...(await openWorkbench(started.browser, started.url, viewport, session.pageErrors)) }
  }, 180_000)
  afterAll(async () => {
    await started?.stop()
  })
  return session
}
