import { resolve } from 'node:path'
import type { VmArgs } from './args'
import { InputError } from './errors'
import { loadScenario } from './scenario-input'
import { defaultDataDir } from '../services/data-dir'
import { renderRunText } from './format'
import { measuredCommand } from './measured'
import type { CliIo } from './io'
import type { VariantResult, VmRecord } from '../shared/result'
import { isRealError } from '../real/errors'
import { isVmError } from '../vm/errors'
import { runVmScenario, type VmRunOutput } from '../vm/runner'

/**
 * `schedlab vm SCENARIO`: the scenario's runs on a mainline kernel in QEMU (src/vm). Refusals
 * (a topology QEMU cannot express, a model-only patch, a tool or package missing, a kernel
 * that does not boot) exit 2 with one line; failures of the machine (a hung guest, a full
 * cache disk) exit 1 with one line; Ctrl+C or SIGTERM stops QEMU and exits 130.
 */
export async function vmCommand(a: VmArgs, io: CliIo): Promise<number> {
  const s = loadScenario(a.file, io, { durationMs: a.durationMs, sets: a.sets })
  try {
    return await measuredCommand<VmRunOutput>(io, { stopping: 'schedlab vm: stopping the guest', scenario: s, out: a.out, json: a.json, render: (out) => renderRunText(out) + renderVm(out.vm, out.variants) }, (signal) =>
      runVmScenario(s, {
        kernel: a.kernel,
        variants: a.variants,
        seed: a.seed,
        seeds: a.seeds,
        durationMs: a.durationMs,
        dataDir: a.dataDir ? resolve(a.dataDir) : defaultDataDir(),
        traceDir: a.trace ? a.out ?? '.' : undefined,
        bufferKb: a.bufferKb,
        budgetSec: a.timeoutSec,
        signal,
        log: (l) => io.err(`${l}\n`)
      })
    )
  } catch (e) {
    if (isVmError(e, 'VmRefusal') || isRealError(e, 'RealRefusal')) throw new InputError(`vm: ${(e as Error).message}`)
    if (isVmError(e, 'VmCancelled')) {
      io.err('schedlab vm: cancelled; the guest is stopped\n')
      return 130
    }
    if (isVmError(e, 'VmFailure')) {
      io.err(`schedlab: vm: ${(e as Error).message}\n`)
      return 1
    }
    throw e
  }
}

function renderVm(vm: VmRecord, variants: VariantResult[]): string {
  const lines = [`vm: Linux ${vm.kernel} (${vm.image}), ${vm.cpus} vCPUs, ${vm.accel}${vm.icount !== null ? ` icount shift ${vm.icount}` : ''}, preempt=${String(vm.preempt ?? '?')}, seeds ${vm.seeds.join(', ')}`]
  for (const v of variants) {
    const r = v.vm
    const cc = v.workloads.flatMap((w) => (w.crossCheck ? [`${w.name} vs ${w.crossCheck.tool}'s own histogram (${w.crossCheck.samples} samples): within ${w.crossCheck.maxAbsDiffUs} us`] : []))
    const feats = Array.isArray(r?.featuresSet) && r.featuresSet.length > 0 ? `sched_feat ${(r.featuresSet as string[]).join(' ')}; ` : ''
    lines.push(`${v.name}, seed ${v.seed}: ${feats}boot ${((Number(r?.bootWallMs) || 0) / 1000).toFixed(1)} s, run ${((Number(r?.wallMs) || 0) / 1000).toFixed(1)} s of wall time${cc.length ? '; ' + cc.join('; ') : ''}`)
  }
  return lines.join('\n') + '\n'
}
