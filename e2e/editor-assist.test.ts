/**
 * End-to-end: completion and hovers in the scenario editor (issue 28), in Chromium through
 * `schedlab serve`: a key goes in as `"key": ` with its values offered at once, a workload offers
 * `type` first and then the fields of its type only, a variant's workload overrides offer the
 * fields of the workload they change, and hovers explain `type` and override keys. Every step
 * waits for the state it needs, never for time.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { chromiumMissing } from './host'
import { type Workbench, workbenchSession } from './workbench-ui'

const missing = chromiumMissing()

describe.skipIf(missing !== null)('completion and hovers in the scenario editor (Chromium, schedlab serve)', () => {
  const session = workbenchSession('schedlab-assist-')
  let page: Page
  let ui: Workbench
  beforeAll(async () => {
    ;({ page, ui } = session)
    await page.getByTestId('blank-scenario').click()
  })

  const widget = () => page.locator('.suggest-widget.visible')
  /**
   * The labels the open suggestion list shows, top first (the rows in view: the list is
   * virtual; what it holds further down is asked for by typing the start of a name), or none
   * where it says there are no suggestions.
   */
  const labels = async (): Promise<string[]> => {
    await expect.poll(async () => (await widget().locator('.monaco-list-row').count()) > 0 || /No suggestions/.test((await widget().textContent()) ?? ''), { timeout: 20_000 }).toBe(true)
    return widget().locator('.monaco-list-row .label-name').allTextContents()
  }
  /** Put `text` in the editor with the caret at its end (pasted: Monaco adds nothing), then ask for completion. */
  const completeAfter = async (text: string): Promise<string[]> => {
    await ui.focusEditor()
    await page.evaluate((t) => navigator.clipboard.writeText(t), text)
    await page.keyboard.press('ControlOrMeta+A')
    await page.keyboard.press('ControlOrMeta+V')
    await ui.waitEditorText(text)
    await page.keyboard.press('Control+Space')
    return labels()
  }
  const closeSuggest = async () => {
    await page.keyboard.press('Escape')
    await expect.poll(() => widget().count()).toBe(0)
  }

  it('offers type first in a workload, inserts "type": and offers the types at once', async () => {
    const start = '{\n  "name": "assist",\n  "topology": "smp-2",\n  "workloads": [\n    { '
    const first = await completeAfter(start)
    expect(first[0]).toBe('type')
    // before a type is chosen, no type's own fields (cyclictest's periodUs, hog's count)
    expect(first).not.toContain('periodUs')
    expect(first).not.toContain('count')
    await page.keyboard.press('Enter')
    await ui.waitEditorText(`${start}"type": `)
    // the value prompt: the workload types, offered without another key
    expect(await labels()).toEqual(expect.arrayContaining(['"cyclictest"', '"hackbench"', '"hog"', '"rt-app"']))
    await page.keyboard.press('Enter')
    await ui.waitEditorText(`${start}"type": "cyclictest"`)
    await expect.poll(() => widget().count()).toBe(0)
  }, 120_000)

  it('knows the fields of the chosen type only, and offers an enum\'s values after its key', async () => {
    const start = '{\n  "name": "assist",\n  "topology": "smp-2",\n  "workloads": [\n    { "type": "cyclictest", '
    expect((await completeAfter(start))[0]).toBe('cpus')
    await closeSuggest()
    expect((await completeAfter(`${start}"peri`))[0]).toBe('periodUs')
    await closeSuggest()
    // hog's count, hackbench's groups, the type already given: not here
    for (const other of ['count', 'groups', 'type']) {
      expect(await completeAfter(`${start}"${other.slice(0, 4)}`)).not.toContain(other)
      await closeSuggest()
    }
    expect((await completeAfter(`${start}"pol`))[0]).toBe('policy')
    await page.keyboard.press('Enter')
    await ui.waitEditorText(`${start}"policy": `)
    expect(await labels()).toEqual(['"other"', '"batch"', '"idle"', '"fifo"', '"rr"'])
    await page.keyboard.press('Enter')
    await ui.waitEditorText(`${start}"policy": "other"`)
  }, 120_000)

  it('completes inside a variant\'s workload overrides with the fields of that workload', async () => {
    const head = '{\n  "name": "assist",\n  "topology": "smp-2",\n  "workloads": [\n    { "type": "cyclictest", "name": "ct", "sliceUs": 3000 },\n    { "type": "hog", "count": 2 }\n  ],\n  "variants": [\n    { "name": "a" },\n    { "name": "b", "workloads": { '
    // the workloads' names first
    expect(await completeAfter(head)).toEqual(['ct', 'hog'])
    await closeSuggest()
    expect((await completeAfter(`${head}"ct": { `))[0]).toBe('cpus')
    await closeSuggest()
    // what a variant cannot change, and the other workload's fields: not offered
    for (const k of ['type', 'name', 'count']) {
      expect(await completeAfter(`${head}"ct": { "${k.slice(0, 3)}`)).not.toContain(k)
      await closeSuggest()
    }
    expect((await completeAfter(`${head}"ct": { "peri`))[0]).toBe('periodUs')
    await closeSuggest()
    expect((await completeAfter(`${head}"ct": { "slic`))[0]).toBe('sliceUs')
    await page.keyboard.press('Enter')
    await ui.waitEditorText(`${head}"ct": { "sliceUs": `)
    await closeSuggest()
    // the hog's override offers the hog's fields
    expect((await completeAfter(`${head}"hog": { "cou`))[0]).toBe('count')
    await closeSuggest()
    expect(await completeAfter(`${head}"hog": { "peri`)).not.toContain('periodUs')
    await closeSuggest()
  }, 120_000)

  it('explains type and override keys on hover', async () => {
    const text = '{\n  "name": "assist",\n  "topology": "smp-2",\n  "workloads": [\n    { "type": "cyclictest", "name": "ct", "sliceUs": 3000 }\n  ],\n  "variants": [\n    { "name": "a" },\n    { "name": "b", "workloads": { "ct": { "sliceUs": 100 } } }\n  ]\n}'
    expect(await ui.typeScenario(text)).toMatch(/✓ assist: 2 variants/)
    const hover = async (token: string, nth: number): Promise<string> => {
      await page.mouse.move(0, 0)
      await expect.poll(() => page.locator('.monaco-hover:visible').count()).toBe(0)
      await page.locator('.view-lines span[class^="mtk"]', { hasText: token }).nth(nth).hover()
      await expect.poll(async () => (await page.locator('.monaco-hover:visible').allTextContents()).join(' '), { timeout: 20_000 }).not.toBe('')
      return (await page.locator('.monaco-hover:visible').allTextContents()).join(' ')
    }
    expect(await hover('"type"', 0)).toMatch(/which kind this is.*cyclictest.*hackbench/)
    expect(await hover('"cyclictest"', 0)).toMatch(/cyclictest.*timer/)
    // the override: what it changes, and the workload's own value
    expect(await hover('"sliceUs"', 1)).toMatch(/Changes sliceUs of workload ct in this variant \(3000 there\)/)
    expect(session.pageErrors).toEqual([])
  }, 120_000)
})
