/**
 * Monaco for patch modules: TypeScript with the patch API's types (src/shared/patch-api.ts as
 * the module `schedlab/patch`), so completion and hovers cover every hook, field and constant.
 * Loaded on first use of the Patches tab: the TypeScript worker is large.
 */
import { monaco } from './monaco'
import 'monaco-editor/languages/definitions/typescript/register'
import { typescriptDefaults, ModuleKind, ModuleResolutionKind, ScriptTarget } from 'monaco-editor/languages/features/typescript/register'
import TsWorker from 'monaco-editor/languages/features/typescript/ts.worker?worker'
import patchApiSource from '../../../shared/patch-api.ts?raw'

const env = self.MonacoEnvironment as { getWorker: (id: string, label: string) => Worker }
const base = env.getWorker
env.getWorker = (id: string, label: string) => (label === 'typescript' || label === 'javascript' ? new TsWorker() : base(id, label))

typescriptDefaults.setCompilerOptions({
  target: ScriptTarget.ESNext,
  module: ModuleKind.ESNext,
  moduleResolution: ModuleResolutionKind.NodeJs,
  strict: true,
  noEmit: true,
  allowNonTsExtensions: true,
  lib: ['es2022']
})
typescriptDefaults.setDiagnosticsOptions({ noSemanticValidation: false, noSyntaxValidation: false })
// the API as a module file, so `import { definePatch } from 'schedlab/patch'` resolves
typescriptDefaults.addExtraLib(patchApiSource, 'file:///node_modules/schedlab/patch.ts')

/** A TypeScript model for a patch module (one per patch name). */
export function patchModel(name: string, text: string): monaco.editor.ITextModel {
  const uri = monaco.Uri.parse(`file:///patches/${encodeURIComponent(name)}.ts`)
  const existing = monaco.editor.getModel(uri)
  if (existing) {
    if (existing.getValue() !== text) existing.setValue(text)
    return existing
  }
  return monaco.editor.createModel(text, 'typescript', uri)
}

/** The TypeScript problems Monaco found in a model (errors and warnings), 1-based. */
export function patchDiagnostics(model: monaco.editor.ITextModel): { line: number; column: number; message: string; severity: 'error' | 'warning' }[] {
  return monaco.editor.getModelMarkers({ resource: model.uri })
    .filter((m) => m.severity >= monaco.MarkerSeverity.Warning)
    .map((m) => ({ line: m.startLineNumber, column: m.startColumn, message: m.message, severity: m.severity === monaco.MarkerSeverity.Error ? 'error' as const : 'warning' as const }))
}

export { monaco }
