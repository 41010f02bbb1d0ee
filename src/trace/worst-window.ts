import type { CpuLane, TimelineSlice, TraceTimeline } from '../shared/explain'

/**
 * The per-CPU timeline around each workload's worst latency sample of a trace, kept in the one
 * pass the analyzer makes (an imported trace is a stream; a real run's buffers are read once).
 * Every CPU keeps the slices and idle spans of the last RING_NS; when a workload's sample
 * beats its maximum so far, the window [readyNs - BEFORE_NS, ranNs + AFTER_NS] is copied from
 * the rings and then filled as the trace goes on. Memory: the rings plus one window per
 * workload, each capped at MAX_SLICES; the result keeps MAX_WINDOWS of them. The workbench shows it beside a simulated run's
 * timeline, aligned on the maxima (a real kernel records no decisions to explain).
 */

const BEFORE_NS = 2_000_000
const AFTER_NS = 1_000_000
/** Waits longer than this lose the beginning of their window (the ring no longer has it). */
const RING_NS = 50_000_000
const MAX_SLICES = 20_000
/** Windows kept, for the workloads with the most samples (an imported trace groups every comm). */
const MAX_WINDOWS = 16

interface Span {
  cpu: number
  /** A task's name, or null for the idle task. */
  task: string | null
  startNs: number
  endNs: number
}

interface Capture {
  /** The group the analyzer knew at the sample (its final workloads may merge groups: see finish). */
  group: string
  pid: number
  sample: TraceTimeline['sample']
  startNs: number
  endNs: number
  spans: Span[]
  truncated: boolean
}

export class WorstWindows {
  private readonly rings: Span[][] = []
  private readonly captures = new Map<string, Capture>()
  /** Captures still filling (their window ends after the last span seen). */
  private readonly open = new Set<Capture>()

  /** What ran on `cpu` from startNs to endNs (task null: the idle task). */
  span(cpu: number, task: string | null, startNs: number, endNs: number): void {
    if (endNs <= startNs) return
    const s: Span = { cpu, task, startNs, endNs }
    const ring = (this.rings[cpu] ??= [])
    ring.push(s)
    // drop what fell out of the ring (amortized: in halves)
    if (ring.length > 64 && ring[ring.length >> 1].endNs < endNs - RING_NS) {
      let k = 0
      while (k < ring.length && ring[k].endNs < endNs - RING_NS) k++
      ring.splice(0, k)
    }
    for (const c of this.open) {
      if (startNs >= c.endNs) continue
      this.add(c, s)
    }
  }

  /** A latency sample of a task of `group`: a new maximum of the group opens a window around it. */
  sample(group: string, pid: number, task: string, cpu: number, readyNs: number, ranNs: number): void {
    const latencyNs = ranNs - readyNs
    const prev = this.captures.get(group)
    if (prev && latencyNs <= prev.sample.ranNs - prev.sample.readyNs) return
    if (prev) this.open.delete(prev)
    const c: Capture = {
      group,
      pid,
      sample: { task, cpu, readyNs, ranNs, latencyUs: Math.round(latencyNs) / 1000 },
      startNs: readyNs - BEFORE_NS,
      endNs: ranNs + AFTER_NS,
      spans: [],
      truncated: false
    }
    for (const ring of this.rings) for (const s of ring ?? []) if (s.endNs > c.startNs && s.startNs < c.endNs) this.add(c, s)
    this.captures.set(group, c)
    this.open.add(c)
  }

  /**
   * The windows, one per final workload. `openSpans`: what still runs at the trace's end.
   * `workloadOf` gives a task's final workload (a trace may name its tasks' workloads only at
   * its end): each workload gets the window of the longest sample among the groups' maxima
   * that are its tasks', if that is its maximum (else none: the window was not kept).
   * `workloads`: the final workloads' maxima and sample counts.
   */
  finish(openSpans: Span[], workloadOf: (pid: number) => string | undefined, workloads: readonly { name: string; maxUs: number; count: number }[]): TraceTimeline[] {
    for (const s of openSpans) for (const c of this.open) if (s.startNs < c.endNs && s.endNs > c.startNs) this.add(c, s)
    this.open.clear()
    const best = new Map<string, Capture>()
    for (const c of this.captures.values()) {
      const w = workloadOf(c.pid)
      if (w === undefined) continue
      const b = best.get(w)
      if (!b || c.sample.latencyUs > b.sample.latencyUs) best.set(w, c)
    }
    const kept = workloads
      .filter((w) => w.count > 0 && Math.abs((best.get(w.name)?.sample.latencyUs ?? -1) - w.maxUs) < 0.0015)
      .sort((a, b) => b.count - a.count)
      .slice(0, MAX_WINDOWS)
    return kept.map(({ name: workload }) => {
      const c = best.get(workload)!
      const lanes: CpuLane[] = []
      const lane = (cpu: number): CpuLane => {
        let l = lanes.find((x) => x.cpu === cpu)
        if (!l) lanes.push((l = { cpu, slices: [], idle: [] }))
        return l
      }
      for (let cpu = 0; cpu < this.rings.length; cpu++) if (this.rings[cpu]) lane(cpu)
      for (const s of c.spans) {
        const startNs = Math.max(s.startNs, c.startNs)
        const endNs = Math.min(s.endNs, c.endNs)
        if (s.task === null) lane(s.cpu).idle.push({ state: 'idle', startNs, endNs })
        else lane(s.cpu).slices.push({ task: s.task, startNs, endNs } satisfies TimelineSlice)
      }
      lanes.sort((a, b) => a.cpu - b.cpu)
      for (const l of lanes) {
        l.slices.sort((a, b) => a.startNs - b.startNs)
        l.idle.sort((a, b) => a.startNs - b.startNs)
      }
      return { workload, sample: c.sample, window: { startNs: c.startNs, endNs: c.endNs }, lanes, ...(c.truncated ? { truncated: true } : {}) }
    })
  }

  private add(c: Capture, s: Span): void {
    if (c.spans.length >= MAX_SLICES) {
      c.truncated = true
      return
    }
    c.spans.push(s)
  }
}
