/**
 * End-to-end: a VM run from the workbench (through `schedlab serve`, in Chromium): the VM button
 * and its kernel picker, the guest's phases in the progress card, the vm badge in History, and
 * "VM beside simulated" in Compare. Where QEMU or the guest's tools are missing, the VM parts
 * skip and say why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { ensureBuilt } from '../src/cli/serve'
import { defaultDataDir } from '../src/services/data-dir'
import { vmCacheDir } from '../src/vm/images'
import { qemuUnavailableReason } from '../src/vm/qemu'
import { whichOnPath } from '../src/real/workloads'
import { WorkbenchHost, chromiumMissing } from './host'
import { Workbench, openWorkbench } from './workbench-ui'

const missing = chromiumMissing()
const vmWhy = qemuUnavailableReason() ?? (['busybox', 'cyclictest', 'hackbench', 'cc'].find((t) => !whichOnPath(t)) ? 'the guest\'s tools (busybox, rt-tests, a C compiler) are not installed' : null)

const SCENARIO = JSON.stringify({
  name: 'e2e vm beside sim',
  topology: 'smp-2',
  durationMs: 1500,
  kernel: { profile: '6.12', preempt: 'voluntary' },
  workloads: [
    { type: 'cyclictest', name: 'cyclictest', threads: 1, periodUs: 2777 },
    { type: 'hog', name: 'hog', count: 1, cpus: [0] }
  ]
}, null, 2)

describe.skipIf(missing !== null)('VM runs in the workbench', () => {
  let host: WorkbenchHost
  let page: Page
  let ui: Workbench

  beforeAll(async () => {
    ensureBuilt()
    host = new WorkbenchHost('schedlab-e2e-vm-')
    // the kernels and the guest image of the user's data folder (fetched once per machine)
    process.env.SCHEDLAB_VM_CACHE = vmCacheDir(defaultDataDir())
    await host.start()
    ;({ page, ui } = await openWorkbench(host.browser, host.url))
  }, 180_000)

  afterAll(async () => {
    await host?.stop()
  })

  it(`the VM button says whether this machine can run VMs${vmWhy ? ` (it cannot: ${vmWhy})` : ''}, with a kernel picker`, async () => {
    const btn = page.getByTestId('run-vm-button')
    await expect.poll(() => btn.getAttribute('title')).toMatch(vmWhy ? /VM runs are not possible here/ : /mainline kernel in QEMU/)
    const options = await page.getByTestId('vm-kernel-select').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))
    expect(options).toEqual(['', '6.12', '7.2', '__own__'])
  })

  it.skipIf(vmWhy !== null)(`runs a scenario in a VM and compares it with its simulation${vmWhy ? ` (skipped: ${vmWhy})` : ''}`, async () => {
    await page.getByTestId('vm-kernel-select').selectOption('6.12')
    // the guest's phases show while it runs
    const phases: string[] = []
    const watch = setInterval(() => void page.getByTestId('run-phase').textContent().then((t) => t && phases.push(t), () => {}), 500)
    let ids
    try {
      ids = await ui.simulateThenMeasure(SCENARIO, 'run-vm-button', 600_000)
    } finally {
      clearInterval(watch)
    }
    expect(phases.some((p) => /seed 1 \(1 of 1\): (booting|running the workloads)/.test(p)), phases.join(' | ')).toBe(true)
    expect(await ids.item.getByTestId('vm-badge').textContent()).toBe('vm')
    expect(await ids.item.getAttribute('data-source')).toBe('vm')
    await expect.poll(() => page.getByTestId('vm-record').textContent()).toMatch(/VM: Linux 6\.12\..* 2 vCPUs/)
    const { heading, verdicts } = await ui.compareMeasured(ids.simId, ids.id)
    expect(heading).toBe('VM beside simulated')
    expect(verdicts).toHaveLength(4)
  }, 900_000)
})
