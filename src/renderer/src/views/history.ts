import type { RunSummary } from '../../../shared/ipc'
import { h, replace } from '../dom'
import type { ViewContext } from '../view-context'
import { shallowEqual } from '../store'

function when(iso: string): string {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * A run's name in two parts for a middle ellipsis: the end that tells runs of one scenario apart
 * (what changed, after the last " · ", or the last characters) stays whole, the start is cut.
 */
export function splitName(name: string): [string, string] {
  const dot = name.lastIndexOf(' · ')
  const cut = dot > 0 && name.length - dot <= 40 ? dot : Math.max(0, name.length - 14)
  return cut > 0 ? [name.slice(0, cut), name.slice(cut)] : [name, '']
}

/**
 * Saved runs, newest first: open, rename, delete, pin as baseline, select for comparison.
 * The selection, the rename field and the delete confirmation are this view's own state.
 */
export function createHistoryView(ctx: ViewContext): { el: HTMLElement } {
  const { store, actions } = ctx
  const selected = new Set<string>()
  let editing: string | null = null
  let confirming: string | null = null

  const list = h('ul', { class: 'history-list', 'data-testid': 'history-list', 'aria-label': 'Saved runs' })
  const selectedIds = (): string[] => store.state.runs.filter((r) => selected.has(r.id)).map((r) => r.id)
  const compareBtn = h('button', {
    class: 'small', 'data-testid': 'compare-selected', disabled: true,
    title: 'Compare the selected runs side by side',
    onclick: () => void actions.compareRuns(selectedIds())
  }, 'Compare')
  const el = h('aside', { class: 'history' },
    h('header', { class: 'pane-head' }, h('h2', {}, 'History'), compareBtn),
    list)

  function render(): void {
    const { runs } = store.state
    for (const id of [...selected]) if (!runs.some((r) => r.id === id)) selected.delete(id)
    const n = selectedIds().length
    compareBtn.disabled = n < 1
    compareBtn.textContent = n > 0 ? `Compare (${n})` : 'Compare'
    if (runs.length === 0) {
      replace(list, h('li', { class: 'empty' },
        h('p', {}, 'No saved runs yet.'),
        h('p', { class: 'hint' }, 'Every run is saved here with its scenario, seeds and results. Pin one as the baseline to compare later runs against it.')))
      return
    }
    replace(list, runs.map(item))
  }

  function item(r: RunSummary): HTMLLIElement {
    const { settings, shownRun } = store.state
    const pinned = settings.baselineRunId === r.id
    const check = h('input', {
      type: 'checkbox', class: 'select', title: 'Select for comparison', 'aria-label': `Select ${r.name} for comparison`,
      checked: selected.has(r.id),
      onchange: (e: Event) => {
        if ((e.target as HTMLInputElement).checked) selected.add(r.id)
        else selected.delete(r.id)
        render()
      }
    })
    const [head, tail] = splitName(r.name)
    const name = editing === r.id ? renameInput(r) : h('button', { class: 'run-name link', title: `${r.name}\nShow results`, onclick: () => void actions.openRun(r.id) },
      h('span', { class: 'head' }, head), tail ? h('span', { class: 'tail' }, tail) : null)
    const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`
    const meta = h('div', { class: 'run-meta' },
      `${when(r.createdAt)} · ${r.kind === 'sweep' && r.cells !== undefined ? `${plural(r.cells, 'cell')} × ` : ''}${plural(r.variants.length, 'variant')} × ${plural(r.seeds.length, 'seed')}`,
      r.status !== 'done' ? h('span', { class: `status status-${r.status}` }, r.interrupted ? 'interrupted' : r.status) : null)
    const actionsRow = confirming === r.id
      ? h('div', { class: 'run-actions confirm' }, 'Delete this run?',
          h('button', { class: 'small danger', 'data-action': 'confirm-delete', onclick: () => { confirming = null; void actions.deleteRun(r.id) } }, 'Delete'),
          h('button', { class: 'small', onclick: () => { confirming = null; render() } }, 'Keep'))
      : h('div', { class: 'run-actions' },
          h('button', { class: `small icon${pinned ? ' active' : ''}`, 'data-action': 'pin', title: pinned ? 'Unpin baseline' : 'Pin as baseline for comparisons', 'aria-pressed': pinned ? 'true' : 'false', onclick: () => void actions.pinBaseline(pinned ? null : r.id) }, pinned ? '★' : '☆'),
          r.interrupted ? h('button', {
            class: 'small', 'data-action': 'resume', disabled: store.state.runningId !== null,
            title: 'Its host stopped before it finished: run the rest (the finished seeds and cells are kept)',
            onclick: () => void actions.resumeRun(r.id)
          }, 'Resume') : null,
          h('button', { class: 'small icon', 'data-action': 'rename', title: 'Rename', onclick: () => { editing = r.id; render() } }, '✎'),
          r.source === 'trace' ? null : h('button', { class: 'small icon', 'data-action': 'load', title: 'Load this run\'s scenario into the editor', onclick: () => void actions.loadRunScenario(r.id) }, '⤶'),
          h('button', { class: 'small icon', 'data-action': 'delete', title: 'Delete', onclick: () => { confirming = r.id; render() } }, '✕'))
    return h('li', {
      class: `history-item${shownRun?.id === r.id ? ' current' : ''}${pinned ? ' baseline' : ''}`,
      'data-testid': 'history-item', 'data-run-id': r.id, 'data-status': r.status, 'data-interrupted': r.interrupted ? 'true' : null, 'data-kind': r.kind ?? 'run', 'data-source': r.source ?? 'sim'
    },
    h('div', { class: 'run-line' }, check, name,
      r.source === 'real' ? h('span', { class: 'badge source-real', 'data-testid': 'real-badge', title: 'Measured on this machine\'s kernel (schedlab real)' }, 'real') : null,
      r.source === 'trace' ? h('span', { class: 'badge source-trace', 'data-testid': 'trace-badge', title: 'Read from a trace file (schedlab analyze)' }, 'trace') : null,
      r.source === 'vm' ? h('span', { class: 'badge source-vm', 'data-testid': 'vm-badge', title: 'Measured on a mainline kernel in a VM (schedlab vm)' }, 'vm') : null,
      pinned ? h('span', { class: 'badge' }, 'baseline') : null,
      r.kind === 'sweep' ? h('span', { class: 'badge sweep', title: 'A sweep: opens in the Sweep tab' }, 'sweep') : null),
    h('div', { class: 'run-scenario', title: r.scenarioFile }, r.scenarioName),
    meta, actionsRow)
  }

  function renameInput(r: RunSummary): HTMLInputElement {
    const input = h('input', { type: 'text', class: 'rename', value: r.name, 'aria-label': 'Run name', maxlength: 500 })
    const commit = (): void => {
      const v = input.value.trim()
      editing = null
      if (v && v !== r.name) void actions.renameRun(r.id, v)
      else render()
    }
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') commit()
      if (e.key === 'Escape') {
        editing = null
        render()
      }
      e.stopPropagation()
    })
    input.addEventListener('blur', () => {
      if (editing === r.id) commit()
    })
    queueMicrotask(() => {
      input.focus()
      input.select()
    })
    return input
  }

  store.watch((s) => ({ runs: s.runs, baseline: s.settings.baselineRunId, shown: s.shownRun?.id ?? null, running: s.runningId !== null }), render, { now: true, equals: shallowEqual })
  return { el }
}
