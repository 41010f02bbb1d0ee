/**
 * Charts of a saved sweep (the Sweep tab): a 1-D sweep as one line chart per percentile, a line
 * per variant with its 95 % interval as a band; a 2-D sweep as a heatmap (chartjs-chart-matrix)
 * of a metric, or of its change against the first variant with only significant cells coloured
 * and marked. Pure functions of the data, checked without a browser.
 */
import type { ChartConfiguration, ChartDataset, Plugin } from 'chart.js'
import type { MatrixDataPoint } from 'chartjs-chart-matrix'
import type { StoredSweep } from '../../../shared/ipc'
import { formatValue } from '../../../shared/tables'
import { compareEstimates, PERCENTILE_OF, workloadStats, type Change, type PercentileKey } from '../../../stats/summary'
import { formatInsufficient, type Estimate } from '../../../stats/quantile'
import { distinctResults } from '../../../stats/replicas'
import { colorOf, type ChartTheme, type EmptyNote } from './configs'

export type SweepMetric = PercentileKey | 'timeSec'

export const SWEEP_METRICS: readonly [SweepMetric, string][] = [['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['p99_9', 'p99.9'], ['timeSec', 'time (s)']]

/** A cell's statistics: per variant (in `variants` order) the estimate, and its change against the first. */
export interface CellStat {
  index: number
  values: unknown[]
  estimates: (Estimate | null)[]
  changes: (Change | null)[]
}

export function sweepVariants(sw: StoredSweep): string[] {
  const out: string[] = []
  for (const c of sw.cells) for (const r of c.results) if (!out.includes(r.name)) out.push(r.name)
  return out
}

export function sweepWorkloads(sw: StoredSweep): string[] {
  const out: string[] = []
  for (const c of sw.cells) for (const r of c.results) for (const w of r.workloads) if ((w.latencyUs.count > 0 || w.timeSec !== undefined) && !out.includes(w.name)) out.push(w.name)
  return out
}

export function cellStats(sw: StoredSweep, workload: string, metric: SweepMetric): CellStat[] {
  const variants = sweepVariants(sw)
  return sw.cells.map((c) => {
    const estimates = variants.map((v) => {
      // seeds with identical results count once, as in the tables
      const ws = distinctResults(c.results.filter((r) => r.name === v)).distinct.flatMap((r) => r.workloads.filter((w) => w.name === workload))
      if (ws.length === 0) return null
      const st = workloadStats(ws)
      return metric === 'timeSec' ? st.timeSec : st.count > 0 ? st.latency[metric] : null
    })
    return { index: c.index, values: c.values, estimates, changes: estimates.map((e, i) => (i === 0 ? null : compareEstimates(estimates[0], e))) }
  })
}

const label = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v))
const usable = (e: Estimate | null): e is Estimate => !!e && !e.insufficient && Number.isFinite(e.value)

function alpha(color: string, a: number): string {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(color)
  return m ? `rgba(${parseInt(m[1], 16)},${parseInt(m[2], 16)},${parseInt(m[3], 16)},${a})` : color
}

type Pt = number | null

/**
 * 1-D: x = the axis' values, one line per variant with its interval as a band (two invisible
 * bound lines, the upper filled down to the lower). n/a points are gaps.
 */
export function sweepLineConfig(sw: StoredSweep, workload: string, metric: SweepMetric, theme: ChartTheme): ChartConfiguration<'line', Pt[]> & EmptyNote {
  const stats = cellStats(sw, workload, metric)
  const variants = sweepVariants(sw)
  const datasets: ChartDataset<'line', Pt[]>[] = []
  const lines: string[] = []
  variants.forEach((v, i) => {
    const color = colorOf(theme, i)
    const est = stats.map((c) => c.estimates[i])
    const values = est.map((e) => (usable(e) ? e.value : null))
    // A line identical to an earlier one is dashed and says so, as in the results charts.
    const key = JSON.stringify(values)
    const same = lines.indexOf(key)
    lines.push(key)
    const identical = same >= 0 && values.some((x) => x !== null)
    datasets.push(
      { label: `${v} (95 % low)`, data: est.map((e) => (usable(e) && e.ci95 ? e.ci95[0] : null)), borderWidth: 0, pointRadius: 0, fill: false, spanGaps: false },
      { label: `${v} (95 % high)`, data: est.map((e) => (usable(e) && e.ci95 ? e.ci95[1] : null)), borderWidth: 0, pointRadius: 0, fill: '-1', backgroundColor: alpha(color, 0.18), spanGaps: false },
      {
        label: identical ? `${v} (identical to ${variants[same]})` : v, data: values, borderColor: color, backgroundColor: color, pointRadius: 3, fill: false, spanGaps: false,
        ...(identical ? { borderDash: [6, 4] } : {})
      }
    )
  })
  // Nothing to draw under the tables' n/a rule: say so rather than draw an invented axis.
  const all = stats.flatMap((c) => c.estimates)
  const short = all.filter((e) => e?.insufficient).map((e) => e!.insufficient!)
  const emptyNote = all.some(usable) ? undefined
    : short.length > 0 ? `n/a: ${Math.max(...short.map((i) => i.samples))} samples in a cell at most, need ${short[0].need}`
    : `n/a: no ${metric === 'timeSec' ? 'times' : 'latency samples'} of ${workload}`
  const [name] = SWEEP_METRICS.find(([k]) => k === metric) ?? [metric]
  const what = metric === 'timeSec' ? `${workload} time (s)` : `${PERCENTILE_OF[metric as PercentileKey]}th percentile of ${workload} latency (us)`
  return {
    ...(emptyNote ? { emptyNote } : {}),
    type: 'line',
    data: { labels: sw.axes[0].values.map(label), datasets },
    options: {
      responsive: true, maintainAspectRatio: false, animation: false, color: theme.text,
      scales: {
        // labels skip or turn rather than overlap
        x: { title: { display: true, text: sw.axes[0].path, color: theme.text }, ticks: { color: theme.text, autoSkip: true, autoSkipPadding: 8, maxRotation: 45 }, grid: { color: theme.grid } },
        y: { type: metric === 'timeSec' ? 'linear' : 'logarithmic', title: { display: true, text: what, color: theme.text }, ticks: { color: theme.text, autoSkip: true, autoSkipPadding: 6 }, grid: { color: theme.grid } }
      },
      plugins: {
        title: { display: true, text: `${name}: ${what}`, color: theme.text },
        legend: { labels: { color: theme.text, filter: (item) => !/\(95 % (low|high)\)$/.test(item.text) } },
        tooltip: {
          filter: (item) => !/\(95 % (low|high)\)$/.test(item.dataset.label ?? ''),
          callbacks: {
            label: (c) => {
              const e = stats[c.dataIndex]?.estimates[Math.floor(c.datasetIndex / 3)]
              if (e?.insufficient) return `${variants[Math.floor(c.datasetIndex / 3)]}: ${formatInsufficient(e.insufficient)}`
              const ci = e?.ci95 ? ` (95 % ${fmt(metric, e.ci95[0])} .. ${fmt(metric, e.ci95[1])})` : ''
              return `${c.dataset.label}: ${fmt(metric, c.parsed.y)}${ci}`
            }
          }
        }
      }
    }
  }
}

const fmt = (metric: SweepMetric, v: number | null): string => formatValue(metric === 'timeSec' ? 'timeSec' : 'p99', v)

export interface MatrixPoint extends MatrixDataPoint {
  cell: number
  /** The value or the change (percent, positive = better); null when n/a or absent. */
  v?: number
  significant: boolean
  text: string
  tip: string
}

/**
 * 2-D: rows = the first axis' values, columns = the second's. `mode: 'value'` colours by the
 * variant's value (log scale); `'change'` by its change against the first variant, coloured only
 * when significant (better green, worse red), grey otherwise; n/a cells are never coloured.
 */
export function sweepMatrixConfig(
  sw: StoredSweep, workload: string, metric: SweepMetric, variant: number, mode: 'value' | 'change', theme: ChartTheme
): ChartConfiguration<'matrix', MatrixPoint[]> {
  const stats = cellStats(sw, workload, metric)
  const xs = sw.axes[1].values.map(label)
  const ys = sw.axes[0].values.map(label)
  const points: MatrixPoint[] = stats.map((c) => {
    const e = c.estimates[variant]
    const ch = c.changes[variant]
    const base: Pick<MatrixPoint, 'x' | 'y' | 'cell'> = { x: label(c.values[1]), y: label(c.values[0]), cell: c.index }
    if (!e) return { ...base, significant: false, text: '-', tip: 'no such workload' }
    if (e.insufficient) return { ...base, significant: false, text: 'n/a', tip: formatInsufficient(e.insufficient) }
    if (mode === 'value') return { ...base, v: e.value, significant: false, text: fmt(metric, e.value), tip: `${fmt(metric, e.value)}${e.ci95 ? ` (95 % ${fmt(metric, e.ci95[0])} .. ${fmt(metric, e.ci95[1])})` : ''}` }
    if (!ch || ch.change === null) return { ...base, significant: false, text: 'n/a', tip: ch?.note ?? 'no change' }
    const better = -ch.change
    const ci = ch.ci95 ? `; 95 % ${(-ch.ci95[1]).toFixed(1)} .. ${(-ch.ci95[0]).toFixed(1)} %` : ''
    return {
      ...base, v: better, significant: ch.significant,
      text: `${better > 0 ? '+' : ''}${Math.round(better)} %${ch.significant ? '*' : ''}`,
      tip: `${better > 0 ? '+' : ''}${better.toFixed(1)} % (+ = better)${ci}${ch.pValue !== null ? `, p = ${ch.pValue < 0.001 ? '< 0.001' : ch.pValue.toFixed(3)}` : ''}, ${ch.significant ? 'significant' : 'not significant'}`
    }
  })
  const vals = points.map((p) => p.v).filter((v): v is number => typeof v === 'number' && v > 0)
  const [lo, hi] = [Math.min(...vals), Math.max(...vals)]
  const fill = (p: MatrixPoint): string => {
    if (p.v === undefined) return 'rgba(0,0,0,0)'
    if (mode === 'change') {
      if (!p.significant) return 'rgba(128,128,128,0.25)'
      const a = Math.min(0.9, 0.25 + Math.abs(p.v) / 100)
      return p.v > 0 ? `rgba(26,127,55,${a})` : `rgba(209,36,47,${a})`
    }
    const t = hi > lo && p.v > 0 ? Math.log(p.v / lo) / Math.log(hi / lo) : 0.5
    return `rgba(31,111,235,${(0.15 + 0.75 * t).toFixed(3)})`
  }
  const variants = sweepVariants(sw)
  const [mname] = SWEEP_METRICS.find(([k]) => k === metric) ?? [metric]
  return {
    type: 'matrix',
    plugins: [matrixLabels(theme)],
    data: {
      datasets: [{
        label: `${variants[variant]}: ${mname} of ${workload}`,
        data: points,
        backgroundColor: (c) => fill(c.raw as MatrixPoint),
        borderColor: (c) => ((c.raw as MatrixPoint)?.significant ? theme.text : theme.grid),
        borderWidth: (c) => ((c.raw as MatrixPoint)?.significant ? 2 : 1),
        width: ({ chart }) => (chart.chartArea?.width ?? 0) / xs.length - 2,
        height: ({ chart }) => (chart.chartArea?.height ?? 0) / ys.length - 2
      }]
    },
    options: {
      responsive: true, maintainAspectRatio: false, animation: false, color: theme.text,
      scales: {
        x: { type: 'category', labels: xs, offset: true, title: { display: true, text: sw.axes[1].path, color: theme.text }, ticks: { color: theme.text, autoSkip: true, autoSkipPadding: 8, maxRotation: 45 }, grid: { display: false } },
        y: { type: 'category', labels: ys, offset: true, reverse: false, title: { display: true, text: sw.axes[0].path, color: theme.text }, ticks: { color: theme.text }, grid: { display: false } }
      },
      plugins: {
        title: { display: true, color: theme.text, text: mode === 'change' ? `${variants[variant]} against ${variants[0]}: change of ${mname} (${workload}); * significant` : `${variants[variant]}: ${mname} of ${workload}` },
        legend: { display: false },
        tooltip: { callbacks: { title: () => '', label: (c) => { const p = c.raw as MatrixPoint; return `${sw.axes[0].path}=${p.y}, ${sw.axes[1].path}=${p.x}: ${p.tip}` } } }
      }
    }
  }
}

/** Writes each cell's value or change (with * when significant) in the cell. */
function matrixLabels(theme: ChartTheme): Plugin<'matrix'> {
  return {
    id: 'schedlabMatrixLabels',
    afterDatasetsDraw(chart) {
      const { ctx } = chart
      ctx.save()
      ctx.fillStyle = theme.text
      ctx.textAlign = 'center'
      ctx.textBaseline = 'middle'
      ctx.font = '12px system-ui, sans-serif'
      const meta = chart.getDatasetMeta(0)
      meta.data.forEach((el, i) => {
        const p = chart.data.datasets[0].data[i] as MatrixPoint
        const { x, y, width, height } = el.getProps(['x', 'y', 'width', 'height'], true) as { x: number; y: number; width: number; height: number }
        ctx.fillText(p.text, x + width / 2, y + height / 2)
      })
      ctx.restore()
    }
  }
}
