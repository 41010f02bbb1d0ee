/**
 * `Sched`, the kernel model as a patch module sees it (src/shared/patch-api.ts documents every
 * field): getters over the kernel's typed arrays (which grow, so they are read at each access,
 * never kept), and the model's functions bound to this kernel. One view per patch of a run: they
 * share everything but `params`.
 */
import type { Kernel } from '../kernel/core'
import type { FairSched } from '../kernel/fair-sched'
import type { SchedDomain as ModelDomain } from '../kernel/domains'
import type { EevdfTreeView, HookedFunctions, RqState, Sched, SchedDomain, SchedFunctions, TaskState } from '../../shared/patch-api'
import {
  avgVruntime, cancelProtectSlice, cfsRqMaxSlice, cfsRqMinSlice, dequeueTree, enqueueTree, entityLag, ineligibleVruntime, lagLimit,
  protectSlice, vruntimeEligible
} from '../kernel/fair'
import { calcDeltaFair } from '../kernel/weights'
import { KERNEL_PROFILES, profileOrdinal } from '../kernel/features'
import { NIL } from '../kernel/eevdf-tree'
import { HOOK_POINTS } from './hook-points'

/** Everything but params, built once per kernel. */
export interface SchedShared {
  k: Kernel
  fs: FairSched
  task: TaskState
  rq: RqState
  tree: EevdfTreeView
  fn: SchedFunctions
  workloadNames: readonly string[]
}

export function sharedView(k: Kernel, fs: FairSched, workloadNames: readonly string[]): SchedShared {
  const pelt = fs.pelt
  const task: TaskState = {
    get state() { return k.state },
    get policy() { return k.policy },
    get cpu() { return k.taskCpu },
    get onRq() { return k.onRq },
    get rtPrio() { return k.rtPrio },
    get weight() { return k.weight },
    get vruntime() { return k.vruntime },
    get deadline() { return k.deadline },
    get vlag() { return k.vlag },
    get vprot() { return k.vprot },
    get slice() { return k.slice },
    get customSlice() { return k.customSlice },
    get schedDelayed() { return k.schedDelayed },
    get execStart() { return k.execStart },
    get sumExec() { return k.sumExec },
    get prevSumExec() { return k.prevSumExec },
    get nrCpusAllowed() { return k.nrCpusAllowed },
    get uclampMin() { return k.uclampMin },
    get uclampMax() { return k.uclampMax },
    get recentUsedCpu() { return k.recentUsedCpu },
    get utilAvg() { return pelt.se.utilAvg },
    get loadAvg() { return pelt.se.loadAvg },
    get runnableAvg() { return pelt.se.runnableAvg },
    get utilEst() { return pelt.se.utilEst },
    allowed: (t, cpu) => k.cpuAllowed(t, cpu),
    name: (t) => k.attrs[t]?.name ?? '',
    workload: (t) => workloadNames[k.attrs[t]?.workload ?? -1] ?? ''
  }
  const rq: RqState = {
    get curr() { return k.curr },
    get nrRunning() { return k.nrRunning },
    get cfsCurr() { return k.cfsCurr },
    get next() { return k.cfsNext },
    get nrQueued() { return k.cfsNrQueued },
    get nrRunnable() { return k.cfsNrRunnable },
    get load() { return k.cfsLoad },
    get zeroVruntime() { return k.zeroVruntime },
    get sumWVruntime() { return k.sumWVruntime },
    get sumWeight() { return k.sumWeight },
    get needResched() { return k.needResched },
    get capacityOrig() { return fs.capOrig },
    get capacity() { return fs.capacityOf },
    get utilAvg() { return pelt.cfs.utilAvg },
    get loadAvg() { return pelt.cfs.loadAvg },
    get runnableAvg() { return pelt.cfs.runnableAvg },
    get utilEst() { return pelt.cfs.utilEst },
    get avgIdle() { return k.avgIdle },
    idle: (cpu) => k.idleCpu(cpu)
  }
  const tree: EevdfTreeView = {
    first: (cpu) => k.tree.first(cpu),
    root: (cpu) => k.tree.root[cpu],
    left: (se) => k.tree.left[se],
    right: (se) => k.tree.right[se],
    minVruntime: (se) => k.tree.minV[se],
    forEach: (cpu, f) => k.tree.forEach(cpu, f)
  }
  const domainsOf = (cpu: number): readonly SchedDomain[] => {
    const out: ModelDomain[] = []
    for (let sd = fs.d.sd[cpu]; sd; sd = sd.parent) out.push(sd)
    return out
  }
  const fn = {
    avgVruntime: (cpu: number) => avgVruntime(k, cpu),
    vruntimeEligible: (cpu: number, v: number) => vruntimeEligible(k, cpu, v),
    entityLag: (cpu: number, se: number, V: number) => entityLag(k, cpu, se, V),
    lagLimit: (cpu: number, se: number) => lagLimit(k, cpu, se),
    calcDeltaFair: (delta: number, weight: number) => calcDeltaFair(delta, weight),
    cfsRqMinSlice: (cpu: number) => cfsRqMinSlice(k, cpu),
    cfsRqMaxSlice: (cpu: number) => cfsRqMaxSlice(k, cpu),
    protectSlice: (se: number) => protectSlice(k, se),
    cancelProtectSlice: (se: number) => cancelProtectSlice(k, se),
    reschedCurr: (cpu: number) => k.reschedCurr(cpu),
    reschedCurrLazy: (cpu: number) => k.reschedCurrLazy(cpu),
    enqueueTree: (cpu: number, se: number) => enqueueTree(k, cpu, se),
    dequeueTree: (cpu: number, se: number) => dequeueTree(k, cpu, se),
    domains: domainsOf,
    sdLlc: (cpu: number) => fs.d.sdLlc[cpu] ?? null,
    ineligibleVruntime: (cpu: number) => ineligibleVruntime(k, cpu),
    dequeueDelayed: (cpu: number, se: number) => k.delayedPicked(cpu, se)
  } as Record<string, unknown>
  // the hookable functions, through the run's table (whatever hooks are installed)
  for (const h of HOOK_POINTS) {
    const name = h.name
    fn[name] = h.on === 'kernel'
      ? (a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown) => (k.fn[name] as (...x: unknown[]) => unknown)(k, a, b, c, d, e)
      : (a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown) => (k.fn[name] as (...x: unknown[]) => unknown)(fs, a, b, c, d, e)
  }
  return { k, fs, task, rq, tree, fn: fn as unknown as SchedFunctions & HookedFunctions, workloadNames }
}

/** The view one patch gets: the shared parts and its own parameters. */
export function schedView(sh: SchedShared, params: Readonly<Record<string, number>>): Sched {
  const { k } = sh
  const cfg = k.cfg
  return {
    get now() { return k.now },
    ncpus: k.ncpus,
    get ntasks() { return k.ntasks },
    profile: cfg.profile,
    profileAtLeast: (p) => {
      const o = profileOrdinal(p)
      if (o < 0) throw new Error(`profileAtLeast: unknown profile "${p}" (profiles: ${KERNEL_PROFILES.join(', ')})`)
      return cfg.prof >= o
    },
    hz: cfg.hz,
    tickNs: cfg.tickNs,
    baseSliceNs: cfg.baseSliceNs,
    normBaseSliceNs: cfg.normBaseSliceNs,
    migrationCostNs: cfg.migrationCostNs,
    feat: k.f,
    params,
    random: () => k.random(),
    get thisCpu() { return k.thisCpu },
    get inTask() { return k.inTask },
    isFair: (t) => k.isFair(t),
    task: sh.task,
    rq: sh.rq,
    tree: sh.tree,
    fn: sh.fn,
    count(name, by = 1) {
      const key = `patch.${name}`
      k.counters[key] = (k.counters[key] ?? 0) + by
    },
    warn(text) {
      if (!k.warnings.includes(text)) k.warnings.push(text)
    }
  }
}

export { NIL }
