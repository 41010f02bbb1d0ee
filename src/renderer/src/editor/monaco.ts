/**
 * Monaco with the slim 0.56+ entry points (the full `monaco-editor` import would add the
 * TypeScript worker, ~7 MB). Workers are bundled by Vite through `?worker`; without
 * `getWorker` the editor worker would be inlined as a data: URL and fail under our CSP.
 */
import * as monaco from 'monaco-editor/editor'
import 'monaco-editor/features/register.all'
import 'monaco-editor/languages/features/json/register'
import { jsonDefaults } from 'monaco-editor/languages/features/json/register'
import EditorWorker from 'monaco-editor/editor/editor.worker?worker'
import JsonWorker from 'monaco-editor/languages/features/json/json.worker?worker'

self.MonacoEnvironment = {
  getWorker: (_id: string, label: string) => (label === 'json' ? new JsonWorker() : new EditorWorker())
}

export { monaco, jsonDefaults }
