import { app, dialog, type BrowserWindow, type FileFilter } from 'electron'
import { promises as fs } from 'node:fs'
import { basename, join } from 'node:path'
import type { ExportOutcome, HostMethods, ScenarioDoc } from '../shared/ipc'
import type { Backend } from '../services/backend'
import { writeFileAtomic } from '../services/atomic-write'
import { pngFileName, pngSize } from '../services/export'
import * as scenarios from '../services/scenario-service'
import { MAX_SCENARIO_BYTES, formatMb } from '../shared/limits'
import { Readable } from 'node:stream'
import { openTraceStream } from '../services/bounded-read'

const SCENARIO_FILTERS: FileFilter[] = [
  { name: 'Scenario or rt-app JSON', extensions: ['json', 'jsonc'] },
  { name: 'All files', extensions: ['*'] }
]

const TRACE_FILTERS: FileFilter[] = [
  { name: 'ftrace text (tracefs, trace-cmd report, perf script, schedlab --trace)', extensions: ['txt', 'trace', 'log', 'gz'] },
  { name: 'All files', extensions: ['*'] }
]

/**
 * Delivery of files in the desktop app: native open/save dialogs, the recent list, dirty-state
 * tracking. The renderer may only write to or read paths the user picked in a dialog (or
 * picked earlier, from the recent list), never a path of its own choosing.
 */
export function createElectronHost(backend: Backend, getWindow: () => BrowserWindow | null, onRecentChanged: () => void): HostMethods & { isDirty(): boolean } {
  const chosen = new Set<string>(backend.settings.get().recentFiles)
  let dirty = false

  const remember = (path: string): void => {
    chosen.add(path)
    backend.settings.addRecent(path)
    app.addRecentDocument(path)
    onRecentChanged()
  }

  const readDoc = async (path: string): Promise<ScenarioDoc> => {
    const st = await fs.stat(path)
    if (st.size > MAX_SCENARIO_BYTES) throw new Error(`${path}: scenario too large: ${formatMb(st.size)}, the limit is ${formatMb(MAX_SCENARIO_BYTES)}`)
    return { name: basename(path), path, text: await fs.readFile(path, 'utf8') }
  }

  const pickOpen = async (title: string, filters = SCENARIO_FILTERS): Promise<string | null> => {
    const win = getWindow()
    const opts = { title, properties: ['openFile' as const], filters }
    const r = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts)
    return r.canceled || r.filePaths.length === 0 ? null : r.filePaths[0]
  }

  const pickSave = async (defaultName: string, filters: FileFilter[]): Promise<string | null> => {
    const win = getWindow()
    const opts = { defaultPath: join(app.getPath('documents'), defaultName), filters }
    const r = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts)
    return r.canceled || !r.filePath ? null : r.filePath
  }

  const saveBytes = async (defaultName: string, filter: FileFilter, data: string | Uint8Array): Promise<ExportOutcome> => {
    const path = await pickSave(defaultName, [filter])
    if (!path) return { saved: false }
    await writeFileAtomic(path, data)
    return { saved: true, name: path }
  }

  return {
    async openScenario() {
      const path = await pickOpen('Open scenario')
      if (!path) return null
      const doc = await readDoc(path)
      remember(path)
      return doc
    },

    async openRecent(path) {
      if (!chosen.has(path)) throw new Error(`${path} is not in the recent files list`)
      try {
        const doc = await readDoc(path)
        remember(path)
        return doc
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          backend.settings.removeRecent(path)
          onRecentChanged()
          throw new Error(`${path} no longer exists; removed from the recent files`)
        }
        throw err
      }
    },

    async importRtAppFile() {
      const path = await pickOpen('Import rt-app JSON')
      if (!path) return null
      const doc = await readDoc(path)
      return scenarios.importRtApp(doc.text, path)
    },

    async importTraceFile() {
      const path = await pickOpen('Import trace', TRACE_FILTERS)
      if (!path) return null
      // streamed from disk (gzipped files too), a regular file up to the trace limit
      let input: Readable
      try {
        input = openTraceStream(path)
      } catch (e) {
        // reported as any read error: the trace's problem, named with the file
        input = new Readable({ read() { this.destroy(e as Error) } })
      }
      return backend.real.importTrace(input, path)
    },

    async saveScenario(doc, saveAs) {
      let path = !saveAs && doc.path && chosen.has(doc.path) ? doc.path : null
      path ??= await pickSave(doc.name.endsWith('.json') || doc.name.endsWith('.jsonc') ? doc.name : `${doc.name}.json`, SCENARIO_FILTERS)
      if (!path) return null
      await writeFileAtomic(path, doc.text)
      remember(path)
      return { name: basename(path), path, text: doc.text }
    },

    async exportTable(req) {
      const content = await backend.service.exportContent(req)
      const ext = content.fileName.split('.').pop()!
      return saveBytes(content.fileName, { name: ext.toUpperCase(), extensions: [ext] }, content.text)
    },

    async exportPng(name, png) {
      if (!pngSize(png)) throw new Error('the chart image is not a valid PNG')
      return saveBytes(pngFileName(name), { name: 'PNG image', extensions: ['png'] }, png)
    },

    async exportPerfetto(req) {
      const t = await backend.service.perfettoTrace(req)
      return saveBytes(t.fileName, { name: 'Perfetto trace', extensions: ['perfetto-trace'] }, Buffer.from(t.base64, 'base64'))
    },

    async setDirty(d) {
      dirty = d
      getWindow()?.setDocumentEdited(d)
    },

    isDirty: () => dirty
  }
}
