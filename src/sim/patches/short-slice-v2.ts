import type { PatchDoc } from './types'

/**
 * Seed 001: "[PATCH 00/18 v2] Improving latency of short slice tasks" (Vincent Guittot,
 * 2026-10-02). Only the cover letter is public, so each part is modeled from its description;
 * the design choices are written here.
 *
 * - Its baseline already contains v1 patches 1-3 ("queued"): presets for seed 001 turn
 *   SS1_VPROT_MINSLICE, SS2_ALIGN_UPDATE and SS3_SHORT_BUDDY_TIE on in the base kernel (the
 *   series does not, so that a comparison with a tip baseline does not credit them to v2).
 *
 * Patches 1-2, lag (fair.ts decayEntityLag):
 * - 1 "Decay positive lag of sleeping entities", v2: "take into account cfs load but not
 *   migrated task yet". Modeled as decaying by sleep * 1024 / (cfs_rq load_avg + w): the PELT
 *   load average the reviewer proposed (it over-estimates the competing weight rather than
 *   under-estimating it), skipped for migrated tasks; positive lag is cleared after a sleep
 *   longer than 4 s (a third-party digest of v2).
 * - 2 "Reset lag when waking up on idle cpu", v2: "Reset lag if the CPU entered idle while
 *   task was sleeping". Modeled as: on a non-migrating wakeup, lag is cleared when the CPU's last
 *   idle entry is later than the task's last run on it.
 *
 * Patches 3-5, slice in CPU selection (select.ts):
 * - 3 is v1/6 (the cached min slice, moved into struct rq: no behaviour change) and 4 is v1/7
 *   (wake_affine_slice): same switches.
 * - 5, "Merge min_slice rq selection in select_idle_capacity() and select_idle_cpu()"
 *   (SSV2_SLICE_SCAN): no second scan. While select_idle_cpu() / select_idle_capacity() look
 *   for an idle CPU, every non-idle CPU they visit (within the same SIS_UTIL budget) whose
 *   shortest queued slice is longer than the wakee's, and that fits the wakee on asymmetric
 *   systems, is a candidate; "best" is the candidate whose shortest queued slice is the longest
 *   (the first one visited on ties). It is returned where v1 called select_slice_cpu(): when
 *   select_idle_capacity() finds nothing, and after the prev/recent_used_cpu fallbacks of the
 *   LLC path.
 *
 * Patches 6-11, the fair push mechanism (FAIR_PUSH, kernel/fair-push.ts):
 * - pushable tasks: queued, not running, not sched_delayed, allowed on more than one CPU; a
 *   task is marked by the policies of 12-14 and unmarked when it runs or leaves the runqueue.
 * - the push callback runs at the end of the wakeup that marked a task (task_woken) and at the
 *   end of __schedule(); "Add rq flag to tick parameters" / "Add force push task mechanism":
 *   every tick of a busy CPU pushes the tasks still marked (the forced push).
 * - "Prepare select_task_rq_fair() to be called for new cases" / "Support not wakeup case in
 *   select_idle_sibling": the destination comes from EAS when it applies; when that gives no
 *   CPU where the task runs first, from select_idle_sibling(p, task_cpu, task_cpu) in a
 *   not-wakeup form: recent_used_cpu is read but not rotated, the SIS_UTIL budget does not
 *   apply (it protects the wakeup fast path; a push is rare and needs a whole-LLC answer), and
 *   the busy CPU whose shortest queued slice is the longest above the task's is the last
 *   resort (patch 5's candidate, whether or not patch 5 is on).
 * - a push only moves a task to a CPU where it would run first: idle, or whose shortest queued
 *   slice is longer than the task's (and that fits it on asymmetric systems); otherwise the
 *   task stays marked for the next callback or tick. Each attempt costs pushWorkNs plus the
 *   selection's cost on the pushing CPU. FAIR_PUSH alone marks nothing: no effect.
 *
 * Patches 12-14, what is pushed: only a task with a short slice, i.e. shorter than the default
 * slice or than a slice queued or running on its CPU. Each patch is one trigger:
 * - 12 "Try to push short slice task on a better CPU" (PUSH_SHORT_WAKEUP): at wakeup, the task
 *   landed on a CPU where its slice does not beat the running task's and it is not the task
 *   the pending reschedule will pick.
 * - 13 "Push short slice task that are not picked" (PUSH_SHORT_UNPICKED): after __schedule(),
 *   tasks still waiting since their wakeup that the pick did not choose (several short tasks
 *   woken together on one CPU: the cover letter's 4-task test).
 * - 14 "Enable push task for preempt short" (PUSH_SHORT_PREEMPT): at wakeup, PREEMPT_SHORT
 *   applied (the task's slice is shorter than the running one's) and still did not give it the
 *   CPU (not eligible, or another task is picked).
 *
 * Patches 15-18, EAS (eas.ts feecByCost):
 * - 15-17 (EAS_COST): feec() ranks every allowed CPU that fits by the energy model cost of the
 *   OPP its perf domain would need with the task there, per unit of capacity; ties by higher
 *   capacity_of(), then more spare capacity, then prev. em_cpu_energy() is no longer used.
 * - 18 (EAS_SLICE, needs 15-17): CPUs where the task would not run first (busy with slices not
 *   longer than its own) rank after those where it would.
 */
const SEED = '001'

export const SHORT_SLICE_V2_PARTS: PatchDoc[] = [
  {
    name: 'short-slice-v2/1', seed: `${SEED} 1/18`,
    title: 'sched/eevdf: Decay positive lag of sleeping entities (v2)',
    effect: 'Positive lag shrinks by sleep * 1024 / (queue load_avg + w) at a non-migrating wakeup; cleared after 4 s of sleep.',
    switches: { DECAY_LAG_LOADAVG: true, SSV2_LAG_EXPIRE: true }
  },
  {
    name: 'short-slice-v2/2', seed: `${SEED} 2/18`,
    title: 'sched/eevdf: Reset lag when waking up on idle cpu (v2)',
    effect: 'A task waking on the CPU it ran on loses its positive lag when that CPU went idle during its sleep.',
    switches: { SSV2_RESET_LAG_IDLE: true }
  },
  {
    name: 'short-slice-v2/3', seed: `${SEED} 3/18`,
    title: 'sched/eevdf: Add per cpu cached min_slice (v2)',
    effect: 'The cached per-rq min slice (as v1/6, kept in struct rq); nothing observable alone.',
    switches: { SS6_RQ_MIN_SLICE: true }
  },
  {
    name: 'short-slice-v2/4', seed: `${SEED} 4/18`,
    title: 'sched/eevdf: Compare min slice during wake_affine (v2)',
    effect: 'wake_affine_slice between WA_IDLE and WA_WEIGHT, as v1/7.',
    switches: { SS6_RQ_MIN_SLICE: true, SS7_WAKE_AFFINE_SLICE: true }
  },
  {
    name: 'short-slice-v2/5', seed: `${SEED} 5/18`,
    title: 'sched/eevdf: Add min slice check when selecting CPU (v2)',
    effect: 'The idle scans remember the busy CPU with the longest shortest-slice above the wakee\'s; returned when no idle CPU is found (no second scan).',
    switches: { SS6_RQ_MIN_SLICE: true, SSV2_SLICE_SCAN: true }
  },
  {
    name: 'short-slice-v2/6-11', seed: `${SEED} 6-11/18`,
    title: 'sched/fair: Add push task mechanism for fair (select_task_rq_fair for new cases, push callback, force push from the tick, not-wakeup select_idle_sibling)',
    effect: 'Pushable fair tasks are pushed after wakeup/__schedule and at every tick to a CPU where they would run first; marks nothing by itself.',
    switches: { FAIR_PUSH: true }
  },
  {
    name: 'short-slice-v2/12', seed: `${SEED} 12/18`,
    title: 'sched/eevdf: Try to push short slice task on a better CPU',
    effect: 'A short-slice wakee that landed where its slice does not beat the running task\'s, and does not run, is pushed.',
    switches: { SS6_RQ_MIN_SLICE: true, FAIR_PUSH: true, PUSH_SHORT_WAKEUP: true }
  },
  {
    name: 'short-slice-v2/13', seed: `${SEED} 13/18`,
    title: 'sched/eevdf: Push short slice task that are not picked',
    effect: 'After __schedule(), short-slice tasks still waiting since their wakeup are pushed.',
    switches: { SS6_RQ_MIN_SLICE: true, FAIR_PUSH: true, PUSH_SHORT_UNPICKED: true }
  },
  {
    name: 'short-slice-v2/14', seed: `${SEED} 14/18`,
    title: 'sched/fair: Enable push task for preempt short',
    effect: 'A short-slice wakee that PREEMPT_SHORT could not put on the CPU is pushed.',
    switches: { SS6_RQ_MIN_SLICE: true, FAIR_PUSH: true, PUSH_SHORT_PREEMPT: true }
  },
  {
    name: 'short-slice-v2/15-17', seed: `${SEED} 15-17/18`,
    title: 'energy model: Add a get previous state function + sched/fair: Rework feec() to use cost instead of spare capacity + energy model: Remove unused em_cpu_energy()',
    effect: 'EAS picks the fitting CPU whose perf domain would need the cheapest OPP (cost per capacity), ties by capacity, then spare capacity, then prev.',
    switches: { EAS_COST: true }
  },
  {
    name: 'short-slice-v2/18', seed: `${SEED} 18/18`,
    title: 'sched/fair: Take into account slice in EAS',
    effect: 'In the cost-ranked feec, CPUs where the task would run first (idle, or longer slices queued) come before the others.',
    switches: { SS6_RQ_MIN_SLICE: true, EAS_COST: true, EAS_SLICE: true }
  }
]
