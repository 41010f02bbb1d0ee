import { policyFromName, type TaskAttrs } from '../kernel/api'
import type { WorkloadCommon } from '../scenario/workload-specs'

/** Number of tasks a workload asks for (`count` or `threads`, default 1). */
export function taskCount(spec: WorkloadCommon): number {
  return Math.max(1, Math.trunc(spec.count ?? spec.threads ?? 1))
}

/** TaskAttrs from the fields every workload accepts (DESIGN.md: policy, nice/priority, slice...). */
export function commonAttrs(spec: WorkloadCommon, workload: number, name: string, startNs: number): TaskAttrs {
  const policy = policyFromName(spec.policy)
  const rt = spec.policy === 'fifo' || spec.policy === 'rr'
  return {
    name,
    workload,
    policy,
    nice: rt ? 0 : spec.nice ?? 0,
    rtPriority: rt ? spec.priority ?? 50 : 0,
    sliceNs: spec.sliceUs !== undefined ? Math.round(spec.sliceUs * 1000) : 0,
    cpus: spec.cpus ?? null,
    // RT tasks default to a uclamp_min of 1024 (sysctl_sched_uclamp_util_min_rt_default)
    uclampMin: spec.uclampMin ?? (rt ? 1024 : 0),
    uclampMax: spec.uclampMax ?? 1024,
    startNs,
    recordLatency: true,
    ...(spec.timerSlackUs !== undefined ? { timerSlackNs: Math.round(spec.timerSlackUs * 1000) } : {})
  }
}

export function delayNs(spec: WorkloadCommon): number {
  return Math.round((spec.delayUs ?? 0) * 1000)
}
