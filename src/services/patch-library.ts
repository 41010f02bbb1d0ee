/**
 * The patch library as the workbench sees it: the data folder's patches/ (yours: saved
 * atomically, deleted) and the shipped examples (read only). Checking a module compiles it
 * here and loads it in a simulation worker (`check` is given by the backend), never in this
 * process: hosts run patch code only in their workers, and only when allowed.
 */
import { promises as fs } from 'node:fs'
import { join } from 'node:path'
import type { PatchCheckResult, PatchModuleEntry, PatchModuleList } from '../shared/ipc'
import { writeFileAtomic } from './atomic-write'
import { compilePatch, EXAMPLE_PATCH_DIR, listLibrary, MAX_PATCH_BYTES, patchModuleFromText, sha256, type PatchLibrary } from './patch-loader'
import { PatchError, type PatchModuleSource } from '../sim/patch-api/evaluate'

/** Where this host stands on running patch code. */
export interface PatchAccess {
  allowed: boolean
  /** Why not, and how to enable it. */
  reason?: string
}

export const SERVE_PATCHES_REFUSED = 'this host runs no patch code: patch modules are your code running on this machine; start the web host with `schedlab serve --allow-patches` to run them (docs/security.md)'

export class PatchLibraryService {
  constructor(
    private readonly userDir: string,
    private readonly access: PatchAccess,
    /** Load a compiled module in a simulation worker: its summary or its problem. */
    private readonly load: (src: PatchModuleSource) => Promise<PatchCheckResult>
  ) {}

  get library(): PatchLibrary {
    return { dirs: [this.userDir, EXAMPLE_PATCH_DIR] }
  }

  async list(): Promise<PatchModuleList> {
    const modules: PatchModuleEntry[] = []
    for (const m of listLibrary(this.library)) {
      try {
        const st = await fs.stat(m.file)
        if (!st.isFile() || st.size > MAX_PATCH_BYTES) continue
        const source = await fs.readFile(m.file, 'utf8')
        modules.push({ name: m.name, example: m.example, source, sha256: sha256(source) })
      } catch {
        // removed meanwhile
      }
    }
    return { allowed: this.access.allowed, ...(this.access.reason ? { reason: this.access.reason } : {}), modules }
  }

  async check(name: string, source: string): Promise<PatchCheckResult> {
    let src: PatchModuleSource
    try {
      src = patchModuleFromText(source, `${name}.ts`)
    } catch (err) {
      return { ok: false, problem: problemOf(err) }
    }
    if (!this.access.allowed) return { ok: false, problem: { message: `compiles; ${this.access.reason ?? SERVE_PATCHES_REFUSED}` } }
    return this.load(src)
  }

  async save(name: string, source: string): Promise<{ saved: PatchModuleEntry; check: PatchCheckResult }> {
    if (Buffer.byteLength(source, 'utf8') > MAX_PATCH_BYTES) throw new Error(`a patch module is at most ${MAX_PATCH_BYTES >> 20} MB`)
    await writeFileAtomic(join(this.userDir, `${name}.ts`), source)
    return { saved: { name, example: false, source, sha256: sha256(source) }, check: await this.check(name, source) }
  }

  async delete(name: string): Promise<void> {
    try {
      await fs.rm(join(this.userDir, `${name}.ts`))
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`no patch "${name}" in your library${listLibrary(this.library).some((m) => m.name === name && m.example) ? ' (it is a shipped example, which cannot be deleted)' : ''}`)
      throw err
    }
  }
}

export function problemOf(err: unknown): { message: string; line?: number; column?: number } {
  if (err instanceof PatchError) return { message: err.message, ...(err.line !== undefined ? { line: err.line, column: err.column ?? 1 } : {}) }
  return { message: err instanceof Error ? err.message : String(err) }
}

export { compilePatch }
