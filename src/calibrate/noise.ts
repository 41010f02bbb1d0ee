/**
 * The background activity of a machine, read from a real run's trace: every task that is not
 * one of the run's workloads is the machine's own. Kernel threads bound to a CPU (kworker/1:2,
 * ksoftirqd/0) become the noise's per-CPU threads, unbound kernel threads (kdamond, kswapd,
 * kworker/u*) its kernel threads with unpreemptible sections, the rest its daemons: for each
 * class the rate of activations (switch-ins) and the mean CPU time per activation.
 */
import type { TaskResult, VariantResult } from '../shared/result'
import type { BackgroundNoiseSpec } from '../sim/kernel/topology-types'

const PER_CPU_KTHREAD = /^(kworker\/\d+:\d+H?|[a-z_]+\/\d+)$/
const UNBOUND_KTHREAD = /^(kworker\/u|kdamond|kswapd|khugepaged|kcompactd|jbd2\/|rcu_|kauditd|khungtaskd|ksmd|oom_reaper|writeback|kthreadd|kblockd|kintegrityd|kthrotld|ipv6_addrconf|irq\/|scsi_|nvme|md|dm[_-]|xfs|ext4|btrfs|kswapd)/

export type NoiseClass = 'perCpu' | 'kthread' | 'daemon'

export function noiseClass(comm: string): NoiseClass {
  if (PER_CPU_KTHREAD.test(comm) && !comm.startsWith('kworker/u')) return 'perCpu'
  if (UNBOUND_KTHREAD.test(comm)) return 'kthread'
  return 'daemon'
}

interface Tally {
  tasks: number
  activations: number
  cpuMs: number
}

export interface NoiseReading {
  noise: BackgroundNoiseSpec
  /** What each class holds, for the report. */
  notes: string[]
}

const commOf = (t: TaskResult): string => t.comm ?? t.name.replace(/-\d+$/, '')

/**
 * A foreign task using more than this share of a CPU over a run is a load (someone else's
 * benchmark on a shared machine), not the machine's background: it is left out, with a note.
 */
export const LOAD_CPU_SHARE = 0.05

/**
 * The noise parameters from the foreign tasks of real runs (all repeats of one variant):
 * `ours` are the scenario's workload names. Durations from each run's span.
 */
export function noiseFromReal(runs: readonly VariantResult[], ours: readonly string[], ncpus: number): NoiseReading {
  const tally: Record<NoiseClass, Tally> = { perCpu: { tasks: 0, activations: 0, cpuMs: 0 }, kthread: { tasks: 0, activations: 0, cpuMs: 0 }, daemon: { tasks: 0, activations: 0, cpuMs: 0 } }
  const names: Record<NoiseClass, Set<string>> = { perCpu: new Set(), kthread: new Set(), daemon: new Set() }
  const loads = new Map<string, number>()
  let seconds = 0
  for (const r of runs) {
    const span = Math.max(1e-3, r.stats.simulatedMs / 1000)
    seconds += span
    // the run's own tasks, and the machine's (the real runner keeps them in host.foreignTasks)
    const foreign = ((r.host as { foreignTasks?: TaskResult[] } | undefined)?.foreignTasks ?? []).map((t) => ({ ...t, workload: '' }))
    for (const t of [...r.tasks, ...foreign]) {
      if (ours.includes(t.workload) || t.name.startsWith('swapper')) continue
      const switches = t.contextSwitches ?? 0
      if (switches === 0) continue
      if (t.cpuTimeMs / 1000 / span > LOAD_CPU_SHARE) {
        loads.set(commOf(t), (loads.get(commOf(t)) ?? 0) + t.cpuTimeMs / 1000)
        continue
      }
      const c = noiseClass(commOf(t))
      tally[c].tasks++
      tally[c].activations += switches
      tally[c].cpuMs += t.cpuTimeMs
      names[c].add(commOf(t).replace(/\d+/g, 'N'))
    }
  }
  const per = (x: Tally) => ({ rate: x.activations / seconds, runUs: x.activations > 0 ? (x.cpuMs * 1000) / x.activations : 0 })
  const noise: BackgroundNoiseSpec = { perCpu: 0, daemons: 0, kthreads: 0 }
  const notes: string[] = []
  const p = per(tally.perCpu)
  if (p.rate > 0) {
    noise.perCpu = 1
    noise.perCpuPeriodUs = round(1e6 / (p.rate / ncpus))
    noise.perCpuRunUs = round(p.runUs)
  }
  const threadsOf = (c: NoiseClass): number => Math.max(1, Math.min(16, Math.round(tally[c].tasks / runs.length)))
  const k = per(tally.kthread)
  if (k.rate > 0) {
    noise.kthreads = threadsOf('kthread')
    noise.kthreadPeriodUs = round((1e6 * noise.kthreads) / k.rate)
    noise.kthreadRunUs = round(k.runUs)
  }
  const d = per(tally.daemon)
  if (d.rate > 0) {
    noise.daemons = threadsOf('daemon')
    noise.daemonPeriodUs = round((1e6 * noise.daemons) / d.rate)
    noise.daemonRunUs = round(d.runUs)
  }
  for (const c of ['perCpu', 'kthread', 'daemon'] as NoiseClass[]) {
    const x = per(tally[c])
    notes.push(`${c}: ${[...names[c]].sort().slice(0, 12).join(', ') || 'none'}: ${x.rate.toFixed(1)} activations/s, ${x.runUs.toFixed(1)} us each`)
  }
  if (loads.size > 0) notes.push(`left out as loads (over ${LOAD_CPU_SHARE * 100} % of a CPU): ${[...loads].map(([c, sec]) => `${c} ${sec.toFixed(1)} CPU-s`).join(', ')}`)
  return { noise, notes }
}

function round(x: number): number {
  return Number(x.toPrecision(3))
}
