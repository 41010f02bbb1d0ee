import type { ExportPrefs } from '../../../shared/ipc'
import { h } from '../dom'
import type { ViewContext } from '../view-context'
import { chartTheme } from '../theme'
import type { ChartCard } from './chart-card'

/**
 * The controls above a view's charts: the distribution view (the tail on log-log axes by
 * default, or the CDF, optionally with a log y axis) and how PNGs are exported. Both are
 * shared by Results and Compare (store.distribution, settings.exportPrefs).
 */
export function chartControls(ctx: ViewContext): HTMLElement {
  const { store, api } = ctx
  const d = store.state.distribution
  const view = h('select', {
    'data-testid': 'dist-view', 'aria-label': 'Distribution view',
    onchange: () => store.set({ distribution: { ...store.state.distribution, view: view.value as 'ccdf' | 'cdf' } })
  },
  h('option', { value: 'ccdf', selected: d.view === 'ccdf' }, 'Tail: 1 − CDF (log-log)'),
  h('option', { value: 'cdf', selected: d.view === 'cdf' }, 'CDF'))
  const logY = h('input', {
    type: 'checkbox', 'data-testid': 'dist-logy', checked: d.logY, disabled: d.view === 'ccdf',
    onchange: () => store.set({ distribution: { ...store.state.distribution, logY: logY.checked } })
  })
  const prefs = store.state.settings.exportPrefs
  const setPrefs = (patch: Partial<ExportPrefs>) => {
    const exportPrefs = { ...store.state.settings.exportPrefs, ...patch }
    store.set({ settings: { ...store.state.settings, exportPrefs } })
    void api.updateSettings({ exportPrefs }).catch(() => undefined)
  }
  const scale = h('select', { 'data-testid': 'export-scale', 'aria-label': 'PNG scale', onchange: () => setPrefs({ scale: Number(scale.value) as 2 | 3 }) },
    h('option', { value: 2, selected: prefs.scale === 2 }, '2x'), h('option', { value: 3, selected: prefs.scale === 3 }, '3x'))
  const theme = h('select', { 'data-testid': 'export-theme', 'aria-label': 'PNG theme', onchange: () => setPrefs({ theme: theme.value as ExportPrefs['theme'] }) },
    h('option', { value: 'light', selected: prefs.theme === 'light' }, 'light'),
    h('option', { value: 'dark', selected: prefs.theme === 'dark' }, 'dark'),
    h('option', { value: 'shown', selected: prefs.theme === 'shown' }, 'as shown'))
  return h('span', { class: 'chart-controls' },
    h('label', {}, 'Distribution ', view),
    h('label', { title: 'The CDF with a logarithmic share axis (the tail view always has one)' }, logY, ' log y'),
    h('span', { class: 'export-group', title: 'How the PNG buttons export: device pixels per pixel, and theme' }, 'PNG ', scale, theme))
}

/** Export a card's chart as the settings say, named `name`, captioned `caption`. */
export function exportCard(ctx: ViewContext, name: string, card: ChartCard, caption: string): void {
  void ctx.actions.exportPng(name, () => card.png(ctx.store.state.settings.exportPrefs, chartTheme(ctx.store.state.theme), caption))
}
