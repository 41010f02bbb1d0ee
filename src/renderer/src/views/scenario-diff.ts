import type { StoredRun } from '../../../shared/ipc'
import { h } from '../dom'
import { monaco } from '../editor/monaco'

let seq = 0

/**
 * Two runs' scenarios side by side in Monaco's diff editor (read-only), in a dialog: what the
 * baseline's run ran on the left, the other run's on the right.
 */
export function openScenarioDiff(base: StoredRun, other: StoredRun, theme: 'light' | 'dark'): void {
  const host = h('div', { class: 'diff-host' })
  const dlg = h('dialog', { class: 'diff-dialog', 'data-testid': 'scenario-diff', 'aria-label': 'Scenario difference' },
    h('header', { class: 'diff-head' },
      h('span', { class: 'diff-side' }, `${base.name} (baseline)`),
      h('span', { class: 'diff-side' }, other.name),
      h('button', { class: 'small', 'data-action': 'close', onclick: () => dlg.close() }, 'Close')),
    host)
  document.body.append(dlg)
  dlg.showModal()
  const n = ++seq
  const original = monaco.editor.createModel(base.scenarioText, 'json', monaco.Uri.parse(`schedlab-diff://base/${n}.json`))
  const modified = monaco.editor.createModel(other.scenarioText, 'json', monaco.Uri.parse(`schedlab-diff://other/${n}.json`))
  const editor = monaco.editor.createDiffEditor(host, {
    readOnly: true, originalEditable: false, automaticLayout: true, renderSideBySide: true,
    minimap: { enabled: false }, scrollBeyondLastLine: false, wordWrap: 'on', diffWordWrap: 'on', fontSize: 12,
    theme: theme === 'dark' ? 'vs-dark' : 'vs'
  })
  editor.setModel({ original, modified })
  // Bring the first difference into view, and say how many there are (a header line and tests).
  const count = h('span', { class: 'diff-count hint' })
  dlg.querySelector('.diff-head')!.insertBefore(count, dlg.querySelector('[data-action="close"]'))
  editor.onDidUpdateDiff(() => {
    const changes = editor.getLineChanges() ?? []
    dlg.dataset.changes = String(changes.length)
    count.textContent = changes.length === 1 ? '1 difference' : `${changes.length} differences`
    const first = changes[0]
    if (first) editor.getModifiedEditor().revealLineInCenter(Math.max(1, first.modifiedStartLineNumber))
  })
  dlg.addEventListener('close', () => {
    editor.dispose()
    original.dispose()
    modified.dispose()
    dlg.remove()
  }, { once: true })
}
