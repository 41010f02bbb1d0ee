import { isRtPolicy, policyFromName, type PolicyName, type TaskAttrs } from '../kernel/api'
import type { WorkloadCommon } from '../scenario/types'
import type { StatSummary } from '../../shared/result'

export const US = 1000

/**
 * TaskAttrs of a task of a workload from the workload's common fields (policy, nice or
 * priority, slice, affinity, uclamp, start offset).
 */
export function attrsOf(spec: WorkloadCommon, workload: number, name: string, over: Partial<TaskAttrs> = {}): TaskAttrs {
  const policy = policyFromName(spec.policy as PolicyName | undefined)
  return {
    name,
    workload,
    policy,
    nice: isRtPolicy(policy) ? 0 : (spec.nice ?? 0),
    rtPriority: isRtPolicy(policy) ? (spec.priority ?? 10) : 0,
    sliceNs: !isRtPolicy(policy) && spec.sliceUs ? Math.round(spec.sliceUs * US) : 0,
    cpus: spec.cpus ?? null,
    uclampMin: spec.uclampMin ?? 0,
    uclampMax: spec.uclampMax ?? 1024,
    startNs: startOf(spec),
    recordLatency: true,
    ...over
  }
}

/** When a workload's tasks start: its delayUs, in ns. */
export function startOf(spec: WorkloadCommon): number {
  return Math.round((spec.delayUs ?? 0) * US)
}

/** Running count/min/max/sum of a per-iteration figure, O(1) memory. */
export class Stat {
  count = 0
  min = Infinity
  max = -Infinity
  sum = 0

  add(v: number): void {
    this.count++
    this.sum += v
    if (v < this.min) this.min = v
    if (v > this.max) this.max = v
  }

  /** In microseconds from nanoseconds, rounded to 0.001 us for stable JSON. */
  summaryUs(): StatSummary {
    if (this.count === 0) return { count: 0, min: 0, avg: 0, max: 0 }
    const r = (ns: number): number => Math.round(ns) / 1000
    return { count: this.count, min: r(this.min), avg: r(this.sum / this.count), max: r(this.max) }
  }
}
