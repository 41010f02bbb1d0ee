/**
 * What every group of actions is built on: the host API, the store, and the few actions that
 * all of them use (problems, guarded calls, tabs). Each file of actions/ holds the actions of
 * one view (editor, run bar, history, compare and exports, timeline); workbench.ts puts them
 * together into the one `Actions` object the views call (view-context.ts).
 */
import type { ScenarioIssue, ScenarioProblem, SchedlabApi } from '../../../shared/ipc'
import { textHash } from '../../../shared/text-hash'
import { errorMessage } from '../dom'
import type { Store } from '../store'
import type { ProblemEntry, WorkbenchState } from '../state'

/**
 * `Calls` is what a group calls of the others' actions, named by the group itself (the core
 * knows none of them: workbench.ts binds them all once they are put together).
 */
export interface ActionCore<Calls = unknown> {
  readonly api: SchedlabApi
  readonly store: Store<WorkbenchState>
  /** The current state. */
  readonly s: Readonly<WorkbenchState>
  /** The other groups' actions this group calls (bound once they are put together). */
  readonly actions: Calls
  setProblem(key: string, entry: ProblemEntry | null): void
  /**
   * List a scenario problem in the panel. `inDocument` says whether its issues are about the
   * open document (then they can be revealed in it); a dropped or imported file's are not.
   */
  showProblem(p: ScenarioProblem, what?: string, inDocument?: boolean): void
  revealIssue(issue: ScenarioIssue): void
  guard(title: string, fn: () => Promise<void>): Promise<void>
  selectTab(id: string): void
}

export type CoreActions = Pick<ActionCore, 'setProblem' | 'revealIssue' | 'guard' | 'selectTab'>

export function createCore<All>(api: SchedlabApi, store: Store<WorkbenchState>, actions: () => All): ActionCore<All> {
  let revealSeq = 0
  const core: ActionCore<All> = {
    api,
    store,
    get s() {
      return store.state
    },
    get actions() {
      return actions()
    },
    setProblem(key, entry) {
      const problems = { ...store.state.problems }
      if (entry) problems[key] = entry
      else if (key in problems) delete problems[key]
      else return
      store.set({ problems })
    },
    showProblem(p, what = 'The scenario is not valid', inDocument = true) {
      core.setProblem('scenario', {
        title: `${what}: ${p.file}`,
        lines: p.issues.map((i) => ({
          text: `${i.file ?? p.file}${i.line ? `:${i.line}:${i.column ?? 1}` : ''}  ${i.path}: ${i.message}`,
          onClick: inDocument && !i.file ? () => core.revealIssue(i) : undefined
        }))
      })
      if (inDocument) store.set({ validation: { state: 'bad', hash: textHash(store.state.doc.text), problem: p } })
    },
    revealIssue(issue) {
      store.set({ reveal: { issue, seq: ++revealSeq } })
    },
    async guard(title, fn) {
      try {
        await fn()
      } catch (err) {
        core.setProblem(`op:${title}`, { title, lines: [{ text: errorMessage(err) }] })
      }
    },
    selectTab(id) {
      store.set({ tab: id })
    }
  }
  return core
}
