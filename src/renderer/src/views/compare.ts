import type { StoredRun } from '../../../shared/ipc'
import { buildTables, columnLabels, identicalSeedNotes, pickMetrics, variantResults, type StandardMetric as MetricKey, type WorkloadTable } from '../../../shared/tables'
import { distributionConfig, percentileConfig } from '../charts/configs'
import { workloadNames, type Series } from '../charts/data'
import { h, replace } from '../dom'
import type { CompareColumnData, Comparison, WorkbenchState } from '../state'
import type { TabView, ViewContext } from '../view-context'
import { isMeasured, realVsSim } from '../../../shared/real-vs-sim'
import type { SampleSelector } from '../../../shared/explain'
import { shallowEqual } from '../store'
import { chartTheme } from '../theme'
import { ChartCard } from './chart-card'
import { chartControls, exportCard } from './chart-controls'
import { openScenarioDiff } from './scenario-diff'
import { EXPORT_FORMATS, duration, identicalNotice, seedList } from './results'
import { MAX_SIDE_BY_SIDE, seedsTable, seedsTableTransposed } from './tables'

export const METRICS: readonly [MetricKey, string][] = [
  ['count', 'samples'], ['avg', 'average'], ['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['p99_9', 'p99.9'], ['max', 'max'], ['timeSec', 'time']
]

type Orientation = 'auto' | 'metrics' | 'columns'

/** Runs among the columns whose scenario text differs from the baseline column's run. */
export function differingRuns(cols: readonly CompareColumnData[], baseline: number): StoredRun[] {
  const base = cols[baseline]?.run
  if (!base) return []
  const seen = new Set<string>([base.id])
  const out: StoredRun[] = []
  for (const c of cols) {
    if (seen.has(c.run.id)) continue
    seen.add(c.run.id)
    if (c.run.scenarioText !== base.scenarioText) out.push(c.run)
  }
  return out
}

function compareCaption(cols: readonly CompareColumnData[], labels: readonly string[]): string {
  const runs = [...new Map(cols.map((c) => [c.run.id, c.run])).values()]
  const scen = [...new Set(runs.map((r) => r.scenarioName))].join(' | ')
  const seeds = [...new Set(runs.flatMap((r) => r.seeds))]
  const durs = [...new Set(runs.map((r) => duration(r.durationMs)))].join(' / ')
  const versions = [...new Set(runs.map((r) => r.version))].join(', ')
  return `${scen} · ${labels.join(', ')} · seeds ${seedList(seeds)} · ${durs} · schedlab ${versions}`
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
    h('h4', {}, real.every((c) => res(c).every((v) => v.source === 'vm')) ? 'VM beside simulated' : 'Real beside simulated'),
    h('p', { class: 'hint' }, 'Per percentile: the range over the real repeats, the simulated value (mean over its seeds), and whether it lies inside the real range (near: inside the range widened by half its width on each side).'),
    pairs.map(([r, s]) => {
      const rows = realVsSim(res(r), res(s))
      return h('table', { 'data-real': label(r), 'data-sim': label(s) },
        h('caption', {}, `${label(r)} (${res(r)[0]?.source === 'vm' ? `vm, ${res(r).length} seed` : `real, ${res(r).length} repeat`}${res(r).length === 1 ? '' : 's'}) vs ${label(s)} (simulated, ${res(s).length} seed${res(s).length === 1 ? '' : 's'})`),
        h('thead', {}, h('tr', {}, ['workload', 'metric', 'real range', 'simulated', ''].map((c) => h('th', {}, c)))),
        h('tbody', {}, rows.map((x) => h('tr', { 'data-workload': x.workload, 'data-metric': x.metric },
          h('td', {}, x.workload), h('td', {}, metricLabel[x.metric]),
          h('td', {}, x.real.n > 1 ? `${fmt(x.real.lo)} - ${fmt(x.real.hi)}` : fmt(x.real.lo)),
          h('td', {}, fmt(x.sim.value)),
          h('td', { class: x.verdict, 'data-verdict': x.verdict }, x.verdict)))))
    }))
}

/**
 * The Compare tab: two or more variants (of one run or of several saved runs) side by side.
 * With many columns the user picks which columns and metrics to show, and the table turns
 * (one row per column) when there are more columns than rows. Runs whose scenarios differ are
 * flagged, with their difference in Monaco's diff editor.
 */
export function createCompareView(ctx: ViewContext): TabView {
  const el = h('div', { class: 'compare', 'data-testid': 'compare-view' })
  let cards: ChartCard[] = []
  let workload = ''
  let hidden = new Set<number>()
  let metrics = new Set<MetricKey>(METRICS.map(([k]) => k))
  let orientation: Orientation = 'auto'
  let shownFor: Comparison | null = null

  function render(s: Pick<WorkbenchState, 'comparison' | 'theme' | 'distribution'>): void {
    for (const c of cards) c.destroy()
    cards = []
    const cmp = s.comparison
    if (cmp !== shownFor && cmp?.columns !== shownFor?.columns) hidden = new Set()
    shownFor = cmp
    if (!cmp || cmp.columns.length < 2) {
      replace(el, h('div', { class: 'empty-state' },
        h('h3', {}, 'Nothing to compare yet'),
        h('p', {}, 'Tick two or more runs in ', h('strong', {}, 'History'), ' and press ', h('strong', {}, 'Compare'),
          ', or open a run with several variants and press ', h('strong', {}, 'Compare variants'), '.'),
        h('p', { class: 'hint' }, 'A run pinned as baseline (☆) is the reference column; changes are shown as in the mailing-list threads, + meaning lower latency.')))
      return
    }
    const theme = chartTheme(s.theme)
    const all = cmp.columns
    const allLabels = columnLabels(all.map((c) => ({ variant: c.variant, runName: c.run.name })))
    hidden.delete(cmp.baseline)
    const visible = all.map((_, i) => i).filter((i) => !hidden.has(i))
    const cols = visible.map((i) => all[i])
    const labels = visible.map((i) => allLabels[i])
    const baseline = visible.indexOf(cmp.baseline)
    const series: Series[] = cols.map((c, i) => ({ label: labels[i], results: variantResults(c.run.results, c.variant) }))
    const chosen = METRICS.map(([k]) => k).filter((k) => metrics.has(k))
    const tables: WorkloadTable[] = pickMetrics(buildTables(series, baseline), chosen)
    const names = workloadNames(series)
    if (!names.includes(workload)) workload = names[0] ?? ''
    const runIds = new Set(all.map((c) => c.run.id))
    const runNames = [...new Set(all.map((c) => c.run.name))]
    const title = runIds.size === 1 ? `${runNames[0]}: variants` : runNames.join(' vs ')
    // Turned (one row per column) when a table has more columns than rows, or when asked.
    const turn1 = (t: WorkloadTable) => orientation === 'columns' || (orientation === 'auto' && (cols.length > t.rows.length || cols.length > MAX_SIDE_BY_SIDE))
    const turned = tables.some(turn1)
    const caption = compareCaption(cols, labels)
    const setBaseline = (i: number) => ctx.store.set({ comparison: { ...cmp, baseline: i } })
    const rerender = () => render(ctx.store.state)

    const baselinePick = h('select', { 'data-testid': 'compare-baseline', 'aria-label': 'Baseline column', onchange: (e: Event) => setBaseline(Number((e.target as HTMLSelectElement).value)) },
      allLabels.map((l, i) => h('option', { value: i, selected: i === cmp.baseline }, l)))
    const columnPick = h('details', { class: 'pick', 'data-testid': 'compare-columns' },
      h('summary', {}, `Columns ${visible.length}/${all.length}`),
      h('div', { class: 'pick-list' }, allLabels.map((l, i) => h('label', { title: i === cmp.baseline ? 'The baseline is always shown' : '' },
        h('input', {
          type: 'checkbox', value: i, checked: !hidden.has(i), disabled: i === cmp.baseline,
          onchange: (e: Event) => { if ((e.target as HTMLInputElement).checked) hidden.delete(i); else hidden.add(i); rerender() }
        }), ' ', l))))
    const metricPick = h('details', { class: 'pick', 'data-testid': 'compare-metrics' },
      h('summary', {}, `Metrics ${chosen.length}/${METRICS.length}`),
      h('div', { class: 'pick-list' }, METRICS.map(([k, l]) => h('label', {},
        h('input', {
          type: 'checkbox', value: k, checked: metrics.has(k),
          onchange: (e: Event) => { if ((e.target as HTMLInputElement).checked) metrics.add(k); else metrics.delete(k); rerender() }
        }), ' ', l))))
    const turn = h('select', { 'data-testid': 'compare-transpose', 'aria-label': 'Table orientation', onchange: (e: Event) => { orientation = (e.target as HTMLSelectElement).value as Orientation; rerender() } },
      h('option', { value: 'auto', selected: orientation === 'auto' }, 'Rows: automatic'),
      h('option', { value: 'metrics', selected: orientation === 'metrics' }, 'Rows: metrics'),
      h('option', { value: 'columns', selected: orientation === 'columns' }, 'Rows: runs/variants'))
    for (const d of [columnPick, metricPick]) if (el.querySelector(`[data-testid="${d.dataset.testid}"]`)?.hasAttribute('open')) d.open = true

    const differ = differingRuns(all, cmp.baseline)
    const warning = differ.length
      ? h('div', { class: 'card notice', 'data-testid': 'scenario-diff-warning' },
          h('strong', {}, 'The compared runs did not run the same scenario: '),
          `${differ.map((r) => `“${r.name}”`).join(', ')} differ${differ.length === 1 ? 's' : ''} from the baseline's run “${all[cmp.baseline].run.name}”. `,
          differ.map((r) => h('button', { class: 'small', 'data-action': 'show-diff', 'data-run-id': r.id, onclick: () => openScenarioDiff(all[cmp.baseline].run, r, s.theme) }, differ.length > 1 ? `Show the difference (${r.name})` : 'Show the difference')))
      : null

    const card = (name: string, opts: { testid?: string; exportTestid?: string; height?: number }): ChartCard => {
      const c = new ChartCard(name, { ...opts, onExport: (cc) => exportCard(ctx, `comparison-${name}`, cc, caption) })
      cards.push(c)
      return c
    }
    const dist = card(s.distribution.view === 'ccdf' ? 'latency-tail' : 'latency-cdf', { testid: 'compare-chart', exportTestid: 'compare-export-png', height: 300 })
    const pct = card('latency-percentiles', { height: 260 })
    const tableBox = h('section', { class: 'card', 'data-testid': 'compare-table', 'data-transposed': String(turned) },
      identicalNotice(identicalSeedNotes(series)),
      h('p', { class: 'hint' }, `Against ${labels[baseline]}: `, h('span', { class: 'better' }, 'green (+) is better'), ', ', h('span', { class: 'worse' }, 'red (\u2212) is worse'), '. Click a percentile or the max: its moment on the timeline, the baseline\'s below it.'),
      tables.map((t) => (turn1(t) ? seedsTableTransposed(labels, t, baseline) : seedsTable(labels, t, baseline))))
    tableBox.addEventListener('click', (e) => {
      const td = (e.target as HTMLElement).closest('td[data-explain]') as HTMLElement | null
      const table = td?.closest('table[data-workload]') as HTMLElement | null
      const i = Number(td?.dataset.col)
      const col = cols[i]
      if (!td || !table || !col) return
      // a measured run kept its timeline around each maximum only
      if (isMeasured(variantResults(col.run.results, col.variant)) && td.dataset.explain !== 'max') return
      const base = cols[baseline]
      ctx.actions.explain({
        run: col.run, variant: col.variant, workload: table.dataset.workload, sample: td.dataset.explain as SampleSelector,
        ...(i !== baseline && base ? { alignWith: { runId: base.run.id, variant: base.variant } } : {})
      })
    })

    replace(el,
      h('header', { class: 'results-head' },
        h('div', {}, h('h2', {}, 'Comparison'), h('div', { class: 'run-meta' }, `${all.length} columns from ${runIds.size} run${runIds.size === 1 ? '' : 's'}`)),
        h('div', { class: 'head-actions' },
          h('label', {}, 'Baseline ', baselinePick),
          h('span', { class: 'export-group' }, 'Export:',
            EXPORT_FORMATS.map(([f, label, t]) => h('button', {
              class: 'small', title: t, 'data-export': f,
              onclick: () => void ctx.actions.exportTable(cols, baseline, f, title, chosen.length < METRICS.length ? chosen : undefined)
            }, label))))),
      warning,
      h('div', { class: 'compare-tools' }, columnPick, metricPick, turn),
      tableBox,
      h('div', { class: 'chart-bar' },
        names.length > 1
          ? h('label', { class: 'workload-pick' }, 'Workload ',
              h('select', { 'data-testid': 'compare-workload', onchange: (e: Event) => { workload = (e.target as HTMLSelectElement).value; rerender() } },
                names.map((n) => h('option', { value: n, selected: n === workload }, n))))
          : null,
        chartControls(ctx)),
      realVsSimSection(all),
      h('div', { class: 'chart-grid' }, dist.el, pct.el))
    if (workload) {
      dist.render((t) => distributionConfig(series, workload, t, s.distribution), theme)
      pct.render((t) => percentileConfig(series, workload, t), theme)
    }
  }

  ctx.store.watch((s) => ({ comparison: s.comparison, theme: s.theme, distribution: s.distribution }), render, { now: true, equals: shallowEqual })
  return { id: 'compare', label: 'Compare', el }
}
