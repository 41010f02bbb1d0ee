import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { RunStore } from './run-store'
import { qemuUnavailableReason } from '../vm/qemu'
import { VmService } from './vm-service'

/** The workbench's VM runs: what it offers, and what it refuses before any guest starts. */
describe('VmService', () => {
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-vmsvc-'))
  const svc = new VmService({ store: {} as RunStore, emit: () => {}, version: 'test', dataDir: dir })
  const text = (o: Record<string, unknown>): string => JSON.stringify({ name: 'vm service', durationMs: 500, workloads: [{ type: 'cyclictest', name: 'ct' }], ...o })

  it('offers the Debian kernels by series, marked cached or fetched on first use, and says why when VMs cannot run', async () => {
    const a = await svc.available()
    expect(a.kernels.map((k) => k.kernel)).toEqual(['6.12', '7.2'])
    expect(a.kernels.every((k) => !k.cached && /fetched on first use/.test(k.label))).toBe(true)
    const why = qemuUnavailableReason()
    expect(a.available).toBe(why === null)
    if (why) expect(a.reason).toBe(why)
    else expect(a.accel).toMatch(/^(kvm|tcg): /)
  })

  it('refuses, with one problem and no guest, a topology QEMU cannot express, a model-only patch, a bzImage that is not one', async () => {
    const cases: [Record<string, unknown>, string | undefined, RegExp][] = [
      [{ topology: 'rb5' }, undefined, /asymmetric CPU capacities/],
      [{ topology: 'smp-2', variants: [{ name: 'p', patches: ['dd-neglag'] }] }, '6.12', /exist only in the model/],
      [{ topology: 'smp-2' }, join(dir, 'no-bzImage'), /no such file/]
    ]
    for (const [o, kernel, msg] of cases) {
      const r = await svc.start({ text: text(o), file: 'x.json', ...(kernel ? { kernel } : {}) })
      expect(r.ok).toBe(false)
      if (r.ok) continue
      expect(r.problem.message).toMatch(qemuUnavailableReason() ? /not installed|needs Linux/ : msg)
    }
    expect(svc.running()).toBe(false)
    rmSync(dir, { recursive: true, force: true })
  })
})
