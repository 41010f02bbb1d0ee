import type { CauseShare, ExplainResult } from '../../../shared/explain'
import { h, replace } from '../dom'

export interface ExplainPanelHandlers {
  /** A decision was clicked: show its moment (relative to the sample's readiness). */
  showAt(relNs: number, cpu: number): void
  exportPerfetto(): void
  close(): void
}

function t(ns: number): string {
  return `${(ns / 1e9).toFixed(6)} s`
}

/** A recorded decision's text as a sentence: it ends with a full stop (names keep their case). */
export function sentence(text: string): string {
  const t = text.trim()
  return /[.!?]$/.test(t) ? t : `${t}.`
}

function d(ns: number): string {
  const a = Math.abs(ns)
  return a < 1e6 ? `${(ns / 1000).toFixed(1)} us` : `${(ns / 1e6).toFixed(2)} ms`
}

/** Causes as the timeline shows them, left to right (by when each first held the task up). */
export function inTimeOrder(causes: readonly CauseShare[]): CauseShare[] {
  return causes.map((c, i) => ({ c, i })).sort((a, b) => (a.c.fromNs ?? Infinity) - (b.c.fromNs ?? Infinity) || a.i - b.i).map((x) => x.c)
}

/**
 * The explanation beside the timeline (test id `explain-panel`): what was explained, the
 * summary, the wait divided among its causes, and the decisions between runnable and running
 * (each a reason code of docs/explain.md and its sentence). States: loading, error, shown.
 */
export class ExplainPanel {
  readonly el: HTMLElement

  constructor(private readonly on: ExplainPanelHandlers) {
    this.el = h('aside', { class: 'explain-panel card', 'data-testid': 'explain-panel', 'data-state': 'empty' })
  }

  loading(what: string): void {
    this.el.dataset.state = 'loading'
    replace(this.el, this.head(what),
      h('p', { class: 'hint' }, 'Re-running the variant with the decision recorder (finding the sample, then recording around it)\u2026 ',
        h('span', { 'data-testid': 'explain-progress' }, '')),
      h('p', { class: 'hint' }, 'Close stops it.'))
  }

  /** The re-run's progress, 0..1 over both passes. */
  progress(fraction: number): void {
    const el = this.el.querySelector('[data-testid="explain-progress"]')
    if (el) el.textContent = `${Math.floor(100 * Math.min(1, Math.max(0, fraction)))} %`
  }

  error(what: string, message: string): void {
    this.el.dataset.state = 'error'
    replace(this.el, this.head(what), h('p', { class: 'notice' }, message))
  }

  show(e: ExplainResult, title: string): void {
    this.el.dataset.state = 'shown'
    this.el.dataset.cause = e.cause
    this.el.dataset.task = e.sample.task
    this.el.dataset.latencyUs = String(e.sample.latencyUs)
    const total = Math.max(1, e.sample.ranNs - e.sample.readyNs)
    const what = e.idle ? 'idle period'
      : e.measured ? `${e.workload} max, ${e.measured === 'real' ? 'measured on this machine\'s kernel' : 'from the imported trace'}`
      : `${e.workload} ${e.selector}, sample #${e.sample.index}`
    replace(this.el,
      this.head(title, !e.measured),
      h('div', { class: 'explain-sample' },
        h('strong', {}, e.sample.task), ` waited `,
        h('strong', { 'data-testid': 'explain-latency' }, `${e.sample.latencyUs} us`),
        ` on CPU ${e.sample.cpu} (${what}): runnable at ${t(e.sample.readyNs)}, running at ${t(e.sample.ranNs)}.`),
      e.warning ? h('p', { class: 'notice' }, e.warning) : null,
      h('p', { class: 'explain-summary', 'data-testid': 'explain-summary' }, e.summary),
      e.causes.length === 0 ? null : h('div', { class: 'explain-causes', 'data-testid': 'explain-causes' },
        h('span', { class: 'hint' }, 'The wait by cause, in the order they came: '),
        inTimeOrder(e.causes.slice(0, 6)).map((c) => h('span', { class: 'cause-chip', 'data-code': c.code, 'data-from-ns': String(c.fromNs ?? ''), title: `${(100 * c.ns / total).toFixed(1)} % of the wait` },
          h('code', {}, c.code), ` ${d(c.ns)}`))),
      h('ol', { class: 'explain-decisions' },
        e.decisions.map((x) => h('li', {
          'data-code': x.code,
          title: 'Show this moment on the timeline',
          onclick: () => this.on.showAt(x.atNs - e.sample.readyNs, x.cpu)
        },
        h('span', { class: 'when' }, `${d(x.atNs - e.sample.readyNs)}`),
        h('span', { class: 'cpu' }, `CPU ${x.cpu}`),
        h('code', {}, x.code),
        h('span', { class: 'text' }, sentence(x.text))))),
      h('p', { class: 'hint' }, 'Reason codes: docs/explain.md. Times are relative to the moment the task became runnable.'))
  }

  /** `exportable`: a simulated run (a measured one has nothing to re-run into a trace). */
  private head(title: string, exportable = true): HTMLElement {
    return h('header', { class: 'explain-head' },
      h('h3', {}, 'Why this latency'),
      h('span', { class: 'explain-title' }, title),
      h('span', { class: 'spacer' }),
      !exportable ? null : h('button', { class: 'small', 'data-testid': 'export-perfetto', title: 'A Perfetto trace of this window (opens at ui.perfetto.dev)', onclick: () => this.on.exportPerfetto() }, 'Export Perfetto'),
      h('button', { class: 'small', title: 'Close the timeline', onclick: () => this.on.close() }, 'Close'))
  }
}
