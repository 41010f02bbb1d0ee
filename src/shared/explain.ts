/**
 * The explanation of one latency sample (`schedlab explain --json`, the workbench's timeline
 * and explanation panel): DESIGN.md's "Timeline, explanations and trace export" contract plus
 * the fields documented in docs/explain.md. Built by src/sim/explain.ts.
 */

/** Which sample: the max, a named percentile, `p<number>` (any percentile), or an index in time order. */
export type SampleSelector = 'max' | 'p50' | 'p90' | 'p99' | 'p99_9' | `p${number}` | number

export interface TimelineSlice {
  task: string
  startNs: number
  endNs: number
}

export interface IdleSpan {
  state: string
  startNs: number
  endNs: number
}

export interface CpuLane {
  cpu: number
  slices: TimelineSlice[]
  /** Idle periods with the idle state entered (gaps between slices that are not idle are the switch costs). */
  idle: IdleSpan[]
}

export interface ExplainedDecision {
  atNs: number
  cpu: number
  kind: string
  code: string
  text: string
  /** Decisions folded into this one (same kind, code and CPU in a row), and when the last was. */
  repeats?: number
  untilNs?: number
  /** The subject task of the decision. */
  task?: string
}

export interface ExplainResult {
  scenario: string
  variant: string
  seed: number
  workload: string
  selector: string
  sample: { task: string; cpu: number; readyNs: number; ranNs: number; latencyUs: number; index: number }
  /** One paragraph: the cause in a few sentences. */
  summary: string
  /** The reason code that best names the cause: the one the longest part of the wait is due to (docs/explain.md). */
  cause: string
  /** The wait divided among reason codes, longest first. */
  causes: CauseShare[]
  window: { startNs: number; endNs: number }
  /** CPUs involved (where the task was woken, queued, examined by a balance, and ran). */
  cpus: number[]
  timeline: CpuLane[]
  decisions: ExplainedDecision[]
  /** Every CPU's lane over the window (allCpus). */
  lanes?: CpuLane[]
  /** Task names by id, for colouring lanes consistently. */
  tasks?: string[]
  /** Every latency sample (wakeup to run) in the window, of every task (allCpus). */
  waits?: { task: string; cpu: number; readyNs: number; ranNs: number }[]
  /** An unreasonable-idle event's explanation: the idle CPU's period and the task that waited. */
  idle?: { cpu: number; startNs: number; endNs: number; bucket: string; task: string; waitingSinceNs: number }
  /** Set when the re-run does not match the saved result (another schedlab version saved it). */
  warning?: string
  /** A measured run's or imported trace's timeline (no decisions: a real kernel records none). */
  measured?: 'real' | 'trace'
}

export interface CauseShare {
  code: string
  ns: number
  /** When the first stretch of the wait charged to this cause began (ns; the timeline's order). */
  fromNs?: number
}

/**
 * A measured run's (or an imported trace's) timeline around a workload's maximum, kept by the
 * trace analyzer (src/trace/worst-window.ts): what ran on each CPU, no decisions (a real kernel
 * records none). The workbench aligns it with a simulated run's explanation.
 */
export interface TraceTimeline {
  workload: string
  sample: { task: string; cpu: number; readyNs: number; ranNs: number; latencyUs: number }
  window: { startNs: number; endNs: number }
  lanes: CpuLane[]
  /** The window held more than the analyzer keeps: its later slices are missing. */
  truncated?: boolean
}
