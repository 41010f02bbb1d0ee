/**
 * The kernel's hookable functions: one table per kernel, through which the model calls each
 * scheduling decision a patch may change (placeEntity, pickEevdf, selectIdleSibling, ...).
 *
 * The table is the model's form of the kernel's own indirections (a sched_class's operations,
 * called through p->sched_class): the kernel calls `k.fn.placeEntity(k, ...)` where fair.c calls
 * place_entity(). Without patch modules every entry is the function of the same name in fair.ts,
 * select.ts, balance.ts or rt.ts, set once when the kernel is built; a patch module
 * (src/sim/patch-api) gives the kernel a table in which the functions it hooks are replaced
 * (each hook receiving the original). Tables are never changed after they are built, so every
 * call site keeps one target for the whole run.
 *
 * Functions of the fair class's core take the kernel (`k`); those of the multi-CPU side (wakeup
 * CPU selection, load balancing) take the fair scheduler's state (`fs`, whose `k` is the
 * kernel), as in their own files.
 */
import type { Kernel, KernelFnName, KernelFns } from './sched'
import {
  checkPreemptWakeupFair, decayEntityLag, dequeueEntity, enqueueEntity, entityEligible, pickEevdf, pickNextEntity,
  placeEntity, requeueDelayedEntity, setProtectSlice, taskTickFair, updateCurr, updateDeadline, updateEntityLag,
  updateProtectSlice, yieldTaskFair
} from './fair'
import { selectIdleCapacity, selectIdleCpu, selectIdleSibling, selectTaskRqFair, wakeAffine, wakeWide } from './select'
import { canMigrateTask, checkUpdateOverutilized, findBusiestQueue, needActiveBalance, schedBalanceNewidle, schedBalanceRq } from './balance'

/** The model as it is: every entry the function of its name. */
export const KERNEL_FNS: Readonly<KernelFns> = Object.freeze({
  updateCurr,
  updateDeadline,
  entityEligible,
  updateEntityLag,
  decayEntityLag,
  placeEntity,
  setProtectSlice,
  updateProtectSlice,
  enqueueEntity,
  dequeueEntity,
  requeueDelayedEntity,
  pickEevdf,
  pickNextEntity,
  checkPreemptWakeupFair,
  taskTickFair,
  yieldTaskFair,
  selectTaskRqFair,
  wakeWide,
  wakeAffine,
  selectIdleSibling,
  selectIdleCpu,
  selectIdleCapacity,
  schedBalanceRq,
  findBusiestQueue,
  canMigrateTask,
  needActiveBalance,
  schedBalanceNewidle,
  checkUpdateOverutilized,
  selectTaskRqRt: (k: Kernel, p: number, prevCpu: number, thisCpu: number) => k.rt.selectTaskRq(p, prevCpu, thisCpu),
  findLowestRq: (k: Kernel, p: number, thisCpu: number) => k.rt.findLowestRq(p, thisCpu),
  pushRtTasks: (k: Kernel, cpu: number) => k.rt.pushRtTasks(cpu),
  pullRtTask: (k: Kernel, cpu: number, prevPrio: number) => k.rt.pullRtTask(cpu, prevPrio)
})

export const KERNEL_FN_NAMES: readonly KernelFnName[] = Object.keys(KERNEL_FNS) as KernelFnName[]

/** A table with some entries replaced; every other entry as in `base`. */
export function withFns(base: Readonly<KernelFns>, replaced: Partial<KernelFns>): Readonly<KernelFns> {
  const out = {} as Record<KernelFnName, unknown>
  for (const name of KERNEL_FN_NAMES) out[name] = replaced[name] ?? base[name]
  return Object.freeze(out as unknown as KernelFns)
}
