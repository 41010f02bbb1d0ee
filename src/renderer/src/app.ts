import { parse as parseJsonc } from 'jsonc-parser'
import type {
  ApiEvents, ExportFormat, MenuCommand, PresetInfo, RunSummary, SchedlabApi, ScenarioDoc, ScenarioProblem, Settings
} from '../../shared/ipc'
import { h, errorMessage } from './dom'
import { textHash } from '../../shared/text-hash'
import { ScenarioEditor } from './editor/scenario-editor'
import { applyTheme, chartTheme, onSystemThemeChange, resolveTheme, type Resolved } from './theme'
import { Toolbar } from './views/toolbar'
import { ErrorPanel } from './views/error-panel'
import { ProgressView } from './views/progress'
import { HistoryView } from './views/history'
import { ResultsView } from './views/results'
import { CompareView, type CompareColumnData } from './views/compare'
import { helpDialog } from './views/help'
import type { ChartCard } from './views/chart-card'

interface Doc {
  name: string
  path: string | null
  /** Text as last opened or saved; the document is dirty when the editor differs. */
  savedText: string
}

type Tab = 'results' | 'compare'

/** Heuristic used on open/drop: an rt-app file has `tasks` and no scenario `workloads`. */
export function looksLikeRtApp(text: string): boolean {
  const v = parseJsonc(text, [], { allowTrailingComma: true }) as unknown
  return !!v && typeof v === 'object' && !Array.isArray(v) && 'tasks' in v && !('workloads' in v)
}

/** The workbench: wires the editor, runs, results, comparison and history to the API. */
export class App {
  private readonly editor: ScenarioEditor
  private readonly toolbar: Toolbar
  private readonly errors = new ErrorPanel()
  private readonly progress = new ProgressView()
  private readonly history: HistoryView
  private readonly results: ResultsView
  private readonly compare: CompareView
  private readonly help = helpDialog()
  private readonly status = h('span', { class: 'validation', 'data-testid': 'validation-status' })
  private readonly info = h('span', { class: 'app-info' })
  private readonly welcome: HTMLElement
  private readonly tabs: Record<Tab, HTMLButtonElement>
  private readonly panes: Record<Tab, HTMLElement>

  private doc: Doc = { name: 'untitled.json', path: null, savedText: '' }
  private settings: Settings = { theme: 'system', baselineRunId: null, recentFiles: [] }
  private theme: Resolved = 'light'
  private presets: PresetInfo[] = []
  private runs: RunSummary[] = []
  private runningId: string | null = null
  private validateTimer: number | undefined
  private validateSeq = 0

  constructor(private readonly api: SchedlabApi, private readonly root: HTMLElement) {
    this.editor = new ScenarioEditor(() => this.onEdit())
    this.toolbar = new Toolbar({
      newDoc: () => void this.command('new'),
      open: () => void this.command('open'),
      save: () => void this.command('save'),
      importRtApp: () => void this.command('import-rtapp'),
      preset: (id) => void this.loadPreset(id),
      run: () => void this.run(),
      cancel: () => void this.cancel(),
      toggleTheme: () => void this.command('toggle-theme'),
      help: () => this.command('shortcuts')
    })
    this.history = new HistoryView({
      open: (id) => void this.showRun(id),
      rename: (id, name) => void this.guard('Rename failed', async () => { await this.api.renameRun(id, name) }),
      remove: (id) => void this.guard('Delete failed', async () => {
        await this.api.deleteRun(id)
        if (this.results.shown?.id === id) this.results.show(null, null)
      }),
      pin: (id) => void this.guard('Pinning the baseline failed', async () => { this.settings = await this.api.setBaseline(id) }),
      loadScenario: (id) => void this.loadRunScenario(id),
      compare: (ids) => void this.compareRuns(ids)
    })
    this.results = new ResultsView({
      exportPng: (name, card) => void this.exportPng(name, card),
      exportTable: (run, format) => void this.exportTable(run.variants.map((variant) => ({ run, variant })), 0, format, run.name),
      compareVariants: (run) => this.showComparison(run.variants.map((variant) => ({ run, variant })), 0)
    })
    this.compare = new CompareView({
      exportPng: (name, card) => void this.exportPng(name, card),
      exportTable: (cols, baseline, format, title) => void this.exportTable(cols, baseline, format, title)
    })

    this.welcome = h('div', { class: 'welcome', 'data-testid': 'welcome' })
    const tab = (t: Tab, label: string, key: string) => h('button', { role: 'tab', class: 'tab', 'data-testid': `tab-${t}`, title: `${label} (Ctrl+${key})`, onclick: () => this.selectTab(t) }, label)
    this.tabs = { results: tab('results', 'Results', '1'), compare: tab('compare', 'Compare', '2') }
    this.panes = {
      results: h('div', { class: 'tab-pane', role: 'tabpanel' }, this.results.el),
      compare: h('div', { class: 'tab-pane', role: 'tabpanel', hidden: true }, this.compare.el)
    }
  }

  async start(): Promise<void> {
    this.root.replaceChildren(
      this.toolbar.el,
      h('main', { class: 'layout' },
        this.history.el,
        h('section', { class: 'editor-pane' }, h('div', { class: 'editor-wrap' }, this.editor.el, this.welcome), this.errors.el),
        h('section', { class: 'right-pane' },
          h('nav', { class: 'tabs', role: 'tablist' }, this.tabs.results, this.tabs.compare),
          this.progress.el,
          this.panes.results, this.panes.compare)),
      h('footer', { class: 'statusbar' }, this.status, this.info),
      this.help)

    const [settings, editorInfo, presets, appInfo] = await Promise.all([
      this.api.getSettings(), this.api.editorInfo(), this.api.listPresets(), this.api.appInfo()
    ])
    this.settings = settings
    this.theme = resolveTheme(settings.theme)
    applyTheme(this.theme)
    onSystemThemeChange(() => this.setTheme(this.settings.theme))
    this.presets = presets
    this.toolbar.setPresets(presets)
    this.info.textContent = `schedlab ${appInfo.version} · ${appInfo.workers} worker${appInfo.workers === 1 ? '' : 's'} · data in ${appInfo.dataDir}`
    this.editor.mount(this.theme)
    this.editor.setSchema(editorInfo.schema)
    this.renderWelcome()
    this.setDocument({ name: 'untitled.json', path: null, text: '' })
    this.selectTab('results')

    this.api.on('run-progress', (e) => this.progress.progress(e))
    this.api.on('run-job', (e) => this.progress.job(e))
    this.api.on('run-finished', (e) => void this.onRunFinished(e))
    this.api.on('runs-changed', () => void this.refreshRuns())
    this.api.on('menu-command', (e) => void this.command(e.command, e.path))
    this.installShortcuts()
    this.installDrop()
    await this.refreshRuns()
  }

  /** The connection to the web host is gone: say so; keep the text so nothing is lost. */
  disconnected(): void {
    this.errors.set('connection', {
      title: 'Lost the connection to schedlab serve',
      lines: [{ text: 'The editor content is still here: copy it, restart `schedlab serve` and open its new URL.' }]
    })
    this.toolbar.setRunning(true)
  }

  // -------------------------------------------------------------------------------------------
  // Documents

  private get dirty(): boolean {
    return this.editor.text !== this.doc.savedText
  }

  private setDocument(d: ScenarioDoc): void {
    this.doc = { name: d.name, path: d.path, savedText: d.text }
    this.editor.setText(d.text)
    this.errors.set('scenario', null)
    this.afterEdit()
    this.scheduleValidate(0)
  }

  private confirmDiscard(): boolean {
    return !this.dirty || window.confirm(`Discard the unsaved changes to ${this.doc.name}?`)
  }

  private onEdit(): void {
    this.afterEdit()
    this.scheduleValidate(400)
  }

  private afterEdit(): void {
    const dirty = this.dirty
    this.toolbar.setDoc(this.doc.name, dirty)
    document.title = `${dirty ? '● ' : ''}${this.doc.name} — schedlab`
    void this.api.setDirty(dirty).catch(() => undefined)
    this.welcome.hidden = this.editor.text.trim() !== ''
  }

  private renderWelcome(): void {
    this.welcome.replaceChildren(h('div', { class: 'welcome-box' },
      h('h2', {}, 'Start from a preset'),
      h('p', {}, 'A scenario is a CPU topology, a kernel configuration, a workload mix and the variants to compare. Open one of the presets, then press Run.'),
      this.presets.length
        ? h('ul', { class: 'preset-list' }, this.presets.map((p) => h('li', {},
            h('button', { class: 'link', 'data-testid': `preset-${p.id}`, onclick: () => void this.loadPreset(p.id) }, p.name),
            p.description ? h('span', { class: 'hint' }, ` ${p.description}`) : null)))
        : h('p', { class: 'hint' }, 'No presets found.'),
      h('p', { class: 'hint' }, 'Or open a scenario file, import an rt-app JSON, or drop either here.')))
  }

  private async loadPreset(id: string): Promise<void> {
    if (!this.confirmDiscard()) return
    await this.guard('Could not load the preset', async () => this.setDocument(await this.api.readPreset(id)))
  }

  private async loadRunScenario(id: string): Promise<void> {
    if (!this.confirmDiscard()) return
    await this.guard('Could not load the run', async () => {
      const run = await this.api.getRun(id)
      const base = run.scenarioFile.replace(/^.*[\\/]/, '') || 'scenario.json'
      this.setDocument({ name: base, path: null, text: run.scenarioText })
    })
  }

  private async openText(name: string, text: string): Promise<void> {
    if (looksLikeRtApp(text)) {
      const r = await this.api.importRtApp(text, name)
      if (r.ok) this.setDocument(r.doc)
      else this.showProblem(r.problem, 'rt-app import')
      return
    }
    this.setDocument({ name, path: null, text })
  }

  async command(c: MenuCommand, path?: string): Promise<void> {
    switch (c) {
      case 'new':
        if (this.confirmDiscard()) this.setDocument({ name: 'untitled.json', path: null, text: '' })
        return
      case 'open':
        if (!this.confirmDiscard()) return
        return this.guard('Could not open the file', async () => {
          const d = await this.api.openScenario()
          if (!d) return
          if (looksLikeRtApp(d.text)) await this.openText(d.name, d.text)
          else this.setDocument(d)
        })
      case 'open-recent':
        if (!path || !this.confirmDiscard()) return
        return this.guard('Could not open the file', async () => this.setDocument(await this.api.openRecent(path)))
      case 'save':
      case 'save-as':
        return this.guard('Could not save', async () => {
          const text = this.editor.text
          const saved = await this.api.saveScenario({ name: this.doc.name, path: this.doc.path, text }, c === 'save-as')
          if (!saved) return
          this.doc = { name: saved.name, path: saved.path, savedText: text }
          this.afterEdit()
        })
      case 'import-rtapp':
        if (!this.confirmDiscard()) return
        return this.guard('Could not import', async () => {
          const r = await this.api.importRtAppFile()
          if (!r) return
          if (r.ok) this.setDocument(r.doc)
          else this.showProblem(r.problem, 'rt-app import')
        })
      case 'run':
        return this.run()
      case 'cancel':
        return this.cancel()
      case 'toggle-theme':
        return this.guard('Could not change the theme', async () => {
          this.settings = await this.api.updateSettings({ theme: this.theme === 'dark' ? 'light' : 'dark' })
          this.setTheme(this.settings.theme)
        })
      case 'shortcuts':
        if (!this.help.open) this.help.showModal()
    }
  }

  // -------------------------------------------------------------------------------------------
  // Validation and problems

  private scheduleValidate(delay: number): void {
    clearTimeout(this.validateTimer)
    this.status.dataset.state = 'pending'
    this.validateTimer = window.setTimeout(() => void this.validate(), delay)
  }

  private async validate(): Promise<void> {
    const text = this.editor.text
    const seq = ++this.validateSeq
    // What the status describes, so a test can wait for the verdict on exactly its text.
    const mark = (state: string): void => {
      this.status.dataset.state = state
      this.status.dataset.hash = textHash(text)
    }
    if (text.trim() === '') {
      mark('empty')
      this.status.textContent = 'Empty scenario: pick a preset to start'
      this.status.className = 'validation'
      this.editor.setIssues([])
      this.toolbar.setVariants([])
      return
    }
    try {
      const r = await this.api.validateScenario(text, this.doc.name)
      if (seq !== this.validateSeq) return
      if (r.ok) {
        this.status.textContent = `✓ ${r.scenarioName}: ${r.variants.length} variant${r.variants.length === 1 ? '' : 's'} × ${r.seeds.length} seed${r.seeds.length === 1 ? '' : 's'}`
        this.status.className = 'validation ok'
        mark('ok')
        this.editor.setIssues([])
        this.toolbar.setVariants(r.variants)
        this.errors.set('scenario', null)
      } else {
        const n = r.problem.issues.length
        this.status.textContent = `✗ ${n} problem${n === 1 ? '' : 's'} in the scenario`
        this.status.className = 'validation bad'
        mark('bad')
        this.editor.setIssues(r.problem.issues)
        // Keep an open problem list current while the user fixes things.
        if (this.errors.has('scenario')) this.showProblem(r.problem)
      }
    } catch (err) {
      if (seq !== this.validateSeq) return
      this.status.textContent = `validation failed: ${errorMessage(err)}`
      this.status.className = 'validation bad'
      mark('error')
    }
  }

  private showProblem(p: ScenarioProblem, what = 'The scenario is not valid'): void {
    this.editor.setIssues(p.issues)
    this.errors.set('scenario', {
      title: `${what}: ${p.file}`,
      lines: p.issues.map((i) => ({
        text: `${i.file ?? p.file}${i.line ? `:${i.line}:${i.column ?? 1}` : ''}  ${i.path}: ${i.message}`,
        onClick: i.file ? undefined : () => this.editor.reveal(i)
      }))
    })
  }

  private async guard(title: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn()
    } catch (err) {
      this.errors.set(`op:${title}`, { title, lines: [{ text: errorMessage(err) }] })
    }
  }

  // -------------------------------------------------------------------------------------------
  // Runs

  private async run(): Promise<void> {
    if (this.runningId) return
    const text = this.editor.text
    if (text.trim() === '') {
      this.errors.set('scenario', { title: 'Nothing to run', lines: [{ text: 'The editor is empty: pick a preset from Presets, or open a scenario.' }] })
      return
    }
    this.toolbar.setRunning(true)
    try {
      const r = await this.api.startRun({ text, file: this.doc.name, variants: this.toolbar.selectedVariants() })
      if (!r.ok) {
        this.showProblem(r.problem)
        this.toolbar.setRunning(false)
        return
      }
      this.errors.set('scenario', null)
      this.errors.set('run', null)
      this.runningId = r.runId
      this.progress.start(r.runId, r.jobs)
    } catch (err) {
      this.toolbar.setRunning(false)
      this.errors.set('run', { title: 'The run could not start', lines: [{ text: errorMessage(err) }] })
    }
  }

  private async cancel(): Promise<void> {
    if (!this.runningId) return
    await this.guard('Cancel failed', async () => {
      await this.api.cancelRun(this.runningId!)
    })
  }

  private async onRunFinished(e: ApiEvents['run-finished']): Promise<void> {
    this.progress.finish(e)
    if (e.runId !== this.runningId) return
    this.runningId = null
    this.toolbar.setRunning(false)
    const failures = e.errors.filter((x) => x.kind !== 'canceled')
    if (failures.length > 0) {
      this.errors.set('run', {
        title: `${failures.length} simulation${failures.length === 1 ? '' : 's'} failed${e.run ? '; the others were saved' : ''}`,
        lines: failures.map((x) => ({ text: `${x.variant} · seed ${x.seed} (${x.kind}): ${x.message}` }))
      })
    }
    if (e.run) await this.showRun(e.run.id)
  }

  private async refreshRuns(): Promise<void> {
    try {
      const [list, settings] = await Promise.all([this.api.listRuns(), this.api.getSettings()])
      this.runs = list.runs
      this.settings = settings
      this.history.update(list.runs, settings.baselineRunId, this.results.shown?.id ?? null)
      this.errors.set('store', list.problems.length ? {
        title: 'Some saved runs could not be read (they were moved aside, not deleted)',
        lines: list.problems.map((p) => ({ text: p.message }))
      } : null)
      const shown = this.results.shown
      if (shown && !list.runs.some((r) => r.id === shown.id)) this.results.show(null, null)
      else if (shown) {
        const fresh = list.runs.find((r) => r.id === shown.id)
        if (fresh && fresh.name !== shown.name) this.results.show({ ...shown, name: fresh.name }, chartTheme(this.theme))
      }
    } catch (err) {
      this.errors.set('store', { title: 'Could not list the saved runs', lines: [{ text: errorMessage(err) }] })
    }
  }

  private async showRun(id: string): Promise<void> {
    await this.guard('Could not open the run', async () => {
      const run = await this.api.getRun(id)
      this.results.show(run, chartTheme(this.theme))
      this.history.update(this.runs, this.settings.baselineRunId, run.id)
      this.selectTab('results')
    })
  }

  // -------------------------------------------------------------------------------------------
  // Comparison and export

  private async compareRuns(ids: string[]): Promise<void> {
    await this.guard('Could not open the comparison', async () => {
      const base = this.settings.baselineRunId
      const order = base && this.runs.some((r) => r.id === base) && !ids.includes(base) ? [base, ...ids] : ids
      // Oldest first reads as "before -> after"; the pinned baseline leads regardless.
      const sorted = [...order].sort((a, b) => (a === base ? -1 : b === base ? 1 : this.createdAt(a).localeCompare(this.createdAt(b))))
      const runs = await Promise.all(sorted.map((id) => this.api.getRun(id)))
      const cols: CompareColumnData[] = runs.flatMap((run) => run.variants.map((variant) => ({ run, variant })))
      this.showComparison(cols, 0)
    })
  }

  private createdAt(id: string): string {
    return this.runs.find((r) => r.id === id)?.createdAt ?? ''
  }

  private showComparison(cols: CompareColumnData[], baseline: number): void {
    this.compare.show(cols, baseline, chartTheme(this.theme))
    this.selectTab('compare')
  }

  private async exportTable(cols: CompareColumnData[], baseline: number, format: ExportFormat, title: string): Promise<void> {
    await this.guard('Export failed', async () => {
      await this.api.exportTable({ columns: cols.map((c) => ({ runId: c.run.id, variant: c.variant })), baseline, format, title })
    })
  }

  private async exportPng(name: string, card: ChartCard): Promise<void> {
    await this.guard('PNG export failed', async () => {
      await this.api.exportPng(name.replace(/[^\w.-]+/g, '-'), await card.png())
    })
  }

  // -------------------------------------------------------------------------------------------
  // Chrome

  private selectTab(t: Tab): void {
    for (const k of Object.keys(this.tabs) as Tab[]) {
      this.tabs[k].setAttribute('aria-selected', String(k === t))
      this.panes[k].hidden = k !== t
    }
  }

  private setTheme(t: Settings['theme']): void {
    this.theme = resolveTheme(t)
    applyTheme(this.theme)
    this.editor.setTheme(this.theme)
    const ct = chartTheme(this.theme)
    if (this.results.shown) this.results.show(this.results.shown, ct)
    this.compare.retheme(ct)
  }

  private installShortcuts(): void {
    window.addEventListener('keydown', (e) => {
      const mod = e.ctrlKey || e.metaKey
      const key = e.key.toLowerCase()
      let handled = true
      if (mod && key === 'enter') void this.run()
      else if (key === 'escape' && this.runningId && !this.editor.hasFocus() && !this.help.open) void this.cancel()
      else if (mod && !e.shiftKey && key === 's') void this.command('save')
      else if (mod && e.shiftKey && key === 's') void this.command('save-as')
      else if (mod && key === 'o') void this.command('open')
      else if (mod && e.shiftKey && key === 'l') void this.command('toggle-theme')
      else if (mod && key === '1') this.selectTab('results')
      else if (mod && key === '2') this.selectTab('compare')
      else if (e.key === 'F1') void this.command('shortcuts')
      else handled = false
      if (handled) {
        e.preventDefault()
        e.stopPropagation()
      }
    }, { capture: true })
  }

  private installDrop(): void {
    const hasFiles = (e: DragEvent) => !!e.dataTransfer && [...e.dataTransfer.types].includes('Files')
    window.addEventListener('dragover', (e) => {
      if (!hasFiles(e)) return
      e.preventDefault()
      e.stopPropagation()
      document.body.classList.add('dropping')
    }, { capture: true })
    window.addEventListener('dragleave', (e) => {
      if (e.relatedTarget === null) document.body.classList.remove('dropping')
    })
    window.addEventListener('drop', (e) => {
      if (!hasFiles(e)) return
      e.preventDefault()
      e.stopPropagation()
      document.body.classList.remove('dropping')
      const file = e.dataTransfer?.files[0]
      if (!file || !this.confirmDiscard()) return
      void this.guard(`Could not open ${file.name}`, async () => this.openText(file.name, await file.text()))
    }, { capture: true })
  }
}
