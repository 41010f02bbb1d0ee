import { textHash } from '../../../shared/text-hash'
import { h, replace } from '../dom'
import { ScenarioEditor } from '../editor/scenario-editor'
import type { ViewContext } from '../view-context'
import { shallowEqual } from '../store'

/** What Blank scenario starts from: a topology, a kernel, one workload and one variant. */
export const SKELETON = `{
  "name": "my scenario",
  "topology": "smp-4",
  "kernel": { "profile": "tip-2026", "hz": 250 },
  "durationMs": 1000,
  "seeds": 1,
  "workloads": [
    { "type": "cyclictest", "periodUs": 1000, "threads": 1 }
  ],
  "variants": [
    { "name": "baseline" }
  ]
}
`

/**
 * The scenario editor with its welcome panel. Monaco's markers come from the same place as
 * the status bar's verdict (store.validation), and only for the open document.
 */
export function createEditorPane(ctx: ViewContext): { el: HTMLElement; mount(): void } {
  const { store, actions } = ctx
  const editor = new ScenarioEditor(() => actions.edited(editor.text))
  const welcome = h('div', { class: 'welcome', 'data-testid': 'welcome' })
  const el = h('div', { class: 'editor-wrap' }, editor.el, welcome)

  // The welcome covers an empty new document until the user chooses: a preset, a blank
  // scenario, or a paste. Once dismissed it stays away for this document, even if emptied.
  let dismissed = -1
  const showWelcome = (show: boolean): void => {
    welcome.hidden = !show
    el.classList.toggle('welcoming', show)
  }
  const dismiss = (): void => {
    dismissed = store.state.doc.loads
    showWelcome(false)
    editor.focus()
  }
  const paste = async (): Promise<void> => {
    let text = ''
    try {
      text = await navigator.clipboard.readText()
    } catch {
      // No clipboard permission (Electron refuses them all): the editor takes the paste itself.
    }
    dismiss()
    if (text.trim()) editor.replaceAll(text)
    else editor.hint(`Press ${/Mac/.test(navigator.platform) ? '⌘' : 'Ctrl'}+V to paste your scenario here`)
  }
  const blank = (): void => {
    dismiss()
    editor.replaceAll(SKELETON)
    editor.select(SKELETON.indexOf('my scenario'), 'my scenario'.length)
  }
  // a key typed with nothing else focused, or on the welcome itself (not in the timeline, a field...)
  const onWelcome = (t: EventTarget | null): boolean => t === document.body || t === document.documentElement || !!(t as Element | null)?.closest?.('.welcome')
  const control = (t: EventTarget | null): boolean => !!(t as Element | null)?.closest?.('input, textarea, select, button, a')
  // Ctrl+V on the welcome pastes into the editor: focus moves before the paste event fires.
  // Any other key typed there (not on one of its buttons) opens the editor and goes into it.
  window.addEventListener('keydown', (e) => {
    if (welcome.hidden) return
    if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'v' && !(e.target as Element | null)?.closest?.('input, textarea, select')) dismiss()
    else if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey && onWelcome(e.target) && !control(e.target)) {
      e.preventDefault()
      dismiss()
      editor.type(e.key)
    }
  }, { capture: true })
  // a click on the welcome's text (not on a button or link) opens the editor too
  welcome.addEventListener('click', (e) => { if (!control(e.target)) dismiss() })

  store.watch((s) => s.presets, (presets) => {
    replace(welcome, h('div', { class: 'welcome-box' },
      h('h2', {}, 'New scenario'),
      h('p', {}, 'A scenario is a CPU topology, a kernel configuration, a workload mix and the variants to compare. Start from a preset, or write your own.'),
      h('div', { class: 'welcome-actions' },
        h('button', { class: 'primary', 'data-testid': 'blank-scenario', title: 'Start from a skeleton: a topology, a kernel, one workload, one variant (Ctrl+Space completes)', onclick: blank }, 'Blank scenario'),
        h('button', { 'data-testid': 'paste-scenario', title: 'Paste a scenario from the clipboard (or press Ctrl+V)', onclick: () => void paste() }, 'Paste a scenario')),
      h('h3', {}, 'Presets'),
      presets.length
        ? h('ul', { class: 'preset-list', 'data-testid': 'preset-list' }, presets.map((p) => h('li', {},
            h('button', { class: 'preset-name link', 'data-testid': `preset-${p.id}`, onclick: () => void actions.loadPreset(p.id) }, p.name),
            p.description ? h('div', { class: 'preset-desc hint' }, p.description) : null)))
        : h('p', { class: 'hint' }, 'No presets found.'),
      h('p', { class: 'hint' }, 'Or open a scenario file, import an rt-app JSON, or drop either here.')))
  }, { now: true })

  function mount(): void {
    editor.mount(store.state.theme)
    store.watch((s) => s.editorInfo, (info) => { if (info) editor.setSchema(info.schema) }, { now: true })
    store.watch((s) => s.theme, (t) => editor.setTheme(t))
    store.watch((s) => s.doc.loads, () => editor.setText(store.state.doc.text), { now: true })
    store.watch((s) => ({ loads: s.doc.loads, empty: s.doc.text.trim() === '' }), ({ loads, empty }) => {
      showWelcome(empty && dismissed !== loads)
    }, { now: true, equals: shallowEqual })
    editor.onFocus(() => { if (!welcome.hidden) dismiss() })
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
