import type { RealArgs } from './args'
import { InputError } from './errors'
import { loadScenario } from './scenario-input'
import { renderRunText } from './format'
import { measuredCommand } from './measured'
import type { CliIo } from './io'
import type { HostRecord, VariantResult } from '../shared/result'
import { realUnavailableReason, runRealScenario, type RealRunOutput } from '../real/runner'
import { RealCancelled, RealRefusal } from '../real/errors'
import { hostSpecs, hostTopologySpec } from '../real/host-specs'
import { detectHost } from '../real/host'
import { findTracefs } from '../real/tracefs'

/**
 * `schedlab real SCENARIO`: the scenario's runs on this machine's kernel (src/real). Refusals
 * (not Linux, no tracefs, a tool or compiler missing, a variant needing another kernel) exit 2
 * with one line; Ctrl+C stops the workloads, removes the trace instance and exits 130.
 */
export async function realCommand(a: RealArgs, io: CliIo): Promise<number> {
  const s = loadScenario(a.file, io, { durationMs: a.durationMs, sets: a.sets })
  try {
    return await measuredCommand<RealRunOutput>(io, { stopping: 'schedlab real: stopping: ending the workloads and removing the trace instance (Ctrl+C again to leave it to the helper)', scenario: s, out: a.out, json: a.json, render: (out) => renderRunText(out) + renderHost(out.host, out.variants) }, (signal) =>
      runRealScenario(s, {
        variants: a.variants,
        seed: a.seed,
        seeds: a.seeds,
        durationMs: a.durationMs,
        quiet: a.quietWaitSec === 0 ? false : { timeoutMs: (a.quietWaitSec ?? 60) * 1000 },
        traceDir: a.trace ? a.out ?? '.' : undefined,
        bufferKb: a.bufferKb,
        signal,
        log: (l) => io.err(`${l}\n`)
      })
    )
  } catch (e) {
    if (e instanceof RealRefusal) throw new InputError(`real: ${e.message}`)
    if (e instanceof RealCancelled) {
      io.err('schedlab real: cancelled; the workloads are stopped and the trace instance removed\n')
      return 130
    }
    throw e
  }
}

function renderHost(h: HostRecord, variants: VariantResult[]): string {
  const lines = [`host: Linux ${h.kernel}, ${h.cpus} CPUs, HZ ${h.hz ?? '?'}, preempt=${h.preempt ?? '?'}; load ${h.loadavg.before.join(' ')} -> ${h.loadavg.after.join(' ')}`]
  for (const v of variants) {
    const r = v.host as HostRecord
    const cc = v.workloads.flatMap((w) => (w.crossCheck ? [`${w.name} vs ${w.crossCheck.tool}'s own histogram (${w.crossCheck.samples} samples): within ${w.crossCheck.maxAbsDiffUs} us`] : []))
    lines.push(`${v.name}, repeat ${v.seed}: foreign CPU ${r.foreignCpuSec} s${r.contaminated ? ' (CONTAMINATED)' : ''}${cc.length ? '; ' + cc.join('; ') : ''}`)
  }
  return lines.join('\n') + '\n'
}

/** `schedlab topologies --host`: what this machine is as topology and kernel profile "host". */
export async function hostCommand(json: boolean, io: CliIo): Promise<number> {
  const specs = hostSpecs()
  if (!specs.topology || !specs.kernel) throw new InputError(`topologies --host: ${specs.unavailable ?? 'this machine could not be read'}`)
  const h = detectHost()
  const { cpuMap } = hostTopologySpec(h)
  const real = realUnavailableReason() ?? (process.getuid?.() === 0 ? null : 'real runs need root (tracefs instances)')
  const info = {
    host: { kernel: h.kernel, version: h.version, model: h.model, cpus: h.cpus, hz: h.hz, hzSource: h.hzSource, preempt: h.preempt, preemptSource: h.preemptSource, cpuidleDriver: h.cpuidleDriver, cpuidleGovernor: h.cpuidleGovernor, autogroup: h.autogroup, configSource: h.configSource },
    topology: specs.topology,
    cpuMap,
    kernel: specs.kernel,
    tracefs: findTracefs(),
    realRuns: real === null ? { possible: true } : { possible: false, reason: real }
  }
  if (json) {
    io.out(JSON.stringify(info, null, 2) + '\n')
    return 0
  }
  const t = specs.topology
  const lines = [`host: Linux ${h.kernel} (${h.version}), ${h.model || 'unknown CPU'}, ${h.cpus.length} online CPUs`]
  lines.push(`  topology "host": ${t.clusters.length} cluster(s)`)
  for (const c of t.clusters) lines.push(`    ${c.name}: ${c.cpus} CPUs, capacity ${c.capacity}${c.smt ? `, SMT${c.smt}` : ''}, LLC ${c.llc}, package ${c.package}, node ${c.node}; idle states ${(c.idleStates ?? []).map((s) => `${s.name} ${s.exitLatencyUs}/${s.targetResidencyUs} us`).join(', ') || 'none'}`)
  if (cpuMap.some((id, i) => id !== i)) lines.push(`    simulated CPU i = host CPU ${cpuMap.join(', ')}`)
  lines.push(`    cpuidle: ${h.cpuidleDriver ?? 'no driver'} / ${h.cpuidleGovernor ?? '-'}`)
  const k = specs.kernel
  lines.push(`  kernel profile "host": ${k.profile}, HZ ${k.hz}, preempt ${k.preempt ?? '(scenario default)'}`)
  for (const n of k.notes) lines.push(`    ${n}`)
  lines.push(`  autogroup: ${h.autogroup === null ? 'unknown' : h.autogroup ? 'on' : 'off'}; tracefs: ${info.tracefs ?? 'not mounted (a real run mounts it)'}; real runs: ${real === null ? 'possible' : `not possible: ${real}`}`)
  io.out(lines.join('\n') + '\n')
  return 0
}
