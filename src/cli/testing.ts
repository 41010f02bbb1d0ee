import { buildTopology } from '../sim/kernel/topology'
import type { Scenario } from '../sim/scenario'
import { createToolWorkload } from '../sim/workloads/registry'
import { FakeKernel } from '../sim/workloads/testing/fake-kernel'
import type { VariantResult } from '../shared/result'
import type { SimHooks } from './simulator'

/**
 * Test-only stand-in for simulate(): the workload programs on the fake kernel of
 * src/sim/workloads/testing, shaped as a VariantResult, so the CLI plumbing is tested on real
 * program output. The variant's `features.FAKE_WAKEUP_US` (a test knob) sets the wakeup cost.
 */
export function simulateOnFake(s: Scenario, variantIndex: number, seed: number, hooks: SimHooks = {}): VariantResult {
  const topo = buildTopology(s.topology)
  const v = s.variants[variantIndex]
  const wakeupNs = 1000 * (1 + variantIndex) + seed
  const k = new FakeKernel({ capacities: topo.cpus.map((c) => c.capacityOrig), durationNs: s.durationMs * 1e6, wakeupNs })
  const run = k.runAll(s.workloads.map((w, i) => createToolWorkload(w, i)!))
  hooks.onProgress?.(run.now, s.durationMs * 1e6)
  return {
    name: v.name,
    seed,
    stats: { events: run.events, wallMs: 0, simulatedMs: run.now / 1e6, contextSwitches: 0, migrations: 0, wakeups: 0, sysPct: 0 },
    workloads: run.workloads,
    tasks: run.tasks.map((t) => ({ name: t.name, workload: s.workloads[t.workload].name, cpuTimeMs: t.cpuTimeNs / 1e6, latencyUs: t.latency.summaryUs(), migrations: 0, contextSwitches: 0, wakeups: t.latency.count, lastCpu: t.cpus[0] ?? 0 })),
    cpus: topo.cpus.map((c) => ({ id: c.id, cluster: c.clusterName, busyPct: 0 })),
    unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
  }
}
