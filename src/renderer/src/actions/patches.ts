/**
 * The Patches tab's actions: the patch library (yours and the shipped examples), checking,
 * saving and deleting a module, and adding a variant that runs one to the open scenario. The
 * host compiles modules and loads them only in its simulation workers (and only where it runs
 * patch code); the page never runs them.
 */
import { applyEdits, modify, parse as parseJsonc } from 'jsonc-parser'
import type { PatchCheckResult, PatchModuleEntry, PatchModuleList, StoredRun } from '../../../shared/ipc'
import type { PatchSourceRecord } from '../../../shared/result'
import type { ActionCore } from './core'

export interface PatchActions {
  listPatches(): Promise<PatchModuleList | null>
  checkPatch(name: string, source: string): Promise<PatchCheckResult | null>
  savePatch(name: string, source: string): Promise<{ saved: PatchModuleEntry; check: PatchCheckResult } | null>
  deletePatch(name: string): Promise<boolean>
  /** Add `{ "name": NAME, "patches": [NAME] }` to the open scenario's variants. */
  addPatchVariant(name: string): void
  /**
   * A saved run's patch modules against the library: for each one the library lacks or holds
   * in another version, a line in the problems panel that restores the run's version, so that
   * the run's scenario runs again exactly as it did.
   */
  checkRunPatches(run: StoredRun): Promise<void>
}

/** The patch modules a run used, once each (by library name and source hash). */
export function runPatchSources(run: StoredRun): PatchSourceRecord[] {
  const seen = new Map<string, PatchSourceRecord>()
  for (const r of run.results) for (const p of r.patchSources ?? []) seen.set(`${p.file}\u0000${p.sha256}`, p)
  return [...seen.values()]
}

/** The scenario text with a variant running patch `name` appended (a unique variant name). */
export function withPatchVariant(text: string, name: string): string {
  const doc = (parseJsonc(text) ?? {}) as { variants?: { name?: string }[] }
  const names = new Set((Array.isArray(doc.variants) ? doc.variants : []).map((v) => v?.name))
  let variant = name
  for (let i = 2; names.has(variant); i++) variant = `${name} (${i})`
  const fmt = { formattingOptions: { insertSpaces: true, tabSize: 2 } }
  const entry = { name: variant, patches: [name] }
  if (!Array.isArray(doc.variants)) {
    // no variants yet: the scenario's default "base" first, then the patched one
    return applyEdits(text, modify(text, ['variants'], [{ name: 'base' }, entry], fmt))
  }
  return applyEdits(text, modify(text, ['variants', doc.variants.length], entry, { ...fmt, isArrayInsertion: true }))
}

/** What the patches' actions call of the editor's (editor.ts calls this group, so it is named here). */
interface EditorCalls {
  edited(text: string): void
}

export function createPatchActions(core: ActionCore<Pick<PatchActions, 'listPatches'> & EditorCalls>): PatchActions {
  const { api, store } = core
  const call = async <T>(title: string, fn: () => Promise<T>): Promise<T | null> => {
    let out: T | null = null
    await core.guard(title, async () => {
      out = await fn()
    })
    return out
  }
  return {
    listPatches: () => call('Could not list the patch library', () => api.listPatchModules()),
    checkPatch: (name, source) => call('Could not check the patch', () => api.checkPatchModule(name, source)),
    savePatch: (name, source) => call('Could not save the patch', () => api.savePatchModule(name, source)),
    async deletePatch(name) {
      return (await call('Could not delete the patch', async () => {
        await api.deletePatchModule(name)
        return true
      })) === true
    },
    async checkRunPatches(run) {
      const used = runPatchSources(run)
      core.setProblem('run-patches', null)
      if (used.length === 0) return
      const list = await call('Could not list the patch library', () => api.listPatchModules())
      if (!list) return
      const lines = []
      for (const p of used) {
        // a library module is recorded by its file name (NAME.ts); a module named by path, by that path
        const name = p.file.replace(/^.*[\\/]/, '').replace(/\.(ts|js|mts|mjs)$/, '')
        const lib = list.modules.find((m) => m.name === name)
        if (lib && lib.sha256 === p.sha256) continue
        const target = lib?.example ? `${name}-${p.sha256.slice(0, 8)}` : name
        lines.push({
          text: `${p.file}: ${lib ? 'the library holds another version' : 'not in the library'} (the run used sha256 ${p.sha256.slice(0, 12)}…). Click to save the run's version as ${target}${target !== name ? ` and name that in the scenario` : ''}.`,
          onClick: () => void (async () => {
            const saved = await call('Could not restore the patch', () => api.savePatchModule(target, p.source))
            if (!saved) return
            core.setProblem('run-patches', null)
            await core.actions.listPatches()
          })()
        })
      }
      if (lines.length) core.setProblem('run-patches', { title: `Run "${run.name}" used patch modules that differ from your library`, lines })
    },
    addPatchVariant(name) {
      const text = withPatchVariant(store.state.doc.text.trim() === '' ? '{}' : store.state.doc.text, name)
      core.actions.edited(text)
      // the editor shows the new text (its model is replaced when `loads` moves)
      store.set((s) => ({ doc: { ...s.doc, loads: s.doc.loads + 1 } }))
      core.selectTab('results')
    }
  }
}
