import { join } from 'node:path'
import type { RealArgs } from './args'
import { InputError } from './args'
import { loadScenario } from './commands'
import { renderRunText } from './format'
import type { CliIo } from './io'
import type { HostRecord, VariantResult } from '../shared/result'

/**
 * `schedlab real SCENARIO`: the scenario's runs on this machine's kernel (src/real). Refusals
 * (not Linux, no tracefs, a tool or compiler missing, a variant needing another kernel) exit 2
 * with one line; Ctrl+C stops the workloads, removes the trace instance and exits 130.
 */
export async function realCommand(a: RealArgs, io: CliIo): Promise<number> {
  // loaded on demand: the simulator's commands need none of this
  const { runRealScenario } = await import('../real/runner')
  const { RealCancelled, RealRefusal } = await import('../real/errors')
  const s = loadScenario(a.file, io, { durationMs: a.durationMs, sets: a.sets })
  const ac = new AbortController()
  let interrupts = 0
  const onSigint = (): void => {
    interrupts++
    if (interrupts === 1) io.err('\nschedlab real: stopping: ending the workloads and removing the trace instance (Ctrl+C again to leave it to the helper)\n')
    else process.exit(130)
    ac.abort()
  }
  process.on('SIGINT', onSigint)
  process.on('SIGTERM', onSigint)
  try {
    const out = await runRealScenario(s, {
      variants: a.variants,
      seed: a.seed,
      seeds: a.seeds,
      durationMs: a.durationMs,
      quiet: a.quietWaitSec === 0 ? false : { timeoutMs: (a.quietWaitSec ?? 60) * 1000 },
      traceDir: a.trace ? a.out ?? '.' : undefined,
      bufferKb: a.bufferKb,
      signal: ac.signal,
      log: (l) => io.err(`${l}\n`)
    })
    if (a.out) {
      io.mkdirp(a.out)
      io.writeFile(join(a.out, 'result.json'), JSON.stringify(out, null, 2) + '\n')
      io.writeFile(join(a.out, 'scenario.json'), JSON.stringify(s, null, 2) + '\n')
      io.err(`wrote ${join(a.out, 'result.json')} and scenario.json\n`)
    }
    io.out(a.json ? JSON.stringify(out, null, 2) + '\n' : renderRunText(out) + renderHost(out.host, out.variants))
    return 0
  } catch (e) {
    if (e instanceof RealRefusal) throw new InputError(`real: ${e.message}`)
    if (e instanceof RealCancelled) {
      io.err('schedlab real: cancelled; the workloads are stopped and the trace instance removed\n')
      return 130
    }
    throw e
  } finally {
    process.removeListener('SIGINT', onSigint)
    process.removeListener('SIGTERM', onSigint)
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
