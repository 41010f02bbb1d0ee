import { h } from '../dom'
import {
  drawTimeline, fmtRel, LABEL_W, laneAt, layoutHeight, prepareRow, sliceAt, type DrawStats, type Row, type RowIn, type View
} from './draw'

export interface TimelineHandlers {
  /** A slice was clicked: its task becomes the selected one (its wakeup-to-run intervals show). */
  selectTask?(task: string | null): void
}

/**
 * The timeline canvas (test id `timeline`): rows stacked and aligned on their anchor, zoom
 * and pan by wheel, drag and keyboard (+/- zoom, arrows pan, 0 fits the rows' data, Home
 * centres the anchor). Draws on the next animation frame after any change; the last frame's
 * duration is in `data-frame-ms` (the frame-time test reads it).
 */
export class TimelineView {
  readonly el: HTMLElement
  private readonly canvas: HTMLCanvasElement
  private readonly tip: HTMLElement
  private rows: Row[] = []
  private view: View = { fromNs: -1e6, toNs: 1e6 }
  private selected: string | null = null
  private dark = false
  private frame = 0
  private drag: { x: number; view: View } | null = null
  lastStats: DrawStats = { rects: 0, slicesInView: 0 }

  constructor(private readonly on: TimelineHandlers = {}) {
    this.canvas = h('canvas', { class: 'timeline-canvas', tabindex: '0', 'aria-label': 'Per-CPU timeline: wheel or +/- to zoom, drag or arrows to pan, 0 to fit' })
    this.tip = h('div', { class: 'timeline-tip', hidden: true })
    this.el = h('div', { class: 'timeline', 'data-testid': 'timeline' }, this.canvas, this.tip)
    this.canvas.addEventListener('wheel', (e) => this.onWheel(e), { passive: false })
    this.canvas.addEventListener('mousedown', (e) => this.onDown(e))
    window.addEventListener('mousemove', (e) => this.onMove(e))
    window.addEventListener('mouseup', (e) => this.onUp(e))
    this.canvas.addEventListener('keydown', (e) => this.onKey(e))
    this.canvas.addEventListener('mouseleave', () => (this.tip.hidden = true))
    new ResizeObserver(() => this.request()).observe(this.el)
  }

  /** Show these rows (one per run or trace), fitted to their windows. */
  setRows(rows: RowIn[], opts: { dark: boolean; selectedTask?: string | null; view?: View }): void {
    this.rows = rows.map(prepareRow)
    this.dark = opts.dark
    if (opts.selectedTask !== undefined) this.selected = opts.selectedTask
    this.view = opts.view ?? this.fitView()
    this.el.dataset.rows = String(rows.length)
    this.el.dataset.slices = String(rows.reduce((n, r) => n + r.lanes.reduce((m, l) => m + l.slices.length, 0), 0))
    this.request()
  }

  setDark(dark: boolean): void {
    this.dark = dark
    this.request()
  }

  selectTask(task: string | null): void {
    this.selected = task
    this.el.dataset.selectedTask = task ?? ''
    this.request()
  }

  /** Centre the view on a time relative to the anchor, keeping the zoom. */
  centreOn(relNs: number): void {
    const half = (this.view.toNs - this.view.fromNs) / 2
    this.setView({ fromNs: relNs - half, toNs: relNs + half })
  }

  get currentView(): View {
    return { ...this.view }
  }

  setView(v: View): void {
    const span = Math.max(200, v.toNs - v.fromNs)
    this.view = { fromNs: v.fromNs, toNs: v.fromNs + span }
    this.el.dataset.viewFrom = String(Math.round(this.view.fromNs))
    this.el.dataset.viewTo = String(Math.round(this.view.toNs))
    this.request()
  }

  /** Zoom by `factor` (< 1 zooms in) around relative time `at`. */
  zoom(factor: number, at = (this.view.fromNs + this.view.toNs) / 2): void {
    this.setView({ fromNs: at - (at - this.view.fromNs) * factor, toNs: at + (this.view.toNs - at) * factor })
  }

  pan(fraction: number): void {
    const d = (this.view.toNs - this.view.fromNs) * fraction
    this.setView({ fromNs: this.view.fromNs + d, toNs: this.view.toNs + d })
  }

  private fitView(): View {
    if (this.rows.length === 0) return { fromNs: -1e6, toNs: 1e6 }
    let from = Infinity
    let to = -Infinity
    for (const r of this.rows) {
      from = Math.min(from, r.startNs - r.anchorNs)
      to = Math.max(to, r.endNs - r.anchorNs)
    }
    return { fromNs: from, toNs: Math.max(from + 1000, to) }
  }

  private request(): void {
    if (this.frame) return
    this.frame = requestAnimationFrame(() => {
      this.frame = 0
      this.draw()
    })
  }

  /** Draw now (also what the animation frame does). */
  draw(): void {
    const w = Math.max(200, this.el.clientWidth)
    const hgt = Math.max(60, layoutHeight(this.rows))
    const dpr = window.devicePixelRatio || 1
    if (this.canvas.width !== Math.round(w * dpr) || this.canvas.height !== Math.round(hgt * dpr)) {
      this.canvas.width = Math.round(w * dpr)
      this.canvas.height = Math.round(hgt * dpr)
      this.canvas.style.height = `${hgt}px`
    }
    const ctx = this.canvas.getContext('2d')
    if (!ctx) return
    const t0 = performance.now()
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    this.lastStats = drawTimeline(ctx, this.rows, this.view, w, hgt, { dark: this.dark, selectedTask: this.selected })
    this.el.dataset.frameMs = (performance.now() - t0).toFixed(2)
    this.el.dataset.drawn = String(Number(this.el.dataset.drawn ?? 0) + 1)
  }

  private relAt(clientX: number): number {
    const r = this.canvas.getBoundingClientRect()
    const plotW = Math.max(1, r.width - LABEL_W)
    return this.view.fromNs + ((clientX - r.left - LABEL_W) / plotW) * (this.view.toNs - this.view.fromNs)
  }

  private onWheel(e: WheelEvent): void {
    e.preventDefault()
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
      this.pan((e.deltaX || e.deltaY) / 800)
      return
    }
    this.zoom(Math.exp(e.deltaY / 400), this.relAt(e.clientX))
  }

  private onDown(e: MouseEvent): void {
    if (e.button !== 0) return
    this.drag = { x: e.clientX, view: { ...this.view } }
    this.canvas.focus()
  }

  private onMove(e: MouseEvent): void {
    if (this.drag) {
      const r = this.canvas.getBoundingClientRect()
      const nsPerPx = (this.drag.view.toNs - this.drag.view.fromNs) / Math.max(1, r.width - LABEL_W)
      const d = (this.drag.x - e.clientX) * nsPerPx
      this.setView({ fromNs: this.drag.view.fromNs + d, toNs: this.drag.view.toNs + d })
      return
    }
    if (e.target !== this.canvas) return
    const hit = this.hit(e)
    if (!hit) {
      this.tip.hidden = true
      return
    }
    const { row, lane, i } = hit
    const l = row.lanes[lane]
    this.tip.textContent = `${row.tasks[l.task[i]]} ran on CPU ${l.cpu} from ${fmtRel(l.starts[i] - row.anchorNs)} to ${fmtRel(l.ends[i] - row.anchorNs)} (${((l.ends[i] - l.starts[i]) / 1000).toFixed(1)} us).`
    this.tip.hidden = false
    this.placeTip(e)
  }

  /**
   * The tooltip beside the pointer, inside the canvas: below and right of it where it fits,
   * else above or left of it (it wraps where it is wider than the canvas).
   */
  private placeTip(e: MouseEvent): void {
    const box = this.el.getBoundingClientRect()
    const x = e.clientX - box.left
    const y = e.clientY - box.top
    const w = this.tip.offsetWidth
    const th = this.tip.offsetHeight
    const W = this.el.clientWidth
    const H = this.el.clientHeight
    const inside = (v: number, size: number, room: number) => Math.max(2, Math.min(v, room - size - 2))
    const left = x + 12 + w <= W - 2 ? x + 12 : x - 12 - w
    const top = y + 12 + th <= H - 2 ? y + 12 : y - 12 - th
    this.tip.style.left = `${inside(left, w, W)}px`
    this.tip.style.top = `${inside(top, th, H)}px`
  }

  private onUp(e: MouseEvent): void {
    const d = this.drag
    this.drag = null
    if (!d || Math.abs(e.clientX - d.x) > 3) return
    // a click, not a drag: select the task under the pointer (or none)
    const hit = this.hit(e)
    const task = hit ? hit.row.tasks[hit.row.lanes[hit.lane].task[hit.i]] : null
    this.selectTask(task)
    this.on.selectTask?.(task)
  }

  private hit(e: MouseEvent): { row: Row; lane: number; i: number } | null {
    const r = this.canvas.getBoundingClientRect()
    const at = laneAt(this.rows, e.clientY - r.top)
    if (!at || e.clientX - r.left < LABEL_W) return null
    const row = this.rows[at.row]
    const slop = ((this.view.toNs - this.view.fromNs) / Math.max(1, r.width - LABEL_W)) * 2
    const i = sliceAt(row, at.lane, this.relAt(e.clientX), slop)
    return i < 0 ? null : { row, lane: at.lane, i }
  }

  private onKey(e: KeyboardEvent): void {
    const k = e.key
    if (k === '+' || k === '=') this.zoom(0.7)
    else if (k === '-' || k === '_') this.zoom(1 / 0.7)
    else if (k === 'ArrowLeft') this.pan(-0.15)
    else if (k === 'ArrowRight') this.pan(0.15)
    else if (k === '0') this.setView(this.fitView())
    else if (k === 'Home') this.centreOn(0)
    else if (k === 'Escape') {
      this.selectTask(null)
      this.on.selectTask?.(null)
    } else return
    e.preventDefault()
  }
}
