/** Window bounds remembered between sessions, fitted back onto the displays present now. */

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export interface SavedWindowState extends Rect {
  maximized: boolean
}

export const DEFAULT_SIZE = { width: 1440, height: 900 }
const MIN_VISIBLE = 120

function overlap(a: Rect, b: Rect): { w: number; h: number } {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)
  return { w: Math.max(0, w), h: Math.max(0, h) }
}

export function parseSavedState(raw: unknown): SavedWindowState | null {
  if (!raw || typeof raw !== 'object') return null
  const r = raw as Record<string, unknown>
  const nums = ['x', 'y', 'width', 'height'].map((k) => r[k])
  if (!nums.every((n) => typeof n === 'number' && Number.isFinite(n))) return null
  const [x, y, width, height] = nums as number[]
  if (width < 200 || height < 150) return null
  return { x, y, width, height, maximized: r.maximized === true }
}

/**
 * Where to open the window: the saved bounds when enough of the title area still lies on a
 * display (a monitor may have been unplugged), shrunk to that display's work area; otherwise
 * centred on the primary display with no position (the OS places it).
 */
export function fitWindowState(saved: SavedWindowState | null, workAreas: readonly Rect[]): Partial<SavedWindowState> & { width: number; height: number } {
  const primary = workAreas[0] ?? { x: 0, y: 0, ...DEFAULT_SIZE }
  const fallback = {
    width: Math.min(DEFAULT_SIZE.width, primary.width),
    height: Math.min(DEFAULT_SIZE.height, primary.height),
    maximized: saved?.maximized ?? false
  }
  if (!saved) return fallback
  const titleBar: Rect = { x: saved.x, y: saved.y, width: saved.width, height: 40 }
  // The display holding most of the title bar, if it holds enough to grab the window.
  let area: Rect | null = null
  let best = 0
  for (const a of workAreas) {
    const o = overlap(titleBar, a)
    if (o.h > 0 && o.w >= Math.min(MIN_VISIBLE, saved.width) && o.w > best) {
      best = o.w
      area = a
    }
  }
  if (!area) return fallback
  const width = Math.min(saved.width, area.width)
  const height = Math.min(saved.height, area.height)
  const x = Math.min(Math.max(saved.x, area.x), area.x + area.width - width)
  const y = Math.min(Math.max(saved.y, area.y), area.y + area.height - height)
  return { x, y, width, height, maximized: saved.maximized }
}
