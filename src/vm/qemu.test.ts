import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { defaultDataDir } from '../services/data-dir'
import { parseScenario } from '../sim/scenario'
import type { VariantResult } from '../shared/result'
import { whichOnPath } from '../real/workloads'
import { isVmError } from './errors'
import { resolveKernel, vmCacheDir } from './images'
import { qemuUnavailableReason } from './qemu'
import { runVmScenario, type VmRunOutput } from './runner'

/**
 * `schedlab vm` for real: Debian's 6.12 in QEMU (TCG with icount on machines without KVM). The
 * CI smoke test of the pipeline: short runs, plumbing, determinism and cleanup asserted, never
 * latency values. Skips, saying why, without QEMU, the guest's tools, or the network the first
 * fetch of the kernel needs.
 */

const ROOT = join(__dirname, '..', '..')
const dataDir = defaultDataDir()
let skip: string | null = qemuUnavailableReason()
for (const t of ['busybox', 'cyclictest', 'hackbench']) if (!skip && !whichOnPath(t)) skip = `${t} is not installed`
if (!skip && !whichOnPath(process.env.CC || 'cc')) skip = 'no C compiler for the guest helper'

beforeAll(async () => {
  if (skip) return
  try {
    await resolveKernel('6.12', vmCacheDir(dataDir), { log: () => {} })
  } catch (e) {
    skip = `Debian's 6.12 kernel could not be fetched (${(e as Error).message})`
  }
}, 300_000)

const ctHogs = parseScenario(JSON.stringify({
  name: 'vm smoke', topology: 'smp-2', durationMs: 1200,
  kernel: { profile: '6.12', preempt: 'voluntary' },
  variants: [{ name: 'base' }, { name: 'no-rtp', features: { RUN_TO_PARITY: false } }],
  workloads: [
    { type: 'cyclictest', name: 'cyclictest', threads: 1, periodUs: 2777, sliceUs: 1000 },
    { type: 'hog', name: 'hog', count: 2, cpus: [0], nice: 2 },
    { type: 'hog', name: 'hogb', count: 1, cpus: [1] }
  ]
}), 'vm-smoke.json')

/** The result minus what depends on the host's speed. */
const noWall = (v: unknown): string => JSON.stringify(v, (k, x) => (/wallMs$|WallMs$/.test(k) ? undefined : x))

/** QEMU processes started for `pid`'s runs (their -initrd lies in its run folder). */
function qemusOf(pid: number): number[] {
  const out: number[] = []
  for (const n of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const cmd = readFileSync(`/proc/${n}/cmdline`, 'utf8')
      if (cmd.includes('qemu-system') && cmd.includes(`schedlab-vm-${pid}-`)) out.push(Number(n))
    } catch {
      // gone
    }
  }
  return out
}

async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (cond()) return true
    await new Promise((r) => setTimeout(r, 100))
  }
  return cond()
}

describe('schedlab vm on a mainline kernel', () => {
  let first: VmRunOutput | null = null

  it('runs cyclictest against hogs with a sched_feat variant: the run --json object with source "vm"', async (ctx) => {
    if (skip) return ctx.skip(skip)
    first = await runVmScenario(ctHogs, { dataDir, seeds: 1 })
    expect(first.source).toBe('vm')
    expect(first.vm).toMatchObject({ kernel: expect.stringMatching(/^6\.12\./), image: expect.stringMatching(/^linux-image-6\.12/), accel: expect.stringMatching(/^(kvm|tcg)$/), cpus: 2, seeds: [1] })
    if (first.vm.accel === 'tcg') expect(first.vm.icount).toBe(2)
    const [base, flag] = first.variants
    expect(base).toMatchObject({ name: 'base', seed: 1, source: 'vm' })
    expect(base.vm).toMatchObject({ preempt: 'voluntary', featuresSet: [] })
    expect(flag.vm?.featuresSet).toEqual(['NO_RUN_TO_PARITY'])
    expect(flag.vm?.features).toContain('NO_RUN_TO_PARITY')
    expect(base.vm?.features).toContain('RUN_TO_PARITY')
    const ct = base.workloads.find((w) => w.name === 'cyclictest')!
    expect(ct.latencyUs.count).toBeGreaterThan(100)
    expect(ct.crossCheck?.tool).toBe('cyclictest')
    // every task of the run is in the trace: the hogs' threads on their CPUs only
    const hogs = base.tasks.filter((t) => t.workload === 'hog' && /^hog-\d$/.test(t.comm ?? ''))
    expect(hogs.length).toBe(2)
    for (const h of hogs) expect(h.cpuTimeMs).toBeGreaterThan(0)
    expect(base.cpus).toHaveLength(2)
    expect(base.stats.simulatedMs).toBeGreaterThanOrEqual(1200)
  }, 600_000)

  it('the same seed gives the same result under TCG with icount', async (ctx) => {
    if (skip) return ctx.skip(skip)
    if (!first) return ctx.skip('the first run failed')
    if (first.vm.accel !== 'tcg') return ctx.skip('KVM: runs follow the host and are not repeatable')
    const again = await runVmScenario(ctHogs, { dataDir, seeds: 1, variants: ['base'] })
    const [a, b] = [noWall(first.variants[0]), noWall(again.variants[0])]
    if (a !== b) {
      // keep both for a diff: which field moved tells what in the guest followed the host
      for (const [n, x] of [['first', a], ['again', b]]) writeFileSync(join(tmpdir(), `schedlab-vm-determinism-${n}.json`), JSON.stringify(JSON.parse(x), null, 1))
    }
    expect(b, `the two results are in ${join(tmpdir(), 'schedlab-vm-determinism-{first,again}.json')}`).toBe(a)
  }, 600_000)

  it('runs hackbench, a FIFO periodic task and a nice hog: hackbench time, the policy in the trace', async (ctx) => {
    if (skip) return ctx.skip(skip)
    const s = parseScenario(JSON.stringify({
      name: 'vm mix', topology: 'smp-2', durationMs: 1500,
      kernel: { profile: '6.12' },
      workloads: [
        { type: 'hackbench', name: 'hackbench', groups: 1, fds: 4, loops: 50, mode: 'thread', ipc: 'pipe', repeat: true, sliceUs: 3000 },
        { type: 'periodic', name: 'rt', count: 1, runUs: 200, periodUs: 5000, policy: 'fifo', priority: 50 },
        { type: 'hog', name: 'nicehog', count: 1, nice: 10, cpus: [1] }
      ]
    }), 'vm-mix.json')
    const out = await runVmScenario(s, { dataDir })
    const v = out.variants[0] as VariantResult
    const hb = v.workloads.find((w) => w.name === 'hackbench')!
    expect(hb.timeSec).toBeGreaterThan(0)
    expect(v.workloads.find((w) => w.name === 'rt')!.latencyUs.count).toBeGreaterThan(50)
    // the hog's thread starts on CPU 1 (its process moved there before exec) and stays
    const hog = v.tasks.filter((t) => /^nicehog-0$/.test(t.comm ?? ''))
    expect(hog).toHaveLength(1)
    expect(hog[0].migrations).toBe(0)
  }, 600_000)

  it('a guest past its wall-clock budget is one clear failure, and its QEMU is gone', async (ctx) => {
    if (skip) return ctx.skip(skip)
    const t0 = Date.now()
    const err = await runVmScenario(ctHogs, { dataDir, variants: ['base'], bootBudgetSec: 1, budgetSec: 1 }).then(() => null, (e: unknown) => e)
    expect(isVmError(err, 'VmFailure')).toBe(true)
    expect((err as Error).message).toMatch(/did not boot within 1 s of wall time/)
    expect(Date.now() - t0).toBeLessThan(60_000)
    expect(qemusOf(process.pid)).toEqual([])
  }, 120_000)

  it('a kernel that does not boot is refused (exit 2) with the console\'s last words, and nothing is left behind', async (ctx) => {
    if (skip) return ctx.skip(skip)
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-badkernel-'))
    try {
      const fake = Buffer.alloc(1 << 16)
      fake.write('HdrS', 0x202, 'latin1')
      fake.writeUInt16LE(0x020c, 0x206) // boot protocol 2.12
      writeFileSync(join(dir, 'bzImage'), fake)
      const err = await runVmScenario(ctHogs, { dataDir, variants: ['base'], kernel: join(dir, 'bzImage'), bootBudgetSec: 20 }).then(() => null, (e: unknown) => e)
      expect(isVmError(err, 'VmRefusal'), String(err)).toBe(true)
      expect((err as Error).message).toMatch(/^the kernel .*bzImage did not boot: /)
      expect(qemusOf(process.pid)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  for (const sig of ['SIGTERM', 'SIGKILL'] as const) {
    it(`${sig} to schedlab vm while the guest boots: no QEMU process outlives it`, async (ctx) => {
      if (skip) return ctx.skip(skip)
      const dir = mkdtempSync(join(tmpdir(), 'schedlab-vmsig-'))
      try {
        const file = join(dir, 's.json')
        writeFileSync(file, JSON.stringify({ name: 'sig', topology: 'smp-2', durationMs: 30000, kernel: { profile: '6.12' }, workloads: [{ type: 'hog', name: 'hog', count: 2 }] }))
        const child = spawn(process.execPath, [join(ROOT, 'bin', 'schedlab.mjs'), 'vm', file, '--kernel', '6.12'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_CONFIG_HOME: join(dataDir, '..') } })
        let stderr = ''
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
        const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
        expect(await until(() => qemusOf(child.pid!).length > 0, 120_000), stderr).toBe(true)
        child.kill(sig)
        const code = await exited
        if (sig === 'SIGTERM') {
          expect(code, stderr).toBe(130)
          expect(stderr).toMatch(/cancelled; the guest is stopped/)
        }
        expect(await until(() => qemusOf(child.pid!).length === 0, 15_000)).toBe(true)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }, 240_000)
  }
})
