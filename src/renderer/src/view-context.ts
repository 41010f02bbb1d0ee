/**
 * The context every view is built with: the store of the workbench's state (state.ts), the host
 * API, and the actions (actions/, put together by workbench.ts).
 */
import type { MenuCommand, SchedlabApi } from '../../shared/ipc'
import type { Store } from './store'
import type { WorkbenchState } from './state'
import type { CoreActions } from './actions/core'
import type { EditorActions } from './actions/editor'
import type { RunActions } from './actions/run'
import type { HistoryActions } from './actions/history'
import type { CompareActions } from './actions/compare'
import type { TimelineActions } from './actions/timeline'
import type { PatchActions } from './actions/patches'

/** What views may ask for: the actions of each view (actions/), put together by workbench.ts. */
export interface Actions extends EditorActions, RunActions, HistoryActions, CompareActions, TimelineActions, PatchActions, CoreActions {
  command(c: MenuCommand, path?: string): Promise<void>
}

export interface ViewContext {
  store: Store<WorkbenchState>
  api: SchedlabApi
  actions: Actions
}

/** A view of the right pane, one tab. */
export interface TabView {
  id: string
  label: string
  el: HTMLElement
}
