/**
 * `npm run screenshots`: regenerate the README's screenshots of the workbench
 * (docs/screenshots/editor.png; Results with the preset's 4 variants and Compare of 3 runs, each
 * at 1280x800 and 1024x700: results-1280x800.png, results-1024x700.png, compare-1280x800.png,
 * compare-1024x700.png) by driving
 * `schedlab serve` in Chromium on a throwaway data folder, as the end-to-end tests do. Each
 * step waits for the state it shows (the editor's text, a finished run, a drawn chart).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { applyEdits, modify, parse as parseJsonc } from 'jsonc-parser'
import { ensureBuilt } from '../src/cli/build-check'
import { readPreset } from '../src/services/sim-adapter'
import { textHash } from '../src/shared/text-hash'
import { launchChromium, ROOT, startServe } from '../e2e/host'
import { makeDirs } from '../src/services/data-dir'

const OUT = join(ROOT, 'docs', 'screenshots')
const PRESET = 'cyclictest-hackbench-rb5'

const edit = (t: string, path: (string | number)[], v: unknown) => applyEdits(t, modify(t, path, v, { formattingOptions: { insertSpaces: true, tabSize: 2 } }))

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const t0 = Date.now()
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`screenshots: gave up waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

async function paste(page: Page, text: string): Promise<void> {
  await page.locator('[data-testid="scenario-editor"] .view-lines').click()
  // (runs in the page; this file is type-checked without the DOM library)
  await page.evaluate((t) => (globalThis as unknown as { navigator: { clipboard: { writeText(x: string): Promise<void> } } }).navigator.clipboard.writeText(t), text)
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.press('ControlOrMeta+V')
  const want = textHash(text)
  await until('the pasted scenario', async () => (await page.getByTestId('validation-status').getAttribute('data-hash')) === want && (await page.getByTestId('validation-status').getAttribute('data-state')) === 'ok')
}

async function run(page: Page): Promise<void> {
  const progress = page.getByTestId('run-progress')
  const before = await progress.getAttribute('data-run-id')
  await page.getByTestId('run-button').click()
  await until('the run', async () => (await progress.getAttribute('data-run-id')) !== before && (await progress.getAttribute('data-status')) === 'done')
  const id = await progress.getAttribute('data-run-id')
  await until('the run in the history', async () => (await page.locator(`[data-testid="history-item"][data-run-id="${id}"]`).count()) === 1)
  await until('the results chart', async () => (await page.getByTestId('latency-chart').getAttribute('data-drawn')) === 'true')
}

ensureBuilt(ROOT)
makeDirs(OUT)
const dataDir = mkdtempSync(join(tmpdir(), 'schedlab-shots-'))
const serve = await startServe(dataDir)
const browser = await launchChromium()
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(serve.url).origin })
  const page = await context.newPage()
  page.on('dialog', (d) => void d.accept())
  await page.goto(serve.url)
  await page.waitForSelector('body[data-ready="true"]')
  const text = edit(edit((await readPreset(PRESET)).text, ['durationMs'], 1000), ['seeds'], 2)
  await page.getByTestId('blank-scenario').click()
  await paste(page, text)
  await page.screenshot({ path: join(OUT, 'editor.png') })
  await run(page)
  const resultsId = await page.getByTestId('run-progress').getAttribute('data-run-id')

  // three runs of the first variant, the cyclictest slice changed: named after the change, compared
  const one = edit(text, ['variants'], [(parseJsonc(text) as { variants: unknown[] }).variants[0]])
  const ct = (parseJsonc(text) as { workloads: { type: string }[] }).workloads.findIndex((w) => w.type === 'cyclictest')
  for (const slice of [2000, 4000, 8000]) {
    await paste(page, edit(one, ['workloads', ct, 'sliceUs'], slice))
    await run(page)
  }

  for (const [w, h] of [[1280, 800], [1024, 700]]) {
    const ctx = await browser.newContext({ viewport: { width: w, height: h } })
    const p = await ctx.newPage()
    await p.goto(serve.url)
    await p.waitForSelector('body[data-ready="true"]')
    await p.locator(`[data-testid="history-item"][data-run-id="${resultsId}"] .run-name`).click()
    await until(`the results at ${w}x${h}`, async () => (await p.getByTestId('results-view').getAttribute('data-run-id')) === resultsId && (await p.getByTestId('latency-chart').getAttribute('data-drawn')) === 'true')
    await p.screenshot({ path: join(OUT, `results-${w}x${h}.png`) })
    for (const i of [0, 1, 2]) await p.locator('[data-testid="history-item"] input.select').nth(i).check()
    await p.getByTestId('compare-selected').click()
    await until(`the comparison at ${w}x${h}`, async () => (await p.getByTestId('compare-chart').getAttribute('data-drawn')) === 'true')
    await p.screenshot({ path: join(OUT, `compare-${w}x${h}.png`) })
    await ctx.close()
  }
  process.stdout.write(`wrote ${OUT}/{editor,results-1280x800,results-1024x700,compare-1280x800,compare-1024x700}.png\n`)
} finally {
  await browser.close()
  await serve.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
