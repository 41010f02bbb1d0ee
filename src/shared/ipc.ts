/**
 * The typed contract between the renderer and its host (Electron main over IPC, or
 * `schedlab serve` over a WebSocket). One method table, one zod schema per method's
 * argument tuple: both hosts validate every call against the same schemas before the
 * call reaches a service.
 */
import type { ResultSource, VariantResult } from './result'
import type { StandardMetric } from './tables'
import type { ExplainResult, SampleSelector } from './explain'
import type { ScenarioIssue } from './scenario-issue'

export type { ScenarioIssue }

// ---------------------------------------------------------------------------------------------
// Data crossing the boundary

export interface PresetInfo {
  id: string
  name: string
  description: string
}

/** A scenario as the editor holds it. `path` is an absolute path (Electron) or null. */
export interface ScenarioDoc {
  name: string
  path: string | null
  text: string
}


/** A scenario that could not be accepted: the file, and one entry per problem. */
export interface ScenarioProblem {
  file: string
  message: string
  issues: ScenarioIssue[]
}

export type ValidationResult =
  | {
      ok: true; scenarioName: string; variants: string[]; seeds: number[]; runs: number
      /** The scenario's own duration, and the published test's when it gives one (for --published). */
      durationMs: number; publishedDurationMs?: number
    }
  | { ok: false; problem: ScenarioProblem }

export interface NamedDoc {
  name: string
  doc: string
}

/** What the editor needs for validation, completion and hover docs. */
export interface EditorInfo {
  schema: Record<string, unknown>
  workloadTypes: NamedDoc[]
  patches: NamedDoc[]
  features: NamedDoc[]
  topologies: NamedDoc[]
}

export interface StartRunRequest {
  text: string
  file: string
  /** The run's name; by default the scenario's, plus what differs from its last saved run. */
  name?: string
  /** Subset of variant names to run; all when absent. */
  variants?: string[]
  /** Overrides of the scenario's `seeds` and `durationMs` (the workbench's run bar, the CLI's --seeds, --duration-ms). */
  seeds?: number
  durationMs?: number
  /** Run for the scenario's publishedDurationMs (the CLI's --published). */
  published?: boolean
  /**
   * `WORKLOAD.METRIC:PCT` (e.g. `cyclictest.p99:5`): add seeds until every variant's 95 %
   * interval of that figure is within PCT % of it (docs/statistics.md).
   */
  precision?: string
  /** Seed limit of a precision run (default 100). */
  maxSeeds?: number
  /** VM runs: the kernel (6.12, 7.2, or the path to a bzImage on the host). */
  kernel?: string
}

export interface JobInfo {
  jobId: string
  variant: string
  variantIndex: number
  seed: number
  /** A sweep's cell: its index and its values, "workloads[0].sliceUs=8000, ...". */
  cell?: { index: number; label: string }
  /** A resumed run's job that had finished before its host stopped: its result is the checkpoint's. */
  resumed?: true
}

export type StartRunResult =
  | { ok: true; runId: string; jobs: JobInfo[] }
  | { ok: false; problem: ScenarioProblem }

export type RunStatus = 'running' | 'done' | 'partial' | 'failed' | 'canceled'

export type JobErrorKind = 'error' | 'crash' | 'oom' | 'canceled' | 'patch'

export interface JobError {
  variant: string
  seed: number
  kind: JobErrorKind
  message: string
}

export interface RunSummary {
  id: string
  name: string
  scenarioName: string
  scenarioFile: string
  /** ISO 8601. */
  createdAt: string
  status: RunStatus
  variants: string[]
  seeds: number[]
  durationMs: number
  wallMs: number
  version: string
  /** Where the results come from: this machine's kernel ("real"), a trace file ("trace"), else the simulator. */
  source?: ResultSource
  /** A sweep (its cells are in StoredRun.sweep); absent for a run. */
  kind?: 'sweep'
  /** A sweep's cell count (its grid's size). */
  cells?: number
  /**
   * Its host stopped (killed, a power cut) before the run finished: what had finished was kept
   * from its checkpoint, and resumeRun runs the rest.
   */
  interrupted?: true
}

/** What a run was started with besides its scenario text and file: a resumed run expands the same way. */
export type RunRequestOptions = Pick<StartRunRequest, 'name' | 'variants' | 'seeds' | 'durationMs' | 'published'>

/** A saved sweep: the grid and each cell's results (the runs of every variant x seed). */
export interface StoredSweep {
  axes: { path: string; values: unknown[] }[]
  total: number
  cells: { index: number; values: unknown[]; results: VariantResult[] }[]
}

/** What a precision run reached, per variant. */
export interface PrecisionResult {
  target: string
  variants: { name: string; seeds: number; halfWidthPct: number | null; reached: boolean }[]
}

export interface StoredRun extends RunSummary {
  format: 1
  scenarioText: string
  precision?: PrecisionResult
  /** Set for a sweep; `results` is then empty. */
  sweep?: StoredSweep
  /** Expansion order: variants in scenario order, seeds ascending within a variant. */
  results: VariantResult[]
  errors: JobError[]
  /** The run's options, kept so that an interrupted run can be resumed (runs saved since resume exists). */
  request?: RunRequestOptions
}

/** A run file that could not be read, and what was done about it. */
export interface StoreProblem {
  file: string
  message: string
  movedTo?: string
}

export interface RunList {
  runs: RunSummary[]
  problems: StoreProblem[]
}

export type Theme = 'light' | 'dark' | 'system'

/** Widths of the window's panes, as the user dragged the splitters. */
export interface PaneLayout {
  /** Width of the history pane, CSS pixels. */
  historyPx: number
  /** Share of the editor in the width left after the history, percent. */
  editorPct: number
}

/** How charts are exported as PNG. */
export interface ExportPrefs {
  /** Device pixels per CSS pixel of the exported image. */
  scale: 2 | 3
  /** The theme of the exported image ('shown': the window's). */
  theme: 'light' | 'dark' | 'shown'
}

/** What one submission may cost on this host (src/services/limits.ts). */
export interface HostLimits {
  /** Estimated events of one run; a scenario's "maxEvents" may lower it, not raise it. */
  maxEventsPerRun: number
  /** Estimated events of all runs of one submission (variants x seeds). */
  maxTotalEvents: number
  /** Share of the machine's memory the simulations running at one time may use. */
  memoryShare: number
}

export interface Settings {
  theme: Theme
  baselineRunId: string | null
  recentFiles: string[]
  /** Null until the user moves a splitter. */
  layout: PaneLayout | null
  exportPrefs: ExportPrefs
  /** The limits in force (command-line flags of `schedlab serve` over the saved setting over defaults). */
  limits?: HostLimits
}

export type SettingsPatch = { theme?: Theme; limits?: Partial<HostLimits>; layout?: PaneLayout; exportPrefs?: ExportPrefs }

export type ExportFormat = 'csv' | 'md' | 'txt' | 'json'

/** One column of a comparison: a variant of a saved run. */
export interface CompareColumn {
  runId: string
  variant: string
}

export interface ExportTableRequest {
  columns: CompareColumn[]
  format: ExportFormat
  /** Index into columns of the column the others are compared against. */
  baseline: number
  title: string
  /** Only these rows of each table; all when absent. */
  metrics?: StandardMetric[]
}

export interface ExportContent {
  fileName: string
  mime: string
  text: string
}

export type ExportOutcome = { saved: true; name: string } | { saved: false }

/**
 * Explain one moment of a saved run (the workbench's timeline and explanation panel): a latency
 * sample of a workload (`sample`), or an unreasonable-idle event (`idle`). The variant is re-run
 * with the decision recorder in the worker pool.
 */
export interface ExplainRequest {
  runId: string
  variant: string
  seed: number
  workload?: string
  sample?: SampleSelector
  idle?: { bucket: '2.5-3ms' | '3-4ms' | '4ms+'; index: number }
  /** The caller's name for this request: its progress comes as `explain-progress`, cancelExplain stops it. */
  requestId?: string
}

/** A Perfetto trace of a saved run's variant, optionally only [startNs, endNs] of it. */
export interface TraceExportRequest {
  runId: string
  variant: string
  seed: number
  startNs?: number
  endNs?: number
}

export interface TraceContent {
  fileName: string
  /** The trace's bytes, base64 (the web host's messages are JSON). */
  base64: string
}

export interface AppInfo {
  version: string
  dataDir: string
  workers: number
  platform: 'electron' | 'web'
  /** Whether scenarios can run on this machine's kernel (`schedlab real`), and why not. */
  real: { available: boolean; reason?: string }
  /** Whether this host runs patch modules, and why not. */
  patches?: { allowed: boolean; reason?: string }
  /** Whether scenarios can run on a mainline kernel in a VM (`schedlab vm`), why not, and the kernels to pick from. */
  vm?: VmAvailability
}

export interface VmAvailability {
  available: boolean
  reason?: string
  /** Debian's kernels by series (cached or fetched on first use); a bzImage path is typed in. */
  kernels: { kernel: string; label: string; cached: boolean }[]
  /** kvm or tcg, with why. */
  accel?: string
}

/** What the Patches panel shows of a patch module (src/shared/patch-api.ts is its API). */
export interface PatchModuleEntry {
  /** The library name (its file's name without .ts). */
  name: string
  /** A shipped example (read only; a copy under another name is yours). */
  example: boolean
  source: string
  sha256: string
}

export interface PatchModuleList {
  /** Whether this host runs patch code (the desktop app does; `schedlab serve` with --allow-patches). */
  allowed: boolean
  /** Why not, and how to enable it. */
  reason?: string
  modules: PatchModuleEntry[]
}

/** A module's problem, located in its source (1-based line and column when known). */
export interface PatchProblem {
  message: string
  line?: number
  column?: number
}

export interface PatchModuleSummary {
  name: string
  description?: string
  hooks: string[]
  features: Record<string, { default: boolean; doc?: string }>
  params: Record<string, { default: number; min?: number; max?: number; integer?: boolean; doc?: string }>
}

export type PatchCheckResult = { ok: true; info: PatchModuleSummary } | { ok: false; problem: PatchProblem }

/** A trace read into a saved run (File > Import trace). */
export type ImportTraceResult = { ok: true; run: RunSummary } | { ok: false; problem: ScenarioProblem }

// ---------------------------------------------------------------------------------------------
// Events pushed from the host

export interface JobProgress {
  jobId: string
  simNs: number
  durationNs: number
}

export type MenuCommand =
  | 'new' | 'open' | 'open-recent' | 'save' | 'save-as' | 'import-rtapp' | 'import-trace'
  | 'run' | 'run-real' | 'run-vm' | 'cancel' | 'toggle-theme' | 'shortcuts'

export interface ApiEvents {
  'run-progress': { runId: string; jobs: JobProgress[] }
  'run-job': { runId: string; jobId: string; state: 'done' | 'failed' | 'canceled'; error?: JobError }
  /** Jobs a precision run adds as it goes (after those StartRunResult listed). */
  'run-jobs': { runId: string; jobs: JobInfo[] }
  /** A precision run's state after each check: every variant's seeds and current half-width. */
  'run-precision': { runId: string; precision: PrecisionResult }
  'run-finished': { runId: string; status: RunStatus; run: RunSummary | null; errors: JobError[] }
  'runs-changed': { reason: string }
  /** An explanation's re-run (both passes) so far, for the request that named itself `requestId`. */
  'explain-progress': { requestId: string; simNs: number; durationNs: number }
  'menu-command': { command: MenuCommand; path?: string }
  /** What a VM run does now (fetching a kernel, booting, running, shipping the trace), for the progress card. */
  'run-phase': { runId: string; text: string; fraction?: number }
}

export type ApiEventName = keyof ApiEvents
export const API_EVENTS: readonly ApiEventName[] = ['run-progress', 'run-job', 'run-jobs', 'run-precision', 'run-finished', 'runs-changed', 'explain-progress', 'menu-command', 'run-phase']

// ---------------------------------------------------------------------------------------------
// Methods

/** Methods served by the Electron-free services; both hosts expose them. */
export interface ServiceMethods {
  appInfo(): Promise<AppInfo>
  editorInfo(): Promise<EditorInfo>
  listPresets(): Promise<PresetInfo[]>
  readPreset(id: string): Promise<ScenarioDoc>
  validateScenario(text: string, file: string): Promise<ValidationResult>
  /** Convert an rt-app JSON file into scenario text. */
  importRtApp(text: string, file: string): Promise<{ ok: true; doc: ScenarioDoc } | { ok: false; problem: ScenarioProblem }>
  startRun(req: StartRunRequest): Promise<StartRunResult>
  /**
   * Run the scenario on this machine's kernel (one variant x repeat at a time; `seeds` are
   * repeats): the same events as a simulated run, results with "source": "real" and the host
   * record. Refused (ok: false, one line) where the machine cannot, or while anything else runs.
   */
  startRealRun(req: StartRunRequest): Promise<StartRunResult>
  /**
   * Run the scenario on a mainline kernel in QEMU (`schedlab vm`; `kernel` picks it): one guest
   * per variant x seed, the same events as a simulated run plus 'run-phase' (fetching, booting,
   * running), results with "source": "vm" and the vm record.
   */
  startVmRun(req: StartRunRequest): Promise<StartRunResult>
  cancelRun(runId: string): Promise<boolean>
  /**
   * Continue an interrupted run (RunSummary.interrupted) from its checkpoint: the seeds and sweep
   * cells that had finished are kept, the rest run; the run keeps its id and, once finished, holds
   * what an uninterrupted run would have.
   */
  resumeRun(runId: string): Promise<StartRunResult>
  /** Analyze ftrace text (as `schedlab analyze`) and save it as a run. */
  importTrace(text: string, file: string): Promise<ImportTraceResult>
  listRuns(): Promise<RunList>
  getRun(id: string): Promise<StoredRun>
  renameRun(id: string, name: string): Promise<RunSummary>
  deleteRun(id: string): Promise<void>
  setBaseline(id: string | null): Promise<Settings>
  getSettings(): Promise<Settings>
  updateSettings(patch: SettingsPatch): Promise<Settings>
  /** The text of a table export; hosts deliver it (save dialog or download). */
  exportContent(req: ExportTableRequest): Promise<ExportContent>
  /** Why this latency: re-run the variant with the recorder and explain one sample or idle event. */
  explain(req: ExplainRequest): Promise<ExplainResult>
  /** Stop the explanation of that request (its explain call then fails as canceled); false if none runs. */
  cancelExplain(requestId: string): Promise<boolean>
  /** The bytes of a Perfetto trace of the run; hosts deliver it (exportPerfetto). */
  perfettoTrace(req: TraceExportRequest): Promise<TraceContent>
  /** The patch library: yours (the data folder's patches/), then the shipped examples. */
  listPatchModules(): Promise<PatchModuleList>
  /**
   * Compile and load a module (in a simulation worker): its name, hooks, flags and parameters,
   * or its first problem with the line. Only compiles (syntax) where the host runs no patch code.
   */
  checkPatchModule(name: string, source: string): Promise<PatchCheckResult>
  /** Save into the library (atomically); the check's result comes back with it. */
  savePatchModule(name: string, source: string): Promise<{ saved: PatchModuleEntry; check: PatchCheckResult }>
  deletePatchModule(name: string): Promise<void>
}

/** Methods whose delivery depends on the host (dialogs in Electron, pickers/downloads on the web). */
export interface HostMethods {
  openScenario(): Promise<ScenarioDoc | null>
  /** Opens a file from the recent list (only those: the renderer cannot name arbitrary paths). */
  openRecent(path: string): Promise<ScenarioDoc>
  /** Pick an rt-app JSON file and convert it. */
  importRtAppFile(): Promise<{ ok: true; doc: ScenarioDoc } | { ok: false; problem: ScenarioProblem } | null>
  /** Pick a trace file (ftrace text, gzipped or not), analyze it and save it as a run. */
  importTraceFile(): Promise<ImportTraceResult | null>
  saveScenario(doc: ScenarioDoc, saveAs: boolean): Promise<ScenarioDoc | null>
  exportTable(req: ExportTableRequest): Promise<ExportOutcome>
  exportPng(name: string, png: Uint8Array<ArrayBuffer>): Promise<ExportOutcome>
  /** Save a Perfetto trace of a run (save dialog, or a download). */
  exportPerfetto(req: TraceExportRequest): Promise<ExportOutcome>
  setDirty(dirty: boolean): Promise<void>
}

export type ApiMethods = ServiceMethods & HostMethods
export type ApiMethodName = keyof ApiMethods

export type EventListener<E extends ApiEventName> = (payload: ApiEvents[E]) => void

/** The one object the renderer talks to (window.schedlab). */
export interface SchedlabApi extends ApiMethods {
  readonly platform: 'electron' | 'web'
  on<E extends ApiEventName>(event: E, listener: EventListener<E>): () => void
}

// ---------------------------------------------------------------------------------------------
// Method names (the preload needs these without the zod schemas, which live in ipc-schemas.ts)

export const SERVICE_METHODS = [
  'appInfo', 'editorInfo', 'listPresets', 'readPreset', 'validateScenario', 'importRtApp', 'startRun',
  'startRealRun', 'startVmRun', 'cancelRun', 'resumeRun', 'importTrace', 'listRuns', 'getRun', 'renameRun', 'deleteRun', 'setBaseline', 'getSettings',
  'updateSettings', 'exportContent', 'explain', 'cancelExplain', 'perfettoTrace',
  'listPatchModules', 'checkPatchModule', 'savePatchModule', 'deletePatchModule'
] as const satisfies readonly (keyof ServiceMethods)[]

export const HOST_METHODS = [
  'openScenario', 'openRecent', 'importRtAppFile', 'importTraceFile', 'saveScenario', 'exportTable', 'exportPng', 'exportPerfetto', 'setDirty'
] as const satisfies readonly (keyof HostMethods)[]

export const API_METHODS: readonly ApiMethodName[] = [...SERVICE_METHODS, ...HOST_METHODS]

type Expect<T extends true> = T
type Covers<K, L> = [Exclude<K, L>] extends [never] ? true : false
export type ServiceMethodsListed = Expect<Covers<keyof ServiceMethods, (typeof SERVICE_METHODS)[number]>>
export type HostMethodsListed = Expect<Covers<keyof HostMethods, (typeof HOST_METHODS)[number]>>

export const IPC_PREFIX = 'schedlab:'
export const ipcChannel = (method: string): string => IPC_PREFIX + method
export const eventChannel = (event: ApiEventName): string => `${IPC_PREFIX}event:${event}`

/** Envelope every handler answers with, so error messages survive the transport unchanged. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: string }
