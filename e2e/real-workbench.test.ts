/**
 * End-to-end: a real run from the workbench (through `schedlab serve`, in Chromium) beside a
 * simulated run of the same scenario, their comparison, and File > Import trace. Where the
 * machine cannot run scenarios for real (not Linux, not root, no tracefs, no rt-tests or C
 * compiler), the real parts skip and say why; the trace import runs everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { ensureBuilt } from '../src/cli/serve'
import { WorkbenchHost, chromiumMissing, ROOT } from './host'
import { ARTIFACTS, Workbench, openWorkbench } from './workbench-ui'
import { realTestSkipReason } from '../src/real/testing'

const missing = chromiumMissing()

const realWhy = realTestSkipReason()

const SCENARIO = JSON.stringify({
  name: 'e2e real beside sim',
  topology: 'host',
  durationMs: 2000,
  workloads: [
    { type: 'cyclictest', name: 'cyclictest', threads: 1, periodUs: 2777 },
    { type: 'hog', name: 'hog', count: 1, cpus: [0] }
  ]
}, null, 2)

describe.skipIf(missing !== null)('real runs and trace import in the workbench', () => {
  let host: WorkbenchHost
  let page: Page
  let ui: Workbench

  beforeAll(async () => {
    ensureBuilt()
    host = new WorkbenchHost('schedlab-e2e-real-')
    // the test asserts plumbing, not quiet-machine figures: no wait for quiet
    process.env.SCHEDLAB_REAL_QUIET_WAIT_S = '0'
    await host.start()
    ;({ page, ui } = await openWorkbench(host.browser, host.url))
  }, 180_000)

  afterAll(async () => {
    await host?.stop()
  })

  it(`the Real button says whether this machine can run scenarios for real${realWhy ? ` (it cannot: ${realWhy})` : ''}`, async () => {
    const btn = page.getByTestId('run-real-button')
    await expect.poll(() => btn.getAttribute('title')).toMatch(realWhy ? /Real runs are not possible here/ : /on this machine's kernel/)
  })

  it.skipIf(realWhy !== null)(`runs a scenario for real and compares it with its simulation, percentile by percentile${realWhy ? ` (skipped: ${realWhy})` : ''}`, async () => {
    const { simId, id: realId, item: realItem } = await ui.simulateThenMeasure(SCENARIO, 'run-real-button', 120_000)
    expect(await realItem.getByTestId('real-badge').textContent()).toBe('real')
    expect(await realItem.getAttribute('data-source')).toBe('real')
    // the results show the host record
    await expect.poll(() => page.getByTestId('host-record').textContent()).toMatch(/This machine: Linux .* CPUs, HZ/)
    // compare the two runs: the real-vs-simulated table, one verdict per percentile
    const { heading, verdicts } = await ui.compareMeasured(simId, realId)
    expect(heading).toBe('Real beside simulated')
    expect(verdicts).toHaveLength(4)
    for (const v of verdicts) expect(['inside', 'near', 'outside']).toContain(v)
    const table = page.getByTestId('real-vs-sim')
    mkdirSync(ARTIFACTS, { recursive: true })
    await table.scrollIntoViewIfNeeded()
    await page.screenshot({ path: join(ARTIFACTS, 'real-vs-sim.png') })
  })

  it('imports a trace file through File > Import trace and saves it as a run', async () => {
    const chooser = page.waitForEvent('filechooser')
    await page.getByTestId('import-trace-button').click()
    await (await chooser).setFiles(join(ROOT, 'src/trace/fixtures', 'real-6.18.44.trace.txt.gz'))
    const item = page.locator('[data-testid="history-item"][data-source="trace"]')
    await expect.poll(() => item.count(), { timeout: 30_000 }).toBe(1)
    expect(await item.getByTestId('trace-badge').textContent()).toBe('trace')
    await expect.poll(() => page.getByTestId('trace-record').textContent()).toMatch(/sched events over/)
    await expect.poll(() => page.getByTestId('results-table').textContent()).toContain('cyclictest')
  })

  it('shows the imported trace\'s cyclictest maximum on the timeline, and a simulated run aligned below it', async () => {
    // a simulation of the same workloads to align with (the real test above may have been skipped)
    const preset = await page.locator('[data-testid="preset-select"] option[value]:not([value=""])').first().getAttribute('value')
    await page.getByTestId('preset-select').selectOption(preset!)
    await expect.poll(() => page.getByTestId('welcome').isVisible()).toBe(false)
    expect(await ui.typeScenario(SCENARIO)).toMatch(/✓/)
    await ui.runAndWait('done')
    await page.locator('[data-testid="history-item"][data-source="trace"] .run-name').click()
    await expect.poll(() => page.getByTestId('trace-record').isVisible()).toBe(true)
    const table = page.locator('[data-testid="results-table"] table[data-workload="cyclictest"]')
    await expect.poll(() => table.count()).toBe(1)
    await table.locator('tr[data-metric="max"] td[data-col="0"]').click()
    const pane = page.getByTestId('timeline-pane')
    await expect.poll(() => pane.getAttribute('data-state'), { timeout: 60_000 }).toBe('shown')
    await expect.poll(() => page.getByTestId('explain-summary').textContent()).toMatch(/A real kernel records no scheduler decisions/)
    const timeline = page.getByTestId('timeline')
    await expect.poll(() => timeline.getAttribute('data-rows')).toBe('1')
    expect(Number(await timeline.getAttribute('data-slices'))).toBeGreaterThan(0)
    const pick = page.getByTestId('timeline-compare')
    await expect.poll(() => pick.count()).toBe(1)
    const label = await pick.locator('option').evaluateAll((os) => os.map((o) => o.textContent ?? '').find((t) => t.startsWith('e2e real beside sim ·')) ?? '')
    expect(label).not.toBe('')
    await pick.selectOption({ label })
    await expect.poll(() => timeline.getAttribute('data-rows'), { timeout: 120_000 }).toBe('2')
    mkdirSync(ARTIFACTS, { recursive: true })
    await pane.screenshot({ path: join(ARTIFACTS, 'timeline-trace-vs-sim.png') })

    // from Compare: one click on the other column's maximum shows it with the baseline's below
    const simId = await page.getByTestId('run-progress').getAttribute('data-run-id')
    const traceId = await page.locator('[data-testid="history-item"][data-source="trace"]').getAttribute('data-run-id')
    for (const id of [simId, traceId]) await page.locator(`[data-testid="history-item"][data-run-id="${id}"] input.select`).check()
    await page.getByTestId('compare-selected').click()
    const cmp = page.locator('[data-testid="compare-table"] table[data-workload="cyclictest"]')
    await expect.poll(() => cmp.count()).toBe(1)
    await page.getByTestId('timeline-pane').evaluate((el) => el.setAttribute('data-state', 'stale'))
    await cmp.locator('tr[data-metric="max"] td[data-col="1"]').click()
    await expect.poll(() => pane.getAttribute('data-state'), { timeout: 120_000 }).toBe('shown')
    await expect.poll(() => timeline.getAttribute('data-rows'), { timeout: 120_000 }).toBe('2')
  }, 300_000)
})
