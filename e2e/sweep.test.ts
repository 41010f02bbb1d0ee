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
    expect(p90[0]).toMatch(/^\d+(\.\d)? (±\d+(\.\d)?|\[\d+(\.\d)?, \d+(\.\d)?\])$/)
    // p99.9 of a few thousand samples: n/a, and never coloured
    const na = page.locator('.seeds-table').first().locator('tbody tr[data-metric="p99_9"] td')
    expect(await na.first().textContent()).toBe('n/a')
    expect(await na.first().getAttribute('data-na')).toMatch(/^n\/a \(\d+ samples; need 10000\)$/)
    for (const c of await na.all()) expect((await c.getAttribute('class')) ?? '').not.toMatch(/better|worse/)
    // every change is coloured only when marked significant
    for (const c of await page.locator('.seeds-table td[data-significant]').all()) {
      const cls = (await c.getAttribute('class')) ?? ''
      if ((await c.getAttribute('data-significant')) === 'true') expect(cls).toMatch(/better|worse/)
      else expect(cls).not.toMatch(/better|worse/)
    }
    await page.getByTestId('precision-input').fill('')
  })

  it('counts seeds with identical results once, says so, and prints lopsided intervals as [lo, hi]', async () => {
    // smp-4 with no random source: every seed gives the same run
    const text = JSON.stringify({
      name: 'e2e identical seeds', topology: 'smp-4', durationMs: 300,
      variants: [{ name: 'a' }, { name: 'b', kernel: { costs: { contextSwitchUs: 4 } } }],
      workloads: [{ type: 'cyclictest', periodUs: 1000, threads: 4 }, { type: 'hog', count: 4 }]
    }, null, 2)
    expect(await ui.typeScenario(text)).toMatch(/✓/)
    const cells = () => page.locator('[data-testid="results-table"] .seeds-table td').allTextContents()
    const seeds = page.getByTestId('seeds-input')
    await seeds.fill('1')
    await ui.runAndWait('done')
    await expect.poll(() => page.locator('[data-testid="results-table"] .seeds-table').count()).toBeGreaterThan(0)
    expect(await page.getByTestId('identical-seeds').count()).toBe(0)
    const one = await cells()
    await seeds.fill('3')
    await ui.runAndWait('done')
    const notice = page.getByTestId('identical-seeds')
    await expect.poll(() => notice.isVisible()).toBe(true)
    expect(await notice.textContent()).toMatch(/seeds 1, 2 and 3 gave identical results: they count as one sample/)
    // three copies of one sample give exactly the one sample's table: no narrower interval,
    // no percentile out of n/a, no mark
    expect(await cells()).toEqual(one)
    // every interval reads ±h when its arms agree within 10 %, [lo, hi] otherwise (the title has the interval)
    for (const td of await page.locator('[data-testid="results-table"] td[title*="95 % interval"]').all()) {
      const title = (await td.getAttribute('title'))!
      const m = /95 % interval (-?[\d.]+) \.\. (-?[\d.]+)/.exec(title)!
      const [lo, hi] = [Number(m[1]), Number(m[2])]
      const shown = (await td.textContent())!
      const value = Number(/^-?[\d.]+/.exec(shown)![0])
      if (shown.includes('[')) expect(shown).toContain(`[${m[1]}, ${m[2]}]`)
      else if (hi > lo && m[1] !== m[2]) expect(Math.abs((hi - value) - (value - lo))).toBeLessThanOrEqual(0.1 * Math.max(hi - value, value - lo) + 1)
    }
    await seeds.fill('')
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

  it('draws a 1-D sweep by the tables\' n/a rule: an empty percentile chart says why; an identical line is named', async () => {
    const text = JSON.stringify({
      name: 'e2e sweep 1-D', topology: 'smp-2', durationMs: 40,
      variants: [{ name: 'a' }, { name: 'b' }],
      workloads: [{ type: 'cyclictest', periodUs: 1000 }],
      sweep: { 'workloads[0].sliceUs': [100, 3000, 8000] }
    }, null, 2)
    expect(await ui.typeScenario(text)).toMatch(/✓/)
    await ui.runAndWait('done')
    await expect.poll(() => page.getByTestId('sweep-view').isVisible()).toBe(true)
    // p50 of 40 samples a cell: drawn, "b" (the same kernel) dashed and named identical
    const p50 = page.getByTestId('sweep-chart-p50')
    await expect.poll(() => p50.getAttribute('data-drawn')).toBe('true')
    expect(JSON.parse((await p50.getAttribute('data-legend'))!)).toContain('b (identical to a)')
    // p99.9 needs 10000 samples: no invented axis, the reason instead
    const p999 = page.getByTestId('sweep-chart-p99_9')
    await expect.poll(() => p999.getByTestId('chart-empty').textContent()).toMatch(/^n\/a: \d+ samples in a cell at most, need 10000$/)
  })
})
