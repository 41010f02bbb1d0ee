import type { ChartConfiguration } from 'chart.js'
import { Chart } from '../charts/setup'
import { backgroundPlugin, type ChartTheme } from '../charts/configs'
import { h } from '../dom'

/**
 * A titled chart with its own PNG export. The chart's canvas is painted on the theme's
 * background, so the exported image is what the user sees.
 */
export class ChartCard {
  readonly el: HTMLElement
  private readonly box: HTMLElement
  private chart: Chart | null = null

  constructor(
    readonly name: string,
    opts: { testid?: string; exportTestid?: string; height?: number; onExport(card: ChartCard): void }
  ) {
    this.box = h('div', { class: 'chart-box', style: `height:${opts.height ?? 280}px`, 'data-testid': opts.testid })
    this.el = h('figure', { class: 'card chart-card' },
      h('div', { class: 'card-actions' },
        h('button', { class: 'small', title: 'Save this chart as a PNG image', 'data-testid': opts.exportTestid, onclick: () => opts.onExport(this) }, 'PNG')),
      this.box)
  }

  render(config: ChartConfiguration, theme: ChartTheme): void {
    this.destroy()
    const canvas = h('canvas', { 'aria-label': this.name, role: 'img' })
    this.box.replaceChildren(canvas)
    const cfg = { ...config, plugins: [...(config.plugins ?? []), backgroundPlugin(theme)] } as ChartConfiguration
    this.chart = new Chart(canvas, cfg)
  }

  async png(): Promise<Uint8Array<ArrayBuffer>> {
    const canvas = this.chart?.canvas
    if (!canvas) throw new Error('the chart is not drawn yet')
    this.chart!.update('none')
    const blob = await new Promise<Blob | null>((ok) => canvas.toBlob(ok, 'image/png'))
    if (!blob) throw new Error('the chart could not be encoded as PNG')
    return new Uint8Array(await blob.arrayBuffer())
  }

  destroy(): void {
    this.chart?.destroy()
    this.chart = null
  }
}
