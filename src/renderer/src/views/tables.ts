import { cellTitle, cellTone, formatMarkedChange, TABLE_LEGEND, tablesToText, valueCellParts, type WorkloadTable } from '../../../shared/tables'
import { h } from '../dom'

/** Columns side by side before a table is turned: 4 fit beside the editor at 1280x800 (3 at 1024x700). */
export const MAX_SIDE_BY_SIDE = 4

/** Rows whose value is one sample's latency (the max) or names one (a percentile). */
const EXPLAINABLE = new Set(['p50', 'p90', 'p99', 'p99_9', 'max'])

/**
 * A workload's table in the seed threads' form: values with their 95 % interval, and for each
 * column after the baseline its change ("(+55 %)*"). Only significant changes are coloured; the
 * others stay grey with their interval on hover; n/a cells (too few samples beyond the
 * percentile) are never coloured. Cells stay narrow so that four variants fit beside the
 * editor: the value, its interval and its change stack in the cell (their text reads as one
 * line, "1018 ±35 (+55 %)*"), and an n/a cell says "n/a" with its reason in a footnote under
 * the table and on hover.
 */
function cell(r: WorkloadTable['rows'][number], i: number): HTMLElement {
  const tone = cellTone(r, i)
  const chg = formatMarkedChange(r, i)
  const title = cellTitle(r, i)
  const [value, interval] = valueCellParts(r, i)
  const na = r.na[i]
  return h('td', {
    class: [tone === 'none' ? '' : tone, na ? 'na' : ''].filter(Boolean).join(' '),
    ...(title ? { title } : {}),
    'data-metric': r.key,
    'data-significant': r.significant[i] ? 'true' : 'false',
    'data-col': i,
    ...(na ? { 'data-na': na } : {}),
    // a latency figure of a sample: a click explains it on the timeline
    ...(EXPLAINABLE.has(r.key) && r.values[i] !== null ? { 'data-explain': r.key, title: `${title ? `${title}\n` : ''}Click: explain this sample on the timeline` } : {})
  },
  h('span', { class: 'v' }, na ? 'n/a' : value),
  interval ? h('span', { class: 'ci' }, ' ' + interval) : null,
  chg ? h('span', { class: 'chg' }, ' ' + chg) : null)
}

/**
 * A table's caption with "Copy as text": the table in the threads' fixed-width form (title,
 * columns, legend) on the clipboard, ready for a mailing-list reply.
 */
function caption(labels: readonly string[], t: WorkloadTable): HTMLElement {
  const copy = h('button', {
    class: 'small link copy-text', 'data-action': 'copy-text', title: 'Copy this table as fixed-width text (title, columns, legend), as the mailing-list threads print it',
    onclick: () => {
      void navigator.clipboard.writeText(tablesToText(labels, [t])).then(() => {
        copy.textContent = 'Copied'
        setTimeout(() => { copy.textContent = 'Copy as text' }, 1500)
      }, () => { copy.textContent = 'Copy failed' })
    }
  }, 'Copy as text')
  return h('caption', {}, t.title, ' ', copy)
}

/** Under a table: each n/a cell's reason once ("n/a: 99.9th Percentile (us): 528 samples; need 10000"). */
function naNotes(t: WorkloadTable, columns: number): HTMLElement | null {
  const lines: string[] = []
  for (const r of t.rows) {
    const reasons = [...new Set(Array.from({ length: columns }, (_, i) => r.na[i]).filter((x): x is string => !!x).map((x) => x.replace(/^n\/a \((.*)\)$/, '$1')))]
    if (reasons.length) lines.push(`${r.label}: ${reasons.join(' / ')}`)
  }
  return lines.length ? h('div', { class: 'na-notes', 'data-testid': 'na-notes' }, `n/a (fewer than 10 samples beyond the percentile): ${lines.join('; ')}`) : null
}

/**
 * The same table turned: one row per column (variant or run), one column per metric, for
 * comparisons with more columns than metrics. Wide tables scroll inside their card.
 */
export function seedsTableTransposed(labels: readonly string[], t: WorkloadTable, baseline: number): HTMLElement {
  return h('div', { class: 'table-scroll' }, h('table', { class: 'seeds-table transposed', 'data-workload': t.workload },
    caption(labels, t),
    h('thead', {}, h('tr', {}, h('th', {}, ''), t.rows.map((r) => h('th', { 'data-metric': r.key }, r.label)))),
    h('tbody', {}, labels.map((l, i) => h('tr', { 'data-column': i, class: i === baseline ? 'baseline' : '' },
      h('th', { scope: 'row', title: i === baseline ? 'baseline' : l }, l),
      t.rows.map((r) => cell(r, i))))),
    h('tfoot', {}, h('tr', {}, h('td', { colspan: String(t.rows.length + 1), class: 'legend' }, naNotes(t, labels.length), TABLE_LEGEND)))))
}

export function seedsTable(labels: readonly string[], t: WorkloadTable, baseline: number): HTMLElement {
  return h('div', { class: 'table-scroll' }, h('table', { class: 'seeds-table', 'data-workload': t.workload },
    caption(labels, t),
    h('thead', {}, h('tr', {}, h('th', {}, ''), labels.map((l, i) => h('th', { class: i === baseline ? 'baseline' : '', title: i === baseline ? `${l} (baseline)` : l }, l)))),
    h('tbody', {}, t.rows.map((r) => h('tr', { 'data-metric': r.key },
      h('th', { scope: 'row' }, r.label),
      labels.map((_, i) => cell(r, i))))),
    h('tfoot', {}, h('tr', {}, h('td', { colspan: String(labels.length + 1), class: 'legend' }, naNotes(t, labels.length), TABLE_LEGEND)))))
}
