import { formatValue } from '../../../shared/tables'
import { pooledTasks, type PooledTask, type Series } from '../charts/data'
import { h, replace } from '../dom'

interface Row {
  series: string
  task: PooledTask
}

interface Column {
  key: string
  label: string
  title?: string
  /** The sort key; text columns sort alphabetically, the others numerically (no value last). */
  value(r: Row): number | string | null
  text(r: Row): string
}

const latency = (k: 'p50' | 'p99' | 'max') => (r: Row): number | null => (r.task.latency.count > 0 ? r.task.latency[k] : null)
const shown = (v: number | null, k: 'p50' | 'p99' | 'max') => (v === null ? '–' : formatValue(k, v))

const COLUMNS: readonly Column[] = [
  { key: 'task', label: 'task', value: (r) => r.task.name, text: (r) => r.task.name },
  { key: 'workload', label: 'workload', value: (r) => r.task.workload, text: (r) => r.task.workload },
  { key: 'variant', label: 'variant', value: (r) => r.series, text: (r) => r.series },
  { key: 'cpuMs', label: 'CPU ms', value: (r) => r.task.cpuTimeMs, text: (r) => r.task.cpuTimeMs.toFixed(1) },
  { key: 'wakeups', label: 'wakeups', value: (r) => r.task.wakeups, text: (r) => String(Math.round(r.task.wakeups)) },
  { key: 'p50', label: 'p50 us', value: latency('p50'), text: (r) => shown(latency('p50')(r), 'p50') },
  { key: 'p99', label: 'p99 us', value: latency('p99'), text: (r) => shown(latency('p99')(r), 'p99') },
  { key: 'max', label: 'max us', value: latency('max'), text: (r) => shown(latency('max')(r), 'max') },
  { key: 'migrations', label: 'migrations', value: (r) => r.task.migrations, text: (r) => String(Math.round(r.task.migrations)) },
  { key: 'switches', label: 'switches', value: (r) => r.task.contextSwitches, text: (r) => String(Math.round(r.task.contextSwitches)) }
]

/** Compare two sort keys; a missing value sorts last whatever the direction. */
export function compareKeys(a: number | string | null, b: number | string | null, dir: 1 | -1): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1
  if (typeof a === 'string' || typeof b === 'string') return String(a).localeCompare(String(b), undefined, { numeric: true }) * dir
  return (a - b) * dir
}

/**
 * The tasks of `workload` (every workload when it is ''), one row per task and variant, sortable
 * by any column (click a header; again to reverse), with headers that stay in view while the
 * table scrolls in its card. Latency "–" means the task records none (a hog, background noise).
 */
export function taskTable(series: readonly Series[], workload: string): HTMLElement {
  let all = workload === ''
  let sort: { key: string; dir: 1 | -1 } = { key: 'p99', dir: -1 }
  const multi = series.length > 1
  const cols = COLUMNS.filter((c) => multi || c.key !== 'variant')
  const body = h('tbody', {})
  const heads = cols.map((c) => h('th', {
    scope: 'col', 'data-key': c.key, tabindex: 0, 'aria-sort': 'none', title: `Sort by ${c.label}`,
    onclick: () => sortBy(c.key),
    onkeydown: (e: KeyboardEvent) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(c.key) } }
  }, c.label))
  const count = h('span', { class: 'hint' })
  const toggle = workload ? h('label', { class: 'hint' }, h('input', { type: 'checkbox', 'data-testid': 'task-all', onchange: (e: Event) => { all = (e.target as HTMLInputElement).checked; paint() } }), ' all workloads') : null
  const table = h('table', { class: 'data-table sortable', 'data-testid': 'task-table' }, h('thead', {}, h('tr', {}, heads)), body)

  function sortBy(key: string): void {
    sort = sort.key === key ? { key, dir: sort.dir === 1 ? -1 : 1 } : { key, dir: ['task', 'workload', 'variant'].includes(key) ? 1 : -1 }
    paint()
  }

  function paint(): void {
    const rows: Row[] = series.flatMap((s) => pooledTasks(s.results).filter((t) => all || t.workload === workload).map((task) => ({ series: s.label, task })))
    const col = cols.find((c) => c.key === sort.key) ?? cols[0]
    rows.sort((a, b) => compareKeys(col.value(a), col.value(b), sort.dir) || a.task.name.localeCompare(b.task.name, undefined, { numeric: true }))
    heads.forEach((th, i) => th.setAttribute('aria-sort', cols[i].key === sort.key ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'))
    count.textContent = `${rows.length} row${rows.length === 1 ? '' : 's'}`
    replace(body, rows.map((r) => h('tr', {}, cols.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c.text(r)) : h('td', { 'data-key': c.key }, c.text(r)))))))
  }
  paint()
  return h('details', { class: 'card task-card' },
    h('summary', {}, 'Task table ', count),
    toggle,
    h('div', { class: 'table-scroll sticky-head' }, table))
}
