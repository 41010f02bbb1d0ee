/**
 * The editor's actions: the open document (new, open, save, presets, rt-app import) and its
 * validation by the host, as the user types.
 */
import { parse as parseJsonc } from 'jsonc-parser'
import type { ScenarioDoc } from '../../../shared/ipc'
import { textHash } from '../../../shared/text-hash'
import { errorMessage } from '../dom'
import type { ActionCore } from './core'
import type { PatchActions } from './patches'

/** Heuristic used on open/drop: an rt-app file has `tasks` and no scenario `workloads`. */
export function looksLikeRtApp(text: string): boolean {
  const v = parseJsonc(text, [], { allowTrailingComma: true }) as unknown
  return !!v && typeof v === 'object' && !Array.isArray(v) && 'tasks' in v && !('workloads' in v)
}

const EDIT_VALIDATE_DELAY_MS = 400

/** The file name Save suggests: the document's own, or for a new one its scenario's name ("my scenario.json"), not untitled.json. */
export function suggestedFileName(docName: string, text: string): string {
  if (docName !== 'untitled.json') return docName
  const v = parseJsonc(text, [], { allowTrailingComma: true }) as { name?: unknown } | undefined
  const name = v && typeof v === 'object' && typeof v.name === 'string' ? v.name.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '-').trim() : ''
  return name ? `${name}.json` : docName
}

export interface EditorActions {
  loadPreset(id: string): Promise<void>
  /** Open text as a new document (rt-app files are converted; unsaved changes confirmed first). */
  openText(name: string, text: string): Promise<void>
  /** The editor's text changed by the user. */
  edited(text: string): void
  loadRunScenario(id: string): Promise<void>
  /** List the open document's problems in the Problems panel (the status bar's count does this). */
  showScenarioProblems(): void
}

/** The file commands of the menu and shortcuts (workbench.ts dispatches them). */
export interface DocumentCommands {
  newDocument(): void
  open(): Promise<void>
  openRecent(path: string): Promise<void>
  save(asNew: boolean): Promise<void>
  importRtAppFile(): Promise<void>
  /** The empty document a window starts with. */
  startEmpty(): void
}

export function createEditorActions(core: ActionCore<Pick<PatchActions, 'checkRunPatches'>>): EditorActions & DocumentCommands {
  const { api, store } = core
  let validateTimer: ReturnType<typeof setTimeout> | undefined
  let validateSeq = 0

  const dirty = (): boolean => core.s.doc.text !== core.s.doc.savedText
  const confirmDiscard = (): boolean => !dirty() || window.confirm(`Discard the unsaved changes to ${core.s.doc.name}?`)

  function loadDocument(d: ScenarioDoc): void {
    store.set((s) => ({ doc: { name: d.name, path: d.path, savedText: d.text, text: d.text, loads: s.doc.loads + 1 } }))
    core.setProblem('scenario', null)
    scheduleValidate(0)
  }

  async function openTextDoc(name: string, text: string): Promise<void> {
    if (looksLikeRtApp(text)) {
      const r = await api.importRtApp(text, name)
      if (r.ok) loadDocument(r.doc)
      else core.showProblem(r.problem, 'rt-app import', false)
      return
    }
    loadDocument({ name, path: null, text })
  }

  function scheduleValidate(delay: number): void {
    clearTimeout(validateTimer)
    const hash = textHash(core.s.doc.text)
    if (core.s.validation.hash !== hash || core.s.validation.state !== 'pending') store.set({ validation: { state: 'pending', hash } })
    validateTimer = setTimeout(() => void validate(), delay)
  }

  async function validate(): Promise<void> {
    const { text, name } = core.s.doc
    const hash = textHash(text)
    const seq = ++validateSeq
    if (text.trim() === '') {
      store.set({ validation: { state: 'empty', hash }, variants: [] })
      return
    }
    try {
      const r = await api.validateScenario(text, name)
      if (seq !== validateSeq) return
      if (r.ok) {
        const { ok: _ok, ...verdict } = r
        store.set({ validation: { state: 'ok', hash, ...verdict }, variants: r.variants })
        core.setProblem('scenario', null)
      } else {
        store.set({ validation: { state: 'bad', hash, problem: r.problem } })
        // Keep an open problem list current while the user fixes things.
        if (core.s.problems.scenario) core.showProblem(r.problem)
      }
    } catch (err) {
      if (seq !== validateSeq) return
      store.set({ validation: { state: 'error', hash, message: errorMessage(err) } })
    }
  }

  return {
    edited(text) {
      if (text === core.s.doc.text) return
      store.set((s) => ({ doc: { ...s.doc, text } }))
      scheduleValidate(EDIT_VALIDATE_DELAY_MS)
    },
    async loadPreset(id) {
      if (!confirmDiscard()) return
      await core.guard('Could not load the preset', async () => loadDocument(await api.readPreset(id)))
    },
    async loadRunScenario(id) {
      if (!confirmDiscard()) return
      await core.guard('Could not load the run', async () => {
        const run = await api.getRun(id)
        const base = run.scenarioFile.replace(/^.*[\\/]/, '') || 'scenario.json'
        loadDocument({ name: base, path: null, text: run.scenarioText })
        // the patch modules it ran with, as they were
        await core.actions.checkRunPatches(run)
      })
    },
    async openText(name, text) {
      if (confirmDiscard()) await openTextDoc(name, text)
    },
    startEmpty() {
      loadDocument({ name: 'untitled.json', path: null, text: '' })
    },
    newDocument() {
      if (!confirmDiscard()) return
      loadDocument({ name: 'untitled.json', path: null, text: '' })
      // the run bar goes back to the new scenario's own values (seeds, duration, published, precision)
      store.set({ runOptions: { seeds: null, durationMs: null, published: false, precision: null } })
    },
    showScenarioProblems() {
      const v = core.s.validation
      if (v.state === 'bad') core.showProblem(v.problem)
    },
    async open() {
      if (!confirmDiscard()) return
      await core.guard('Could not open the file', async () => {
        const d = await api.openScenario()
        if (!d) return
        if (looksLikeRtApp(d.text)) await openTextDoc(d.name, d.text)
        else loadDocument(d)
      })
    },
    async openRecent(path) {
      if (!confirmDiscard()) return
      await core.guard('Could not open the file', async () => loadDocument(await api.openRecent(path)))
    },
    async save(asNew) {
      await core.guard('Could not save', async () => {
        const { path: p, text } = core.s.doc
        const name = suggestedFileName(core.s.doc.name, text)
        const saved = await api.saveScenario({ name, path: p, text }, asNew)
        if (!saved) return
        store.set((s) => ({ doc: { ...s.doc, name: saved.name, path: saved.path, savedText: text } }))
      })
    },
    async importRtAppFile() {
      if (!confirmDiscard()) return
      await core.guard('Could not import', async () => {
        const r = await api.importRtAppFile()
        if (!r) return
        if (r.ok) loadDocument(r.doc)
        else core.showProblem(r.problem, 'rt-app import', false)
      })
    }
  }
}
