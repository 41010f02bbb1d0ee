/**
 * End-to-end: significance colouring, the precision field and the sweep view, in Chromium
 * through `schedlab serve`, as a user does it: paste a scenario, type a precision target, run,
 * read the tables, open a sweep from the history, click a cell.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ensureBuilt } from '../src/cli/serve'
import { ROOT, chromiumMissing, launchWorkbench, type LaunchedWorkbench } from './host'
import { ARTIFACTS, Workbench } from './workbench-ui'

const missing = chromiumMissing()
const SWEEP = readFileSync(join(ROOT, 'src', 'sweep', 'fixtures', 'sweep-2x3.json'), 'utf8')

describe.skipIf(missing !== null)('statistics and sweeps in the workbench', () => {
  let wb: LaunchedWorkbench
  let page: Page
  let ui: Workbench

  beforeAll(async () => {
    ensureBuilt()
    wb = await launchWorkbench('schedlab-e2e-sweep-')
    page = wb.page
    ui = new Workbench(page, (t) => page.evaluate((x) => navigator.clipboard.writeText(x), t))
    // an empty window shows the welcome panel over the editor: start from a preset, as users do
    await page.getByTestId('preset-select').selectOption('cyclictest-alone-rb5')
    await page.getByTestId('welcome').waitFor({ state: 'hidden', timeout: 30_000 })
  }, 180_000)

  afterAll(async () => {
    await wb?.close()
  })

  it('a precision run adds seeds until the interval is tight enough; tables show intervals, n/a is never coloured', async () => {
    const text = JSON.stringify({
      name: 'e2e precision', topology: 'smp-2', durationMs: 150,
      variants: [{ name: 'a' }, { name: 'b', kernel: { costs: { contextSwitchUs: 9 } } }],
      workloads: [{ type: 'cyclictest', periodUs: 1000 }, { type: 'hog', count: 3 }]
    }, null, 2)
    expect(await ui.typeScenario(text)).toMatch(/✓/)
    await page.getByTestId('precision-input').fill('ct.p90:8')
    await ui.runAndWait('done')
    // the progress says where each variant's interval stands
    expect(await page.getByTestId('precision-progress').textContent()).toMatch(/^precision ct\.p90:8: a \d+ seeds ±\d+\.\d %( ✓)? · b \d+ seeds ±\d+\.\d %/)
    const table = page.getByTestId('results-table')
    await expect.poll(() => table.isVisible()).toBe(true)
    // more than one seed per variant was run, and the summary line says how many
    const history = page.locator('[data-testid="history-item"]').first()
    await expect.poll(async () => /× (\d+) seeds/.exec((await history.textContent()) ?? '')?.[1] ?? '0').toMatch(/^([2-9]|\d\d)$/)
    const p90 = await page.locator('.seeds-table').first().locator('tbody tr[data-metric="p90"] td').allTextContents()
    expect(p90[0]).toMatch(/^\d+(\.\d)? ±\d+(\.\d)?$/)
    // p99.9 of a few thousand samples: n/a, and never coloured
    const na = page.locator('.seeds-table').first().locator('tbody tr[data-metric="p99_9"] td')
    expect(await na.first().textContent()).toMatch(/^n\/a \(\d+ samples; need 10000\)$/)
    for (const c of await na.all()) expect((await c.getAttribute('class')) ?? '').not.toMatch(/better|worse/)
    // every change is coloured only when marked significant
    for (const c of await page.locator('.seeds-table td[data-significant]').all()) {
      const cls = (await c.getAttribute('class')) ?? ''
      if ((await c.getAttribute('data-significant')) === 'true') expect(cls).toMatch(/better|worse/)
      else expect(cls).not.toMatch(/better|worse/)
    }
    await page.getByTestId('precision-input').fill('')
  })

  it('runs a 2x3 sweep into the sweep view: a heatmap with significant cells marked; a cell opens its run', async () => {
    expect(await ui.typeScenario(SWEEP)).toMatch(/✓/)
    await ui.runAndWait('done')
    const view = page.getByTestId('sweep-view')
    await expect.poll(() => view.isVisible()).toBe(true)
    await expect.poll(() => page.locator('[data-testid="history-item"]').first().getAttribute('data-kind')).toBe('sweep')
    await page.getByTestId('sweep-metric').selectOption('p50')
    await page.getByTestId('sweep-mode').selectOption('value')
    // the value heatmap is drawn in shades of the first series colour
    await expect.poll(() => ui.seriesPixels('[data-testid="sweep-heatmap"] canvas')).toBeGreaterThan(150)
    const rows = page.locator('[data-testid="sweep-cells"] tbody tr')
    expect(await rows.count()).toBe(6)
    expect(await rows.nth(5).locator('td').first().textContent()).toBe('8000')
    for (const c of await page.locator('[data-testid="sweep-cells"] td[data-significant]').all()) {
      const cls = (await c.getAttribute('class')) ?? ''
      expect(cls.includes('better') || cls.includes('worse')).toBe((await c.getAttribute('data-significant')) === 'true')
    }
    await page.screenshot({ path: join(ARTIFACTS, 'sweep.png') })
    await rows.nth(4).click()
    await expect.poll(() => page.getByTestId('results-table').isVisible()).toBe(true)
    expect(await page.locator('.results .run-title').textContent()).toContain('[workloads[0].sliceUs=8000, workloads[1].groups=2]')
  })
})
