import type { ChartConfiguration, Plugin } from 'chart.js'
import type { ExportPrefs } from '../../../shared/ipc'
import { Chart } from '../charts/setup'
import { DARK_CHARTS, LIGHT_CHARTS, backgroundPlugin, type ChartTheme, type EmptyNote } from '../charts/configs'
import { h } from '../dom'

/** Builds a chart's configuration for a theme: the card draws it, and again for an export. */
export type ChartBuilder = (theme: ChartTheme) => ChartConfiguration

export interface ChartCardOptions {
  testid?: string
  exportTestid?: string
  height?: number
  onExport(card: ChartCard): void
}

const CAPTION_PX = 22

/** Draws the caption line under the chart (the export's: scenario, variants, seeds, duration, version). */
function captionPlugin(text: string, theme: ChartTheme): Plugin {
  return {
    id: 'schedlabCaption',
    afterDraw(chart) {
      const { ctx, width, height } = chart
      ctx.save()
      ctx.fillStyle = theme.text
      ctx.font = '11px system-ui, "DejaVu Sans", sans-serif'
      ctx.textBaseline = 'middle'
      let t = text
      while (t.length > 8 && ctx.measureText(t).width > width - 16) t = `${t.slice(0, -2)}…`
      ctx.fillText(t, 8, height - CAPTION_PX / 2)
      ctx.restore()
    }
  }
}

/**
 * A titled chart with zoom and pan (Ctrl+wheel, drag a box, Shift+drag; double-click or
 * "Reset zoom" restores) and its own PNG export. The export is drawn afresh on its own canvas
 * at 2x or 3x the device pixels, in the export theme (light by default), with the current zoom
 * but without hover state, and with a caption line.
 */
export class ChartCard {
  readonly el: HTMLElement
  private readonly box: HTMLElement
  private readonly resetBtn: HTMLButtonElement
  private chart: Chart | null = null
  private build: ChartBuilder | null = null

  constructor(readonly name: string, opts: ChartCardOptions) {
    this.box = h('div', { class: 'chart-box', style: `height:${opts.height ?? 280}px`, 'data-testid': opts.testid })
    this.resetBtn = h('button', { class: 'small', hidden: true, 'data-action': 'reset-zoom', title: 'Back to the whole chart (or double-click it)', onclick: () => this.resetZoom() }, 'Reset zoom')
    this.el = h('figure', { class: 'card chart-card' },
      h('div', { class: 'card-actions' },
        this.resetBtn,
        h('button', { class: 'small', title: 'Save this chart as a PNG image (2x or 3x, light theme by default, with a caption)', 'data-testid': opts.exportTestid, 'data-action': 'export-png', onclick: () => opts.onExport(this) }, 'PNG')),
      this.box)
    this.box.addEventListener('dblclick', () => this.resetZoom())
  }

  render(build: ChartBuilder, theme: ChartTheme): void {
    this.destroy()
    this.build = build
    const canvas = h('canvas', { 'aria-label': this.name, role: 'img' })
    this.box.replaceChildren(canvas)
    const cfg = build(theme)
    const empty = (cfg as EmptyNote).emptyNote
    if (empty) {
      // Nothing to draw under the tables' n/a rule: say so instead of an invented axis.
      this.box.replaceChildren(h('p', { class: 'chart-empty', 'data-testid': 'chart-empty' }, empty))
      this.box.dataset.title = empty
      this.box.dataset.drawn = 'empty'
      return
    }
    this.chart = new Chart(canvas, this.withZoomEvents(this.prepare(cfg, theme)))
    // What is drawn, in words, for assistive tools and tests (the canvas has no text).
    const title = (cfg.options?.plugins?.title as { text?: string } | undefined)?.text ?? this.name
    canvas.setAttribute('aria-label', String(title))
    this.box.dataset.title = String(title)
    this.box.dataset.legend = JSON.stringify(cfg.data.datasets.map((d) => d.label ?? ''))
    this.box.dataset.drawn = 'true'
  }

  private prepare(config: ChartConfiguration, theme: ChartTheme, extra: Plugin[] = []): ChartConfiguration {
    return { ...config, plugins: [...(config.plugins ?? []), backgroundPlugin(theme), ...extra] } as ChartConfiguration
  }

  private withZoomEvents(cfg: ChartConfiguration): ChartConfiguration {
    const zoom = (cfg.options?.plugins as { zoom?: Record<string, unknown> } | undefined)?.zoom
    if (!zoom) return cfg
    const changed = () => this.zoomChanged()
    const z = { ...zoom, zoom: { ...(zoom.zoom as object), onZoomComplete: changed }, pan: { ...(zoom.pan as object), onPanComplete: changed } }
    return { ...cfg, options: { ...cfg.options, plugins: { ...cfg.options!.plugins, zoom: z } } } as ChartConfiguration
  }

  private zoomChanged(): void {
    const zoomed = !!this.chart?.isZoomedOrPanned()
    this.resetBtn.hidden = !zoomed
    this.box.dataset.zoomed = String(zoomed)
  }

  resetZoom(): void {
    this.chart?.resetZoom()
    this.zoomChanged()
  }

  /** The PNG of this chart as `prefs` say, `shown` being the window's theme, with `caption` under it. */
  async png(prefs: ExportPrefs, shown: ChartTheme, caption: string): Promise<Uint8Array<ArrayBuffer>> {
    const live = this.chart
    if (this.box.dataset.drawn === 'empty') throw new Error(`nothing to export: ${this.box.dataset.title}`)
    if (!live || !this.build) throw new Error('the chart is not drawn yet')
    const theme = prefs.theme === 'shown' ? shown : prefs.theme === 'dark' ? DARK_CHARTS : LIGHT_CHARTS
    const width = Math.max(200, Math.round(live.width))
    const height = Math.max(150, Math.round(live.height)) + CAPTION_PX
    const cfg = this.prepare(this.build(theme), theme, [captionPlugin(caption, theme)])
    const options = (cfg.options ?? {}) as Record<string, unknown> & { scales?: Record<string, Record<string, unknown>>; layout?: { padding?: Record<string, number> } }
    // The zoom the user chose carries over; the hover state does not (a fresh chart has none).
    const scales = { ...(options.scales ?? {}) }
    if (live.isZoomedOrPanned()) for (const [id, sc] of Object.entries(live.scales)) if (scales[id]) scales[id] = { ...scales[id], min: sc.min, max: sc.max }
    const holder = h('div', { style: `position:fixed;left:-20000px;top:0;width:${width}px;height:${height}px`, 'aria-hidden': 'true' })
    const canvas = h('canvas', { width, height })
    canvas.style.width = `${width}px`
    canvas.style.height = `${height}px`
    holder.append(canvas)
    document.body.append(holder)
    const chart = new Chart(canvas, {
      ...cfg,
      options: {
        ...options, scales, responsive: false, animation: false, devicePixelRatio: prefs.scale, events: [],
        layout: { ...(options.layout ?? {}), padding: { ...(options.layout?.padding ?? {}), bottom: CAPTION_PX } }
      }
    } as ChartConfiguration)
    try {
      const blob = await new Promise<Blob | null>((ok) => canvas.toBlob(ok, 'image/png'))
      if (!blob) throw new Error('the chart could not be encoded as PNG')
      return new Uint8Array(await blob.arrayBuffer())
    } finally {
      chart.destroy()
      holder.remove()
    }
  }

  destroy(): void {
    this.chart?.destroy()
    this.chart = null
    delete this.box.dataset.drawn
  }
}
