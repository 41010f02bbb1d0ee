import type { ScenarioIssue } from '../../../shared/ipc'
import { h } from '../dom'
import { jsonDefaults, monaco } from './monaco'
import { lineColAt, rangeOfPath } from './json-path'
import { textHash } from '../../../shared/text-hash'
import { scenarioCompletions, scenarioHover } from './completion'

const MODEL_URI = monaco.Uri.parse('file:///schedlab/scenario.json')
const SCHEMA_URI = 'schedlab://schema/scenario.json'

/** The schema completion and hovers read (set by setSchema). */
let completionSchema: Record<string, unknown> | null = null

/**
 * Completion and hovers of the scenario come from completion.ts, which reads the schema with the
 * document (a workload's type picks its fields, a variant's overrides know their workload); the
 * JSON worker's own, which know neither, are off.
 */
function registerScenarioAssist(): void {
  jsonDefaults.setModeConfiguration({ ...jsonDefaults.modeConfiguration, completionItems: false, hovers: false })
  const mine = (model: monaco.editor.ITextModel) => model.uri.toString() === MODEL_URI.toString() && completionSchema !== null
  const range = (model: monaco.editor.ITextModel, from: number, to: number): monaco.IRange => {
    const a = model.getPositionAt(from)
    const b = model.getPositionAt(to)
    return { startLineNumber: a.lineNumber, startColumn: a.column, endLineNumber: b.lineNumber, endColumn: b.column }
  }
  monaco.languages.registerCompletionItemProvider('json', {
    triggerCharacters: ['"', ':'],
    provideCompletionItems(model, position) {
      if (!mine(model)) return { suggestions: [] }
      const text = model.getValue()
      const items = scenarioCompletions(completionSchema!, text, model.getOffsetAt(position))
      return {
        suggestions: items.map((c) => ({
          label: c.label,
          kind: c.kind === 'property' ? monaco.languages.CompletionItemKind.Property : monaco.languages.CompletionItemKind.Value,
          insertText: c.insertText,
          insertTextRules: monaco.languages.CompletionItemInsertTextRule.InsertAsSnippet,
          // (what is typed so far may start with the key's quote)
          filterText: text[c.from] === '"' && !c.label.startsWith('"') ? JSON.stringify(c.label) : c.label,
          range: range(model, c.from, c.to),
          sortText: c.sortText,
          preselect: c.preselect,
          detail: c.detail,
          documentation: c.documentation ? { value: c.documentation } : undefined,
          command: c.retrigger ? { id: 'editor.action.triggerSuggest', title: 'Suggest the values' } : undefined
        }))
      }
    }
  })
  monaco.languages.registerHoverProvider('json', {
    provideHover(model, position) {
      if (!mine(model)) return null
      const h = scenarioHover(completionSchema!, model.getValue(), model.getOffsetAt(position))
      return h ? { range: range(model, h.from, h.to), contents: [{ value: h.contents }] } : null
    }
  })
}
registerScenarioAssist()

/**
 * The scenario editor: Monaco on a JSONC model, with completion and hover docs from the
 * scenario's JSON Schema read together with the document (completion.ts), plus markers for the
 * problems the scenario parser reports (unknown patch names, bad values ...), placed at their
 * JSON path.
 */
export class ScenarioEditor {
  readonly el: HTMLElement
  private editor: monaco.editor.IStandaloneCodeEditor | null = null
  private readonly model: monaco.editor.ITextModel
  private suppress = false

  constructor(private readonly onChange: () => void) {
    this.el = h('div', { class: 'editor-host', 'data-testid': 'scenario-editor' })
    this.model = monaco.editor.getModel(MODEL_URI) ?? monaco.editor.createModel('', 'json', MODEL_URI)
    this.model.updateOptions({ tabSize: 2, insertSpaces: true })
    this.model.onDidChangeContent(() => {
      this.publish()
      if (!this.suppress) this.onChange()
    })
    this.publish()
    // Every marker Monaco shows on the scenario, whatever its source, counted for the status
    // bar's check (and tests): the two must agree.
    monaco.editor.onDidChangeMarkers((uris) => {
      if (uris.some((u) => u.toString() === MODEL_URI.toString())) this.el.dataset.monacoMarkers = String(monaco.editor.getModelMarkers({ resource: MODEL_URI }).length)
    })
    this.el.dataset.monacoMarkers = '0'
  }

  /** The model's fingerprint on the host element: tests wait for exact content with it. */
  private publish(): void {
    const text = this.model.getValue()
    this.el.dataset.modelHash = textHash(text)
    this.el.dataset.modelLength = String(text.length)
  }

  /** Create the editor once its container is in the document (Monaco measures it). */
  mount(theme: 'light' | 'dark'): void {
    this.editor = monaco.editor.create(this.el, {
      model: this.model,
      theme: theme === 'dark' ? 'vs-dark' : 'vs',
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      scrollBeyondLastLine: false,
      // One-line workload objects stay readable at any editor width.
      wordWrap: 'on',
      wrappingIndent: 'deepIndent',
      fixedOverflowWidgets: true,
      renderLineHighlight: 'line',
      tabSize: 2,
      quickSuggestions: { strings: true, other: true, comments: false },
      suggestOnTriggerCharacters: true,
      dragAndDrop: false,
      dropIntoEditor: { enabled: false },
      ariaLabel: 'Scenario (JSON with comments)',
      placeholder: 'Type or paste a scenario (JSON with comments). Ctrl+Space completes fields, workload types, patches and flags.'
    })
  }

  onFocus(fn: () => void): void {
    this.editor?.onDidFocusEditorText(fn)
  }

  /** Replace the text as one edit (undoable, and reported as a change). */
  replaceAll(text: string): void {
    this.editor?.executeEdits('schedlab', [{ range: this.model.getFullModelRange(), text }])
    this.editor?.pushUndoStop()
  }

  /** Type text at the caret, as the keyboard would. */
  type(text: string): void {
    this.editor?.focus()
    this.editor?.trigger('keyboard', 'type', { text })
  }

  /** Select `length` characters from `offset` (and show them). */
  select(offset: number, length: number): void {
    if (!this.editor || offset < 0) return
    const a = this.model.getPositionAt(offset)
    const b = this.model.getPositionAt(offset + length)
    this.editor.setSelection({ startLineNumber: a.lineNumber, startColumn: a.column, endLineNumber: b.lineNumber, endColumn: b.column })
    this.editor.revealPositionInCenterIfOutsideViewport(a)
    this.editor.focus()
  }

  /** A transient message over the editor (Monaco's message widget at the caret). */
  hint(text: string): void {
    const c = this.editor?.getContribution('editor.contrib.messageController') as { showMessage?(m: string, p: monaco.IPosition): void } | null
    c?.showMessage?.(text, this.editor!.getPosition() ?? { lineNumber: 1, column: 1 })
  }

  setSchema(schema: Record<string, unknown>): void {
    completionSchema = schema
    // The schema serves completion and hover docs only. Problems come from one source, the
    // scenario parser (setIssues), so the editor and the status bar always agree.
    jsonDefaults.setDiagnosticsOptions({
      validate: false,
      allowComments: true,
      trailingCommas: 'ignore',
      enableSchemaRequest: false,
      schemaValidation: 'error',
      schemas: [{ uri: SCHEMA_URI, fileMatch: [MODEL_URI.toString()], schema }]
    })
  }

  get text(): string {
    return this.model.getValue()
  }

  /** Replace the whole document (a newly opened file): undo history starts over. */
  setText(text: string): void {
    this.suppress = true
    try {
      this.model.setValue(text)
    } finally {
      this.suppress = false
    }
    this.setIssues([])
    this.editor?.setScrollPosition({ scrollTop: 0 })
  }

  setTheme(theme: 'light' | 'dark'): void {
    monaco.editor.setTheme(theme === 'dark' ? 'vs-dark' : 'vs')
  }

  private rangeOf(issue: ScenarioIssue): monaco.IRange {
    const text = this.model.getValue()
    const r = rangeOfPath(text, issue.path)
    if (r) {
      const a = lineColAt(text, r.offset)
      const b = lineColAt(text, r.offset + r.length)
      return { startLineNumber: a.line, startColumn: a.column, endLineNumber: b.line, endColumn: b.column }
    }
    const line = Math.min(Math.max(1, issue.line ?? 1), this.model.getLineCount())
    const col = issue.column ?? 1
    return { startLineNumber: line, startColumn: col, endLineNumber: line, endColumn: Math.max(col + 1, this.model.getLineMaxColumn(line)) }
  }

  setIssues(issues: readonly ScenarioIssue[]): void {
    const mine = issues.filter((i) => !i.file)
    monaco.editor.setModelMarkers(this.model, 'schedlab', mine.map((i) => ({
      ...this.rangeOf(i),
      severity: monaco.MarkerSeverity.Error,
      message: i.path && i.path !== '(root)' ? `${i.path}: ${i.message}` : i.message,
      source: 'schedlab'
    })))
  }

  reveal(issue: ScenarioIssue): void {
    if (!this.editor) return
    const r = this.rangeOf(issue)
    this.editor.revealRangeInCenter(r)
    this.editor.setSelection(r)
    this.editor.focus()
  }

  focus(): void {
    this.editor?.focus()
  }

  hasFocus(): boolean {
    return this.editor?.hasTextFocus() ?? false
  }
}
