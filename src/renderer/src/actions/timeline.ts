/** The timeline's actions: explain a clicked moment. */
import type { ExplainTarget } from '../state'
import type { ActionCore } from './core'

export interface TimelineActions {
  /** Open the Timeline tab at a clicked moment and explain it. */
  explain(target: Omit<ExplainTarget, 'seq'>): void
}

export function createTimelineActions(core: ActionCore): TimelineActions {
  return {
    explain(target) {
      core.store.set({ explain: { ...target, seq: (core.s.explain?.seq ?? 0) + 1 } })
      core.selectTab('timeline')
    }
  }
}
