/**
 * End-to-end: a host killed with a sweep in flight, restarted, offers the run in History with a
 * Resume action; resuming it keeps the cells that had finished (not run again) and ends with
 * the same results as a sweep that was never interrupted. In Chromium through `schedlab serve`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import type { StoredRun } from '../src/shared/ipc'
import type { VariantResult } from '../src/shared/result'
import { ensureBuilt } from '../src/cli/serve'
import { parseRunFileText, RunStore } from '../src/services/run-store'
import { RunService } from '../src/services/run-service'
import { WorkerPool } from '../src/services/worker-pool'
import { MemoryKv, TSX_WORKER_ARGV, runResultDigest, tempDir } from '../src/services/test-helpers'
import { ROOT, WorkbenchHost, chromiumMissing } from './host'
import { Workbench } from './workbench-ui'

const missing = chromiumMissing()
const SWEEP = readFileSync(join(ROOT, 'src', 'sweep', 'fixtures', 'sweep-2x3.json'), 'utf8')
  .replace('"name": "sweep 2x3: cyclictest slice x hackbench groups"', '"name": "e2e resume"')

/** The sweep run to its end in this process, never interrupted: the digest to match. */
async function uninterruptedDigest(text: string): Promise<string> {
  const t = tempDir()
  const pool = new WorkerPool<VariantResult>({ workerPath: join(ROOT, 'src/services/sim-worker.ts'), execArgv: TSX_WORKER_ARGV, size: 2 })
  try {
    const store = await RunStore.open(t.dir, new MemoryKv())
    const runs = new RunService({ pool, store, version: '1', emit: () => undefined })
    const res = runs.start({ text, file: 'e2e-resume.json' })
    if (!res.ok) throw new Error(res.problem.message)
    await runs.whenIdle()
    return runResultDigest(await store.get(res.runId))
  } finally {
    await pool.close()
    t.cleanup()
  }
}

async function openPage(host: WorkbenchHost): Promise<Page> {
  const context = await host.browser.newContext({ viewport: { width: 1440, height: 900 } })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(host.url).origin })
  const page = await context.newPage()
  await page.goto(host.url)
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 })
  return page
}

describe.skipIf(missing !== null)('resuming a run after its host was killed', () => {
  let host: WorkbenchHost

  beforeAll(() => {
    ensureBuilt()
    host = new WorkbenchHost('schedlab-e2e-resume-')
  }, 180_000)

  afterAll(async () => {
    await host?.stop()
  })

  it('History offers Resume; the resumed sweep keeps its finished cells and ends as an uninterrupted one', async () => {
    const reference = uninterruptedDigest(SWEEP)
    await host.start()
    let page = await openPage(host)
    const ui = new Workbench(page, (t) => page.evaluate((x) => navigator.clipboard.writeText(x), t))
    await page.getByTestId('preset-select').selectOption('cyclictest-alone-rb5')
    await page.getByTestId('welcome').waitFor({ state: 'hidden', timeout: 30_000 })
    expect(await ui.typeScenario(SWEEP)).toMatch(/✓/)
    await ui.startRun()
    const id = (await page.getByTestId('run-progress').getAttribute('data-run-id'))!
    // the first cell's runs are done and checkpointed: kill the host, as a power cut would
    const runsDir = join(host.dataDir, 'runs')
    const checkpoint = () => readdirSync(runsDir).find((n) => n.startsWith(`${id}.`) && n.endsWith('.checkpoint'))
    await expect.poll(() => checkpoint() !== undefined, { timeout: 120_000 }).toBe(true)
    // the checkpoint names the host's pid (the serve process itself, under tsx's launcher)
    const pid = Number(/\.(\d+)\.checkpoint$/.exec(checkpoint()!)![1])
    const exited = new Promise((ok) => host.serve.child.once('exit', ok))
    process.kill(pid, 'SIGKILL')
    await exited
    await page.context().close()

    await host.restartServe()
    page = await openPage(host)
    const item = page.locator(`[data-testid="history-item"][data-run-id="${id}"]`)
    await expect.poll(() => item.getAttribute('data-interrupted'), { timeout: 30_000 }).toBe('true')
    expect(await item.getAttribute('data-status')).toBe('partial')
    expect(await item.locator('.status').textContent()).toBe('interrupted')
    await item.locator('button[data-action="resume"]').click()

    const progress = page.getByTestId('run-progress')
    await expect.poll(() => progress.getAttribute('data-run-id'), { timeout: 30_000 }).toBe(id)
    // the cells that had finished are kept, not run again
    const kept = await progress.locator('.progress-row[data-kept="true"]').count()
    expect(kept).toBeGreaterThan(0)
    expect(kept).toBeLessThan(12)
    await expect.poll(() => progress.getAttribute('data-status'), { timeout: 120_000 }).toBe('done')
    await expect.poll(() => item.getAttribute('data-status'), { timeout: 30_000 }).toBe('done')
    expect(await item.getAttribute('data-interrupted')).toBeNull()
    expect(await item.locator('button[data-action="resume"]').count()).toBe(0)

    const saved = parseRunFileText(readFileSync(join(runsDir, `${id}.json`), 'utf8')) as StoredRun
    expect(saved.sweep!.cells.map((c) => c.results.length)).toEqual([2, 2, 2, 2, 2, 2])
    expect(runResultDigest(saved)).toBe(await reference)
    expect(readdirSync(runsDir).filter((n) => n.endsWith('.checkpoint'))).toEqual([])
  }, 400_000)
})
