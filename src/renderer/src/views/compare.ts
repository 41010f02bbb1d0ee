import type { ExportFormat } from '../../../shared/ipc'
import { buildTables, columnLabels, variantResults } from '../../../shared/tables'
import { cdfConfig, percentileConfig, type ChartTheme } from '../charts/configs'
import { workloadNames, type Series } from '../charts/data'
import { h, replace } from '../dom'
import { ChartCard } from './chart-card'
import { EXPORT_FORMATS } from './results'
import { seedsTable } from './tables'
import { isMeasured, realVsSim } from '../../../shared/real-vs-sim'
import type { SampleSelector } from '../../../shared/explain'
import type { CompareColumnData, ExplainTarget, TabView, ViewContext } from '../state'
import { chartTheme } from '../theme'
import { shallowEqual } from '../store'

/** The Compare tab: store.comparison. */
export function createCompareView(ctx: ViewContext): TabView {
  const view = new CompareView({
    exportPng: (name, card) => void ctx.actions.exportPng(name, () => card.png()),
    exportTable: (cols, baseline, format, title) => void ctx.actions.exportTable(cols, baseline, format, title),
    setBaseline: (i) => {
      const c = ctx.store.state.comparison
      if (c) ctx.store.set({ comparison: { ...c, baseline: i } })
    },
    explain: (t) => ctx.actions.explain(t)
  })
  ctx.store.watch((s) => ({ c: s.comparison, theme: s.theme }), ({ c, theme }) => view.show(c?.columns ?? [], c?.baseline ?? 0, chartTheme(theme)), { now: true, equals: shallowEqual })
  return { id: 'compare', label: 'Compare', el: view.el }
}

/**
 * A real run beside simulated runs of the same scenario: for each real column, each simulated
 * column of the same scenario (the same variant when there is one), percentile by percentile.
 */
function realVsSimSection(cols: CompareColumnData[]): HTMLElement | null {
  const res = (c: CompareColumnData) => variantResults(c.run.results, c.variant)
  const real = cols.filter((c) => isMeasured(res(c)))
  const sim = cols.filter((c) => !isMeasured(res(c)))
  const pairs: [CompareColumnData, CompareColumnData][] = []
  for (const r of real) {
    const same = sim.filter((s) => s.run.scenarioName === r.run.scenarioName)
    const exact = same.filter((s) => s.variant === r.variant)
    for (const s of exact.length > 0 ? exact : same) pairs.push([r, s])
  }
  if (pairs.length === 0) return null
  const label = (c: CompareColumnData): string => `${c.run.name} · ${c.variant}`
  const fmt = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1))
  const metricLabel = { p50: 'p50', p90: 'p90', p99: 'p99', p99_9: 'p99.9', timeSec: 'time (s)' } as const
  return h('section', { class: 'card real-vs-sim', 'data-testid': 'real-vs-sim' },
    h('h4', {}, 'Real beside simulated'),
    h('p', { class: 'hint' }, 'Per percentile: the range over the real repeats, the simulated value (mean over its seeds), and whether it lies inside the real range (near: inside the range widened by half its width on each side).'),
    pairs.map(([r, s]) => {
      const rows = realVsSim(res(r), res(s))
      return h('table', { 'data-real': label(r), 'data-sim': label(s) },
        h('caption', {}, `${label(r)} (real, ${res(r).length} repeat${res(r).length === 1 ? '' : 's'}) vs ${label(s)} (simulated, ${res(s).length} seed${res(s).length === 1 ? '' : 's'})`),
        h('thead', {}, h('tr', {}, ['workload', 'metric', 'real range', 'simulated', ''].map((c) => h('th', {}, c)))),
        h('tbody', {}, rows.map((x) => h('tr', { 'data-workload': x.workload, 'data-metric': x.metric },
          h('td', {}, x.workload), h('td', {}, metricLabel[x.metric]),
          h('td', {}, x.real.n > 1 ? `${fmt(x.real.lo)} - ${fmt(x.real.hi)}` : fmt(x.real.lo)),
          h('td', {}, fmt(x.sim.value)),
          h('td', { class: x.verdict, 'data-verdict': x.verdict }, x.verdict)))))
    }))
}

interface CompareHandlers {
  exportPng(name: string, card: ChartCard): void
  exportTable(cols: CompareColumnData[], baseline: number, format: ExportFormat, title: string): void
  setBaseline(index: number): void
  /** A cell was clicked: its column's moment on the timeline, the baseline's aligned below. */
  explain(target: Omit<ExplainTarget, 'seq'>): void
}

/** Two or more variants (of one run or of several saved runs) side by side. */
class CompareView {
  readonly el: HTMLElement
  private cols: CompareColumnData[] = []
  private baseline = 0
  private workload = ''
  private cards: ChartCard[] = []
  private theme: ChartTheme | null = null

  constructor(private readonly on: CompareHandlers) {
    this.el = h('div', { class: 'compare', 'data-testid': 'compare-view' })
    this.render()
  }

  show(cols: CompareColumnData[], baseline: number, theme: ChartTheme): void {
    this.cols = cols
    this.baseline = Math.min(Math.max(0, baseline), Math.max(0, cols.length - 1))
    this.theme = theme
    this.render()
  }

  private render(): void {
    for (const c of this.cards) c.destroy()
    this.cards = []
    const theme = this.theme
    if (this.cols.length < 2 || !theme) {
      replace(this.el, h('div', { class: 'empty-state' },
        h('h3', {}, 'Nothing to compare yet'),
        h('p', {}, 'Tick two or more runs in ', h('strong', {}, 'History'), ' and press ', h('strong', {}, 'Compare'),
          ', or open a run with several variants and press ', h('strong', {}, 'Compare variants'), '.'),
        h('p', { class: 'hint' }, 'A run pinned as baseline (☆) is the reference column; changes are shown as in the mailing-list threads, + meaning lower latency.')))
      return
    }
    const labels = columnLabels(this.cols.map((c) => ({ variant: c.variant, runName: c.run.name })))
    const series: Series[] = this.cols.map((c, i) => ({ label: labels[i], results: variantResults(c.run.results, c.variant) }))
    const tables = buildTables(series, this.baseline)
    const names = workloadNames(series)
    if (!names.includes(this.workload)) this.workload = names[0] ?? ''
    const runIds = new Set(this.cols.map((c) => c.run.id))
    const runs = [...new Set(this.cols.map((c) => c.run.name))]
    const title = runIds.size === 1 ? `${runs[0]}: variants` : runs.join(' vs ')

    const baselinePick = h('select', {
      'data-testid': 'compare-baseline', 'aria-label': 'Baseline column',
      onchange: (e: Event) => {
        this.on.setBaseline(Number((e.target as HTMLSelectElement).value))
      }
    }, labels.map((l, i) => h('option', { value: i, selected: i === this.baseline }, l)))

    const card = (name: string, opts: { testid?: string; exportTestid?: string; height?: number }): ChartCard => {
      const c = new ChartCard(name, { ...opts, onExport: (cc) => this.on.exportPng(`comparison-${name}`, cc) })
      this.cards.push(c)
      return c
    }
    const cdf = card('latency-cdf', { testid: 'compare-chart', exportTestid: 'compare-export-png', height: 300 })
    const pct = card('latency-percentiles', { height: 260 })
    const tableBox = h('section', { class: 'card', 'data-testid': 'compare-table' },
      h('p', { class: 'hint' }, `Against ${labels[this.baseline]}: `, h('span', { class: 'better' }, 'green (+) is better'), ', ', h('span', { class: 'worse' }, 'red (\u2212) is worse'), '. Click a percentile or the max: its moment on the timeline, the baseline\'s below it.'),
      tables.map((t) => seedsTable(labels, t, this.baseline)))
    tableBox.addEventListener('click', (e) => {
      const td = (e.target as HTMLElement).closest('td[data-explain]') as HTMLElement | null
      const table = td?.closest('table[data-workload]') as HTMLElement | null
      const i = Number(td?.dataset.col)
      const col = this.cols[i]
      if (!td || !table || !col) return
      // a measured run kept its timeline around each maximum only
      if (isMeasured(variantResults(col.run.results, col.variant)) && td.dataset.explain !== 'max') return
      const base = this.cols[this.baseline]
      this.on.explain({
        run: col.run, variant: col.variant, workload: table.dataset.workload, sample: td.dataset.explain as SampleSelector,
        ...(i !== this.baseline && base ? { alignWith: { runId: base.run.id, variant: base.variant } } : {})
      })
    })

    replace(this.el,
      h('header', { class: 'results-head' },
        h('div', {}, h('h2', {}, 'Comparison'), h('div', { class: 'run-meta' }, `${this.cols.length} columns from ${runIds.size} run${runIds.size === 1 ? '' : 's'}`)),
        h('div', { class: 'head-actions' },
          h('label', {}, 'Baseline ', baselinePick),
          h('span', { class: 'export-group' }, 'Export:',
            EXPORT_FORMATS.map(([f, label, t]) => h('button', { class: 'small', title: t, 'data-export': f, onclick: () => this.on.exportTable(this.cols, this.baseline, f, title) }, label))))),
      tableBox,
      names.length > 1
        ? h('label', { class: 'workload-pick' }, 'Charts for workload ',
            h('select', { onchange: (e: Event) => { this.workload = (e.target as HTMLSelectElement).value; this.render() } },
              names.map((n) => h('option', { value: n, selected: n === this.workload }, n))))
        : null,
      realVsSimSection(this.cols),
      h('div', { class: 'chart-grid' }, cdf.el, pct.el))
    if (this.workload) {
      cdf.render(cdfConfig(series, this.workload, theme), theme)
      pct.render(percentileConfig(series, this.workload, theme), theme)
    }
  }
}
