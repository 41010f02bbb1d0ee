import type { RunSummary } from '../../../shared/ipc'
import { h, replace } from '../dom'

export interface HistoryHandlers {
  open(id: string): void
  rename(id: string, name: string): void
  remove(id: string): void
  pin(id: string | null): void
  loadScenario(id: string): void
  compare(ids: string[]): void
}

function when(iso: string): string {
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

/** Saved runs, newest first: open, rename, delete, pin as baseline, select for comparison. */
export class HistoryView {
  readonly el: HTMLElement
  private readonly list: HTMLUListElement
  private readonly compareBtn: HTMLButtonElement
  private runs: RunSummary[] = []
  private baseline: string | null = null
  private current: string | null = null
  private readonly selected = new Set<string>()
  private editing: string | null = null
  private confirming: string | null = null

  constructor(private readonly on: HistoryHandlers) {
    this.list = h('ul', { class: 'history-list', 'data-testid': 'history-list', 'aria-label': 'Saved runs' })
    this.compareBtn = h('button', {
      class: 'small', 'data-testid': 'compare-selected', disabled: true,
      title: 'Compare the selected runs side by side',
      onclick: () => this.on.compare(this.selectedIds())
    }, 'Compare')
    this.el = h('aside', { class: 'history' },
      h('header', { class: 'pane-head' }, h('h2', {}, 'History'), this.compareBtn),
      this.list)
  }

  /** Selected runs in history order (newest first), for the comparison. */
  selectedIds(): string[] {
    return this.runs.filter((r) => this.selected.has(r.id)).map((r) => r.id)
  }

  setSelected(ids: string[]): void {
    this.selected.clear()
    for (const id of ids) this.selected.add(id)
    this.render()
  }

  update(runs: RunSummary[], baseline: string | null, current: string | null): void {
    this.runs = runs
    this.baseline = baseline
    this.current = current
    for (const id of [...this.selected]) if (!runs.some((r) => r.id === id)) this.selected.delete(id)
    this.render()
  }

  private render(): void {
    const n = this.selectedIds().length
    this.compareBtn.disabled = n < 1
    this.compareBtn.textContent = n > 0 ? `Compare (${n})` : 'Compare'
    if (this.runs.length === 0) {
      replace(this.list, h('li', { class: 'empty' },
        h('p', {}, 'No saved runs yet.'),
        h('p', { class: 'hint' }, 'Every run is saved here with its scenario, seeds and results. Pin one as the baseline to compare later runs against it.')))
      return
    }
    replace(this.list, this.runs.map((r) => this.item(r)))
  }

  private item(r: RunSummary): HTMLLIElement {
    const pinned = this.baseline === r.id
    const check = h('input', {
      type: 'checkbox', class: 'select', title: 'Select for comparison', 'aria-label': `Select ${r.name} for comparison`,
      checked: this.selected.has(r.id),
      onchange: (e: Event) => {
        if ((e.target as HTMLInputElement).checked) this.selected.add(r.id)
        else this.selected.delete(r.id)
        this.render()
      }
    })
    const name = this.editing === r.id ? this.renameInput(r) : h('button', { class: 'run-name link', title: 'Show results', onclick: () => this.on.open(r.id) }, r.name)
    const meta = h('div', { class: 'run-meta' },
      `${when(r.createdAt)} · ${r.variants.length} variant${r.variants.length === 1 ? '' : 's'} × ${r.seeds.length} seed${r.seeds.length === 1 ? '' : 's'}`,
      r.status !== 'done' ? h('span', { class: `status status-${r.status}` }, r.status) : null)
    const actions = this.confirming === r.id
      ? h('div', { class: 'run-actions confirm' }, 'Delete this run?',
          h('button', { class: 'small danger', 'data-action': 'confirm-delete', onclick: () => { this.confirming = null; this.on.remove(r.id) } }, 'Delete'),
          h('button', { class: 'small', onclick: () => { this.confirming = null; this.render() } }, 'Keep'))
      : h('div', { class: 'run-actions' },
          h('button', { class: `small icon${pinned ? ' active' : ''}`, 'data-action': 'pin', title: pinned ? 'Unpin baseline' : 'Pin as baseline for comparisons', 'aria-pressed': pinned ? 'true' : 'false', onclick: () => this.on.pin(pinned ? null : r.id) }, pinned ? '★' : '☆'),
          h('button', { class: 'small icon', 'data-action': 'rename', title: 'Rename', onclick: () => { this.editing = r.id; this.render() } }, '✎'),
          h('button', { class: 'small icon', 'data-action': 'load', title: 'Load this run\'s scenario into the editor', onclick: () => this.on.loadScenario(r.id) }, '⤶'),
          h('button', { class: 'small icon', 'data-action': 'delete', title: 'Delete', onclick: () => { this.confirming = r.id; this.render() } }, '✕'))
    return h('li', {
      class: `history-item${this.current === r.id ? ' current' : ''}${pinned ? ' baseline' : ''}`,
      'data-testid': 'history-item', 'data-run-id': r.id
    },
    h('div', { class: 'run-line' }, check, name, pinned ? h('span', { class: 'badge' }, 'baseline') : null),
    h('div', { class: 'run-scenario', title: r.scenarioFile }, r.scenarioName),
    meta, actions)
  }

  private renameInput(r: RunSummary): HTMLInputElement {
    const input = h('input', { type: 'text', class: 'rename', value: r.name, 'aria-label': 'Run name', maxlength: 500 })
    const commit = (): void => {
      const v = input.value.trim()
      this.editing = null
      if (v && v !== r.name) this.on.rename(r.id, v)
      else this.render()
    }
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') commit()
      if (e.key === 'Escape') {
        this.editing = null
        this.render()
      }
      e.stopPropagation()
    })
    input.addEventListener('blur', () => {
      if (this.editing === r.id) commit()
    })
    queueMicrotask(() => {
      input.focus()
      input.select()
    })
    return input
  }
}
