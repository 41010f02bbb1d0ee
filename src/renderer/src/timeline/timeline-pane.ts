import type { ExplainRequest, RunSummary, SchedlabApi, StoredRun } from '../../../shared/ipc'
import type { ExplainResult, SampleSelector } from '../../../shared/explain'
import { variantResults } from '../../../shared/tables'
import { errorMessage, h, replace } from '../dom'
import type { RowIn } from './draw'
import type { ExplainTarget as StateTarget } from '../state'
import { ExplainPanel } from './explain-panel'
import { TimelineView } from './timeline-view'

/** What was clicked (state.ts ExplainTarget without its click counter). */
export type ExplainTarget = Omit<StateTarget, 'seq'>

type Api = Pick<SchedlabApi, 'explain' | 'cancelExplain' | 'on' | 'exportPerfetto' | 'listRuns' | 'getRun'>

/** A name for one explain request, unique across the windows sharing a host. */
function requestId(): string {
  return `tl-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`
}

const PCT: Record<string, 'p50' | 'p90' | 'p99' | 'p99_9'> = { p50: 'p50', p90: 'p90', p99: 'p99', p99_9: 'p99_9' }

/**
 * The seed a pooled figure comes from: the maximum's own seed; for a percentile the seed whose
 * own value is nearest the pooled one (a single seed: that one).
 */
export function seedFor(run: StoredRun, variant: string, workload: string | undefined, sample: SampleSelector | undefined): number {
  const rs = variantResults(run.results, variant)
  if (rs.length <= 1 || workload === undefined) return rs[0]?.seed ?? run.seeds[0]
  const wl = (r: (typeof rs)[number]) => r.workloads.find((w) => w.name === workload)?.latencyUs
  const key = typeof sample === 'string' ? PCT[sample] : undefined
  if (sample === undefined || sample === 'max' || typeof sample === 'number' || !key) {
    let best = rs[0]
    for (const r of rs) if ((wl(r)?.max ?? -1) > (wl(best)?.max ?? -1)) best = r
    return best.seed
  }
  const pooled = rs.map((r) => wl(r)?.[key] ?? 0).sort((a, b) => a - b)[Math.floor(rs.length / 2)]
  let best = rs[0]
  for (const r of rs) if (Math.abs((wl(r)?.[key] ?? 0) - pooled) < Math.abs((wl(best)?.[key] ?? 0) - pooled)) best = r
  return best.seed
}

export function rowOf(e: ExplainResult, title: string): RowIn {
  return {
    title,
    anchorNs: e.sample.readyNs,
    startNs: e.window.startNs,
    endNs: e.window.endNs,
    lanes: (e.lanes ?? e.timeline).map((l) => ({ cpu: l.cpu, slices: l.slices, idle: l.idle })),
    waits: e.waits ?? [],
    focus: { task: e.sample.task, cpu: e.sample.cpu, readyNs: e.sample.readyNs, ranNs: e.sample.ranNs }
  }
}

function describeTarget(t: ExplainTarget): string {
  if (t.idle) return `${t.variant}: unreasonable idle ${t.idle.bucket} #${t.idle.index}`
  return `${t.variant}: ${t.workload} ${t.sample ?? 'max'}`
}

/**
 * The timeline pane: the per-CPU timeline of the moment clicked, the explanation beside it,
 * and optionally a second run (or variant) below, aligned on the same kind of moment. The
 * explanation comes from the host (a re-run in the worker pool); this view never simulates.
 */
export class TimelinePane {
  readonly el: HTMLElement
  readonly timeline: TimelineView
  readonly panel: ExplainPanel
  private readonly compareBox: HTMLElement
  private primary: { target: ExplainTarget; seed: number; result: ExplainResult } | null = null
  private second: { title: string; result: ExplainResult } | null = null
  private seq = 0
  /** Requests under way (the primary's, the aligned row's): canceled when superseded or closed. */
  private readonly pending = new Set<string>()

  constructor(private readonly api: Api, private readonly opts: { dark(): boolean; onClose?(): void }) {
    api.on('explain-progress', (e) => {
      if (this.pending.has(e.requestId) && this.el.dataset.state === 'loading') this.panel.progress(e.simNs / Math.max(1, e.durationNs))
    })
    this.timeline = new TimelineView({ selectTask: (t) => (this.el.dataset.selectedTask = t ?? '') })
    this.panel = new ExplainPanel({
      showAt: (rel) => {
        this.timeline.centreOn(rel)
        this.timeline.el.querySelector('canvas')?.focus()
      },
      exportPerfetto: () => void this.exportPerfetto(),
      close: () => this.close()
    })
    this.compareBox = h('span', { class: 'timeline-compare' })
    this.el = h('section', { class: 'card timeline-pane', 'data-testid': 'timeline-pane', hidden: true },
      h('header', { class: 'timeline-head' },
        h('h3', {}, 'Timeline'),
        h('span', { class: 'hint' }, 'Zoom with the wheel or +/\u2212, pan by dragging or with \u2190\u2192, fit with 0; click a slice to follow its task.'),
        h('span', { class: 'spacer' }),
        this.compareBox,
        h('button', { class: 'small', title: 'Zoom in', onclick: () => this.timeline.zoom(0.5) }, '+'),
        h('button', { class: 'small', title: 'Zoom out', onclick: () => this.timeline.zoom(2) }, '\u2212'),
        h('button', { class: 'small', title: 'Fit the recorded window', onclick: () => this.timeline.setView(this.fit()) }, 'Fit')),
      h('div', { class: 'timeline-body' }, this.timeline.el, this.panel.el))
  }

  get result(): ExplainResult | null {
    return this.primary?.result ?? null
  }

  /** Open the timeline at the clicked moment and explain it. */
  async open(target: ExplainTarget): Promise<void> {
    const seq = ++this.seq
    this.cancelPending()
    const id = requestId()
    this.pending.add(id)
    const seed = target.seed ?? seedFor(target.run, target.variant, target.workload, target.sample)
    const title = describeTarget(target)
    this.el.hidden = false
    this.el.dataset.state = 'loading'
    this.second = null
    this.panel.loading(title)
    this.el.scrollIntoView?.({ block: 'nearest' })
    try {
      const req: ExplainRequest = target.idle
        ? { runId: target.run.id, variant: target.variant, seed, idle: target.idle, requestId: id }
        : { runId: target.run.id, variant: target.variant, seed, workload: target.workload, sample: target.sample ?? 'max', requestId: id }
      const result = await this.api.explain(req).finally(() => this.pending.delete(id))
      if (seq !== this.seq) return
      this.primary = { target, seed, result }
      this.panel.show(result, `${title} \u00b7 seed ${seed}`)
      this.draw()
      this.el.dataset.state = 'shown'
      void this.fillCompare(target.run)
      if (target.alignWith) await this.compareWith(target.alignWith.runId, target.alignWith.variant)
    } catch (err) {
      if (seq !== this.seq) return
      this.el.dataset.state = 'error'
      this.panel.error(title, errorMessage(err))
    }
  }

  /** A second row: the same kind of moment in another run or variant, aligned on it. */
  async compareWith(runId: string, variant: string): Promise<void> {
    const p = this.primary
    if (!p) return
    const seq = this.seq
    try {
      const run = await this.api.getRun(runId)
      const t = p.target
      const seed = seedFor(run, variant, t.workload, t.sample)
      const id = requestId()
      this.pending.add(id)
      const result = await this.api.explain(t.idle
        ? { runId, variant, seed, idle: t.idle, requestId: id }
        : { runId, variant, seed, workload: t.workload, sample: t.sample ?? 'max', requestId: id }).finally(() => this.pending.delete(id))
      if (seq !== this.seq) return
      this.second = { title: `${variant} \u00b7 seed ${seed}: ${result.sample.task} ${result.sample.latencyUs} us \u2014 ${run.name}`, result }
      this.draw()
    } catch (err) {
      this.compareBox.append(h('span', { class: 'notice' }, ` ${errorMessage(err)}`))
    }
  }

  setDark(dark: boolean): void {
    this.timeline.setDark(dark)
  }

  /** Stop the re-runs nobody waits for any more (a long run's passes would hold a worker for minutes). */
  private cancelPending(): void {
    for (const id of this.pending) void this.api.cancelExplain(id).catch(() => false)
    this.pending.clear()
  }

  close(): void {
    this.seq++
    this.cancelPending()
    this.primary = null
    this.second = null
    this.el.hidden = true
    this.el.dataset.state = 'closed'
    this.opts.onClose?.()
  }

  private rows(): RowIn[] {
    const rows: RowIn[] = []
    const p = this.primary
    if (p) rows.push(rowOf(p.result, `${p.target.variant} \u00b7 seed ${p.seed}: ${p.result.sample.task} ${p.result.sample.latencyUs} us \u2014 ${p.target.run.name}`))
    if (this.second) rows.push(rowOf(this.second.result, this.second.title))
    return rows
  }

  private fit(): { fromNs: number; toNs: number } {
    const rows = this.rows()
    let from = Infinity
    let to = -Infinity
    for (const r of rows) {
      // around the waits: a little before the readiness, a little after the run
      const f = r.focus!
      from = Math.min(from, Math.max(r.startNs, f.readyNs - Math.max(200_000, (f.ranNs - f.readyNs) / 4)) - r.anchorNs)
      to = Math.max(to, Math.min(r.endNs, f.ranNs + Math.max(200_000, (f.ranNs - f.readyNs) / 4)) - r.anchorNs)
    }
    return Number.isFinite(from) ? { fromNs: from, toNs: Math.max(from + 1000, to) } : { fromNs: -1e6, toNs: 1e6 }
  }

  private draw(): void {
    const p = this.primary
    this.timeline.setRows(this.rows(), { dark: this.opts.dark(), selectedTask: p?.result.sample.task ?? null })
    this.timeline.setView(this.fit())
  }

  private async fillCompare(current: StoredRun): Promise<void> {
    let runs: RunSummary[] = []
    try {
      runs = (await this.api.listRuns()).runs
    } catch {
      runs = []
    }
    const p = this.primary
    if (!p) return
    const options: { runId: string; variant: string; label: string }[] = []
    for (const r of runs) {
      for (const v of r.variants) {
        if (r.id === current.id && v === p.target.variant) continue
        options.push({ runId: r.id, variant: v, label: r.id === current.id ? v : `${r.name} \u00b7 ${v}` })
      }
    }
    if (options.length === 0) {
      replace(this.compareBox)
      return
    }
    const select = h('select', { 'data-testid': 'timeline-compare', title: 'Show the same moment of another variant or run below, aligned on it' },
      h('option', { value: '' }, 'Align with\u2026'),
      options.map((o, i) => h('option', { value: String(i) }, o.label)))
    select.addEventListener('change', () => {
      const o = options[Number(select.value)]
      if (o) void this.compareWith(o.runId, o.variant)
    })
    replace(this.compareBox, select)
  }

  private async exportPerfetto(): Promise<void> {
    const p = this.primary
    if (!p) return
    try {
      await this.api.exportPerfetto({ runId: p.target.run.id, variant: p.target.variant, seed: p.seed, startNs: p.result.window.startNs, endNs: p.result.window.endNs })
    } catch (err) {
      this.panel.error('Export Perfetto', errorMessage(err))
    }
  }
}
