import { h, replace } from '../dom'

export interface ErrorLine {
  text: string
  onClick?: () => void
}

export interface ErrorEntry {
  title: string
  lines: ErrorLine[]
}

/** The problems panel: what went wrong and where, one entry per source (scenario, run, store). */
export class ErrorPanel {
  readonly el: HTMLElement
  private readonly list: HTMLElement
  private readonly count: HTMLElement
  private readonly entries = new Map<string, ErrorEntry>()

  constructor() {
    this.count = h('span', { class: 'count' })
    this.list = h('div', { class: 'error-list' })
    this.el = h('section', { class: 'error-panel', 'data-testid': 'error-panel', role: 'alert', 'aria-live': 'polite', hidden: true },
      h('header', {}, h('strong', {}, 'Problems '), this.count,
        h('button', { class: 'small link', onclick: () => this.clear(), title: 'Dismiss all problems' }, 'Dismiss all')),
      this.list)
  }

  set(key: string, entry: ErrorEntry | null): void {
    if (entry) this.entries.set(key, entry)
    else this.entries.delete(key)
    this.render()
  }

  has(key: string): boolean {
    return this.entries.has(key)
  }

  clear(): void {
    this.entries.clear()
    this.render()
  }

  private render(): void {
    this.el.hidden = this.entries.size === 0
    this.count.textContent = `(${this.entries.size})`
    replace(this.list, [...this.entries].map(([key, e]) =>
      h('div', { class: 'error-entry', 'data-key': key },
        h('div', { class: 'error-title' }, e.title,
          h('button', { class: 'small link', title: 'Dismiss', 'aria-label': 'Dismiss', onclick: () => this.set(key, null) }, '×')),
        h('ul', {}, e.lines.map((l) => h('li', {},
          l.onClick ? h('a', { href: '#', onclick: (ev: Event) => { ev.preventDefault(); l.onClick!() } }, l.text) : l.text))))))
  }
}
