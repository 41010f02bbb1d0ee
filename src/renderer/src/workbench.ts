/**
 * The workbench's actions: everything that talks to the host API and writes the store, one
 * group per view in actions/ (editor, run bar, history, compare and exports, timeline), put
 * together here into the one `Actions` object the views call (view-context.ts). Views never call the
 * API to change shared state themselves. A new group of actions is a module in actions/ and
 * one line in `groups` below.
 */
import type { MenuCommand, SchedlabApi } from '../../shared/ipc'
import type { Store } from './store'
import type { WorkbenchState } from './state'
import type { Actions } from './view-context'
import { resolveTheme } from './theme'
import { createCore } from './actions/core'
import { createEditorActions } from './actions/editor'
import { createRunActions } from './actions/run'
import { createHistoryActions } from './actions/history'
import { createCompareActions } from './actions/compare'
import { createTimelineActions } from './actions/timeline'
import { createPatchActions } from './actions/patches'

export { looksLikeRtApp } from './actions/editor'

export interface Workbench extends Actions {
  /** Load what the window needs and listen to the host. */
  start(): Promise<void>
  /** The connection to the web host is gone: say so; keep the text so nothing is lost. */
  disconnected(): void
}

export function createWorkbench(api: SchedlabApi, store: Store<WorkbenchState>): Workbench {
  let all: Workbench
  const core = createCore(api, store, () => all)
  const editor = createEditorActions(core)
  const run = createRunActions(core)
  const history = createHistoryActions(core)
  const groups = [
    editor, run, history,
    createCompareActions(core),
    createTimelineActions(core),
    createPatchActions(core)
  ]

  async function command(c: MenuCommand, path?: string): Promise<void> {
    switch (c) {
      case 'new': return editor.newDocument()
      case 'open': return editor.open()
      case 'open-recent': return path ? editor.openRecent(path) : undefined
      case 'save':
      case 'save-as': return editor.save(c === 'save-as')
      case 'import-rtapp': return editor.importRtAppFile()
      case 'import-trace': return history.importTrace()
      case 'run': return run.run()
      case 'run-real': return run.runReal()
      case 'run-vm': return run.runVm()
      case 'cancel': return run.cancel()
      case 'toggle-theme':
        return core.guard('Could not change the theme', async () => {
          const settings = await api.updateSettings({ theme: core.s.theme === 'dark' ? 'light' : 'dark' })
          store.set({ settings, theme: resolveTheme(settings.theme) })
        })
      case 'shortcuts':
        document.dispatchEvent(new CustomEvent('schedlab:shortcuts'))
    }
  }

  all = Object.assign({}, ...groups, {
    command,
    setProblem: core.setProblem,
    revealIssue: core.revealIssue,
    guard: core.guard,
    selectTab: core.selectTab,
    async start() {
      const [settings, editorInfo, presets, appInfo] = await Promise.all([api.getSettings(), api.editorInfo(), api.listPresets(), api.appInfo()])
      store.set({ settings, editorInfo, presets, appInfo, theme: resolveTheme(settings.theme) })
      api.on('menu-command', (e) => void command(e.command, e.path))
      editor.startEmpty()
      await history.refreshRuns()
      // a reload shows the newest run of History, as before it
      const newest = core.s.runs[0]
      if (newest && !core.s.shownRun && !core.s.shownSweep) await history.openRun(newest.id)
    },
    disconnected() {
      store.set({ connected: false })
      core.setProblem('connection', {
        title: 'Lost the connection to schedlab serve',
        lines: [{ text: 'The editor content is still here: copy it, restart `schedlab serve` and open its new URL.' }]
      })
    }
  }) as Workbench
  return all
}
