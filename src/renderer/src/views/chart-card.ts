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

const CAPTION_FONT = '11px system-ui, "DejaVu Sans", sans-serif'
const CAPTION_LINE_PX = 15
const CAPTION_PAD_PX = 8

/** The caption's lines at `width` CSS pixels: wrapped at spaces, never cut. */
export function captionLines(text: string, width: number): string[] {
  const ctx = document.createElement('canvas').getContext('2d')!
  ctx.font = CAPTION_FONT
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word
    if (line && ctx.measureText(next).width > width) {
      lines.push(line)
      line = word
    } else line = next
  }
  if (line || lines.length === 0) lines.push(line)
  return lines
}

/** Draws the caption under the chart (the export's: scenario, variants, seeds, duration, version), on as many lines as it needs. */
function captionPlugin(lines: readonly string[], theme: ChartTheme): Plugin {
  return {
    id: 'schedlabCaption',
    afterDraw(chart) {
      const { ctx, height } = chart
      ctx.save()
      ctx.fillStyle = theme.text
      ctx.font = CAPTION_FONT
      ctx.textBaseline = 'middle'
      const top = height - lines.length * CAPTION_LINE_PX - CAPTION_PAD_PX / 2
      lines.forEach((l, i) => ctx.fillText(l, 8, top + (i + 0.5) * CAPTION_LINE_PX))
      ctx.restore()
    }
  }
}

/**
 * A titled chart with zoom and pan (Ctrl+wheel, drag a box, Shift+drag; double-click or
 * "Reset zoom" restores) and its own PNG export. The export is drawn afresh on its own canvas
 * at 2x or 3x its CSS size, in the export theme (light by default), with the current zoom but
 * without hover state, and with its caption wrapped onto as many lines as it needs.
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
    // the chart at its CSS size (the PNG is `scale` times it), the caption wrapped under it
    const width = Math.round(live.width)
    const lines = captionLines(caption, width - 16)
    const captionPx = lines.length * CAPTION_LINE_PX + CAPTION_PAD_PX
    const height = Math.round(live.height) + captionPx
    this.box.dataset.exportCaption = lines.join('\n')
    const cfg = this.prepare(this.build(theme), theme, [captionPlugin(lines, theme)])
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
        layout: { ...(options.layout ?? {}), padding: { ...(options.layout?.padding ?? {}), bottom: captionPx } }
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
