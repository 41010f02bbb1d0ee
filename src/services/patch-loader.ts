/**
 * The host's side of patch modules: reading a module a scenario names (a path relative to the
 * scenario, or a name in the patch library), compiling it from TypeScript with esbuild, and
 * fingerprinting it. Nothing here runs the module: that happens where simulations run
 * (src/sim/patch-api/evaluate.ts, in the worker threads of the app and `schedlab serve`).
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { readFileSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { transformSync, type Message } from 'esbuild'
import { PatchError, UnknownPatchError, type PatchModuleSource } from '../sim/patch-api/evaluate'
import { isPatchPath } from '../sim/scenario/parse'

/** A patch module's source may be this large at most. */
export const MAX_PATCH_BYTES = 1 << 20

/** The example modules shipped with schedlab (the seed patches re-expressed as modules). */
export const EXAMPLE_PATCH_DIR = resolve(__dirname, '../../resources/patches')

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/**
 * Compile a module's TypeScript (or JavaScript) to CommonJS with a source map. Throws a
 * PatchError at the first syntax error's line and column.
 */
export function compilePatch(source: string, file: string): { js: string; map: string } {
  try {
    const out = transformSync(source, {
      loader: /\.m?js$/i.test(file) ? 'js' : 'ts',
      format: 'cjs',
      target: 'es2022',
      sourcemap: 'external',
      sourcefile: basename(file),
      logLevel: 'silent'
    })
    return { js: out.code, map: out.map }
  } catch (err) {
    const first = (err as { errors?: Message[] }).errors?.[0]
    if (first) throw new PatchError(first.text, file, first.location?.line, first.location ? first.location.column + 1 : undefined)
    throw new PatchError(err instanceof Error ? err.message : String(err), file)
  }
}

/** A module from its text: fingerprinted and compiled. */
export function patchModuleFromText(source: string, file: string): PatchModuleSource {
  if (Buffer.byteLength(source, 'utf8') > MAX_PATCH_BYTES) throw new PatchError(`the patch is larger than ${MAX_PATCH_BYTES >> 20} MB`, file)
  return { file, source, sha256: sha256(source), ...compilePatch(source, file) }
}

/** Read a patch module file (regular files only, size-capped). */
export function readPatchFile(path: string, shownAs = path): PatchModuleSource {
  let st
  try {
    st = statSync(path)
  } catch {
    throw new PatchError(`no such file: ${shownAs}`, shownAs)
  }
  if (!st.isFile()) throw new PatchError(`${shownAs} is not a regular file`, shownAs)
  if (st.size > MAX_PATCH_BYTES) throw new PatchError(`${shownAs} is larger than ${MAX_PATCH_BYTES >> 20} MB`, shownAs)
  return patchModuleFromText(readFileSync(path, 'utf8'), shownAs)
}

/** Where named patches are looked up: the user's library first, then the shipped examples. */
export interface PatchLibrary {
  /** Directories of `NAME.ts` files, searched in order. */
  dirs: string[]
}

export function defaultLibrary(userDir?: string): PatchLibrary {
  return { dirs: [...(userDir ? [userDir] : []), EXAMPLE_PATCH_DIR] }
}

/** The file of a library patch by name, or null. */
export function libraryFile(lib: PatchLibrary, name: string): string | null {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) return null
  for (const d of lib.dirs) {
    for (const ext of ['.ts', '.js']) {
      const f = join(d, name + ext)
      if (existsSync(f)) return f
    }
  }
  return null
}

/** Every library patch: name, file, and whether it is a shipped example. */
export function listLibrary(lib: PatchLibrary): { name: string; file: string; example: boolean }[] {
  const seen = new Set<string>()
  const out: { name: string; file: string; example: boolean }[] = []
  for (const d of lib.dirs) {
    let names: string[] = []
    try {
      names = readdirSync(d)
    } catch {
      continue
    }
    for (const f of names.sort()) {
      const m = /^(.+)\.(ts|js)$/.exec(f)
      if (!m || f.endsWith('.d.ts') || seen.has(m[1])) continue
      seen.add(m[1])
      out.push({ name: m[1], file: join(d, f), example: d === EXAMPLE_PATCH_DIR })
    }
  }
  return out
}

/**
 * The scenario parser's `readPatch`: a path relative to the scenario file (or absolute), or a
 * library name. Unknown names throw UnknownPatchError (the parser then suggests built-in ones).
 */
export function patchReader(lib: PatchLibrary = defaultLibrary()): (ref: string, fromFile: string) => PatchModuleSource {
  return (ref, fromFile) => {
    if (isPatchPath(ref)) {
      const path = isAbsolute(ref) ? ref : resolve(dirname(fromFile), ref)
      return readPatchFile(path, ref)
    }
    const file = libraryFile(lib, ref)
    if (!file) throw new UnknownPatchError(ref)
    return readPatchFile(file, basename(file))
  }
}
