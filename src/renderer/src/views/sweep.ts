import type { StoredRun } from '../../../shared/ipc'
import { h, replace } from '../dom'
import type { TabView, ViewContext } from '../view-context'
import { shallowEqual } from '../store'
import { chartTheme } from '../theme'
import type { ChartTheme } from '../charts/configs'
import {
  cellStats, SWEEP_METRICS, sweepLineConfig, sweepMatrixConfig, sweepVariants, sweepWorkloads, type SweepMetric
} from '../charts/sweep'
import { formatInsufficient } from '../../../stats/quantile'
import { formatImprovement, formatInterval } from '../../../stats/format'
import { ChartCard } from './chart-card'
import { exportCard } from './chart-controls'
import { duration, seedList } from './results'

/**
 * The Sweep tab (test id `sweep-view`): the sweep shown (store.shownSweep). One axis: a line
 * chart per percentile, a line per variant with its interval band. Two axes: a heatmap of the
 * chosen metric, or of its change against the first variant with significant cells marked.
 * More axes: a table of the cells. A cell (a point, a square, a row) opens its run in Results.
 */
export function createSweepView(ctx: ViewContext): TabView {
  const el = h('div', { class: 'sweep', 'data-testid': 'sweep-view' })
  let cards: ChartCard[] = []
  let workload = ''
  let metric: SweepMetric = 'p99'
  let mode: 'value' | 'change' = 'change'
  let variant = 1
  let shownId = ''

  const open = (run: StoredRun, cell: number): void => ctx.actions.openSweepCell(run, cell)
  let caption = ''
  const exportPng = (card: ChartCard): void => exportCard(ctx, card.name, card, caption)

  const draw = (run: StoredRun | null, theme: ChartTheme): void => {
    for (const c of cards) c.destroy()
    cards = []
    const sw = run?.sweep
    if (!run || !sw) {
      replace(el, h('div', { class: 'empty-state' },
        h('h3', {}, 'No sweep shown'),
        h('p', {}, 'Add a ', h('code', {}, '"sweep"'), ' to a scenario (paths as in --set, each with a list of values, e.g. ',
          h('code', {}, '"sweep": { "workloads[0].sliceUs": [3000, 8000] }'), ') and press ', h('strong', {}, 'Run'), '; saved sweeps open from History.')))
      return
    }
    if (run.id !== shownId) {
      shownId = run.id
      workload = ''
    }
    const workloads = sweepWorkloads(sw)
    if (!workloads.includes(workload)) workload = workloads[0] ?? ''
    const variants = sweepVariants(sw)
    if (variant >= variants.length) variant = variants.length - 1
    const redraw = (): void => draw(run, theme)
    const select = (testid: string, options: [string, string][], value: string, set: (v: string) => void): HTMLSelectElement => {
      const s = h('select', { 'data-testid': testid, onchange: () => { set(s.value); redraw() } }, options.map(([v, l]) => h('option', { value: v }, l)))
      s.value = value
      return s
    }
    const controls = h('div', { class: 'sweep-controls' },
      h('label', {}, 'Workload ', select('sweep-workload', workloads.map((w) => [w, w]), workload, (v) => (workload = v))))
    const head = h('header', { class: 'results-head' },
      h('h2', {}, run.name),
      h('p', { class: 'meta' }, `sweep: ${sw.axes.map((a) => `${a.path} (${a.values.length})`).join(' x ')} = ${sw.total} cells; ${variants.join(', ')}. Click a cell to open its run.`),
      controls)
    const body = h('div', { class: 'sweep-body' })
    caption = `${run.scenarioName} · sweep ${sw.axes.map((a) => a.path).join(' x ')} · ${variants.join(', ')} · seeds ${seedList(run.seeds)} · ${duration(run.durationMs)} · schedlab ${run.version}`
    if (sw.axes.length === 1) {
      const keys = SWEEP_METRICS.filter(([k]) => (k === 'timeSec') === false || cellStats(sw, workload, 'timeSec').some((c) => c.estimates.some((e) => e)))
      for (const [k, l] of keys) {
        const card = new ChartCard(`sweep-${workload}-${l}`, { testid: `sweep-chart-${k}`, onExport: exportPng })
        body.append(card.el)
        card.render((t) => {
          const cfg = sweepLineConfig(sw, workload, k, t)
          cfg.options = { ...cfg.options, onClick: (_e, items) => { if (items[0]) open(run, sw.cells[items[0].index].index) } }
          return cfg as never
        }, theme)
        cards.push(card)
      }
    } else if (sw.axes.length === 2) {
      controls.append(
        h('label', {}, ' Metric ', select('sweep-metric', SWEEP_METRICS.map(([k, l]) => [k, l]), metric, (v) => (metric = v as SweepMetric))),
        h('label', {}, ' Show ', select('sweep-mode', [['change', `change against ${variants[0]}`], ['value', 'value']], mode, (v) => (mode = v as 'value' | 'change'))),
        h('label', {}, ' Variant ', select('sweep-variant', variants.map((v, i) => [String(i), v]), String(variant), (v) => (variant = Number(v)))))
      const m = mode === 'change' && variant === 0 && variants.length > 1 ? 'value' : mode
      const card = new ChartCard(`sweep-${workload}-${metric}`, { testid: 'sweep-heatmap', height: 80 + 48 * sw.axes[0].values.length, onExport: exportPng })
      body.append(card.el)
      card.render((t) => {
        const cfg = sweepMatrixConfig(sw, workload, metric, variant, m, t)
        cfg.options = { ...cfg.options, onClick: (_e, items) => { if (items[0]) open(run, (cfg.data.datasets[0].data[items[0].index]).cell) } }
        return cfg as never
      }, theme)
      cards.push(card)
    }
    body.append(cellTable(run, workload, metric, (cell) => open(run, cell)))
    replace(el, head, body)
  }

  ctx.store.watch((s) => ({ run: s.shownSweep, theme: s.theme }), ({ run, theme }) => draw(run, chartTheme(theme)), { now: true, equals: shallowEqual })
  return { id: 'sweep', label: 'Sweep', el }
}

/** Every cell: its values and each variant's figure with its interval; a row opens the cell's run. */
function cellTable(run: StoredRun, workload: string, metric: SweepMetric, open: (cell: number) => void): HTMLElement {
  const sw = run.sweep!
  const variants = sweepVariants(sw)
  const stats = cellStats(sw, workload, metric)
  const key = metric === 'timeSec' ? 'timeSec' : 'p99'
  return h('div', { class: 'table-scroll' }, h('table', { class: 'seeds-table sweep-cells', 'data-testid': 'sweep-cells' },
    h('caption', {}, `${SWEEP_METRICS.find(([k]) => k === metric)?.[1] ?? metric} of ${workload}, each cell`),
    h('thead', {}, h('tr', {}, sw.axes.map((a) => h('th', {}, a.path)), variants.map((v) => h('th', {}, v)))),
    h('tbody', {}, stats.map((c) => h('tr', { class: 'clickable', 'data-cell': String(c.index), title: 'Open this cell\'s run', onclick: () => open(c.index) },
      c.values.map((v) => h('td', {}, typeof v === 'string' ? v : JSON.stringify(v))),
      c.estimates.map((e, i) => {
        const ch = c.changes[i]
        if (!e) return h('td', {}, '-')
        if (e.insufficient) return h('td', { class: 'na', title: 'fewer than 10 samples beyond this percentile' }, formatInsufficient(e.insufficient))
        const better = ch?.change !== null && ch?.change !== undefined ? -ch.change : null
        const tone = better === null ? '' : ch!.significant ? (better > 0 ? 'better' : 'worse') : 'same'
        const mark = better === null ? '' : ` ${formatImprovement(better)}${ch!.significant ? '*' : ''}`
        return h('td', { class: tone, 'data-significant': String(!!ch?.significant) }, formatInterval(e.value, e.ci95, key === 'timeSec' ? 3 : undefined), mark ? h('span', { class: 'chg' }, mark) : null)
      })))))) 
}
