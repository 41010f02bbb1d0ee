/**
 * Builders for tests and benchmarks: a normalized Scenario from a few fields, without going
 * through the scenario parser.
 */
import type { KernelSpec, Scenario, VariantSpec } from './scenario/types'
import type { WorkloadSpec } from './scenario/workload-specs'
import type { TopologySpec } from './kernel/topology-types'
import { smpSpec } from './kernel/topology'
import { SCHED_NORMAL, type TaskAttrs, type TaskContext, type TaskProgram } from './kernel/api'
import { ScenarioError } from './scenario/errors'

export interface QuickScenario {
  name?: string
  topology?: TopologySpec | number
  kernel?: Partial<KernelSpec>
  durationMs?: number
  seed?: number
  variants?: Partial<VariantSpec>[]
  workloads: WorkloadSpec[]
}

export function quickScenario(q: QuickScenario): Scenario {
  const topology = typeof q.topology === 'number' || q.topology === undefined ? smpSpec(q.topology ?? 1) : q.topology
  return {
    name: q.name ?? 'test',
    topology,
    kernel: { hz: 250, profile: 'tip-2026', features: {}, ...q.kernel },
    durationMs: q.durationMs ?? 1000,
    seed: q.seed ?? 1,
    seeds: 1,
    variants: (q.variants ?? [{ name: 'base' }]).map((v, i) => ({ name: v.name ?? `v${i}`, patches: v.patches ?? [], features: v.features ?? {}, kernel: v.kernel })),
    workloads: q.workloads
  }
}

/** One step of a scripted task program (tests). */
export type ScriptStep =
  | { run: number }
  | { runKernel: number; pointEvery?: number }
  | { runWall: number }
  | { sleep: number }
  | { sleepUntil: number }
  | { block: true }
  | { wake: () => number; flags?: number }
  | { call: (k: TaskContext, task: number) => void }
  | { exit: true }

/**
 * A program that walks through `steps` (times in ns), looping when `loop` is set. Wakes and
 * calls are side effects; the other steps end the program's turn.
 */
export function scripted(steps: ScriptStep[], loop = true): TaskProgram {
  let i = 0
  return {
    step(task: number, k: TaskContext): void {
      for (let guard = 0; guard < 10_000; guard++) {
        if (i >= steps.length) {
          if (!loop) {
            k.exit(task)
            return
          }
          i = 0
        }
        const s = steps[i++]
        if ('run' in s) return k.run(task, s.run)
        if ('runKernel' in s) return k.runKernel(task, s.runKernel, s.pointEvery ?? 0)
        if ('runWall' in s) return k.runFor(task, s.runWall)
        if ('sleep' in s) return k.sleepFor(task, s.sleep)
        if ('sleepUntil' in s) return k.sleepUntil(task, s.sleepUntil)
        if ('block' in s) return k.block(task)
        if ('exit' in s) return k.exit(task)
        if ('wake' in s) k.wake(s.wake(), s.flags ?? 0)
        else s.call(k, task)
      }
      throw new Error('scripted program loops without acting')
    }
  }
}

/** TaskAttrs with defaults for tests. */
export function testAttrs(name: string, over: Partial<TaskAttrs> = {}): TaskAttrs {
  return {
    name, workload: 0, policy: SCHED_NORMAL, nice: 0, rtPriority: 0, sliceNs: 0, cpus: null,
    uclampMin: 0, uclampMax: 1024, startNs: 0, recordLatency: true, ...over
  }
}

/**
 * A periodic program for tests: sleep to the next multiple of `periodNs` counted from
 * `firstNs`, then run `runNs` (CPU work, or wall time when `wall`), and again.
 */
export function gridProgram(periodNs: number, runNs: number, firstNs = periodNs, wall = false): TaskProgram {
  let next = firstNs
  let working = false
  return {
    step(t: number, k: TaskContext): void {
      if (working) {
        working = false
        while (next <= k.now) next += periodNs
        k.sleepUntil(t, next)
      } else if (k.now < next) {
        k.sleepUntil(t, next)
      } else {
        working = true
        if (wall) k.runFor(t, runNs)
        else k.run(t, runNs)
      }
    }
  }
}

/** The ScenarioError `fn` throws (fails the test when it throws nothing or something else). */
export function issuesOf(fn: () => unknown): ScenarioError {
  try {
    fn()
  } catch (e) {
    if (e instanceof ScenarioError) return e
    throw e
  }
  throw new Error('expected a ScenarioError')
}
