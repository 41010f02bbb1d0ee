import { h } from '../dom'

const mod = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl'

export const SHORTCUTS: readonly [string, string][] = [
  [`${mod}+Enter`, 'Run the scenario'],
  ['Esc', 'Cancel the run (outside the editor)'],
  [`${mod}+O`, 'Open a scenario'],
  [`${mod}+S`, 'Save'],
  [`${mod}+Shift+S`, 'Save as'],
  [`${mod}+1 / ${mod}+2`, 'Results / Comparison'],
  [`${mod}+Shift+L`, 'Light or dark theme'],
  [`${mod}+Space`, 'Complete (workload types, patches, sched_feat flags, topologies)'],
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
