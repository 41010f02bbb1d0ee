import { buildTopology } from '../../kernel/topology'
import { parseScenario } from '../../scenario'
import { createToolWorkload } from '../registry'
import { runFake, type FakeOptions, type FakeRun } from './fake-kernel'

/** Parse a scenario and run its workloads on the fake kernel (unit tests of task programs). */
export function runScenarioOnFake(text: string, opts: Partial<FakeOptions> = {}): FakeRun {
  const s = parseScenario(text, 'test.json')
  const capacities = buildTopology(s.topology).cpus.map((c) => c.capacityOrig)
  const instances = s.workloads.map((w, i) => {
    const inst = createToolWorkload(w, i)
    if (!inst) throw new Error(`no program for workload type ${w.type}`)
    return inst
  })
  return runFake(instances, { capacities, durationNs: s.durationMs * 1e6, ...opts })
}

/** A scenario around one rt-app tasks object. */
export function rtappScenario(tasks: object, topology = 'smp-2', durationMs = 100, global: object = {}): string {
  return JSON.stringify({ topology, durationMs, workloads: [{ type: 'rt-app', tasks, global }] })
}
