import type { ExportFormat, StoredRun } from '../../../shared/ipc'
import { buildTables, identicalSeedNotes, variantResults } from '../../../shared/tables'
import { cpuConfig, distributionConfig, histogramConfig, percentileConfig, taskConfig } from '../charts/configs'
import { IDLE_BUCKETS, idleCounts, workloadNames, type Series } from '../charts/data'
import { h, replace } from '../dom'
import type { ExplainTarget, WorkbenchState } from '../state'
import type { TabView, ViewContext } from '../view-context'
import type { SampleSelector } from '../../../shared/explain'
import type { ActiveElement, Chart, ChartConfiguration, ChartEvent } from 'chart.js'
import { shallowEqual } from '../store'
import { chartTheme } from '../theme'
import { ChartCard } from './chart-card'
import { chartControls, exportCard } from './chart-controls'
import { MAX_SIDE_BY_SIDE, seedsTable, seedsTableTransposed } from './tables'
import { taskTable } from './task-table'
import { vmRecord } from './vm-record'

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
  ['txt', 'Text', 'Fixed-width text as in the mailing-list threads, wrapped into blocks under 100 columns'],
  ['json', 'JSON', 'Tables and the full results']
]

export function duration(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)} s` : `${ms} ms`
}

/**
 * A distribution whose points can be clicked: the nearest point's series (the variant) and the
 * percentile it stands for go to `pick` (on the tail view a point's y is the share above it).
 */
function clickable<T extends ChartConfiguration<'line', { x: number; y: number | null }[]>>(cfg: T, tail: boolean, pick: (variant: string, fraction: number) => void): T {
  const options = { ...cfg.options }
  options.onClick = (_e: ChartEvent, els: ActiveElement[], chart: Chart) => {
    const el = els[0]
    if (!el) return
    const ds = chart.data.datasets[el.datasetIndex]
    const pt = ds.data[el.index] as { x: number; y: number | null } | undefined
    if (ds.label && pt && pt.y !== null) pick(ds.label.replace(/ \(identical to .*\)$/, ''), tail ? 1 - pt.y : pt.y)
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

/** "1-3", "1, 4, 9": seeds as a researcher writes them. */
export function seedList(seeds: readonly number[]): string {
  const s = [...seeds].sort((a, b) => a - b)
  const contiguous = s.length > 2 && s.every((x, i) => i === 0 || x === s[i - 1] + 1)
  return contiguous ? `${s[0]}-${s[s.length - 1]}` : s.join(', ')
}

/** The caption of a chart exported from a run: what it shows, from what. */
export function runCaption(run: StoredRun, variants: readonly string[]): string {
  const partial = run.results.some((r) => r.partial) ? ' (partial: canceled)' : ''
  return `${run.scenarioName} · ${variants.join(', ')} · seeds ${seedList(run.seeds)} · ${duration(run.durationMs)}${partial} · schedlab ${run.version}`
}

/** The Results tab: the run shown (store.shownRun), its tables and charts. */
export function createResultsView(ctx: ViewContext): TabView {
  const el = h('div', { class: 'results', 'data-testid': 'results-view' })
  let cards: ChartCard[] = []
  let workload = ''
  let runId: string | null = null

  function render(s: Pick<WorkbenchState, 'shownRun' | 'theme' | 'distribution'>): void {
    for (const c of cards) c.destroy()
    cards = []
    const run = s.shownRun
    if (run?.id !== runId) workload = ''
    runId = run?.id ?? null
    if (runId) el.dataset.runId = runId
    else delete el.dataset.runId
    if (!run) {
      replace(el, h('div', { class: 'empty-state' },
        h('h3', {}, 'No results yet'),
        h('p', {}, 'Pick a scenario from ', h('strong', {}, 'Presets'), ' (or open your own), then press ', h('strong', {}, 'Run'), ' (Ctrl+Enter).'),
        h('p', { class: 'hint' }, 'Each variant of the scenario runs on its own worker; the latency tables and charts appear here, and the run is saved in History.')))
      return
    }
    const theme = chartTheme(s.theme)
    const series: Series[] = run.variants.map((v) => ({ label: v, results: variantResults(run.results, v) })).filter((x) => x.results.length > 0)
    const names = workloadNames(series)
    if (!names.includes(workload)) workload = names[0] ?? ''
    const tables = buildTables(series, 0)
    const labels = series.map((x) => x.label)
    const caption = runCaption(run, labels)

    const header = h('header', { class: 'results-head' },
      h('div', { class: 'results-title' },
        h('h2', { class: 'run-title' }, run.name),
        h('div', { class: 'run-meta' },
          `${run.scenarioName} · ${new Date(run.createdAt).toLocaleString()} · ${run.source === 'real' ? 'repeats' : 'seeds'} ${seedList(run.seeds)} · ${duration(run.durationMs)} ${run.source === 'real' ? 'measured on this machine' : run.source === 'vm' ? 'measured in a VM' : run.source === 'trace' ? 'traced' : 'simulated'} in ${duration(run.wallMs)} · schedlab ${run.version}`,
          run.source ? h('span', { class: `badge source-${run.source}` }, run.source) : null,
          run.status !== 'done' ? h('span', { class: `status status-${run.status}` }, run.status) : null)),
      h('div', { class: 'head-actions' },
        series.length >= 2 ? h('button', { class: 'small', 'data-testid': 'compare-variants', onclick: () => ctx.actions.showComparison(run.variants.map((variant) => ({ run, variant })), 0) }, 'Compare variants') : null,
        h('span', { class: 'export-group' }, 'Export table:',
          EXPORT_FORMATS.map(([f, label, title]) => h('button', {
            class: 'small', title, 'data-export': f,
            onclick: () => void ctx.actions.exportTable(run.variants.map((variant) => ({ run, variant })), 0, f, run.name)
          }, label)))))

    const partials = run.results.filter((r) => r.partial)
    const partial = partials.length
      ? h('div', { class: 'card notice', 'data-testid': 'partial-notice' },
          h('strong', {}, 'Partial results: '), 'the run was canceled; these simulations stopped early and their figures cover only what they simulated: ',
          partials.map((r) => `${r.name} · seed ${r.seed}: ${duration(Math.round(r.stats.simulatedMs))} of ${duration(run.durationMs)}`).join("; "))
      : null
    const errors = run.errors.filter((e) => e.kind !== 'canceled')
    const problems = errors.length
      ? h('div', { class: 'card notice' }, h('strong', {}, `${errors.length} simulation${errors.length === 1 ? '' : 's'} failed:`),
          h('ul', {}, errors.map((e) => h('li', {}, `${e.variant} · seed ${e.seed}: ${e.message}`))))
      : null
    const warnings = [...new Set(run.results.flatMap((r) => r.warnings ?? []))]
    const warn = warnings.length ? h('details', { class: 'card notice' }, h('summary', {}, `${warnings.length} model warning${warnings.length === 1 ? '' : 's'}`), h('ul', {}, warnings.map((w) => h('li', {}, w)))) : null

    const tableBox = h('section', { class: 'card', 'data-testid': 'results-table' },
      series.length > 1 ? h('p', { class: 'hint' }, `Changes are against ${labels[0]}; + is better (lower latency), as in the mailing-list threads.`) : null,
      identicalNotice(identicalSeedNotes(series)) ??
        (run.seeds.length > 1 ? h('p', { class: 'hint' }, `Percentiles pool the samples of ${run.seeds.length} seeds.`) : null),
      // up to 4 variants side by side; more turn the table (one row per variant)
      tables.map((t) => (labels.length > MAX_SIDE_BY_SIDE ? seedsTableTransposed(labels, t, 0) : seedsTable(labels, t, 0))))
    const explain = (t: Omit<ExplainTarget, 'seq'>) => ctx.actions.explain(t)
    const simulated = run.source !== 'real' && run.source !== 'trace'
    if (!simulated) tableBox.classList.add('no-explain')
    tableBox.addEventListener('click', (e) => {
      const td = (e.target as HTMLElement).closest('td[data-explain]') as HTMLElement | null
      const table = td?.closest('table[data-workload]') as HTMLElement | null
      // a measured run kept its timeline around each maximum only (nothing to explain elsewhere)
      if (!td || !table || (!simulated && td.dataset.explain !== 'max')) return
      const variant = labels[Number(td.dataset.col)]
      if (variant !== undefined) explain({ run, variant, workload: table.dataset.workload, sample: td.dataset.explain as SampleSelector })
    })

    const select = h('select', {
      'data-testid': 'workload-select', 'aria-label': 'Workload of the charts and the per-task view', disabled: names.length < 2,
      onchange: (e: Event) => { workload = (e.target as HTMLSelectElement).value; render(ctx.store.state) }
    }, names.map((n) => h('option', { value: n, selected: n === workload }, n)))
    const controls = h('div', { class: 'chart-bar' }, h('label', { class: 'workload-pick' }, 'Workload ', select), chartControls(ctx))

    const card = (name: string, opts: { testid?: string; exportTestid?: string; height?: number } = {}): ChartCard => {
      const c = new ChartCard(name, { ...opts, onExport: (cc) => exportCard(ctx, `${run.name}-${name}`, cc, caption) })
      cards.push(c)
      return c
    }
    const dist = card(s.distribution.view === 'ccdf' ? 'latency-tail' : 'latency-cdf', { testid: 'latency-chart', exportTestid: 'export-png', height: 300 })
    const hist = card('latency-histogram')
    const pct = card('latency-percentiles')
    const taskCount = new Set(series.flatMap((x) => x.results.flatMap((r) => r.tasks.filter((t) => t.workload === workload && t.latencyUs.count > 0).map((t) => t.name)))).size
    const tasks = card('per-task-latency', { testid: 'task-chart', height: Math.max(200, Math.min(24, taskCount) * series.length * 12 + 90) })
    const cpus = card('cpu-utilization', { height: 240 })

    replace(el, header, partial, problems, warn, vmRecord(run) ?? hostRecord(run), tableBox, controls,
      h('div', { class: 'chart-grid' }, dist.el, hist.el, pct.el),
      h('h3', { class: 'section' }, workload ? `Per task: ${workload}` : 'Per task'), tasks.el, taskTable(series, workload),
      h('h3', { class: 'section' }, 'CPUs'), cpus.el, idleTable(series, (variant, bucket, seed) => explain({ run, variant, idle: { bucket, index: 0 }, seed })))

    if (workload) {
      dist.render((t) => clickable(distributionConfig(series, workload, t, s.distribution), s.distribution.view === 'ccdf', (variant, fraction) => {
        explain({ run, variant, workload, sample: `p${Math.min(100, Math.max(0, Math.round(fraction * 1e5) / 1e3))}` as SampleSelector })
      }), theme)
      hist.render((t) => histogramConfig(series, workload, t), theme)
      pct.render((t) => percentileConfig(series, workload, t), theme)
      tasks.render((t) => taskConfig(series, t, workload), theme)
    }
    cpus.render((t) => cpuConfig(series, t), theme)
  }

  ctx.store.watch((s) => ({ shownRun: s.shownRun, theme: s.theme, distribution: s.distribution }), render, { now: true, equals: shallowEqual })
  return { id: 'results', label: 'Results', el }
}

/** Seeds whose results were identical count as one sample: said where the tables are. */
export function identicalNotice(notes: readonly string[]): HTMLElement | null {
  if (notes.length === 0) return null
  return h('div', { class: 'notice identical-seeds', 'data-testid': 'identical-seeds', role: 'note' },
    h('strong', {}, 'Identical seeds. '), notes.map((n, i) => h('span', {}, `${i > 0 ? ' ' : ''}${n.charAt(0).toUpperCase()}${n.slice(1)}.`)))
}

/** Unreasonable-idle counts; a non-zero count is clicked to explain its first event. */
function idleTable(series: Series[], explain: (variant: string, bucket: (typeof IDLE_BUCKETS)[number], seed: number | undefined) => void): HTMLElement {
  const counts = series.map((x) => idleCounts(x.results))
  const any = counts.some((c) => IDLE_BUCKETS.some((b) => c[b] > 0))
  return h('section', { class: 'card', 'data-testid': 'idle-table' },
    h('h4', {}, 'Unreasonable idle (a CPU idle while a task waits elsewhere)'),
    any
      ? h('div', { class: 'table-scroll' }, h('table', { class: 'data-table' },
          h('thead', {}, h('tr', {}, h('th', {}, ''), IDLE_BUCKETS.map((b) => h('th', {}, b)))),
          h('tbody', {}, series.map((x, i) => h('tr', {}, h('th', { scope: 'row' }, x.label), IDLE_BUCKETS.map((b) => counts[i][b] > 0
            ? h('td', { 'data-explain': 'idle', title: 'Click: explain the first of these events on the timeline', onclick: () => explain(x.label, b, firstSeedWith(x, b)) }, counts[i][b])
            : h('td', {}, counts[i][b])))))))
      : h('p', { class: 'hint' }, 'No unreasonable idle events in this run.'))
}

