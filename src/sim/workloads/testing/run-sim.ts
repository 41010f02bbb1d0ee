import { simulate } from '../../index'
import { expandRuns, parseScenario } from '../../scenario'
import type { VariantResult } from '../../../shared/result'

/** Tests: parse scenario text and simulate one of its variants on the real kernel model. */
export function simulateText(text: string, variant = 0, seed = 1): VariantResult {
  const run = expandRuns(parseScenario(text, 'test.json'))[variant]
  return simulate(run.scenario, run.variantIndex, seed)
}

/** N identical CPUs whose only idle state exits in 1 us: timings close to the programs' own. */
export function fastCpus(n: number, exitLatencyUs = 1): object {
  return { name: `fast-${n}`, clusters: [{ name: 'c', cpus: n, capacity: 1024, idleStates: [{ name: 'WFI', exitLatencyUs, targetResidencyUs: 1 }] }] }
}

export function scenarioText(workloads: object[], topology: object | string = fastCpus(2), durationMs = 100, extra: object = {}): string {
  return JSON.stringify({ topology, durationMs, workloads, ...extra })
}

/** An rt-app workload alone; no timer slack, so sleeps end exactly when asked. */
export function rtappScenario(tasks: object, cpus = 2, durationMs = 100, global: object = {}): string {
  return scenarioText([{ type: 'rt-app', tasks, global }], fastCpus(cpus), durationMs, { kernel: { timerSlackUs: 0 } })
}

export function threadOf(r: VariantResult, name: string) {
  const t = r.workloads[0].threads?.find((x) => x.name === name)
  if (!t) throw new Error(`no thread ${name}: ${r.workloads[0].threads?.map((x) => x.name).join(', ')}`)
  return t
}
