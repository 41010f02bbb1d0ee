/**
 * What the workbench knows, in one object (see store.ts for how views watch it). The context
 * every view is built with (the store, the API and the actions) is in view-context.ts.
 */
import type {
  AppInfo, EditorInfo, JobInfo, PrecisionResult, PresetInfo, RunStatus, RunSummary,
  ScenarioIssue, ScenarioProblem, Settings, StoredRun
} from '../../shared/ipc'
import type { SampleSelector } from '../../shared/explain'

export interface DocState {
  name: string
  /** Absolute path (Electron) or null (browser, presets, new documents). */
  path: string | null
  /** Text as last opened or saved; the document is dirty when `text` differs. */
  savedText: string
  /** The editor's text, mirrored on every edit. */
  text: string
  /** Counts documents loaded into the editor (not edits): the editor replaces its model on a change. */
  loads: number
}

/** The verdict on `hash` (textHash of the text it describes). */
export type Validation =
  | { state: 'pending' | 'empty'; hash: string }
  | { state: 'ok'; hash: string; scenarioName: string; variants: string[]; seeds: number[]; runs: number; durationMs: number; publishedDurationMs?: number }
  | { state: 'bad'; hash: string; problem: ScenarioProblem }
  | { state: 'error'; hash: string; message: string }

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'canceled'

export interface JobView {
  info: JobInfo
  state: JobState
  /** 0..1 of the simulated duration. */
  fraction: number
  error?: string
}

/** The last run started from this window, while it runs and after it ended. */
export interface ProgressState {
  runId: string
  status: RunStatus
  jobs: JobView[]
  /** A precision run: each variant's seeds and current half-width. */
  precision?: PrecisionResult
  /** A VM run: what its guest does now (fetching the kernel, booting, running, ...). */
  phase?: string
}

/**
 * Overrides from the run bar (seeds-input, duration-input, published-toggle); null keeps the
 * scenario's. A new run option (issue 12's precision field) adds its field here, its control
 * in the run bar's slot (views/run-bar.ts, `[data-slot="precision"]`), and its use in
 * actions/run.ts.
 */
export interface RunOptions {
  seeds: number | null
  durationMs: number | null
  /** Run the published baselines' settings (the CLI's --published). */
  published: boolean
  /** `WORKLOAD.METRIC:PCT` (precision-input): add seeds until the interval is that tight; null: off. */
  precision: string | null
}

/** One column of a comparison: a variant of a saved run. */
export interface CompareColumnData {
  run: StoredRun
  variant: string
}

export interface Comparison {
  columns: CompareColumnData[]
  /** Index into columns of the column the others are compared against. */
  baseline: number
}

/** A moment to explain on the timeline: a latency sample of a workload, or an unreasonable-idle event. */
export interface ExplainTarget {
  run: StoredRun
  variant: string
  workload?: string
  sample?: SampleSelector
  idle?: { bucket: '2.5-3ms' | '3-4ms' | '4ms+'; index: number }
  /** Default: the seed the clicked figure comes from. */
  seed?: number
  /** Another run's variant to show below, aligned on the same kind of moment (Compare: the baseline). */
  alignWith?: { runId: string; variant: string }
  /** Bumped on each click (the same cell clicked again explains again). */
  seq: number
}

export interface ProblemLine {
  text: string
  onClick?: () => void
}

export interface ProblemEntry {
  title: string
  lines: ProblemLine[]
}

export interface WorkbenchState {
  connected: boolean
  appInfo: AppInfo | null
  editorInfo: EditorInfo | null
  presets: PresetInfo[]
  settings: Settings
  theme: 'light' | 'dark'
  doc: DocState
  validation: Validation
  /** The variants of the last version of the document that validated (kept while typing). */
  variants: string[]
  /** Variant names unticked in the Variants menu (a variant unticked stays so while it exists). */
  unchecked: string[]
  runOptions: RunOptions
  /** The run this window started and that has not ended. */
  runningId: string | null
  progress: ProgressState | null
  runs: RunSummary[]
  shownRun: StoredRun | null
  /** The sweep in the Sweep tab (a StoredRun with `sweep`). */
  shownSweep: StoredRun | null
  comparison: Comparison | null
  /** What the Timeline tab explains (set by a click on a result). */
  explain: ExplainTarget | null
  /** The right pane's tab (a TabView id). */
  tab: string
  /** One entry per source (scenario, run, store, op:...). */
  problems: Readonly<Record<string, ProblemEntry>>
  /** How latency distributions are drawn (Results and Compare alike). */
  distribution: { view: 'ccdf' | 'cdf'; logY: boolean }
  /** The issue the editor should reveal (bumped to reveal the same one again). */
  reveal: { issue: ScenarioIssue; seq: number } | null
}

export function initialState(): WorkbenchState {
  return {
    connected: true,
    appInfo: null,
    editorInfo: null,
    presets: [],
    settings: { theme: 'system', baselineRunId: null, recentFiles: [], layout: null, exportPrefs: { scale: 2, theme: 'light' } },
    theme: 'light',
    doc: { name: 'untitled.json', path: null, savedText: '', text: '', loads: 0 },
    validation: { state: 'empty', hash: '' },
    variants: [],
    unchecked: [],
    runOptions: { seeds: null, durationMs: null, published: false, precision: null },
    runningId: null,
    progress: null,
    runs: [],
    shownRun: null,
    shownSweep: null,
    comparison: null,
    explain: null,
    tab: 'results',
    problems: {},
    distribution: { view: 'ccdf', logY: false },
    reveal: null
  }
}
