import type { PatchCheckResult, PatchModuleEntry, PatchModuleList } from '../../../shared/ipc'
import { patchTemplate } from '../../../shared/patch-template'
import { h, replace } from '../dom'
import type { TabView, ViewContext } from '../view-context'

type PatchMonaco = typeof import('../editor/patch-monaco')

interface Problem {
  line?: number
  column?: number
  message: string
  /** Where it comes from: Monaco's TypeScript check, or loading the module (the host). */
  source: 'types' | 'load'
}

/**
 * The Patches tab (test id `patches-view`): the patch library (yours, then the shipped seed
 * patches as read-only examples) and an editor for one module, in TypeScript with the patch
 * API's types. Check loads it where simulations run and lists its problems at their lines
 * (Monaco's type errors beside them); Save keeps it in the data folder; "Add as variant" puts a
 * variant running it into the open scenario. docs/patches.md is the tutorial.
 */
export function createPatchesView(ctx: ViewContext): TabView {
  const { actions } = ctx
  let monacoMod: PatchMonaco | null = null
  let editor: import('monaco-editor/editor').editor.IStandaloneCodeEditor | null = null
  let list: PatchModuleList | null = null
  /** The module being edited: its library name, and whether it is a (read-only) example. */
  let current: { name: string; example: boolean; saved: string } | null = null
  let loadProblems: Problem[] = []
  let typeProblems: Problem[] = []
  let lastInfo: PatchCheckResult | null = null

  const status = h('p', { class: 'patches-status', 'data-testid': 'patches-status' })
  const listEl = h('ul', { class: 'patch-list', 'data-testid': 'patch-list' })
  const nameInput = h('input', { type: 'text', class: 'patch-name', 'data-testid': 'patch-name', 'aria-label': 'Patch name', placeholder: 'my-idea', spellcheck: 'false' })
  const editorEl = h('div', { class: 'patch-editor', 'data-testid': 'patch-editor' })
  const problemsEl = h('ul', { class: 'patch-problems', 'data-testid': 'patch-problems' })
  const infoEl = h('div', { class: 'patch-info', 'data-testid': 'patch-info' })
  const btn = (label: string, testid: string, title: string, onclick: () => void): HTMLButtonElement =>
    h('button', { type: 'button', 'data-testid': testid, title, onclick }, label)
  const newBtn = btn('New', 'patch-new', 'A new patch module from the template', () => void newPatch())
  const checkBtn = btn('Check', 'patch-check', 'Compile and load the module: its hooks, flags and parameters, or its problems', () => void check())
  const saveBtn = btn('Save', 'patch-save', 'Save it in your patch library (the data folder)', () => void save())
  const copyBtn = btn('Copy to my patches', 'patch-copy', 'An editable copy of this example in your library', () => void copyExample())
  const useBtn = btn('Add as variant', 'patch-use', 'Add a variant running this patch to the open scenario', () => {
    if (current) actions.addPatchVariant(current.name)
  })
  const deleteBtn = btn('Delete', 'patch-delete', 'Delete it from your library', () => void remove())

  const el = h('div', { class: 'patches', 'data-testid': 'patches-view' },
    status,
    h('div', { class: 'patches-body' },
      h('aside', { class: 'patches-side' }, newBtn, listEl),
      h('section', { class: 'patches-main' },
        h('div', { class: 'patch-toolbar' }, nameInput, checkBtn, saveBtn, copyBtn, useBtn, deleteBtn),
        editorEl,
        h('h4', {}, 'Problems'),
        problemsEl,
        infoEl,
        h('p', { class: 'hint' }, 'Hooks, the model\'s state and the tutorial: docs/patches.md. A hook receives the model (s), the function it replaces (orig) and that function\'s arguments.'))))

  const text = (): string => editor?.getValue() ?? ''
  const name = (): string => nameInput.value.trim()

  function renderStatus(): void {
    if (!list) return replace(status, 'Loading the patch library…')
    replace(status, list.allowed
      ? 'Patch modules run in this workbench\'s simulation workers. Save one, then add it as a variant (or name it in a variant\'s "patches").'
      : h('span', { class: 'warning' }, list.reason ?? 'This host runs no patch code.'))
  }

  function renderList(): void {
    const mine = list?.modules.filter((m) => !m.example) ?? []
    const examples = list?.modules.filter((m) => m.example) ?? []
    const item = (m: PatchModuleEntry): HTMLLIElement => h('li', {
      class: current?.name === m.name ? 'selected' : '', 'data-testid': 'patch-item', 'data-name': m.name, title: m.example ? 'Shipped example (read only)' : 'Your patch',
      onclick: () => void open(m)
    }, m.name)
    replace(listEl,
      h('li', { class: 'group' }, 'Your patches'),
      mine.length ? mine.map(item) : h('li', { class: 'empty' }, 'none yet: New'),
      h('li', { class: 'group' }, 'Examples (seed patches)'),
      examples.map(item))
  }

  function renderProblems(): void {
    const all = [...loadProblems, ...typeProblems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0))
    const file = `${name() || 'patch'}.ts`
    replace(problemsEl, all.length === 0
      ? h('li', { class: 'ok' }, lastInfo?.ok ? 'No problems.' : 'No problems found yet (Check loads the module).')
      : all.map((p) => h('li', {
        class: p.source === 'load' ? 'error' : 'type', 'data-testid': 'patch-problem', 'data-line': p.line ?? '',
        onclick: () => reveal(p)
      }, `${file}${p.line !== undefined ? `:${p.line}:${p.column ?? 1}` : ''}  ${p.message}`)))
    if (lastInfo?.ok) {
      const i = lastInfo.info
      replace(infoEl,
        h('p', {}, h('strong', {}, i.name), i.description ? ` — ${i.description}` : ''),
        h('p', {}, `hooks: ${i.hooks.join(', ') || 'none'}`),
        Object.keys(i.features).length ? h('p', {}, `flags: ${Object.entries(i.features).map(([n, d]) => `${n} (${d.default ? 'on' : 'off'})`).join(', ')}`) : null,
        Object.keys(i.params).length ? h('p', {}, `parameters: ${Object.entries(i.params).map(([n, d]) => `${n} = ${d.default}`).join(', ')}`) : null)
    } else replace(infoEl)
  }

  function renderButtons(): void {
    const example = current?.example === true
    nameInput.readOnly = example
    saveBtn.disabled = example || !name()
    copyBtn.hidden = !example
    deleteBtn.hidden = example || !current
    useBtn.disabled = !current || (!example && text() !== current.saved)
    useBtn.title = useBtn.disabled && current ? 'Save it first' : 'Add a variant running this patch to the open scenario'
    editor?.updateOptions({ readOnly: example })
  }

  function reveal(p: Problem): void {
    if (!editor || p.line === undefined) return
    editor.revealLineInCenter(p.line)
    editor.setPosition({ lineNumber: p.line, column: p.column ?? 1 })
    editor.focus()
  }

  async function ensureEditor(): Promise<void> {
    if (editor) return
    monacoMod = await import('../editor/patch-monaco')
    const m = monacoMod
    editor = m.monaco.editor.create(editorEl, {
      model: m.patchModel('untitled', ''),
      theme: ctx.store.state.theme === 'dark' ? 'vs-dark' : 'vs',
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      scrollBeyondLastLine: false,
      tabSize: 2
    })
    editor.onDidChangeModelContent(() => {
      loadProblems = []
      lastInfo = null
      renderProblems()
      renderButtons()
    })
    m.monaco.editor.onDidChangeMarkers((uris) => {
      const model = editor?.getModel()
      if (!model || !uris.some((u) => u.toString() === model.uri.toString())) return
      typeProblems = m.patchDiagnostics(model).map((d) => ({ line: d.line, column: d.column, message: d.message, source: 'types' as const }))
      renderProblems()
    })
    ctx.store.watch((s) => s.theme, (t) => m.monaco.editor.setTheme(t === 'dark' ? 'vs-dark' : 'vs'))
  }

  function show(nameOf: string, source: string, example: boolean, saved: string | null): void {
    if (!editor || !monacoMod) return
    editor.setModel(monacoMod.patchModel(nameOf || 'untitled', source))
    nameInput.value = nameOf
    current = saved === null ? null : { name: nameOf, example, saved }
    loadProblems = []
    typeProblems = []
    lastInfo = null
    renderList()
    renderProblems()
    renderButtons()
  }

  async function refresh(): Promise<void> {
    list = await actions.listPatches()
    renderStatus()
    renderList()
  }

  async function open(m: PatchModuleEntry): Promise<void> {
    await ensureEditor()
    show(m.name, m.source, m.example, m.source)
  }

  function uniqueName(base: string): string {
    const taken = new Set(list?.modules.map((m) => m.name) ?? [])
    let n = base
    for (let i = 2; taken.has(n); i++) n = `${base}-${i}`
    return n
  }

  async function newPatch(): Promise<void> {
    await ensureEditor()
    const n = uniqueName('my-idea')
    show(n, patchTemplate(n), false, null)
    editor?.focus()
  }

  async function copyExample(): Promise<void> {
    if (!current) return
    const n = uniqueName(`my-${current.name}`)
    const source = text().replace(new RegExp(`name: '${current.name}'`), `name: '${n}'`)
    show(n, source, false, null)
  }

  function applyCheck(r: PatchCheckResult | null): void {
    lastInfo = r
    loadProblems = r && !r.ok ? [{ ...r.problem, source: 'load' }] : []
    renderProblems()
  }

  async function check(): Promise<void> {
    if (!name()) return void nameInput.focus()
    applyCheck(await actions.checkPatch(name(), text()))
  }

  async function save(): Promise<void> {
    const n = name()
    if (!n || current?.example) return
    const r = await actions.savePatch(n, text())
    if (!r) return
    current = { name: n, example: false, saved: r.saved.source }
    await refresh()
    applyCheck(r.check)
    renderButtons()
  }

  async function remove(): Promise<void> {
    if (!current || current.example) return
    if (!window.confirm(`Delete the patch ${current.name} from your library?`)) return
    if (await actions.deletePatch(current.name)) {
      current = null
      await refresh()
      await newPatch()
    }
  }

  nameInput.addEventListener('input', renderButtons)
  // the library loads (and the TypeScript editor starts) when the tab is first shown
  let started = false
  ctx.store.watch((s) => s.tab, (tab) => {
    if (tab !== 'patches' || started) return
    started = true
    void (async () => {
      await refresh()
      const first = list?.modules.find((m) => !m.example) ?? null
      if (first) await open(first)
      else await newPatch()
    })()
  }, { now: true })
  renderStatus()
  renderProblems()

  return { id: 'patches', label: 'Patches', el }
}
