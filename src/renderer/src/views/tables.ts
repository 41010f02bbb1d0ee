import { changeTone, formatChange, formatValue, type WorkloadTable } from '../../../shared/tables'
import { h } from '../dom'

/**
 * A workload's table in the seed threads' form: values, and for each column after the
 * baseline its change ("(+55 %)"), coloured better/worse.
 */
export function seedsTable(labels: readonly string[], t: WorkloadTable, baseline: number): HTMLElement {
  return h('div', { class: 'table-scroll' }, h('table', { class: 'seeds-table', 'data-workload': t.workload },
    h('caption', {}, t.title),
    h('thead', {}, h('tr', {}, h('th', {}, ''), labels.map((l, i) => h('th', { class: i === baseline ? 'baseline' : '', title: i === baseline ? 'baseline' : '' }, l)))),
    h('tbody', {}, t.rows.map((r) => h('tr', { 'data-metric': r.key },
      h('th', { scope: 'row' }, r.label),
      labels.map((_, i) => {
        const tone = changeTone(r.changes[i])
        const chg = formatChange(r.changes[i])
        return h('td', { class: tone === 'none' ? '' : tone },
          formatValue(r.key, r.values[i]),
          chg ? h('span', { class: 'chg' }, ' ' + chg) : null)
      }))))))
}
