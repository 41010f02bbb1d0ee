import type { TabView, ViewContext } from '../view-context'
import { h } from '../dom'
import { TimelinePane } from '../timeline/timeline-pane'

/**
 * The Timeline tab: the per-CPU timeline at the moment clicked in Results (a maximum or
 * percentile cell, a CDF point, an unreasonable-idle count) with the explanation beside it.
 */
export function createTimelineView(ctx: ViewContext): TabView {
  const pane = new TimelinePane(ctx.api, { dark: () => ctx.store.state.theme === 'dark', onClose: () => ctx.store.set({ explain: null }) })
  const empty = h('div', { class: 'empty-state' },
    h('h3', {}, 'Why this latency'),
    h('p', {}, 'In ', h('strong', {}, 'Results'), ' or ', h('strong', {}, 'Compare'), ', click the maximum or any percentile of a latency table, a point of the latency CDF, or an unreasonable-idle count: the timeline of the CPUs at that moment opens here, with the scheduler\u2019s decisions explained beside it.'),
    h('p', { class: 'hint' }, 'The variant is re-run with the decision recorder (same seed, same result); reason codes are documented in docs/explain.md.'))
  const el = h('div', { class: 'timeline-tab' }, empty, pane.el)
  ctx.store.watch((s) => s.explain, (t) => {
    empty.hidden = t !== null
    if (t) void pane.open(t)
    else pane.close()
  }, { now: true })
  ctx.store.watch((s) => s.theme, (theme) => pane.setDark(theme === 'dark'))
  return { id: 'timeline', label: 'Timeline', el }
}
