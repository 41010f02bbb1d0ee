import { ExplainError, explainIdleEvent, explainSample, parseSelector, renderExplanation } from '../sim/explain'
import type { ExplainArgs } from './args'
import { InputError } from './errors'
import { planRuns } from './commands'
import type { CliIo } from './io'

/** `schedlab explain`: why one latency sample of one workload was what it was. */
export async function explainCommand(a: ExplainArgs, io: CliIo): Promise<number> {
  const { scenario, runs } = planRuns({
    file: a.file, sets: a.sets, variants: a.variant !== undefined ? [a.variant] : [], seed: a.seed, seeds: 1,
    durationMs: a.durationMs, topology: a.topology, maxEvents: a.maxEvents, published: a.published,
    json: a.json, trace: false, traceFormat: 'ftrace', perSeed: false, patches: []
  }, io)
  if (a.variant === undefined && scenario.variants.length > 1) {
    throw new InputError(`explain: --variant is needed (variants: ${scenario.variants.map((v) => v.name).join(', ')})`)
  }
  const run = runs[0]
  const workload = a.workload ?? (run.scenario.workloads.length === 1 ? run.scenario.workloads[0].name : undefined)
  if (workload === undefined && !a.idle) throw new InputError(`explain: --workload is needed (workloads: ${run.scenario.workloads.map((w) => w.name).join(', ')})`)
  const started = io.now()
  let lastPrint = 0
  let printed = false
  try {
    const base = {
      scenario: run.scenario, variantIndex: run.variantIndex, seed: run.seed,
      onProgress(pass: 1 | 2, simNs: number, durationNs: number) {
        const now = io.now()
        if (now - started < 1000 || now - lastPrint < (io.errIsTty ? 200 : 2000)) return
        lastPrint = now
        printed = true
        const line = `explain: ${pass === 1 ? 'first pass (finding it)' : 'recording around it'}: ${Math.min(100, (simNs / durationNs) * 100).toFixed(0)}% (${((now - started) / 1000).toFixed(1)} s)`
        io.err(io.errIsTty ? `\r${line}\u001b[K` : `${line}\n`)
      }
    }
    const e = a.idle
      ? explainIdleEvent({ ...base, bucket: a.idle.bucket, index: a.idle.index })
      : explainSample({ ...base, workload: workload!, sample: parseSelector(a.sample) })
    if (printed && io.errIsTty) io.err('\r\u001b[K')
    io.out(a.json ? JSON.stringify(e, null, 2) + '\n' : renderExplanation(e))
    return 0
  } catch (err) {
    if (err instanceof ExplainError) throw new InputError(`explain: ${err.message}`)
    throw err
  }
}
