/**
 * The window: toolbar, history | editor | tabs (results, compare, ...), status bar; global
 * shortcuts and file drop. Views are built here from the one store; the right pane's tabs are
 * the TabViews listed in `tabViews`.
 */
import type { SchedlabApi } from '../../shared/ipc'
import { h } from './dom'
import { createStore, type Store } from './store'
import { initialState, type WorkbenchState } from './state'
import type { TabView, ViewContext } from './view-context'
import { applyTheme, onSystemThemeChange, resolveTheme } from './theme'
import { createWorkbench, type Workbench } from './workbench'
import { createToolbar } from './views/toolbar'
import { createRunBar } from './views/run-bar'
import { createErrorPanel } from './views/error-panel'
import { createProgressView } from './views/progress'
import { createHistoryView } from './views/history'
import { createResultsView } from './views/results'
import { createCompareView } from './views/compare'
import { createSweepView } from './views/sweep'
import { createTimelineView } from './views/timeline'
import { createPatchesView } from './views/patches'
import { createEditorPane } from './views/editor-pane'
import { createStatusBar } from './views/statusbar'
import { helpDialog } from './views/help'
import { installSplitters } from './views/splitters'

/** The right pane's tabs, in order (Ctrl+1, Ctrl+2, ...). A new view adds itself here. */
const tabViews: ((ctx: ViewContext) => TabView)[] = [createResultsView, createCompareView, createTimelineView, createSweepView, createPatchesView]

export interface Shell {
  store: Store<WorkbenchState>
  workbench: Workbench
  /** Resolves once the window has loaded what it shows. */
  started: Promise<void>
}

export function startShell(api: SchedlabApi, root: HTMLElement): Shell {
  const store = createStore(initialState())
  const workbench = createWorkbench(api, store)
  const ctx: ViewContext = { store, api, actions: workbench }

  const toolbar = createToolbar(ctx)
  const runBar = createRunBar(ctx)
  const editor = createEditorPane(ctx)
  const errors = createErrorPanel(ctx)
  const progress = createProgressView(ctx)
  const history = createHistoryView(ctx)
  const status = createStatusBar(ctx)
  const tabs = tabViews.map((f) => f(ctx))
  const help = helpDialog()

  const tabButtons = tabs.map((t, i) => h('button', {
    role: 'tab', class: 'tab', 'data-testid': `tab-${t.id}`, title: `${t.label} (Ctrl+${i + 1})`, onclick: () => workbench.selectTab(t.id)
  }, t.label))
  const panes = tabs.map((t) => h('div', { class: 'tab-pane', role: 'tabpanel', 'data-tab': t.id, hidden: true }, t.el))

  const layout = h('main', { class: 'layout', 'data-testid': 'layout' })
  const rightScroll = h('div', { class: 'right-scroll', 'data-testid': 'right-scroll' }, progress.el, panes)
  const right = h('section', { class: 'right-pane', 'data-testid': 'right-pane' },
    h('nav', { class: 'tabs', role: 'tablist' }, tabButtons),
    rightScroll)
  // another run or comparison shown opens at its top, not where the last one was scrolled to
  store.watch((s) => [s.shownRun?.id, s.shownSweep?.id, s.comparison, s.tab], () => { rightScroll.scrollTop = 0 }, { equals: (a, b) => a.every((x, i) => x === b[i]) })
  root.replaceChildren(toolbar.el, runBar.el, layout, status.el, help)

  store.watch((s) => s.tab, (tab) => {
    const known = tabs.some((t) => t.id === tab) ? tab : tabs[0].id
    tabs.forEach((t, i) => {
      tabButtons[i].setAttribute('aria-selected', String(t.id === known))
      panes[i].hidden = t.id !== known
    })
  }, { now: true })
  store.watch((s) => s.theme, applyTheme, { now: true })
  onSystemThemeChange(() => store.set({ theme: resolveTheme(store.state.settings.theme) }))
  document.addEventListener('schedlab:shortcuts', () => { if (!help.open) help.showModal() })

  installShortcuts(ctx, tabs, help)
  installDrop(ctx)

  // The splitters read the saved layout, so the panes are placed once the settings are in.
  const started = workbench.start().then(() => {
    const split = installSplitters(ctx, layout)
    layout.replaceChildren(history.el, split.history, h('section', { class: 'editor-pane', 'data-testid': 'editor-pane' }, editor.el, errors.el), split.editor, right)
    editor.mount()
  })
  return { store, workbench, started }
}

/**
 * Where the keyboard focus is: Monaco's text, one of its widgets (find/replace, suggest,
 * hover), or elsewhere. Global shortcuts must not steal keys a Monaco widget uses.
 */
function focusPlace(): 'editor-text' | 'editor-widget' | 'other' {
  const a = document.activeElement
  if (!a) return 'other'
  const monaco = a.closest('.monaco-editor')
  if (!monaco && !a.closest('.overflowingContentWidgets, .overflowingOverlayWidgets, .monaco-aria-container')) return 'other'
  // The text input is Monaco's hidden textarea (or its EditContext element) inside the lines.
  return a.matches('textarea.inputarea, .native-edit-context, .ime-text-area') ? 'editor-text' : 'editor-widget'
}

function installShortcuts(ctx: ViewContext, tabs: TabView[], help: HTMLDialogElement): void {
  const { actions, store } = ctx
  window.addEventListener('keydown', (e) => {
    const where = focusPlace()
    if (where === 'editor-widget' || help.open) return
    const mod = e.ctrlKey || e.metaKey
    const only = (alt = false, shift = false) => e.altKey === alt && e.shiftKey === shift
    const key = e.key.toLowerCase()
    let handled = true
    if (mod && key === 'enter' && only()) void actions.run()
    else if (key === 'escape' && !mod && only() && where === 'other' && store.state.runningId) void actions.cancel()
    else if (mod && key === 's' && only()) void actions.command('save')
    else if (mod && key === 's' && only(false, true)) void actions.command('save-as')
    else if (mod && key === 'o' && only()) void actions.command('open')
    else if (mod && key === 'l' && only(false, true)) void actions.command('toggle-theme')
    else if (mod && only() && /^[1-9]$/.test(key) && tabs[Number(key) - 1]) actions.selectTab(tabs[Number(key) - 1].id)
    else if (e.key === 'F1' && !mod && only()) void actions.command('shortcuts')
    else handled = false
    if (handled) {
      e.preventDefault()
      e.stopPropagation()
    }
  }, { capture: true })
}

function installDrop(ctx: ViewContext): void {
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
    if (file) void ctx.actions.guard(`Could not open ${file.name}`, async () => ctx.actions.openText(file.name, await file.text()))
  }, { capture: true })
}
