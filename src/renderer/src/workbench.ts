/**
 * The workbench's actions: everything that talks to the host API and writes the store.
 * Views call these (state.ts `Actions`); they never call the API to change shared state
 * themselves.
 */
import { parse as parseJsonc } from 'jsonc-parser'
import type { ApiEvents, MenuCommand, ScenarioDoc, ScenarioIssue, ScenarioProblem, SchedlabApi, StoredRun } from '../../shared/ipc'
import { textHash } from '../../shared/text-hash'
import { errorMessage } from './dom'
import type { Store } from './store'
import type { Actions, CompareColumnData, ExplainTarget, JobView, ProblemEntry, RunOptions, WorkbenchState } from './state'
import { resolveTheme } from './theme'
import { runOptionsProblem } from './run-options'

/** Heuristic used on open/drop: an rt-app file has `tasks` and no scenario `workloads`. */
export function looksLikeRtApp(text: string): boolean {
  const v = parseJsonc(text, [], { allowTrailingComma: true }) as unknown
  return !!v && typeof v === 'object' && !Array.isArray(v) && 'tasks' in v && !('workloads' in v)
}

const EDIT_VALIDATE_DELAY_MS = 400

export class Workbench implements Actions {
  private validateTimer: ReturnType<typeof setTimeout> | undefined
  private validateSeq = 0
  private revealSeq = 0

  constructor(private readonly api: SchedlabApi, private readonly store: Store<WorkbenchState>) {}

  private get s(): Readonly<WorkbenchState> {
    return this.store.state
  }

  /** Load what the window needs and listen to the host. */
  async start(): Promise<void> {
    const api = this.api
    const [settings, editorInfo, presets, appInfo] = await Promise.all([api.getSettings(), api.editorInfo(), api.listPresets(), api.appInfo()])
    this.store.set({ settings, editorInfo, presets, appInfo, theme: resolveTheme(settings.theme) })
    api.on('run-progress', (e) => this.onProgress(e))
    api.on('run-job', (e) => this.onJob(e))
    api.on('run-jobs', (e) => this.onMoreJobs(e))
    api.on('run-precision', (e) => {
      const p = this.s.progress
      if (p && p.runId === e.runId) this.store.set({ progress: { ...p, precision: e.precision } })
    })
    api.on('run-finished', (e) => void this.onRunFinished(e))
    api.on('runs-changed', () => void this.refreshRuns())
    api.on('menu-command', (e) => void this.command(e.command, e.path))
    this.loadDocument({ name: 'untitled.json', path: null, text: '' })
    await this.refreshRuns()
  }

  /** The connection to the web host is gone: say so; keep the text so nothing is lost. */
  disconnected(): void {
    this.store.set({ connected: false })
    this.setProblem('connection', {
      title: 'Lost the connection to schedlab serve',
      lines: [{ text: 'The editor content is still here: copy it, restart `schedlab serve` and open its new URL.' }]
    })
  }

  // -------------------------------------------------------------------------------------------
  // Documents

  get dirty(): boolean {
    return this.s.doc.text !== this.s.doc.savedText
  }

  private loadDocument(d: ScenarioDoc): void {
    this.store.set((s) => ({ doc: { name: d.name, path: d.path, savedText: d.text, text: d.text, loads: s.doc.loads + 1 } }))
    this.setProblem('scenario', null)
    this.scheduleValidate(0)
  }

  private confirmDiscard(): boolean {
    return !this.dirty || window.confirm(`Discard the unsaved changes to ${this.s.doc.name}?`)
  }

  edited(text: string): void {
    if (text === this.s.doc.text) return
    this.store.set((s) => ({ doc: { ...s.doc, text } }))
    this.scheduleValidate(EDIT_VALIDATE_DELAY_MS)
  }

  async loadPreset(id: string): Promise<void> {
    if (!this.confirmDiscard()) return
    await this.guard('Could not load the preset', async () => this.loadDocument(await this.api.readPreset(id)))
  }

  async loadRunScenario(id: string): Promise<void> {
    if (!this.confirmDiscard()) return
    await this.guard('Could not load the run', async () => {
      const run = await this.api.getRun(id)
      const base = run.scenarioFile.replace(/^.*[\\/]/, '') || 'scenario.json'
      this.loadDocument({ name: base, path: null, text: run.scenarioText })
    })
  }

  async openText(name: string, text: string): Promise<void> {
    if (this.confirmDiscard()) await this.openTextDoc(name, text)
  }

  private async openTextDoc(name: string, text: string): Promise<void> {
    if (looksLikeRtApp(text)) {
      const r = await this.api.importRtApp(text, name)
      if (r.ok) this.loadDocument(r.doc)
      else this.showProblem(r.problem, 'rt-app import', false)
      return
    }
    this.loadDocument({ name, path: null, text })
  }

  async command(c: MenuCommand, path?: string): Promise<void> {
    switch (c) {
      case 'new':
        if (this.confirmDiscard()) this.loadDocument({ name: 'untitled.json', path: null, text: '' })
        return
      case 'open':
        if (!this.confirmDiscard()) return
        return this.guard('Could not open the file', async () => {
          const d = await this.api.openScenario()
          if (!d) return
          if (looksLikeRtApp(d.text)) await this.openTextDoc(d.name, d.text)
          else this.loadDocument(d)
        })
      case 'open-recent':
        if (!path || !this.confirmDiscard()) return
        return this.guard('Could not open the file', async () => this.loadDocument(await this.api.openRecent(path)))
      case 'save':
      case 'save-as':
        return this.guard('Could not save', async () => {
          const { name, path: p, text } = this.s.doc
          const saved = await this.api.saveScenario({ name, path: p, text }, c === 'save-as')
          if (!saved) return
          this.store.set((s) => ({ doc: { ...s.doc, name: saved.name, path: saved.path, savedText: text } }))
        })
      case 'import-rtapp':
        if (!this.confirmDiscard()) return
        return this.guard('Could not import', async () => {
          const r = await this.api.importRtAppFile()
          if (!r) return
          if (r.ok) this.loadDocument(r.doc)
          else this.showProblem(r.problem, 'rt-app import', false)
        })
      case 'import-trace':
        return this.guard('Could not import the trace', async () => {
          const r = await this.api.importTraceFile()
          if (!r) return
          if (!r.ok) {
            this.showProblem(r.problem, 'Trace import', false)
            return
          }
          await this.refreshRuns()
          await this.openRun(r.run.id)
        })
      case 'run':
        return this.run()
      case 'run-real':
        return this.runReal()
      case 'cancel':
        return this.cancel()
      case 'toggle-theme':
        return this.guard('Could not change the theme', async () => {
          const settings = await this.api.updateSettings({ theme: this.s.theme === 'dark' ? 'light' : 'dark' })
          this.store.set({ settings, theme: resolveTheme(settings.theme) })
        })
      case 'shortcuts':
        document.dispatchEvent(new CustomEvent('schedlab:shortcuts'))
    }
  }

  // -------------------------------------------------------------------------------------------
  // Validation and problems

  private scheduleValidate(delay: number): void {
    clearTimeout(this.validateTimer)
    const hash = textHash(this.s.doc.text)
    if (this.s.validation.hash !== hash || this.s.validation.state !== 'pending') this.store.set({ validation: { state: 'pending', hash } })
    this.validateTimer = setTimeout(() => void this.validate(), delay)
  }

  private async validate(): Promise<void> {
    const { text, name } = this.s.doc
    const hash = textHash(text)
    const seq = ++this.validateSeq
    if (text.trim() === '') {
      this.store.set({ validation: { state: 'empty', hash }, variants: [] })
      return
    }
    try {
      const r = await this.api.validateScenario(text, name)
      if (seq !== this.validateSeq) return
      if (r.ok) {
        const { ok: _ok, ...verdict } = r
        this.store.set({ validation: { state: 'ok', hash, ...verdict }, variants: r.variants })
        this.setProblem('scenario', null)
      } else {
        this.store.set({ validation: { state: 'bad', hash, problem: r.problem } })
        // Keep an open problem list current while the user fixes things.
        if (this.s.problems.scenario) this.showProblem(r.problem)
      }
    } catch (err) {
      if (seq !== this.validateSeq) return
      this.store.set({ validation: { state: 'error', hash, message: errorMessage(err) } })
    }
  }

  /**
   * List a problem in the panel. `inDocument` says whether its issues are about the open
   * document (then they can be revealed in it); a dropped or imported file's are not.
   */
  private showProblem(p: ScenarioProblem, what = 'The scenario is not valid', inDocument = true): void {
    this.setProblem('scenario', {
      title: `${what}: ${p.file}`,
      lines: p.issues.map((i) => ({
        text: `${i.file ?? p.file}${i.line ? `:${i.line}:${i.column ?? 1}` : ''}  ${i.path}: ${i.message}`,
        onClick: inDocument && !i.file ? () => this.revealIssue(i) : undefined
      }))
    })
    if (inDocument) this.store.set({ validation: { state: 'bad', hash: textHash(this.s.doc.text), problem: p } })
  }

  setProblem(key: string, entry: ProblemEntry | null): void {
    const problems = { ...this.s.problems }
    if (entry) problems[key] = entry
    else if (key in problems) delete problems[key]
    else return
    this.store.set({ problems })
  }

  revealIssue(issue: ScenarioIssue): void {
    this.store.set({ reveal: { issue, seq: ++this.revealSeq } })
  }

  async guard(title: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn()
    } catch (err) {
      this.setProblem(`op:${title}`, { title, lines: [{ text: errorMessage(err) }] })
    }
  }

  // -------------------------------------------------------------------------------------------
  // Runs

  setVariantChecked(name: string, checked: boolean): void {
    const unchecked = this.s.unchecked.filter((n) => n !== name)
    if (!checked) unchecked.push(name)
    this.store.set({ unchecked })
  }

  setRunOptions(patch: Partial<RunOptions>): void {
    this.store.set((s) => ({ runOptions: { ...s.runOptions, ...patch } }))
  }

  /** The variants to run, or undefined for all. */
  private selectedVariants(): string[] | undefined {
    const all = this.s.variants
    const picked = all.filter((n) => !this.s.unchecked.includes(n))
    return picked.length === all.length ? undefined : picked
  }

  async run(): Promise<void> {
    return this.startRun('sim')
  }

  async runReal(): Promise<void> {
    const real = this.s.appInfo?.real
    if (real && !real.available) {
      this.setProblem('run', { title: 'Real runs are not possible here', lines: [{ text: real.reason ?? 'unknown reason' }] })
      return
    }
    return this.startRun('real')
  }

  private async startRun(how: 'sim' | 'real'): Promise<void> {
    if (this.s.runningId || !this.s.connected) return
    const { text, name } = this.s.doc
    if (text.trim() === '') {
      this.setProblem('scenario', { title: 'Nothing to run', lines: [{ text: 'The editor is empty: pick a preset from Presets, or open a scenario.' }] })
      return
    }
    const bad = runOptionsProblem(this.s.runOptions)
    if (bad) {
      this.setProblem('run', { title: 'The run bar has a value that cannot run', lines: [{ text: bad }] })
      return
    }
    // Marks the window busy before the host answers, so a second press does not start twice.
    this.store.set({ runningId: 'starting' })
    try {
      const o = this.s.runOptions
      const precision = o.precision?.trim()
      const req = {
        text, file: name, variants: this.selectedVariants(),
        ...(o.seeds !== null ? { seeds: o.seeds } : {}),
        ...(o.published ? { published: true } : o.durationMs !== null ? { durationMs: o.durationMs } : {}),
        ...(precision && how === 'sim' ? { precision } : {})
      }
      const r = how === 'real' ? await this.api.startRealRun(req) : await this.api.startRun(req)
      if (!r.ok) {
        this.store.set({ runningId: null })
        this.showProblem(r.problem)
        return
      }
      this.setProblem('scenario', null)
      this.setProblem('run', null)
      this.store.set({
        runningId: r.runId,
        progress: { runId: r.runId, status: 'running', jobs: r.jobs.map((info) => ({ info, state: 'queued', fraction: 0 })) }
      })
    } catch (err) {
      this.store.set({ runningId: null })
      this.setProblem('run', { title: 'The run could not start', lines: [{ text: errorMessage(err) }] })
    }
  }

  async cancel(): Promise<void> {
    const id = this.s.runningId
    if (!id || id === 'starting') return
    await this.guard('Cancel failed', async () => {
      await this.api.cancelRun(id)
    })
  }

  private updateJobs(runId: string, fn: (j: JobView) => JobView): void {
    const p = this.s.progress
    if (!p || p.runId !== runId) return
    this.store.set({ progress: { ...p, jobs: p.jobs.map(fn) } })
  }

  private onProgress(e: ApiEvents['run-progress']): void {
    const by = new Map(e.jobs.map((j) => [j.jobId, j]))
    this.updateJobs(e.runId, (j) => {
      const p = by.get(j.info.jobId)
      if (!p || (j.state !== 'queued' && j.state !== 'running')) return j
      return { ...j, state: 'running', fraction: p.durationNs > 0 ? Math.min(1, p.simNs / p.durationNs) : 0 }
    })
  }

  /** Seeds a precision run added. */
  private onMoreJobs(e: ApiEvents['run-jobs']): void {
    const p = this.s.progress
    if (!p || p.runId !== e.runId) return
    this.store.set({ progress: { ...p, jobs: [...p.jobs, ...e.jobs.map((info): JobView => ({ info, state: 'queued', fraction: 0 }))] } })
  }

  private onJob(e: ApiEvents['run-job']): void {
    this.updateJobs(e.runId, (j) => j.info.jobId !== e.jobId ? j : {
      ...j, state: e.state, fraction: e.state === 'done' ? 1 : j.fraction,
      error: e.state === 'failed' ? e.error?.message : j.error
    })
  }

  private async onRunFinished(e: ApiEvents['run-finished']): Promise<void> {
    this.updateJobs(e.runId, (j) => (j.state === 'queued' || j.state === 'running' ? { ...j, state: 'canceled' } : j))
    const p = this.s.progress
    if (p && p.runId === e.runId) this.store.set({ progress: { ...p, status: e.status } })
    if (e.runId !== this.s.runningId) return
    this.store.set({ runningId: null })
    const failures = e.errors.filter((x) => x.kind !== 'canceled')
    if (failures.length > 0) {
      this.setProblem('run', {
        title: `${failures.length} simulation${failures.length === 1 ? '' : 's'} failed${e.run ? '; the others were saved' : ''}`,
        lines: failures.map((x) => ({ text: `${x.variant} · seed ${x.seed} (${x.kind}): ${x.message}` }))
      })
    }
    if (e.run) await this.openRun(e.run.id)
  }

  private async refreshRuns(): Promise<void> {
    try {
      const [list, settings] = await Promise.all([this.api.listRuns(), this.api.getSettings()])
      const shown = this.s.shownRun
      // a sweep's cell shown as a run has the id SWEEP#CELL and keeps its own name
      const cell = !!shown && shown.id.includes('#')
      const fresh = shown ? list.runs.find((r) => r.id === (cell ? shown.id.slice(0, shown.id.indexOf('#')) : shown.id)) : undefined
      const sweep = this.s.shownSweep
      const freshSweep = sweep ? list.runs.find((r) => r.id === sweep.id) : undefined
      this.store.set({
        runs: list.runs,
        settings,
        shownRun: !shown || !fresh ? null : !cell && fresh.name !== shown.name ? { ...shown, name: fresh.name } : shown,
        shownSweep: !sweep || !freshSweep ? null : freshSweep.name !== sweep.name ? { ...sweep, name: freshSweep.name } : sweep
      })
      this.setProblem('store', list.problems.length ? {
        title: 'Some saved runs could not be read (they were moved aside, not deleted)',
        lines: list.problems.map((p) => ({ text: p.message }))
      } : null)
    } catch (err) {
      this.setProblem('store', { title: 'Could not list the saved runs', lines: [{ text: errorMessage(err) }] })
    }
  }

  async openRun(id: string): Promise<void> {
    await this.guard('Could not open the run', async () => {
      const run = await this.api.getRun(id)
      if (run.sweep) {
        this.store.set({ shownSweep: run })
        this.selectTab('sweep')
        return
      }
      this.store.set({ shownRun: run })
      this.selectTab('results')
    })
  }

  openSweepCell(sweep: StoredRun, cell: number): void {
    const c = sweep.sweep?.cells.find((x) => x.index === cell)
    if (!c) return
    const label = sweep.sweep!.axes.map((a, i) => `${a.path}=${JSON.stringify(c.values[i])}`).join(', ')
    this.store.set({
      shownRun: {
        ...sweep, id: `${sweep.id}#${cell}`, name: `${sweep.name} [${label}]`, kind: undefined, sweep: undefined,
        results: c.results, seeds: [...new Set(c.results.map((r) => r.seed))].sort((a, b) => a - b)
      }
    })
    this.selectTab('results')
  }

  async renameRun(id: string, name: string): Promise<void> {
    await this.guard('Rename failed', async () => {
      await this.api.renameRun(id, name)
    })
  }

  async deleteRun(id: string): Promise<void> {
    await this.guard('Delete failed', async () => {
      await this.api.deleteRun(id)
      if (this.s.shownRun?.id === id || this.s.shownRun?.id.startsWith(`${id}#`)) this.store.set({ shownRun: null })
      if (this.s.shownSweep?.id === id) this.store.set({ shownSweep: null })
    })
  }

  async pinBaseline(id: string | null): Promise<void> {
    await this.guard('Pinning the baseline failed', async () => {
      this.store.set({ settings: await this.api.setBaseline(id) })
    })
  }

  // -------------------------------------------------------------------------------------------
  // Comparison and export

  async compareRuns(ids: string[]): Promise<void> {
    await this.guard('Could not open the comparison', async () => {
      const base = this.s.settings.baselineRunId
      const runs = this.s.runs
      const created = (id: string) => runs.find((r) => r.id === id)?.createdAt ?? ''
      const order = base && runs.some((r) => r.id === base) && !ids.includes(base) ? [base, ...ids] : ids
      // Oldest first reads as "before -> after"; the pinned baseline leads regardless.
      const sorted = [...order].sort((a, b) => (a === base ? -1 : b === base ? 1 : created(a).localeCompare(created(b))))
      const loaded: StoredRun[] = await Promise.all(sorted.map((id) => this.api.getRun(id)))
      this.showComparison(loaded.flatMap((run) => run.variants.map((variant) => ({ run, variant }))), 0)
    })
  }

  showComparison(columns: CompareColumnData[], baseline: number): void {
    this.store.set({ comparison: { columns, baseline: Math.min(Math.max(0, baseline), Math.max(0, columns.length - 1)) } })
    this.selectTab('compare')
  }

  async exportTable(columns: CompareColumnData[], baseline: number, format: Parameters<Actions['exportTable']>[2], title: string, metrics?: Parameters<Actions['exportTable']>[4]): Promise<void> {
    await this.guard('Export failed', async () => {
      await this.api.exportTable({ columns: columns.map((c) => ({ runId: c.run.id, variant: c.variant })), baseline, format, title, ...(metrics ? { metrics } : {}) })
    })
  }

  async exportPng(name: string, png: () => Promise<Uint8Array<ArrayBuffer>>): Promise<void> {
    await this.guard('PNG export failed', async () => {
      await this.api.exportPng(name.replace(/[^\w.-]+/g, '-'), await png())
    })
  }

  explain(target: Omit<ExplainTarget, 'seq'>): void {
    this.store.set({ explain: { ...target, seq: (this.store.state.explain?.seq ?? 0) + 1 } })
    this.selectTab('timeline')
  }

  selectTab(id: string): void {
    this.store.set({ tab: id })
  }
}
