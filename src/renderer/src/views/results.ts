import type { ExportFormat, StoredRun } from '../../../shared/ipc'
import { buildTables, formatValue, variantResults } from '../../../shared/tables'
import { cdfConfig, cpuConfig, histogramConfig, percentileConfig, taskConfig, type ChartTheme } from '../charts/configs'
import { IDLE_BUCKETS, idleCounts, pooledTasks, workloadNames, type Series } from '../charts/data'
import { h, replace } from '../dom'
import { ChartCard } from './chart-card'
import { seedsTable } from './tables'
import type { ExplainTarget, TabView, ViewContext } from '../state'
import type { SampleSelector } from '../../../shared/explain'
import type { ChartConfiguration, ChartEvent, ActiveElement, Chart } from 'chart.js'
import { chartTheme } from '../theme'
import { shallowEqual } from '../store'

/** The machine a real run measured, one row per repeat; a trace's reading. */
function hostRecord(run: StoredRun): HTMLElement | null {
  const measured = run.results.filter((r) => r.host)
  if (measured.length > 0) {
    const h0 = measured[0].host!
    const cc = (r: (typeof measured)[number]): string => {
      const c = r.workloads.find((w) => w.crossCheck)?.crossCheck
      return c ? `within ${c.maxAbsDiffUs} us (${c.samples} samples)` : '-'
    }
    return h('section', { class: 'card host-record', 'data-testid': 'host-record' },
      h('h4', {}, `This machine: Linux ${h0.kernel}, ${h0.cpus} CPUs, HZ ${h0.hz ?? '?'}, preempt=${h0.preempt ?? '?'}`),
      h('table', {},
        h('thead', {}, h('tr', {}, ['variant', 'repeat', 'foreign CPU (s)', 'contaminated', 'load before -> after', 'cyclictest vs trace'].map((c) => h('th', {}, c)))),
        h('tbody', {}, measured.map((r) => h('tr', {},
          h('td', {}, r.name), h('td', {}, r.seed), h('td', {}, String(r.host!.foreignCpuSec)),
          h('td', { class: r.host!.contaminated ? 'contaminated' : '' }, r.host!.contaminated ? 'yes' : 'no'),
          h('td', {}, `${r.host!.loadavg.before.join(' ')} -> ${r.host!.loadavg.after.join(' ')}`),
          h('td', {}, cc(r)))))))
  }
  const traced = run.results.find((r) => r.trace)
  if (traced?.trace) {
    const t = traced.trace
    return h('section', { class: 'card host-record', 'data-testid': 'trace-record' },
      h('h4', {}, `Read from ${run.scenarioFile}`),
      h('p', {}, `${t.lines ?? '?'} lines, ${t.events} sched events over ${t.spanMs} ms; ${t.malformed ?? 0} malformed, ${t.lostEvents ?? 0} lost; latency from ${t.timerLatency ? 'requested hrtimer expiries (else sched_waking)' : 'sched_waking'}.`))
  }
  return null
}

export const EXPORT_FORMATS: readonly [ExportFormat, string, string][] = [
  ['csv', 'CSV', 'Spreadsheet columns, raw numbers'],
  ['md', 'Markdown', 'Tables as in the mailing-list threads, for a cover letter or issue'],
  ['txt', 'Text', 'Fixed-width text as in the mailing-list threads'],
  ['json', 'JSON', 'Tables and the full results']
]

/**
 * A CDF whose points can be clicked: the nearest point's series (the variant) and its y (the
 * share of samples at or below it, i.e. the percentile) go to `pick`.
 */
function clickable<T extends ChartConfiguration<'line', { x: number; y: number | null }[]>>(cfg: T, pick: (variant: string, fraction: number) => void): T {
  const options = { ...cfg.options }
  options.onClick = (_e: ChartEvent, els: ActiveElement[], chart: Chart) => {
    const el = els[0]
    if (!el) return
    const ds = chart.data.datasets[el.datasetIndex]
    const pt = ds.data[el.index] as { x: number; y: number | null } | undefined
    if (ds.label && pt && pt.y !== null) pick(ds.label, pt.y)
  }
  options.onHover = (e: ChartEvent, els: ActiveElement[]) => {
    const target = e.native?.target as HTMLElement | undefined
    if (target) target.style.cursor = els.length > 0 ? 'pointer' : 'default'
  }
  options.interaction = { mode: 'nearest', intersect: false, axis: 'x' }
  return { ...cfg, options }
}

/** The first seed of a variant with an unreasonable-idle event in the bucket. */
function firstSeedWith(s: Series, bucket: (typeof IDLE_BUCKETS)[number]): number | undefined {
  return s.results.find((r) => (r.unreasonableIdle?.events?.[bucket] ?? 0) > 0)?.seed
}

function duration(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)} s` : `${ms} ms`
}

/** The Results tab: the run shown (store.shownRun). */
export function createResultsView(ctx: ViewContext): TabView {
  const view = new ResultsView({
    exportPng: (name, card) => void ctx.actions.exportPng(name, () => card.png()),
    exportTable: (run, format) => void ctx.actions.exportTable(run.variants.map((variant) => ({ run, variant })), 0, format, run.name),
    compareVariants: (run) => ctx.actions.showComparison(run.variants.map((variant) => ({ run, variant })), 0),
    explain: (t) => ctx.actions.explain(t)
  })
  ctx.store.watch((s) => ({ run: s.shownRun, theme: s.theme }), ({ run, theme }) => view.show(run, chartTheme(theme)), { now: true, equals: shallowEqual })
  return { id: 'results', label: 'Results', el: view.el }
}

interface ResultsHandlers {
  exportPng(name: string, card: ChartCard): void
  exportTable(run: StoredRun, format: ExportFormat): void
  compareVariants(run: StoredRun): void
  /** A figure was clicked: explain its moment on the timeline. */
  explain(target: Omit<ExplainTarget, 'seq'>): void
}

/** One saved run: the seeds-format tables and the charts, one series per variant. */
class ResultsView {
  readonly el: HTMLElement
  private run: StoredRun | null = null
  private workload = ''
  private cards: ChartCard[] = []

  constructor(private readonly on: ResultsHandlers) {
    this.el = h('div', { class: 'results' })
    this.show(null, null)
  }

  show(run: StoredRun | null, theme: ChartTheme | null): void {
    if (run?.id !== this.run?.id) this.workload = ''
    this.run = run
    for (const c of this.cards) c.destroy()
    this.cards = []
    if (!run || !theme) {
      replace(this.el, h('div', { class: 'empty-state' },
        h('h3', {}, 'No results yet'),
        h('p', {}, 'Pick a scenario from ', h('strong', {}, 'Presets'), ' (or open your own), then press ', h('strong', {}, 'Run'), ' (Ctrl+Enter).'),
        h('p', { class: 'hint' }, 'Each variant of the scenario runs on its own worker; the latency tables and charts appear here, and the run is saved in History.')))
      return
    }
    const series: Series[] = run.variants.map((v) => ({ label: v, results: variantResults(run.results, v) })).filter((s) => s.results.length > 0)
    const names = workloadNames(series)
    if (!names.includes(this.workload)) this.workload = names[0] ?? ''
    const tables = buildTables(series, 0)
    const labels = series.map((s) => s.label)

    const header = h('header', { class: 'results-head' },
      h('div', {},
        h('h2', { class: 'run-title' }, run.name),
        h('div', { class: 'run-meta' },
          `${run.scenarioName} · ${new Date(run.createdAt).toLocaleString()} · ${run.source === 'real' ? 'repeats' : 'seeds'} ${run.seeds.join(', ')} · ${duration(run.durationMs)} ${run.source === 'real' ? 'measured on this machine' : run.source === 'trace' ? 'traced' : 'simulated'} in ${duration(run.wallMs)} · schedlab ${run.version}`,
          run.source ? h('span', { class: `badge source-${run.source}` }, run.source) : null,
          run.status !== 'done' ? h('span', { class: `status status-${run.status}` }, run.status) : null)),
      h('div', { class: 'head-actions' },
        series.length >= 2 ? h('button', { class: 'small', 'data-testid': 'compare-variants', onclick: () => this.on.compareVariants(run) }, 'Compare variants') : null,
        h('span', { class: 'export-group' }, 'Export table:',
          EXPORT_FORMATS.map(([f, label, title]) => h('button', { class: 'small', title, 'data-export': f, onclick: () => this.on.exportTable(run, f) }, label)))))

    const errors = run.errors.filter((e) => e.kind !== 'canceled')
    const problems = errors.length
      ? h('div', { class: 'card notice' }, h('strong', {}, `${errors.length} simulation${errors.length === 1 ? '' : 's'} failed:`),
          h('ul', {}, errors.map((e) => h('li', {}, `${e.variant} · seed ${e.seed}: ${e.message}`))))
      : null
    const warnings = [...new Set(run.results.flatMap((r) => r.warnings ?? []))]
    const warn = warnings.length ? h('details', { class: 'card notice' }, h('summary', {}, `${warnings.length} model warning${warnings.length === 1 ? '' : 's'}`), h('ul', {}, warnings.map((w) => h('li', {}, w)))) : null

    const tableBox = h('section', { class: 'card', 'data-testid': 'results-table' },
      series.length > 1 ? h('p', { class: 'hint' }, `Changes are against ${labels[0]}; + is better (lower latency), as in the mailing-list threads.`) : null,
      run.seeds.length > 1 ? h('p', { class: 'hint' }, `Percentiles pool the samples of ${run.seeds.length} seeds.`) : null,
      tables.map((t) => seedsTable(labels, t, 0)))
    const simulated = run.source !== 'real' && run.source !== 'trace'
    if (!simulated) tableBox.classList.add('no-explain')
    tableBox.addEventListener('click', (e) => {
      const td = (e.target as HTMLElement).closest('td[data-explain]') as HTMLElement | null
      const table = td?.closest('table[data-workload]') as HTMLElement | null
      // a measured run kept its timeline around each maximum only (nothing to explain elsewhere)
      if (!td || !table || (!simulated && td.dataset.explain !== 'max')) return
      const variant = labels[Number(td.dataset.col)]
      if (variant !== undefined) this.on.explain({ run, variant, workload: table.dataset.workload, sample: td.dataset.explain as SampleSelector })
    })

    const select = names.length > 1
      ? h('label', { class: 'workload-pick' }, 'Charts for workload ',
          h('select', { 'data-testid': 'workload-select', onchange: (e: Event) => { this.workload = (e.target as HTMLSelectElement).value; this.show(run, theme) } },
            names.map((n) => h('option', { value: n, selected: n === this.workload }, n))))
      : null

    const card = (name: string, opts: { testid?: string; exportTestid?: string; height?: number } = {}): ChartCard => {
      const c = new ChartCard(name, { ...opts, onExport: (cc) => this.on.exportPng(`${run.name}-${name}`, cc) })
      this.cards.push(c)
      return c
    }
    const cdf = card('latency-cdf', { testid: 'latency-chart', exportTestid: 'export-png', height: 300 })
    const hist = card('latency-histogram')
    const pct = card('latency-percentiles')
    const taskCount = new Set(series.flatMap((s) => s.results.flatMap((r) => r.tasks.map((t) => t.name)))).size
    const tasks = card('per-task-latency', { height: Math.max(200, Math.min(24, taskCount) * series.length * 12 + 90) })
    const cpus = card('cpu-utilization', { height: 240 })

    replace(this.el, header, problems, warn, hostRecord(run), tableBox, select,
      h('div', { class: 'chart-grid' }, cdf.el, hist.el, pct.el),
      h('h3', { class: 'section' }, 'Per task'), tasks.el, this.taskTable(series),
      h('h3', { class: 'section' }, 'CPUs'), cpus.el, this.idleTable(series))

    if (this.workload) {
      const workload = this.workload
      cdf.render(clickable(cdfConfig(series, workload, theme), (variant, fraction) => {
        this.on.explain({ run, variant, workload, sample: `p${Math.min(100, Math.max(0, Math.round(fraction * 1e5) / 1e3))}` as SampleSelector })
      }), theme)
      hist.render(histogramConfig(series, this.workload, theme), theme)
      pct.render(percentileConfig(series, this.workload, theme), theme)
    }
    tasks.render(taskConfig(series, theme), theme)
    cpus.render(cpuConfig(series, theme), theme)
  }

  private taskTable(series: Series[]): HTMLElement {
    return h('details', { class: 'card' }, h('summary', {}, 'Task table'),
      series.map((s) => h('table', { class: 'data-table' },
        h('caption', {}, s.label),
        h('thead', {}, h('tr', {}, ['task', 'workload', 'CPU ms', 'wakeups', 'p50', 'p99', 'max', 'migrations', 'switches'].map((c) => h('th', {}, c)))),
        h('tbody', {}, pooledTasks(s.results).map((t) => h('tr', {},
          h('th', { scope: 'row' }, t.name), h('td', {}, t.workload), h('td', {}, t.cpuTimeMs.toFixed(1)),
          h('td', {}, Math.round(t.wakeups)), h('td', {}, formatValue('p50', t.latency.p50)), h('td', {}, formatValue('p99', t.latency.p99)),
          h('td', {}, formatValue('max', t.latency.max)), h('td', {}, Math.round(t.migrations)), h('td', {}, Math.round(t.contextSwitches))))))))
  }

  private idleTable(series: Series[]): HTMLElement {
    const counts = series.map((s) => idleCounts(s.results))
    const any = counts.some((c) => IDLE_BUCKETS.some((b) => c[b] > 0))
    return h('section', { class: 'card', 'data-testid': 'idle-table' },
      h('h4', {}, 'Unreasonable idle (a CPU idle while a task waits elsewhere)'),
      any
        ? h('table', { class: 'data-table' },
            h('thead', {}, h('tr', {}, h('th', {}, ''), IDLE_BUCKETS.map((b) => h('th', {}, b)))),
            h('tbody', {}, series.map((s, i) => h('tr', {}, h('th', { scope: 'row' }, s.label), IDLE_BUCKETS.map((b) => counts[i][b] > 0
              ? h('td', { 'data-explain': 'idle', title: 'Click: explain the first of these events on the timeline', onclick: () => this.on.explain({ run: this.run!, variant: s.label, idle: { bucket: b, index: 0 }, seed: firstSeedWith(s, b) }) }, counts[i][b])
              : h('td', {}, counts[i][b]))))))
        : h('p', { class: 'hint' }, 'No unreasonable idle events in this run.'))
  }

  destroy(): void {
    for (const c of this.cards) c.destroy()
  }
}
