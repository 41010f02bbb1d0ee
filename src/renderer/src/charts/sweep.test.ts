import { describe, expect, it } from 'vitest'
import type { StoredSweep } from '../../../shared/ipc'
import { exponential, syntheticResult } from '../../../stats/testing'
import { LIGHT_CHARTS } from './configs'
import { cellStats, sweepLineConfig, sweepMatrixConfig, type MatrixPoint } from './sweep'

/** Cells of synthetic runs: variant "fast" is 40 % faster at slice 3000, the same at 8000. */
function sweep(axes: StoredSweep['axes'], n = 3000): StoredSweep {
  const combos = axes.length === 1 ? axes[0].values.map((v) => [v]) : axes[0].values.flatMap((a) => axes[1].values.map((b) => [a, b]))
  return {
    axes, total: combos.length,
    cells: combos.map((values, index) => ({
      index, values,
      results: [1, 2].flatMap((seed) => [
        syntheticResult('base', 100 * index + seed, n, exponential(100_000)),
        syntheticResult('fast', 100 * index + 50 + seed, n, exponential(values[0] === 3000 ? 60_000 : 100_000))
      ])
    }))
  }
}

describe('sweep charts', () => {
  it('1-D: a line per variant with its interval band; n/a points are gaps', () => {
    const sw = sweep([{ path: 'workloads[0].sliceUs', values: [3000, 8000] }])
    const c = sweepLineConfig(sw, 'ct', 'p50', LIGHT_CHARTS)
    expect(c.data.labels).toEqual(['3000', '8000'])
    expect(c.data.datasets.map((d) => d.label)).toEqual(['base (95 % low)', 'base (95 % high)', 'base', 'fast (95 % low)', 'fast (95 % high)', 'fast'])
    const [lo, hi, v] = c.data.datasets
    for (const i of [0, 1]) {
      expect(lo.data[i]!).toBeLessThanOrEqual(v.data[i]!)
      expect(hi.data[i]!).toBeGreaterThanOrEqual(v.data[i]!)
    }
    expect(hi.fill).toBe('-1')
    // 6000 samples: p99.9 is n/a, drawn as nothing
    expect(sweepLineConfig(sw, 'ct', 'p99_9', LIGHT_CHARTS).data.datasets[2].data).toEqual([null, null])
    // a chart with nothing to draw says why instead of an invented axis, as the results charts do
    expect(sweepLineConfig(sw, 'ct', 'p99_9', LIGHT_CHARTS).emptyNote).toBe('n/a: 6000 samples in a cell at most, need 10000')
    expect(c.emptyNote).toBeUndefined()
    expect(sweepLineConfig(sw, 'nothing', 'p50', LIGHT_CHARTS).emptyNote).toBe('n/a: no latency samples of nothing')
  })

  it('2-D: the change heatmap colours and marks only significant cells, never n/a', () => {
    const sw = sweep([{ path: 'workloads[0].sliceUs', values: [3000, 8000] }, { path: 'kernel.hz', values: [250, 1000] }])
    const stats = cellStats(sw, 'ct', 'p50')
    const c = sweepMatrixConfig(sw, 'ct', 'p50', 1, 'change', LIGHT_CHARTS)
    const pts = c.data.datasets[0].data as MatrixPoint[]
    expect(pts.map((p) => [p.y, p.x])).toEqual([['3000', '250'], ['3000', '1000'], ['8000', '250'], ['8000', '1000']])
    const bg = c.data.datasets[0].backgroundColor as (ctx: { raw: MatrixPoint }) => string
    pts.forEach((p, i) => {
      expect(p.significant).toBe(stats[i].changes[1]!.significant)
      expect(p.text.endsWith('*')).toBe(p.significant)
      expect(bg({ raw: p })).toMatch(p.significant ? /^rgba\((26,127,55|209,36,47),/ : /^rgba\(128,128,128,/)
    })
    // 40 % faster at slice 3000: better and significant
    expect(pts[0].significant && pts[0].v! > 20).toBe(true)
    const na = sweepMatrixConfig(sw, 'ct', 'p99_9', 1, 'change', LIGHT_CHARTS).data.datasets[0].data as MatrixPoint[]
    for (const p of na) {
      expect(p.text).toBe('n/a')
      expect(bg({ raw: p })).toBe('rgba(0,0,0,0)')
    }
  })

  it('dashes a line identical to another and names it so; labels skip rather than overlap', () => {
    const sw = sweep([{ path: 'workloads[0].sliceUs', values: [3000, 8000] }])
    // a third variant with the same results as "base" (seeds relabelled)
    for (const c of sw.cells) c.results.push(...c.results.filter((r) => r.name === 'base').map((r) => ({ ...r, name: 'same' })))
    const c = sweepLineConfig(sw, 'ct', 'p50', LIGHT_CHARTS)
    const line = c.data.datasets.find((d) => d.label?.startsWith('same') && !d.label.includes('95 %'))!
    expect(line.label).toBe('same (identical to base)')
    expect((line as { borderDash?: number[] }).borderDash).toEqual([6, 4])
    expect(c.data.datasets.find((d) => d.label === 'fast')).toBeDefined()
    const x = c.options!.scales!.x as { ticks: { autoSkip: boolean; maxRotation: number } }
    expect(x.ticks).toMatchObject({ autoSkip: true, maxRotation: 45 })
  })

  it('counts identical seeds of a cell once', () => {
    const sw = sweep([{ path: 'workloads[0].sliceUs', values: [3000] }])
    const one = cellStats(sw, 'ct', 'p50')[0].estimates[0]
    const base = sw.cells[0].results.filter((r) => r.name === 'base')
    sw.cells[0].results.push(...base.map((r) => ({ ...r, seed: r.seed + 1000 })))
    expect(cellStats(sw, 'ct', 'p50')[0].estimates[0]).toEqual(one)
  })
})
