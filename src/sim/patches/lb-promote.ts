import type { PatchDoc } from './types'

/**
 * Seed 004: "[RFC PATCH RESEND 00/10] sched/fair: A series of load balance patches to improve
 * real-time performance of CFS tasks" (Xin Zhao, 2026-09). Patch 4 adds the sched_feat
 * LB_PROMOTE (default off); patches 5, 7, 8 and 10 act only when it is on, so their entries
 * turn it on too. Patches 1, 2, 3, 6 and 9 apply with the feature off. With every patch
 * applied and LB_PROMOTE off (`"patches": ["lb-promote"], "features": { "LB_PROMOTE": false }`)
 * a variant is the series' kernel with the feature disabled.
 *
 * Where each switch acts (src/sim/kernel): LBP1 balance.ts updateSdLbStats; LBP2, LBP3, LBP6
 * balance.ts activeLoadBalanceCpuStop; LBP5 select.ts selectTaskRqFairThin and balance.ts
 * updateIdleCpuScan; LBP7 balance.ts preemptActiveBalance (called by the core whenever
 * __schedule() preempts a fair task, the stopper included); LBP8 schedBalanceNewidle; LBP9 and
 * LBP10 schedBalanceRq.
 *
 * Modeling notes:
 * - The active balance stopper detaches at once and attaches at the end of its run
 *   (stopperWorkNs): the window in which mainline, which clears active_balance before the
 *   attach, can queue a second stopper for the same source (the race patch 3's reply describes).
 * - Patch 7 follows the diff, not only its message: any involuntary switch away from a fair
 *   task (RT wakeup, fair wakeup preemption, slice end at the tick, the stopper) tries to move
 *   it to an idle CPU.
 * - Patch 9's condition (newly idle and work or a pending wakeup on the destination) needs
 *   work to arrive while the balance runs. The model's balance pass is instantaneous, so it only
 *   triggers when the destination already has tasks (a balance invoked for a CPU that is not
 *   idle with CPU_NEWLY_IDLE); in whole-system runs it changes nothing.
 * - Patch 10's "out_unbalanced" path is taken when nothing moved and no stopper was queued
 *   (the cover letter's "!ld_moved && !active_balance").
 */
const SEED = '004'

export const LB_PROMOTE_PARTS: PatchDoc[] = [
  {
    name: 'lb-promote/1', seed: `${SEED} 1/10`,
    title: 'sched/fair: Do not set_rd_overloaded() if rd->online != env->cpus',
    effect: 'At the root domain, rd->overloaded is only updated by a balance pass whose env.cpus still spans every online CPU (an all-pinned redo no longer clears it).',
    switches: { LBP1_RD_OVERLOAD_SPAN: true }
  },
  {
    name: 'lb-promote/2', seed: `${SEED} 2/10`,
    title: 'scbed/fair: Remove duplicate check for busiest_cpu in active_load_balance_cpu_stop()',
    effect: 'The stopper may move a task off a runqueue other than its own; no effect until 7/10 queues such work.',
    switches: { LBP2_STOP_ANY_CPU: true }
  },
  {
    name: 'lb-promote/3', seed: `${SEED} 3/10`,
    title: 'sched/fair: Clear active_balance at the end of active_load_balance_cpu_stop()',
    effect: 'active_balance stays set until the moved task is attached, so no second stopper is queued for the same source meanwhile.',
    switches: { LBP3_CLEAR_AFTER_ATTACH: true }
  },
  {
    name: 'lb-promote/4', seed: `${SEED} 4/10`,
    title: 'sched/fair: Add LB_PROMOTE feature to enhance real-time performance of fair tasks',
    effect: 'The LB_PROMOTE sched_feat on; by itself it changes nothing (patches 5, 7, 8, 10 act under it).',
    switches: { LB_PROMOTE: true }
  },
  {
    name: 'lb-promote/5', seed: `${SEED} 5/10`,
    title: 'sched/fair: Introduce select_task_rq_fair_thin() to select rq when LB_PROMOTE',
    effect: 'Wakeup/fork selection: prev if idle, recent_used_cpu if idle, first idle allowed CPU scanning from prev\'s LLC across all allowed CPUs, else prev; nr_idle_scan no longer refreshed.',
    switches: { LB_PROMOTE: true, LBP5_THIN_SELECT: true }
  },
  {
    name: 'lb-promote/6', seed: `${SEED} 6/10`,
    title: 'sched/fair: Modify active_load_balance_cpu_stop() to accommodate more scenarios',
    effect: 'The stopper reads push_cpu and active_balance from its own runqueue and takes the source as argument; no effect until 7/10.',
    switches: { LBP6_STOP_GENERALISED: true }
  },
  {
    name: 'lb-promote/7', seed: `${SEED} 7/10`,
    title: 'sched/fair: Trigger active balance if a CFS task is preempted when LB_PROMOTE',
    effect: 'A preempted fair task moves to the tail of cfs_tasks and the stopper of an idle CPU (its recent_used_cpu, else the first idle allowed CPU from this LLC) pulls it (needs 2/10 and 6/10).',
    switches: { LB_PROMOTE: true, LBP2_STOP_ANY_CPU: true, LBP6_STOP_GENERALISED: true, LBP7_PREEMPT_ALB: true }
  },
  {
    name: 'lb-promote/8', seed: `${SEED} 8/10`,
    title: 'sched/fair: Do not check avg_idle to prematurely exit newly idle when LB_PROMOTE',
    effect: 'Newidle balance runs, and goes up the domains, whatever avg_idle and max_newidle_lb_cost say.',
    switches: { LB_PROMOTE: true, LBP8_NEWIDLE_AVG_IDLE: true }
  },
  {
    name: 'lb-promote/9', seed: `${SEED} 9/10`,
    title: 'sched/fair: Not goto more_balance if newly idle and has pending task when LBF_NEED_BREAK',
    effect: 'On LBF_NEED_BREAK a newly idle balance whose CPU already has work stops instead of looping over more tasks.',
    switches: { LBP9_NEED_BREAK: true }
  },
  {
    name: 'lb-promote/10', seed: `${SEED} 10/10`,
    title: 'sched/fair: Strive to find a task to migrate if newly idle when LB_PROMOTE',
    effect: 'Newidle balance that finds no busiest group/queue, moves nothing, or meets a pinned curr falls back to simple_find: each CPU outside the local group with >1 task in turn, migrate_task with imbalance 1.',
    switches: { LB_PROMOTE: true, LBP10_SIMPLE_FIND: true }
  }
]
