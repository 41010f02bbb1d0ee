import { h } from '../dom'
import { MOD } from './toolbar'

export const SHORTCUTS: readonly [string, string][] = [
  [`${MOD}+Enter`, 'Run the scenario'],
  ['Esc', 'Cancel the run (outside the editor and its widgets)'],
  [`${MOD}+O`, 'Open a scenario'],
  [`${MOD}+S`, 'Save'],
  [`${MOD}+Shift+S`, 'Save as'],
  [`${MOD}+1 / ${MOD}+2 …`, 'Results / Comparison / the other tabs'],
  [`${MOD}+Shift+L`, 'Light or dark theme'],
  [`${MOD}+Space`, 'Complete (workload types, patches, sched_feat flags, topologies)'],
  ['F1', 'This list']
]

/** The keyboard shortcuts dialog. */
export function helpDialog(): HTMLDialogElement {
  const close = h('button', { class: 'primary', onclick: () => dlg.close() }, 'Close')
  const dlg: HTMLDialogElement = h('dialog', { class: 'help', 'data-testid': 'help-dialog' },
    h('h2', {}, 'Keyboard shortcuts'),
    h('table', { class: 'data-table' }, h('tbody', {}, SHORTCUTS.map(([k, d]) => h('tr', {}, h('th', {}, h('kbd', {}, k)), h('td', {}, d))))),
    h('p', { class: 'hint' }, 'Drop a scenario or an rt-app JSON file anywhere in the window to open it.'),
    h('div', { class: 'dialog-actions' }, close))
  return dlg
}
