import { h, replace } from '../dom'
import type { ViewContext } from '../view-context'

/** The problems panel: what went wrong and where, one entry per source (scenario, run, store). */
export function createErrorPanel(ctx: ViewContext): { el: HTMLElement } {
  const count = h('span', { class: 'count' })
  const list = h('div', { class: 'error-list' })
  const el = h('section', { class: 'error-panel', 'data-testid': 'error-panel', role: 'alert', 'aria-live': 'polite', hidden: true },
    h('header', {}, h('strong', {}, 'Problems '), count,
      h('button', { class: 'small link', onclick: () => ctx.store.set({ problems: {} }), title: 'Dismiss all problems' }, 'Dismiss all')),
    list)
  ctx.store.watch((s) => s.problems, (problems) => {
    const entries = Object.entries(problems)
    el.hidden = entries.length === 0
    // the count is of the listed problems, not of their sources
    count.textContent = `(${entries.reduce((n, [, e]) => n + Math.max(1, e.lines.length), 0)})`
    replace(list, entries.map(([key, e]) =>
      h('div', { class: 'error-entry', 'data-key': key },
        h('div', { class: 'error-title' }, e.title,
          h('button', { class: 'small link', title: 'Dismiss', 'aria-label': 'Dismiss', onclick: () => ctx.actions.setProblem(key, null) }, '×')),
        h('ul', {}, e.lines.map((l) => h('li', {},
          l.onClick ? h('a', { href: '#', onclick: (ev: Event) => { ev.preventDefault(); l.onClick!() } }, l.text) : l.text))))))
  }, { now: true })
  return { el }
}
