/**
 * Drawing the timeline on a 2D canvas: rows (one run or trace each, stacked and aligned on
 * their anchor, the event that was clicked), one lane per CPU, tasks in colours that depend
 * only on their name (the same task has the same colour in every row), idle periods hatched
 * by idle state, and the wakeup-to-run intervals of the selected task.
 *
 * It stays smooth with 100,000 slices in view: slices are kept in typed arrays sorted by
 * start, the visible range is found by binary search, and at most one rectangle is drawn per
 * pixel column and lane (sub-pixel slices merge into the column's first one). Pure: no DOM
 * besides the context it is given (the e2e frame-time test runs it in Chromium on its own).
 */

export interface SliceIn {
  task: string
  startNs: number
  endNs: number
}

export interface IdleIn {
  state: string
  startNs: number
  endNs: number
}

export interface WaitIn {
  task: string
  cpu: number
  readyNs: number
  ranNs: number
}

export interface RowIn {
  title: string
  /** The time the row is aligned on (the clicked sample's readiness), absolute ns. */
  anchorNs: number
  /** The time range the row has data for, absolute ns. */
  startNs: number
  endNs: number
  lanes: { cpu: number; slices: SliceIn[]; idle: IdleIn[] }[]
  /** Wakeup-to-run intervals (latency samples) in the row's range. */
  waits: WaitIn[]
  /** The explained sample, drawn with a frame. */
  focus?: WaitIn
}

/** A lane ready to draw: typed arrays, sorted by start. */
export interface Lane {
  cpu: number
  starts: Float64Array
  ends: Float64Array
  /** Index into the row's task names. */
  task: Int32Array
  idleStarts: Float64Array
  idleEnds: Float64Array
  idleDepth: Uint8Array
  idleNames: string[]
}

export interface Row {
  title: string
  anchorNs: number
  startNs: number
  endNs: number
  tasks: string[]
  lanes: Lane[]
  waits: WaitIn[]
  focus?: WaitIn
}

export const LABEL_W = 92
export const AXIS_H = 22
export const TITLE_H = 18
export const LANE_H = 22
export const LANE_GAP = 3
export const ROW_GAP = 10

export function prepareRow(r: RowIn): Row {
  const names = new Map<string, number>()
  const idOf = (t: string): number => {
    let i = names.get(t)
    if (i === undefined) {
      i = names.size
      names.set(t, i)
    }
    return i
  }
  const lanes: Lane[] = r.lanes.map((l) => {
    const s = [...l.slices].sort((a, b) => a.startNs - b.startNs)
    const idle = [...l.idle].sort((a, b) => a.startNs - b.startNs)
    const stateIds = new Map<string, number>()
    for (const x of idle) if (!stateIds.has(x.state)) stateIds.set(x.state, stateIds.size)
    return {
      cpu: l.cpu,
      starts: Float64Array.from(s, (x) => x.startNs),
      ends: Float64Array.from(s, (x) => x.endNs),
      task: Int32Array.from(s, (x) => idOf(x.task)),
      idleStarts: Float64Array.from(idle, (x) => x.startNs),
      idleEnds: Float64Array.from(idle, (x) => x.endNs),
      idleDepth: Uint8Array.from(idle, (x) => stateIds.get(x.state)!),
      idleNames: [...stateIds.keys()]
    }
  })
  return { title: r.title, anchorNs: r.anchorNs, startNs: r.startNs, endNs: r.endNs, tasks: [...names.keys()], lanes, waits: r.waits, focus: r.focus }
}

/** A task's colour: a hue from its name (stable across rows and runs), two lightness steps. */
export function taskColour(name: string, dark: boolean): string {
  let h = 2166136261
  // the thread's family (cyclictest, hackbench...) keeps close hues; its number shifts them
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619)
  const hue = ((h >>> 0) % 360)
  const light = dark ? 52 + ((h >>> 9) & 7) * 2 : 48 + ((h >>> 9) & 7) * 3
  return `hsl(${hue} ${dark ? 55 : 62}% ${light}%)`
}

/** The first slice that ends after x (ends are sorted: slices on a CPU do not overlap). */
function firstEndingAfter(ends: Float64Array, x: number): number {
  let lo = 0
  let hi = ends.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (ends[mid] <= x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index whose start is >= x. */
function firstStartingFrom(starts: Float64Array, x: number): number {
  let lo = 0
  let hi = starts.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (starts[mid] < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The visible range, relative to each row's anchor (ns). */
export interface View {
  fromNs: number
  toNs: number
}

export interface DrawStyle {
  dark: boolean
  selectedTask: string | null
  /** Font for labels (CSS). */
  font?: string
}

export interface DrawStats {
  rects: number
  slicesInView: number
}

export function layoutHeight(rows: Row[]): number {
  let h = AXIS_H
  for (const r of rows) h += TITLE_H + r.lanes.length * (LANE_H + LANE_GAP) + ROW_GAP
  return h
}

/** Where each row's lanes are, for hit-testing. */
export function laneAt(rows: Row[], y: number): { row: number; lane: number } | null {
  let top = AXIS_H
  for (let i = 0; i < rows.length; i++) {
    top += TITLE_H
    const r = rows[i]
    for (let j = 0; j < r.lanes.length; j++) {
      if (y >= top && y < top + LANE_H) return { row: i, lane: j }
      top += LANE_H + LANE_GAP
    }
    top += ROW_GAP
  }
  return null
}

/** The slice under relative time `rel` in a lane, or -1. */
export function sliceAt(row: Row, lane: number, rel: number, slopNs: number): number {
  const l = row.lanes[lane]
  const x = rel + row.anchorNs
  const i = firstEndingAfter(l.ends, x - slopNs)
  if (i < l.starts.length && l.starts[i] <= x + slopNs) return i
  return -1
}

function niceStep(spanNs: number, px: number): number {
  const target = (spanNs / px) * 90
  const p = 10 ** Math.floor(Math.log10(target))
  for (const m of [1, 2, 5, 10]) if (m * p >= target) return m * p
  return 10 * p
}

export function fmtRel(ns: number): string {
  const a = Math.abs(ns)
  const s = ns < 0 ? '\u2212' : '+'
  if (a === 0) return '0'
  if (a < 1e3) return `${s}${a.toFixed(0)} ns`
  if (a < 1e6) return `${s}${(a / 1e3).toFixed(a < 1e4 ? 1 : 0)} us`
  if (a < 1e9) return `${s}${(a / 1e6).toFixed(a < 1e7 ? 2 : 1)} ms`
  return `${s}${(a / 1e9).toFixed(3)} s`
}

export function drawTimeline(ctx: CanvasRenderingContext2D, rows: Row[], view: View, width: number, height: number, style: DrawStyle): DrawStats {
  const dark = style.dark
  const fg = dark ? '#e6edf3' : '#1f2328'
  const fg2 = dark ? '#9da7b3' : '#59636e'
  const grid = dark ? 'rgba(255,255,255,0.08)' : 'rgba(0,0,0,0.07)'
  const laneBg = dark ? '#252526' : '#f6f8fa'
  ctx.font = style.font ?? '11px system-ui, sans-serif'
  ctx.textBaseline = 'middle'
  ctx.clearRect(0, 0, width, height)
  const plotW = Math.max(1, width - LABEL_W)
  const span = Math.max(1, view.toNs - view.fromNs)
  const pxPerNs = plotW / span
  const X = (rel: number): number => LABEL_W + (rel - view.fromNs) * pxPerNs
  const stats: DrawStats = { rects: 0, slicesInView: 0 }
  const colours = new Map<string, string>()
  const colourOf = (t: string): string => {
    let c = colours.get(t)
    if (!c) {
      c = taskColour(t, dark)
      colours.set(t, c)
    }
    return c
  }

  // time axis (relative to each row's anchor)
  const step = niceStep(span, plotW)
  ctx.fillStyle = fg2
  ctx.strokeStyle = grid
  ctx.lineWidth = 1
  ctx.textAlign = 'center'
  for (let t = Math.ceil(view.fromNs / step) * step; t <= view.toNs; t += step) {
    const x = Math.round(X(t)) + 0.5
    ctx.beginPath()
    ctx.moveTo(x, AXIS_H - 4)
    ctx.lineTo(x, height)
    ctx.stroke()
    ctx.fillText(fmtRel(t), x, AXIS_H / 2)
  }
  ctx.textAlign = 'left'

  // per task: the rectangles of this lane, drawn together
  const batch: number[][] = []
  const used: number[] = []
  const labels: number[] = []
  let top = AXIS_H
  for (const row of rows) {
    ctx.fillStyle = fg
    ctx.fillText(row.title, 4, top + TITLE_H / 2)
    top += TITLE_H
    const a = row.anchorNs
    const from = view.fromNs + a
    const to = view.toNs + a
    for (const lane of row.lanes) {
      const y = top
      ctx.fillStyle = laneBg
      ctx.fillRect(LABEL_W, y, plotW, LANE_H)
      ctx.fillStyle = fg2
      ctx.fillText(`CPU ${lane.cpu}`, 8, y + LANE_H / 2)
      // outside the recorded range: nothing known
      const known0 = Math.max(LABEL_W, X(row.startNs - a))
      const known1 = Math.min(width, X(row.endNs - a))
      if (known0 > LABEL_W) {
        ctx.fillStyle = dark ? 'rgba(0,0,0,0.35)' : 'rgba(0,0,0,0.06)'
        ctx.fillRect(LABEL_W, y, known0 - LABEL_W, LANE_H)
      }
      if (known1 < width) {
        ctx.fillStyle = dark ? 'rgba(0,0,0,0.35)' : 'rgba(0,0,0,0.06)'
        ctx.fillRect(known1, y, width - known1, LANE_H)
      }
      // idle periods: hatched, darker for deeper states
      for (let i = firstEndingAfter(lane.idleEnds, from); i < lane.idleStarts.length && lane.idleStarts[i] < to; i++) {
        const x0 = Math.max(LABEL_W, X(lane.idleStarts[i] - a))
        const x1 = Math.min(width, X(lane.idleEnds[i] - a))
        if (x1 - x0 < 0.5) continue
        const depth = lane.idleDepth[i]
        ctx.fillStyle = dark ? `rgba(255,255,255,${0.04 + 0.05 * depth})` : `rgba(0,0,0,${0.05 + 0.06 * depth})`
        ctx.fillRect(x0, y + LANE_H - 5, x1 - x0, 5)
        if (x1 - x0 > 40) {
          ctx.fillStyle = fg2
          ctx.fillText(lane.idleNames[depth], x0 + 3, y + LANE_H / 2 - 2)
        }
        stats.rects++
      }
      // slices: one rectangle per pixel column at most; past a sub-pixel slice, jump (binary
      // search) to the first slice reaching the next column, so a frame costs O(columns log n)
      let lastPx = -1
      const n = lane.starts.length
      const first = firstEndingAfter(lane.ends, from)
      stats.slicesInView += firstStartingFrom(lane.starts, to) - first
      for (let i = first; i < n && lane.starts[i] < to; i++) {
        const x0f = X(lane.starts[i] - a)
        const x1f = X(lane.ends[i] - a)
        const x0 = Math.max(LABEL_W, x0f)
        const x1 = Math.min(width, x1f)
        const px = Math.floor(x0)
        if (x1 - x0 < 1 && px <= lastPx) {
          const next = firstEndingAfter(lane.ends, a + view.fromNs + (lastPx + 1 - LABEL_W) / pxPerNs)
          if (next > i + 1) i = next - 1
          continue
        }
        lastPx = Math.floor(x1 - 0.001)
        // batched by task: one path and one fill per colour (fillStyle changes are what costs)
        const id = lane.task[i]
        let b = batch[id]
        if (b === undefined) {
          b = []
          batch[id] = b
        }
        if (b.length === 0) used.push(id)
        b.push(x0, Math.max(1, x1 - x0))
        stats.rects++
        if (x1 - x0 > 60) labels.push(i, x0, x1)
      }
      for (const id of used) {
        const b = batch[id]
        const name = row.tasks[id]
        ctx.fillStyle = colourOf(name)
        ctx.beginPath()
        for (let j = 0; j < b.length; j += 2) ctx.rect(b[j], y + 2, b[j + 1], LANE_H - 9)
        ctx.fill()
        if (name === style.selectedTask) {
          ctx.strokeStyle = fg
          ctx.lineWidth = 2
          ctx.beginPath()
          for (let j = 0; j < b.length; j += 2) if (b[j + 1] > 3) ctx.rect(b[j] + 1, y + 3, b[j + 1] - 2, LANE_H - 11)
          ctx.stroke()
          ctx.lineWidth = 1
        }
        b.length = 0
      }
      used.length = 0
      ctx.fillStyle = '#000'
      for (let j = 0; j < labels.length; j += 3) {
        const x0 = labels[j + 1]
        const x1 = labels[j + 2]
        ctx.save()
        ctx.beginPath()
        ctx.rect(x0, y, x1 - x0, LANE_H)
        ctx.clip()
        ctx.fillText(row.tasks[lane.task[labels[j]]], x0 + 3, y + 2 + (LANE_H - 9) / 2)
        ctx.restore()
      }
      labels.length = 0
      top += LANE_H + LANE_GAP
    }
    // wakeup-to-run intervals of the selected task (and the explained sample, framed)
    const laneTop = (cpu: number): number => {
      const j = row.lanes.findIndex((l) => l.cpu === cpu)
      return j < 0 ? -1 : top - (row.lanes.length - j) * (LANE_H + LANE_GAP)
    }
    const drawWait = (w: WaitIn, strong: boolean): void => {
      const y = laneTop(w.cpu)
      if (y < 0 || w.ranNs < from || w.readyNs > to) return
      const x0 = Math.max(LABEL_W, X(w.readyNs - a))
      const x1 = Math.min(width, X(w.ranNs - a))
      ctx.strokeStyle = strong ? (dark ? '#ff7b72' : '#cf222e') : fg
      ctx.fillStyle = ctx.strokeStyle
      ctx.lineWidth = strong ? 2 : 1
      const yy = y + LANE_H - 3
      ctx.beginPath()
      ctx.moveTo(x0, yy - 4)
      ctx.lineTo(x0, yy)
      ctx.lineTo(Math.max(x0 + 1, x1), yy)
      ctx.lineTo(Math.max(x0 + 1, x1), yy - 4)
      ctx.stroke()
      ctx.lineWidth = 1
      stats.rects++
    }
    if (style.selectedTask !== null) for (const w of row.waits) if (w.task === style.selectedTask) drawWait(w, false)
    if (row.focus) drawWait(row.focus, true)
    top += ROW_GAP
  }
  // the anchor: where the rows are aligned
  if (view.fromNs <= 0 && view.toNs >= 0) {
    const x = Math.round(X(0)) + 0.5
    ctx.strokeStyle = dark ? 'rgba(255,123,114,0.6)' : 'rgba(207,34,46,0.5)'
    ctx.setLineDash([3, 3])
    ctx.beginPath()
    ctx.moveTo(x, AXIS_H)
    ctx.lineTo(x, height)
    ctx.stroke()
    ctx.setLineDash([])
  }
  return stats
}
