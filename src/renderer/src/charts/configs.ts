/**
 * Chart.js configurations of the results views. Pure functions of the data and the theme, so
 * they can be checked without a browser.
 */
import type { ChartConfiguration, ChartDataset, Plugin } from 'chart.js'
import { cdfPoints, logEdges, rebin, histogramTotal } from '../../../shared/histogram-data'
import { formatValue } from '../../../shared/tables'
import { formatInsufficient } from '../../../stats/quantile'
import { pooledCpus, pooledHistogram, pooledTasks, pooledWorkloadStats, type Series } from './data'

export interface ChartTheme {
  text: string
  grid: string
  background: string
  palette: readonly string[]
}

export const LIGHT_CHARTS: ChartTheme = {
  text: '#24292f',
  grid: 'rgba(0,0,0,0.10)',
  background: '#ffffff',
  palette: ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#0a7ea4', '#57606a']
}

export const DARK_CHARTS: ChartTheme = {
  text: '#d0d7de',
  grid: 'rgba(255,255,255,0.12)',
  background: '#1e1e1e',
  palette: ['#58a6ff', '#ff7b72', '#3fb950', '#d29922', '#bc8cff', '#f778ba', '#39c5cf', '#8b949e']
}

export const colorOf = (theme: ChartTheme, i: number): string => theme.palette[i % theme.palette.length]

/** Paints the theme's background under the chart so an exported PNG is not transparent. */
export function backgroundPlugin(theme: ChartTheme): Plugin {
  return {
    id: 'schedlabBackground',
    beforeDraw(chart) {
      const { ctx, width, height } = chart
      ctx.save()
      ctx.globalCompositeOperation = 'destination-over'
      ctx.fillStyle = theme.background
      ctx.fillRect(0, 0, width, height)
      ctx.restore()
    }
  }
}

function baseOptions(theme: ChartTheme, title: string) {
  return {
    responsive: true,
    maintainAspectRatio: false,
    animation: false as const,
    color: theme.text,
    plugins: {
      title: { display: true, text: title, color: theme.text, font: { size: 13, weight: 'bold' as const } },
      legend: { labels: { color: theme.text, boxWidth: 14 } },
      tooltip: { intersect: false, mode: 'nearest' as const }
    }
  }
}

function axis(theme: ChartTheme, title: string, extra: Record<string, unknown> = {}) {
  return {
    title: { display: true, text: title, color: theme.text },
    ticks: { color: theme.text },
    grid: { color: theme.grid },
    ...extra
  }
}

const logTick = (v: number | string, _i: number, ticks: readonly unknown[]): string => {
  const n = Number(v)
  const text = n >= 1000 ? `${+(n / 1000).toPrecision(3)}k` : String(+n.toPrecision(3))
  if (ticks.length <= 8) return text
  // On a wide axis, label decades and their 2x/5x points only, as log axes are read.
  const m = n / 10 ** Math.floor(Math.log10(n) + 1e-9)
  return [1, 2, 5].some((k) => Math.abs(m - k) < 1e-6) ? text : ''
}

type Point = { x: number; y: number | null }

/** Log latency axis; a narrow range (all samples alike) is widened so it has readable ticks. */
function latencyLogAxis(theme: ChartTheme, xs: readonly number[]) {
  const lo = xs.length ? Math.min(...xs) : 1
  const hi = xs.length ? Math.max(...xs) : 10
  const widen = hi / lo < 4 ? { min: lo / 2, max: hi * 2 } : {}
  return axis(theme, 'scheduling latency (us), log scale', { type: 'logarithmic', ...widen, ticks: { color: theme.text, callback: logTick, autoSkip: false, maxRotation: 0 } })
}

const xsOf = (datasets: readonly { data: readonly Point[] }[]): number[] => datasets.flatMap((d) => d.data.map((p) => p.x))

/** Cumulative distribution of scheduling latency, x on a log axis, one curve per series. */
export function cdfConfig(series: readonly Series[], workload: string, theme: ChartTheme): ChartConfiguration<'line', Point[]> {
  const datasets: ChartDataset<'line', Point[]>[] = series.map((s, i) => {
    const h = pooledHistogram(s, workload)
    return {
      label: s.label,
      data: h ? cdfPoints(h) : [],
      borderColor: colorOf(theme, i),
      backgroundColor: colorOf(theme, i),
      borderWidth: 2,
      pointRadius: 0,
      stepped: 'before' as const
    }
  })
  return {
    type: 'line',
    data: { datasets },
    options: {
      ...baseOptions(theme, `Latency CDF: ${workload}`),
      parsing: false,
      scales: {
        x: latencyLogAxis(theme, xsOf(datasets)),
        y: axis(theme, 'share of wakeups ≤ x', { type: 'linear', min: 0, max: 1, ticks: { color: theme.text, callback: (v: number | string) => `${Math.round(Number(v) * 100)}%` } })
      }
    }
  }
}

/**
 * Histograms of several series overlaid: re-binned to common log-spaced bins, each as a share
 * of its own samples so runs of different lengths compare. (The CDF shows the tail; here empty
 * bins must draw as zero so the steps stay connected.)
 */
export function histogramConfig(series: readonly Series[], workload: string, theme: ChartTheme): ChartConfiguration<'line', Point[]> {
  const hists = series.map((s) => pooledHistogram(s, workload))
  const present = hists.filter((h) => h && h.counts.length > 0) as NonNullable<(typeof hists)[number]>[]
  const min = present.length ? Math.min(...present.map((h) => Math.max(h.lowUs[0], 0.01))) : 1
  const max = present.length ? Math.max(...present.map((h) => h.highUs[h.highUs.length - 1])) : 10
  const edges = logEdges(min, max, 10)
  const datasets: ChartDataset<'line', Point[]>[] = hists.map((h, i) => {
    const total = h ? histogramTotal(h) : 0
    const bins = h ? rebin(h, edges) : []
    return {
      label: series[i].label,
      data: bins.map((c, k) => ({ x: Math.sqrt(edges[k] * edges[k + 1]), y: total > 0 ? (100 * c) / total : 0 })),
      borderColor: colorOf(theme, i),
      backgroundColor: colorOf(theme, i) + '33',
      fill: 'origin' as const,
      borderWidth: 1.5,
      pointRadius: 0,
      stepped: 'middle' as const
    }
  })
  return {
    type: 'line',
    data: { datasets },
    options: {
      ...baseOptions(theme, `Latency histogram: ${workload}`),
      parsing: false,
      scales: {
        x: latencyLogAxis(theme, xsOf(datasets)),
        y: axis(theme, '% of wakeups', { type: 'linear', min: 0 })
      }
    }
  }
}

const PCT_KEYS = [['p50', 'p50'], ['p90', 'p90'], ['p99', 'p99'], ['p99_9', 'p99.9'], ['max', 'max']] as const

/** A bar dataset with the 95 % interval of each bar, drawn as whiskers by intervalPlugin. */
export type IntervalDataset = ChartDataset<'bar', (number | null)[]> & { intervals?: ([number, number] | null)[] }

/** Whiskers from each bar's interval low to high (datasets that carry `intervals`). */
export function intervalPlugin(theme: ChartTheme): Plugin {
  return {
    id: 'schedlabIntervals',
    afterDatasetsDraw(chart) {
      const y = chart.scales.y
      if (!y) return
      const { ctx } = chart
      ctx.save()
      ctx.strokeStyle = theme.text
      ctx.lineWidth = 1.2
      chart.data.datasets.forEach((d, i) => {
        const iv = (d as IntervalDataset).intervals
        const meta = chart.getDatasetMeta(i)
        if (!iv || meta.hidden) return
        meta.data.forEach((bar, j) => {
          const ci = iv[j]
          if (!ci || !(ci[0] > 0)) return
          const x = bar.x
          const w = Math.min(8, ((bar as unknown as { width?: number }).width ?? 12) / 3)
          const [lo, hi] = [y.getPixelForValue(ci[0]), y.getPixelForValue(ci[1])]
          ctx.beginPath()
          ctx.moveTo(x, lo)
          ctx.lineTo(x, hi)
          ctx.moveTo(x - w, lo)
          ctx.lineTo(x + w, lo)
          ctx.moveTo(x - w, hi)
          ctx.lineTo(x + w, hi)
          ctx.stroke()
        })
      })
      ctx.restore()
    }
  }
}

/**
 * p50..max per series as grouped bars on a log axis, each percentile with its 95 % interval as
 * a whisker; a percentile with too few samples beyond it has no bar (the tooltip says why).
 */
export function percentileConfig(series: readonly Series[], workload: string, theme: ChartTheme): ChartConfiguration<'bar', (number | null)[]> {
  const stats = series.map((s) => pooledWorkloadStats(s, workload))
  return {
    type: 'bar',
    plugins: [intervalPlugin(theme)],
    data: {
      labels: PCT_KEYS.map(([, l]) => l),
      datasets: series.map((s, i): IntervalDataset => {
        const st = stats[i]
        const est = PCT_KEYS.map(([k]) => (!st || st.count === 0 ? null : k === 'max' ? null : st.latency[k]))
        return {
          label: s.label,
          data: PCT_KEYS.map(([k], j) => {
            if (!st || st.count === 0) return null
            if (k === 'max') return st.maxUs > 0 ? st.maxUs : null
            const e = est[j]
            return e && !e.insufficient && e.value > 0 ? e.value : null
          }),
          intervals: est.map((e) => (e && !e.insufficient ? e.ci95 : null)),
          backgroundColor: colorOf(theme, i)
        }
      })
    },
    options: {
      ...baseOptions(theme, `Latency percentiles: ${workload}`),
      scales: {
        x: axis(theme, 'percentile'),
        y: axis(theme, 'scheduling latency (us), log scale', { type: 'logarithmic', ticks: { color: theme.text, callback: logTick } })
      },
      plugins: {
        ...baseOptions(theme, `Latency percentiles: ${workload}`).plugins,
        tooltip: {
          callbacks: {
            label: (c: { datasetIndex: number; dataIndex: number; dataset: { label?: string }; parsed: { y: number | null } }) => {
              const key = PCT_KEYS[c.dataIndex]?.[0]
              const st = stats[c.datasetIndex]
              const e = st && key && key !== 'max' ? st.latency[key] : null
              if (e?.insufficient) return `${c.dataset.label}: ${formatInsufficient(e.insufficient)}`
              const ci = e?.ci95 ? ` (95 % interval ${formatValue('p99', e.ci95[0])} .. ${formatValue('p99', e.ci95[1])})` : ''
              return `${c.dataset.label}: ${formatValue('p99', c.parsed.y)} us${ci}`
            }
          }
        }
      }
    }
  }
}

/** Per-task p99 and max latency, horizontal bars, the worst tasks first (at most `limit`). */
export function taskConfig(series: readonly Series[], theme: ChartTheme, limit = 24): ChartConfiguration<'bar', (number | null)[]> {
  const perSeries = series.map((s) => new Map(pooledTasks(s.results).map((t) => [t.name, t])))
  const worst = new Map<string, number>()
  // Tasks that record no latency (hogs) have nothing to show.
  for (const m of perSeries) for (const t of m.values()) if (t.latency.count > 0) worst.set(t.name, Math.max(worst.get(t.name) ?? 0, t.latency.p99))
  const names = [...worst.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([n]) => n)
  return {
    type: 'bar',
    data: {
      labels: names,
      datasets: perSeries.map((m, i) => ({
        label: `${series[i].label} p99`,
        data: names.map((n) => {
          const v = m.get(n)?.latency.p99
          return v && v > 0 ? v : null
        }),
        backgroundColor: colorOf(theme, i)
      }))
    },
    options: {
      ...baseOptions(theme, names.length < worst.size ? `p99 latency per task (worst ${names.length} of ${worst.size})` : 'p99 latency per task'),
      indexAxis: 'y',
      scales: {
        x: axis(theme, 'p99 scheduling latency (us), log scale', { type: 'logarithmic', ticks: { color: theme.text, callback: logTick } }),
        y: axis(theme, '', { ticks: { color: theme.text, autoSkip: false, font: { size: 10 } } })
      }
    }
  }
}

/** Per-CPU busy share per series. */
export function cpuConfig(series: readonly Series[], theme: ChartTheme): ChartConfiguration<'bar', (number | null)[]> {
  const cpus = pooledCpus(series.flatMap((s) => s.results))
  return {
    type: 'bar',
    data: {
      labels: cpus.map((c) => `cpu${c.id} ${c.cluster}`),
      datasets: series.map((s, i) => {
        const mine = new Map(pooledCpus(s.results).map((c) => [c.id, c.busyPct]))
        return { label: s.label, data: cpus.map((c) => mine.get(c.id) ?? null), backgroundColor: colorOf(theme, i) }
      })
    },
    options: {
      ...baseOptions(theme, 'CPU utilization'),
      scales: {
        x: axis(theme, 'CPU', { ticks: { color: theme.text, autoSkip: true, maxRotation: 60 } }),
        y: axis(theme, 'busy %', { min: 0, max: 100 })
      }
    }
  }
}
