import { cellTitle, cellTone, formatMarkedChange, formatValueCell, TABLE_LEGEND, type WorkloadTable } from '../../../shared/tables'
import { h } from '../dom'

/** Rows whose value is one sample's latency (the max) or names one (a percentile). */
const EXPLAINABLE = new Set(['p50', 'p90', 'p99', 'p99_9', 'max'])

/**
 * A workload's table in the seed threads' form: values with the half-width of their 95 %
 * interval, and for each column after the baseline its change ("(+55 %)*"). Only significant
 * changes are coloured; the others stay grey with their interval on hover; n/a cells (too few
 * samples beyond the percentile) are never coloured.
 */
function cell(r: WorkloadTable['rows'][number], i: number): HTMLElement {
  const tone = cellTone(r, i)
  const chg = formatMarkedChange(r, i)
  const title = cellTitle(r, i)
  return h('td', {
    class: [tone === 'none' ? '' : tone, r.na[i] ? 'na' : ''].filter(Boolean).join(' '),
    ...(title ? { title } : {}),
    'data-metric': r.key,
    'data-significant': r.significant[i] ? 'true' : 'false',
    'data-col': i,
    // a latency figure of a sample: a click explains it on the timeline
    ...(EXPLAINABLE.has(r.key) && r.values[i] !== null ? { 'data-explain': r.key, title: `${title ? `${title}\n` : ''}Click: explain this sample on the timeline` } : {})
  },
  formatValueCell(r, i),
  chg ? h('span', { class: 'chg' }, ' ' + chg) : null)
}

/**
 * The same table turned: one row per column (variant or run), one column per metric, for
 * comparisons with more columns than metrics. Wide tables scroll inside their card.
 */
export function seedsTableTransposed(labels: readonly string[], t: WorkloadTable, baseline: number): HTMLElement {
  return h('div', { class: 'table-scroll' }, h('table', { class: 'seeds-table transposed', 'data-workload': t.workload },
    h('caption', {}, t.title),
    h('thead', {}, h('tr', {}, h('th', {}, ''), t.rows.map((r) => h('th', { 'data-metric': r.key }, r.label)))),
    h('tbody', {}, labels.map((l, i) => h('tr', { 'data-column': i, class: i === baseline ? 'baseline' : '' },
      h('th', { scope: 'row', title: i === baseline ? 'baseline' : l }, l),
      t.rows.map((r) => cell(r, i))))),
    h('tfoot', {}, h('tr', {}, h('td', { colspan: String(t.rows.length + 1), class: 'legend' }, TABLE_LEGEND)))))
}

export function seedsTable(labels: readonly string[], t: WorkloadTable, baseline: number): HTMLElement {
  return h('div', { class: 'table-scroll' }, h('table', { class: 'seeds-table', 'data-workload': t.workload },
    h('caption', {}, t.title),
    h('thead', {}, h('tr', {}, h('th', {}, ''), labels.map((l, i) => h('th', { class: i === baseline ? 'baseline' : '', title: i === baseline ? 'baseline' : '' }, l)))),
    h('tbody', {}, t.rows.map((r) => h('tr', { 'data-metric': r.key },
      h('th', { scope: 'row' }, r.label),
      labels.map((_, i) => cell(r, i))))),
    h('tfoot', {}, h('tr', {}, h('td', { colspan: String(labels.length + 1), class: 'legend' }, TABLE_LEGEND)))))
}
