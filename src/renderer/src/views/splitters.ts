import type { PaneLayout } from '../../../shared/ipc'
import { h } from '../dom'
import type { ViewContext } from '../view-context'

const SPLIT_PX = 5
const HISTORY_MIN = 140
const EDITOR_MIN_PCT = 20
const EDITOR_MAX_PCT = 75

/** The layout before the user moves a splitter: a narrower history on small windows. */
export function defaultLayout(width: number): PaneLayout {
  return { historyPx: Math.round(Math.min(260, Math.max(170, width * 0.16))), editorPct: 42 }
}

function clampLayout(l: PaneLayout, width: number): PaneLayout {
  return {
    historyPx: Math.round(Math.min(Math.max(HISTORY_MIN, l.historyPx), Math.max(HISTORY_MIN, width * 0.4))),
    editorPct: Math.min(EDITOR_MAX_PCT, Math.max(EDITOR_MIN_PCT, l.editorPct))
  }
}

/**
 * The two splitters of the main layout (history | editor | right pane). Dragging one (or the
 * arrow keys on it) resizes the panes; the widths are saved in the settings when the drag
 * ends, so the window opens as it was left. Double-click restores the default.
 */
export function installSplitters(ctx: ViewContext, layout: HTMLElement): { history: HTMLElement; editor: HTMLElement } {
  const { store, api } = ctx
  let current = clampLayout(store.state.settings.layout ?? defaultLayout(window.innerWidth), window.innerWidth)
  const apply = (l: PaneLayout): void => {
    current = clampLayout(l, layout.clientWidth || window.innerWidth)
    layout.style.setProperty('--history-w', `${current.historyPx}px`)
    layout.style.setProperty('--editor-frac', String(current.editorPct / 100))
    layout.dataset.historyPx = String(current.historyPx)
    layout.dataset.editorPct = current.editorPct.toFixed(1)
  }
  const save = (): void => {
    const saving = { ...current }
    void api.updateSettings({ layout: saving }).then((settings) => {
      store.set({ settings })
      layout.dataset.saved = `${saving.historyPx} ${saving.editorPct.toFixed(1)}`
    }).catch(() => undefined)
  }
  const splitter = (which: 'history' | 'editor'): HTMLElement => {
    const el = h('div', {
      class: 'splitter', role: 'separator', tabindex: 0, 'aria-orientation': 'vertical', 'data-testid': `splitter-${which}`,
      'aria-label': which === 'history' ? 'Resize the history' : 'Resize the editor', title: 'Drag to resize; double-click for the default'
    })
    const move = (clientX: number): void => {
      const box = layout.getBoundingClientRect()
      if (which === 'history') apply({ ...current, historyPx: clientX - box.left })
      else {
        const rest = box.width - current.historyPx - 2 * SPLIT_PX
        apply({ ...current, editorPct: ((clientX - box.left - current.historyPx - SPLIT_PX) / rest) * 100 })
      }
    }
    el.addEventListener('pointerdown', (e) => {
      e.preventDefault()
      el.setPointerCapture(e.pointerId)
      document.body.classList.add('resizing')
      const onMove = (ev: PointerEvent) => move(ev.clientX)
      const onUp = () => {
        el.removeEventListener('pointermove', onMove)
        el.removeEventListener('pointerup', onUp)
        el.removeEventListener('pointercancel', onUp)
        document.body.classList.remove('resizing')
        save()
      }
      el.addEventListener('pointermove', onMove)
      el.addEventListener('pointerup', onUp)
      el.addEventListener('pointercancel', onUp)
    })
    el.addEventListener('keydown', (e) => {
      const step = (e.shiftKey ? 40 : 10) * (e.key === 'ArrowLeft' ? -1 : e.key === 'ArrowRight' ? 1 : 0)
      if (!step) return
      e.preventDefault()
      const rest = layout.clientWidth - current.historyPx - 2 * SPLIT_PX
      apply(which === 'history' ? { ...current, historyPx: current.historyPx + step } : { ...current, editorPct: current.editorPct + (step / rest) * 100 })
      save()
    })
    el.addEventListener('dblclick', () => {
      const d = defaultLayout(window.innerWidth)
      apply(which === 'history' ? { ...current, historyPx: d.historyPx } : { ...current, editorPct: d.editorPct })
      save()
    })
    return el
  }
  apply(current)
  store.watch((s) => s.settings.layout, (l) => { if (l && (l.historyPx !== current.historyPx || l.editorPct !== current.editorPct)) apply(l) })
  return { history: splitter('history'), editor: splitter('editor') }
}
