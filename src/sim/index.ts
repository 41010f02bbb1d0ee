/**
 * Entry point of the simulator: one scenario variant with one seed -> one result.
 * Pure: no I/O; wall-clock figures only in `stats.wallMs`.
 */
import type { Scenario } from './scenario/types'
import type { CpuResult, TaskResult, VariantResult, WorkloadResult } from '../shared/result'
import { buildTopology } from './kernel/topology'
import { resolveKernelConfig } from './scenario/kernel-config'
import { Kernel } from './kernel/core'
import { FairSched } from './kernel/fair-sched'
import { createWorkload } from './workloads'
import type { WorkloadHost, WorkloadInstance } from './workloads/types'
import { LogHistogram } from './metrics/histogram'
import { LatencyBatches } from './metrics/batches'
import { evaluatePatch } from './patch-api/evaluate'
import { installPatches } from './patch-api/install'

export interface RunHooks {
  /** Called every few thousand events with the simulated time reached. */
  onProgress?(simNs: number, durationNs: number): void
  /** Polled every few thousand events; true stops the run early (cancel). */
  shouldStop?(): boolean
  /** Called after the kernel is built and before workloads start: install placement, probes. */
  configure?(k: Kernel): void
  /**
   * Simulate this long first and discard it (a replica's warm-up, src/sim/replicas.ts): the
   * result measures the scenario's durationMs after it.
   */
  warmupMs?: number
  /**
   * Where patch hooks publish the hook being run (src/sim/patch-api/install.ts): a shared
   * Int32Array the host's watchdog reads.
   */
  patchMonitor?: Int32Array
}

export interface SimulationRun {
  kernel: Kernel
  workloads: WorkloadInstance[]
  result: VariantResult
}

/** Run one variant of a scenario with one seed. */
export function simulate(scenario: Scenario, variantIndex: number, seed: number, hooks: RunHooks = {}): VariantResult {
  return simulateDetailed(scenario, variantIndex, seed, hooks).result
}

/** Like simulate(), but also returns the kernel and workloads for inspection (tests, traces). */
export function simulateDetailed(scenario: Scenario, variantIndex: number, seed: number, hooks: RunHooks = {}): SimulationRun {
  const wallStart = performance.now()
  const topo = buildTopology(scenario.topology)
  const variant = scenario.variants[variantIndex]
  const cfg = resolveKernelConfig(scenario.kernel, variant, topo.cpus.length, topo.spec.costs, topo.spec.arch)
  const k = new Kernel(topo, cfg, seed, 64)
  const fs = FairSched.install(k)
  const loaded = (variant.userPatches ?? []).map((src) => evaluatePatch(src, seed))
  const patched = installPatches(k, fs, loaded, {
    features: variant.features, patchParams: variant.patchParams,
    workloadNames: scenario.workloads.map((w) => w.name), monitor: hooks.patchMonitor
  })
  hooks.configure?.(k)
  const durationNs = Math.round(scenario.durationMs * 1e6)
  const workloads = scenario.workloads.map((w, i) => createWorkload(w, i))
  const host: WorkloadHost = {
    createTask: (attrs, program, startCpu) => k.createTask(attrs, program, startCpu ?? -1),
    ctx: k,
    ncpus: topo.cpus.length,
    capacities: topo.cpus.map((c) => c.capacityOrig),
    durationNs,
    costs: cfg.costs,
    histogram: () => new LogHistogram(),
    cpuLatencyQos: (us) => {
      k.cpuLatencyQosNs = Math.min(k.cpuLatencyQosNs, Math.max(0, Math.round(us * 1000)))
    },
    warn: (m) => {
      if (!k.warnings.includes(m)) k.warnings.push(m)
    },
    at: (t, fn) => k.at(t, fn),
    stallCpu: (cpu, ns) => k.stallCpu(cpu, ns),
    timerDelay: (meanNs, sigma) => k.setTimerDelay(meanNs, sigma),
    coalesce: cfg.coalesce
  }
  for (const w of workloads) w.setup(host)
  k.wakeupLatency = workloads.map(() => new LogHistogram())
  const warmupNs = Math.max(0, Math.round((hooks.warmupMs ?? 0) * 1e6))
  const allDone = (): boolean => workloads.length > 0 && workloads.every((w) => w.done())
  const stop = (): boolean => allDone() || (hooks.shouldStop?.() ?? false)
  const progress = hooks.onProgress ? (now: number) => hooks.onProgress!(now, warmupNs + durationNs) : null
  // an exception under a patch hook is the patch's problem, named with its file, line and hook
  const run = (until: number): number => {
    if (loaded.length === 0) return k.runUntil(until, stop, progress)
    try {
      return k.runUntil(until, stop, progress)
    } catch (err) {
      throw patched.errorOf(err)
    }
  }
  if (warmupNs > 0) {
    run(warmupNs)
    k.resetStats()
    k.placement.resetStats?.()
    for (const w of workloads) w.resetStats?.(k.now)
  }
  // every workload: tasks may be created later in the run (50 kB each)
  k.latencyBatches = new LatencyBatches(workloads.map(() => true), durationNs, warmupNs)
  const end = run(warmupNs + durationNs)
  const result = collectResult(k, scenario, variantIndex, seed, workloads, host, end, performance.now() - wallStart, warmupNs)
  k.placement.report?.(result)
  if (loaded.length > 0) {
    result.patchSources = loaded.map((l) => ({ name: l.patch.name, file: l.src.file, sha256: l.src.sha256, source: l.src.source }))
  }
  return { kernel: k, workloads, result }
}

const r3 = (x: number): number => Math.round(x * 1000) / 1000

function collectResult(
  k: Kernel, scenario: Scenario, variantIndex: number, seed: number,
  workloads: WorkloadInstance[], host: WorkloadHost, endNs: number, wallMs: number, warmupNs = 0
): VariantResult {
  const measuredNs = endNs - warmupNs
  const simNs = Math.max(1, measuredNs)
  const execBase = k.sumExecBase
  const tasks: TaskResult[] = []
  const perWorkload = workloads.map(() => new LogHistogram())
  for (let t = 0; t < k.ntasks; t++) {
    const a = k.attrs[t]
    const h = k.latency[t]
    if (a.recordLatency && a.workload >= 0 && a.workload < perWorkload.length) perWorkload[a.workload].merge(h)
    tasks.push({
      name: a.name,
      workload: workloads[a.workload]?.name ?? '',
      cpuTimeMs: r3((k.sumExec[t] - (execBase !== null && t < execBase.length ? execBase[t] : 0)) / 1e6),
      latencyUs: h.summaryUs(),
      migrations: k.nrMigrations[t],
      contextSwitches: k.nrSwitches[t],
      wakeups: k.nrWakeups[t],
      lastCpu: k.taskCpu[t]
    })
  }
  const wl: WorkloadResult[] = workloads.map((w, i) => {
    const out: WorkloadResult = {
      name: w.name,
      type: w.type,
      latencyUs: perWorkload[i].summaryUs(),
      latencyHist: perWorkload[i].dataUs()
    }
    const batches = k.latencyBatches?.dataOf(i)
    if (batches) out.latencyBatches = batches
    const wake = k.wakeupLatency?.[i]
    if (wake && wake.count > 0) out.wakeupLatencyUs = wake.summaryUs()
    w.report(host, out)
    return out
  })
  const cpus: CpuResult[] = k.topo.cpus.map((c) => ({
    id: c.id,
    cluster: c.clusterName,
    busyPct: r3((k.busyNs[c.id] / simNs) * 100),
    sysPct: r3((k.sysNs[c.id] / simNs) * 100)
  }))
  let sys = 0
  for (let c = 0; c < k.ncpus; c++) sys += k.sysNs[c]
  return {
    name: scenario.variants[variantIndex].name,
    seed,
    stats: {
      events: k.events,
      wallMs: Math.round(wallMs),
      simulatedMs: r3(measuredNs / 1e6),
      ...(warmupNs > 0 ? { warmupMs: r3(warmupNs / 1e6), warmupEvents: k.warmupEvents } : {}),
      contextSwitches: k.contextSwitches,
      migrations: k.migrations,
      wakeups: k.wakeups,
      sysPct: r3((sys / (simNs * k.ncpus)) * 100)
    },
    workloads: wl,
    tasks,
    cpus,
    unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } },
    counters: { ...k.counters },
    warnings: [...k.warnings]
  }
}
