import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { patchTemplate } from '../src/shared/patch-template'
import { ensureBuilt } from '../src/cli/serve'
import { chromiumMissing, WorkbenchHost } from './host'
import { ARTIFACTS, openWorkbench, type Workbench } from './workbench-ui'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The Patches tab as a researcher uses it: a new patch from the template, a mistake shown at
 * its line, fixed, saved, added as a variant, run and compared with the baseline; and a web host
 * started without --allow-patches, which says how to run patches.
 */
const missing = chromiumMissing()

const scenario = JSON.stringify({
  name: 'e2e patches', topology: 'smp-2', durationMs: 300,
  variants: [{ name: 'base' }],
  workloads: [{ type: 'cyclictest', periodUs: 1000 }, { type: 'hog', count: 4 }]
}, null, 2)

/** Replace the patch editor's text as a user pasting into it. */
async function pastePatch(page: Page, ui: Workbench, text: string): Promise<void> {
  await page.locator('[data-testid="patch-editor"] .view-lines').click()
  await page.evaluate((x) => navigator.clipboard.writeText(x), text)
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.press('ControlOrMeta+V')
  void ui
}

describe.skipIf(missing)('the Patches tab', () => {
  const host = new WorkbenchHost('schedlab-e2e-patches-', ['--allow-patches'])
  let page: Page
  let ui: Workbench
  beforeAll(async () => {
    ensureBuilt()
    await host.start()
    ;({ page, ui } = await openWorkbench(host.browser, host.url))
  }, 180_000)
  afterAll(async () => {
    await host.stop()
  })

  it('writes a patch from the template, shows a mistake at its line, saves, runs and compares it', { timeout: 180_000 }, async () => {
    // the editor opens from the welcome's preset list, as a user starts
    await page.getByTestId('preset-select').selectOption('cyclictest-alone-rb5')
    await expect.poll(() => page.locator('[data-testid="scenario-editor"] .view-lines').textContent()).toContain('workloads')
    expect(await ui.typeScenario(scenario)).toMatch(/✓/)
    await page.getByTestId('tab-patches').click()
    const list = page.getByTestId('patch-list')
    await expect.poll(() => list.locator('[data-testid="patch-item"][data-name="seed002-dd-neglag"]').count(), { timeout: 30_000 }).toBe(1)
    await expect.poll(() => page.locator('[data-testid="patch-editor"] .view-lines').isVisible(), { timeout: 30_000 }).toBe(true)
    await expect.poll(() => page.getByTestId('patch-name').inputValue()).toBe('my-idea')

    // a mistake: a syntax error on a known line
    const good = patchTemplate('my-idea').replace('keep: { default: 1,', 'keep: { default: 0,')
    const lines = good.split('\n')
    const at = lines.findIndex((l) => l.includes('orig(cpu, se, flags)'))
    const bad = [...lines.slice(0, at), '      orig(cpu, se, flags', ...lines.slice(at + 1)].join('\n')
    await pastePatch(page, ui, bad)
    await page.getByTestId('patch-check').click()
    const problem = page.locator('[data-testid="patch-problem"].error')
    await expect.poll(() => problem.count(), { timeout: 30_000 }).toBeGreaterThan(0)
    const line = Number(await problem.first().getAttribute('data-line'))
    expect(line).toBeGreaterThanOrEqual(at + 1)
    expect(line).toBeLessThanOrEqual(at + 2)
    expect(await problem.first().textContent()).toMatch(new RegExp(`my-idea\\.ts:${line}:\\d+`))

    // a hook that does not exist: named, with the closest one
    await pastePatch(page, ui, good.replace('placeEntity(s, orig', 'placeEntitty(s, orig'))
    await page.getByTestId('patch-check').click()
    await expect.poll(() => problem.first().textContent(), { timeout: 30_000 }).toMatch(/hooks\.placeEntitty: no such hook \(did you mean "placeEntity"\?\)/)

    // a type error Monaco finds with the API's types, at its line
    const typo = good.replace('s.task.vlag[se] = Math.trunc', 's.task.vlagg[se] = Math.trunc')
    await pastePatch(page, ui, typo)
    const typeProblem = page.locator('[data-testid="patch-problem"].type')
    await expect.poll(() => typeProblem.first().textContent(), { timeout: 60_000 }).toMatch(/vlagg/)
    expect(Number(await typeProblem.first().getAttribute('data-line'))).toBe(typo.split('\n').findIndex((l) => l.includes('vlagg')) + 1)

    // fixed, saved: listed as yours, no problems
    await pastePatch(page, ui, good)
    await page.getByTestId('patch-save').click()
    await expect.poll(() => list.locator('[data-testid="patch-item"][data-name="my-idea"]').count(), { timeout: 30_000 }).toBe(1)
    await expect.poll(() => page.getByTestId('patch-problems').textContent(), { timeout: 30_000 }).toMatch(/No problems/)
    await expect.poll(() => page.getByTestId('patch-info').textContent()).toMatch(/hooks: placeEntity/)
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, 'patches.png') })

    // added as a variant of the open scenario, run beside the baseline
    await page.getByTestId('patch-use').click()
    await expect.poll(() => ui.waitValidatedCurrent().then(() => page.getByTestId('validation-status').textContent())).toMatch(/2 variants|✓/)
    await ui.runAndWait('done')
    const table = page.getByTestId('results-table')
    await expect.poll(() => table.textContent(), { timeout: 30_000 }).toContain('my-idea')
    expect(await table.textContent()).toContain('base')

    // the Variants menu lists the library: a variant with a patch from there
    await page.getByTestId('variants-button').click()
    await expect.poll(() => page.getByTestId('variant-patch-select').locator('option[value="seed002-dd-neglag"]').count(), { timeout: 30_000 }).toBe(1)
    await page.getByTestId('variant-patch-select').selectOption('seed002-dd-neglag')
    await page.locator('[data-action="add-patch-variant"]').click()
    await expect.poll(() => page.locator('[data-testid="scenario-editor"] .view-lines').textContent(), { timeout: 30_000 }).toContain('seed002-dd-neglag')

    // the library's my-idea changes; loading the run's scenario offers the version it ran with
    await page.getByTestId('tab-patches').click()
    await page.getByTestId('patch-list').locator('[data-testid="patch-item"][data-name="my-idea"]').click()
    await pastePatch(page, ui, good.replace("description: 'Scale", "description: 'Changed: scale"))
    await page.getByTestId('patch-save').click()
    await expect.poll(() => page.getByTestId('patch-info').textContent(), { timeout: 30_000 }).toMatch(/Changed: scale/)
    await page.locator('[data-testid="history-item"]').first().locator('[data-action="load"]').click()
    const panel = page.getByTestId('error-panel')
    await expect.poll(() => panel.textContent(), { timeout: 30_000 }).toMatch(/my-idea\.ts: the library holds another version/)
    await panel.getByText(/Click to save the run's version as my-idea/).click()
    await expect.poll(() => panel.textContent(), { timeout: 30_000 }).not.toMatch(/the library holds another version/)
  })

  it('shows an exception of a patch while simulating with its file, line, hook and simulated time', { timeout: 180_000 }, async () => {
    const thrower = patchTemplate('thrower').replace('      orig(cpu, se, flags)', '      if (s.now > 50e6) throw new Error(\'boom\')\n      orig(cpu, se, flags)')
    await page.getByTestId('tab-patches').click()
    await page.getByTestId('patch-new').click()
    await page.getByTestId('patch-name').fill('thrower')
    await pastePatch(page, ui, thrower)
    await page.getByTestId('patch-save').click()
    await expect.poll(() => page.getByTestId('patch-list').locator('[data-name="thrower"]').count(), { timeout: 30_000 }).toBe(1)
    await ui.typeScenario(scenario.replace('"variants": [\n    {\n      "name": "base"\n    }\n  ]', '"variants": [\n    {\n      "name": "t",\n      "patches": ["thrower"]\n    }\n  ]'))
    await page.getByTestId('run-button').click()
    const line = thrower.split('\n').findIndex((l) => l.includes('boom')) + 1
    await expect.poll(() => page.getByTestId('error-panel').textContent(), { timeout: 30_000 }).toMatch(new RegExp(`thrower\\.ts:${line}:\\d+\\) threw in placeEntity at \\d+\\.\\d{3} ms simulated: boom`))
  })
})

describe.skipIf(missing)('a web host started without --allow-patches', () => {
  const host = new WorkbenchHost('schedlab-e2e-nopatch-')
  beforeAll(async () => {
    ensureBuilt()
    await host.start()
  }, 120_000)
  afterAll(async () => {
    await host.stop()
  })

  it('edits patches but says how to run them', async () => {
    const { page } = await openWorkbench(host.browser, host.url)
    await page.getByTestId('tab-patches').click()
    await expect.poll(() => page.getByTestId('patches-status').textContent(), { timeout: 30_000 }).toMatch(/--allow-patches/)
    await expect.poll(() => page.locator('[data-testid="patch-editor"] .view-lines').isVisible(), { timeout: 30_000 }).toBe(true)
    await page.getByTestId('patch-check').click()
    await expect.poll(() => page.getByTestId('patch-problems').textContent(), { timeout: 30_000 }).toMatch(/compiles; .*--allow-patches/)
  })
})
