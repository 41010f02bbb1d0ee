/**
 * sched_feat flags of the fair and RT classes, with the kernel's default for each modeled
 * kernel profile. One registry serves the kernel model, `schedlab patches`, the scenario
 * schema and the editor's completion.
 */

export type KernelProfile = '6.6' | '6.12' | '6.17' | '6.19' | 'tip-2026'

export const KERNEL_PROFILES: readonly KernelProfile[] = ['6.6', '6.12', '6.17', '6.19', 'tip-2026']

/** Ordinal of a profile, so code can say `prof >= P_6_17`. */
export const P_6_6 = 0
export const P_6_12 = 1
export const P_6_17 = 2
export const P_6_19 = 3
export const P_TIP26 = 4

export function profileOrdinal(p: KernelProfile): number {
  return KERNEL_PROFILES.indexOf(p)
}

/** Preemption models (CONFIG_PREEMPT_NONE / _VOLUNTARY / PREEMPT / PREEMPT_LAZY), in this order. */
export const PREEMPT_MODELS = ['none', 'voluntary', 'full', 'lazy'] as const
export type PreemptModelName = (typeof PREEMPT_MODELS)[number]
export const PREEMPT_NONE = 0
export const PREEMPT_VOLUNTARY = 1
export const PREEMPT_FULL = 2
export const PREEMPT_LAZY = 3

export interface FeatureDoc {
  name: string
  /** Default value per profile ordinal (index = profile ordinal). */
  defaults: readonly boolean[]
  doc: string
}

const all = (v: boolean): boolean[] => [v, v, v, v, v]
/** Present (true) from profile ordinal `from` on, false before. */
const from = (p: number): boolean[] => [0, 1, 2, 3, 4].map((i) => i >= p)

export const SCHED_FEATURES: readonly FeatureDoc[] = [
  { name: 'PLACE_LAG', defaults: all(true), doc: 'Keep a waking task\'s lag (scaled by (W+w)/W) when placing it; off = join at V with zero lag.' },
  { name: 'PLACE_DEADLINE_INITIAL', defaults: all(true), doc: 'A forked task starts with half a slice to its deadline.' },
  { name: 'PLACE_REL_DEADLINE', defaults: from(P_6_12), doc: 'Keep the relative deadline across a migration or attribute change.' },
  { name: 'RUN_TO_PARITY', defaults: all(true), doc: 'Protect the running task\'s slice (up to the queue\'s min slice on 6.17+) against wakeup preemption.' },
  { name: 'PREEMPT_SHORT', defaults: from(P_6_12), doc: 'A waking task with a shorter slice may cancel the running task\'s protection.' },
  { name: 'NEXT_BUDDY', defaults: all(false), doc: 'Prefer the last wakee as next task (cache locality); off by default since 6.19-rc.' },
  { name: 'PICK_BUDDY', defaults: from(P_6_17), doc: 'Allow pick_eevdf to return cfs_rq->next when it is eligible.' },
  { name: 'CACHE_HOT_BUDDY', defaults: all(true), doc: 'task_hot treats the next buddy as cache hot when the destination is busy.' },
  { name: 'DELAY_DEQUEUE', defaults: from(P_6_12), doc: 'An ineligible task that sleeps stays queued until its lag is zero or it is picked.' },
  { name: 'DELAY_ZERO', defaults: from(P_6_12), doc: 'A delayed-dequeued task leaves with its positive lag cleared.' },
  { name: 'PARANOID_AVG', defaults: all(false), doc: 'Overflow-checked avg_vruntime sums (tip 2026); numerically identical in this model.' },
  { name: 'WAKEUP_PREEMPTION', defaults: all(true), doc: 'A waking fair task may preempt the running fair task.' },
  { name: 'HRTICK', defaults: all(false), doc: 'Arm a high-resolution timer at the end of the running task\'s slice (at pick, enqueue and dequeue) instead of waiting for the tick. On by default in tip-2026 on topologies whose arch has GENERIC_ENTRY (x86_64, riscv, loongarch, s390: CONFIG_HRTIMER_REARM_DEFERRED), off elsewhere.' },
  { name: 'HRTICK_DL', defaults: all(false), doc: 'hrtick for deadline tasks (no effect: SCHED_DEADLINE is not modeled). Default as HRTICK.' },
  { name: 'NONTASK_CAPACITY', defaults: all(true), doc: 'RT/IRQ time reduces the capacity seen by the fair class.' },
  { name: 'TTWU_DEQUEUE', defaults: all(false), doc: 'RFC (not merged): a woken sched_delayed task is fully dequeued and goes through CPU selection instead of being requeued in place (ttwu_runnable, ENQUEUE_DELAYED).' },
  { name: 'TTWU_QUEUE', defaults: all(true), doc: 'A wakeup to a CPU of another LLC, or to an idle CPU, goes on that CPU\'s wake list and is activated by its IPI handler (rq->ttwu_pending makes it non-idle meanwhile); off, the waker enqueues directly.' },
  { name: 'SIS_UTIL', defaults: all(true), doc: 'Limit select_idle_cpu\'s scan by the LLC\'s utilization (nr_idle_scan).' },
  { name: 'RT_PUSH_IPI', defaults: all(true), doc: 'A CPU whose RT priority drops IPIs the RT-overloaded CPUs to push their waiting tasks instead of pulling them under their lock (one IPI later).' },
  { name: 'RT_RUNTIME_SHARE', defaults: all(false), doc: 'Borrow RT runtime between CPUs under RT throttling. No effect in this model: RT throttling is not modeled (the fair server is).' },
  { name: 'LB_MIN', defaults: all(false), doc: 'Skip tiny-load tasks in detach_tasks while the balance has not failed.' },
  { name: 'ATTACH_AGE_LOAD', defaults: all(true), doc: 'attach_entity_cfs_rq() ages the load before attaching (cgroup moves, switched_to_fair). No effect in this model: no cgroups, and a class change is a plain dequeue/enqueue.' },
  { name: 'WA_IDLE', defaults: all(true), doc: 'wake_affine: prefer an idle waker or previous CPU.' },
  { name: 'WA_WEIGHT', defaults: all(true), doc: 'wake_affine: compare the loads of the waker and previous CPUs.' },
  { name: 'WA_BIAS', defaults: all(true), doc: 'wake_affine: bias the load comparison towards the previous CPU by half the imbalance_pct.' },
  { name: 'UTIL_EST', defaults: all(true), doc: 'Use util_est (the utilization at the last sleep) in placement and frequency selection.' },
  { name: 'LATENCY_WARN', defaults: all(false), doc: 'Warn on long need_resched latency (no effect on scheduling).' },
  { name: 'NI_RANDOM', defaults: from(P_6_19), doc: 'Proportional newidle balance: skip newidle balance at random by its success ratio (6.19; also 6.18.5+ stable, which "profile": "host" turns on).' },
  { name: 'NI_RATE', defaults: from(P_6_19), doc: 'Newidle success ratio also rises with the time since the last update.' },
  { name: 'HZ_BW', defaults: all(true), doc: 'nohz_full bandwidth tick (no effect in this model).' },
  { name: 'FAIR_SERVER', defaults: from(P_6_12), doc: 'Not a sched_feat: the 6.12+ deferred fair deadline server (50 ms every 1000 ms) that keeps RT tasks from starving fair ones.' },
  { name: 'SCHEDUTIL', defaults: all(false), doc: 'Model switch: cpufreq governor schedutil (OPP from utilization, needed for EAS) instead of a fixed maximum frequency.' },
  { name: 'SD_BALANCE_WAKE', defaults: all(false), doc: 'Model switch: set SD_BALANCE_WAKE on every sched domain, so wakeups that are not wake-affine take the slow path (sched_balance_find_dst_cpu) as fork does.' },
  { name: 'ENERGY_AWARE', defaults: all(true), doc: 'sysctl kernel.sched_energy_aware: EAS wakeup placement when the platform allows it (asymmetric capacity, energy model, schedutil, no SMT).' },
  { name: 'LB_PROMOTE', defaults: all(false), doc: 'Seed 004 (Xin Zhao, RFC): promote load balance on low-HZ systems; see the lb-promote patches.' }
]

/** Names of every boolean switch the kernel model reads: sched_feat flags and patch switches. */
export type FeatureName = string
export type FeatureSet = Record<FeatureName, boolean>

export function defaultFeatures(profile: KernelProfile): FeatureSet {
  const ord = profileOrdinal(profile)
  const out: FeatureSet = {}
  for (const f of SCHED_FEATURES) out[f.name] = f.defaults[ord]
  return out
}
