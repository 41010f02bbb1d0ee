import { h, replace } from '../dom'
import type { ViewContext } from '../view-context'
import { shallowEqual } from '../store'

export const MOD = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl'

/** File actions, presets, the document name with its unsaved mark, theme and help. */
export function createToolbar(ctx: ViewContext): { el: HTMLElement } {
  const { store, actions } = ctx
  const presetSelect = h('select', {
    'data-testid': 'preset-select', 'aria-label': 'Presets', title: 'Load a preset scenario',
    onchange: () => {
      const id = presetSelect.value
      presetSelect.value = ''
      if (id) void actions.loadPreset(id)
    }
  }, h('option', { value: '' }, 'Presets…'))
  const docName = h('span', { class: 'doc-name', 'data-testid': 'doc-name' }, 'untitled')
  const dirtyMark = h('span', { class: 'dirty', 'data-testid': 'dirty-indicator', title: 'Unsaved changes', hidden: true }, '●')
  const cmd = (c: Parameters<typeof actions.command>[0]) => () => void actions.command(c)

  const el = h('header', { class: 'toolbar' },
    h('span', { class: 'brand' }, 'schedlab'),
    h('div', { class: 'group' },
      h('button', { 'data-testid': 'new-button', title: 'New scenario', onclick: cmd('new') }, 'New'),
      h('button', { 'data-testid': 'open-button', title: `Open a scenario (${MOD}+O)`, onclick: cmd('open') }, 'Open…'),
      h('button', { 'data-testid': 'save-button', title: `Save the scenario (${MOD}+S)`, onclick: cmd('save') }, 'Save'),
      h('button', { 'data-testid': 'import-button', title: 'Import an rt-app JSON file as a new scenario', onclick: cmd('import-rtapp') }, 'Import rt-app…'),
      h('button', { 'data-testid': 'import-trace-button', title: 'Import an ftrace trace (tracefs, trace-cmd report, perf script, schedlab --trace) as a saved run', onclick: cmd('import-trace') }, 'Import trace…'),
      presetSelect),
    h('div', { class: 'group doc' }, dirtyMark, docName),
    h('div', { class: 'group end' },
      h('button', { class: 'icon', 'data-testid': 'theme-toggle', title: `Light/dark theme (${MOD}+Shift+L)`, 'aria-label': 'Toggle theme', onclick: cmd('toggle-theme') }, '◐'),
      h('button', { class: 'icon', 'data-testid': 'help-button', title: 'Keyboard shortcuts (F1)', 'aria-label': 'Keyboard shortcuts', onclick: cmd('shortcuts') }, '?')))

  store.watch((s) => s.presets, (presets) => {
    replace(presetSelect, h('option', { value: '' }, 'Presets…'), presets.map((p) => h('option', { value: p.id, title: p.description }, p.name)))
  }, { now: true })
  store.watch((s) => ({ name: s.doc.name, dirty: s.doc.text !== s.doc.savedText }), ({ name, dirty }) => {
    docName.textContent = name
    docName.title = name
    dirtyMark.hidden = !dirty
    document.title = `${dirty ? '● ' : ''}${name} — schedlab`
    void ctx.api.setDirty(dirty).catch(() => undefined)
  }, { now: true, equals: shallowEqual })
  return { el }
}
