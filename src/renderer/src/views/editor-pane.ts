import { textHash } from '../../../shared/text-hash'
import { h, replace } from '../dom'
import { ScenarioEditor } from '../editor/scenario-editor'
import type { ViewContext } from '../state'

/**
 * The scenario editor with its welcome panel. Monaco's markers come from the same place as
 * the status bar's verdict (store.validation), and only for the open document.
 */
export function createEditorPane(ctx: ViewContext): { el: HTMLElement; mount(): void } {
  const { store, actions } = ctx
  const editor = new ScenarioEditor(() => actions.edited(editor.text))
  const welcome = h('div', { class: 'welcome', 'data-testid': 'welcome' })
  const el = h('div', { class: 'editor-wrap' }, editor.el, welcome)

  store.watch((s) => s.presets, (presets) => {
    replace(welcome, h('div', { class: 'welcome-box' },
      h('h2', {}, 'Start from a preset'),
      h('p', {}, 'A scenario is a CPU topology, a kernel configuration, a workload mix and the variants to compare. Open one of the presets, then press Run.'),
      presets.length
        ? h('ul', { class: 'preset-list' }, presets.map((p) => h('li', {},
            h('button', { class: 'link', 'data-testid': `preset-${p.id}`, onclick: () => void actions.loadPreset(p.id) }, p.name),
            p.description ? h('span', { class: 'hint' }, ` ${p.description}`) : null)))
        : h('p', { class: 'hint' }, 'No presets found.'),
      h('p', { class: 'hint' }, 'Or open a scenario file, import an rt-app JSON, or drop either here.')))
  }, { now: true })

  function mount(): void {
    editor.mount(store.state.theme)
    store.watch((s) => s.editorInfo, (info) => { if (info) editor.setSchema(info.schema) }, { now: true })
    store.watch((s) => s.theme, (t) => editor.setTheme(t))
    store.watch((s) => s.doc.loads, () => editor.setText(store.state.doc.text), { now: true })
    store.watch((s) => s.doc.text, (text) => { welcome.hidden = text.trim() !== '' }, { now: true })
    store.watch((s) => s.validation, (v) => {
      // Markers describe the text they were computed for; a stale verdict leaves them alone.
      if (v.hash !== textHash(editor.text)) return
      if (v.state === 'bad') editor.setIssues(v.problem.issues)
      else if (v.state !== 'pending') editor.setIssues([])
    }, { now: true })
    store.watch((s) => s.reveal, (r) => { if (r) editor.reveal(r.issue) })
  }
  return { el, mount }
}
