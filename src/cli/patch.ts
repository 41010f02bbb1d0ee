/**
 * `schedlab patch new` and `schedlab patch check`, and the patch modules' side of scenario
 * reading on the command line: the patch library (the data folder's patches/, then the shipped
 * examples), and the inspection that checks a variant's flags and parameters against its
 * modules before any run. The command line is the user's own process, so it loads patch
 * modules itself (the workbench's hosts do that only in their simulation workers).
 */
import { existsSync, writeFileSync } from 'node:fs'
import { basename, dirname, extname, resolve } from 'node:path'
import { evaluatePatch, patchModuleInfo, PatchError, type PatchModuleInfo, type PatchModuleSource } from '../sim/patch-api/evaluate'
import { HOOK_POINTS } from '../sim/patch-api/hook-points'
import { defaultLibrary, listLibrary, patchReader, readPatchFile, type PatchLibrary } from '../services/patch-loader'
import { defaultDataDir, makeDirs, patchLibraryDir } from '../services/data-dir'
import { InputError } from './errors'
import type { CliIo } from './io'
import { patchTemplate } from '../shared/patch-template'

export { patchTemplate }

export function cliPatchLibrary(): PatchLibrary {
  return defaultLibrary(patchLibraryDir(defaultDataDir()))
}

/** What the command line gives the scenario parser for patch modules. */
export function cliPatchOptions(): { readPatch: (ref: string, from: string) => PatchModuleSource; inspectPatch: (src: PatchModuleSource) => PatchModuleInfo } {
  return { readPatch: patchReader(cliPatchLibrary()), inspectPatch: (src) => patchModuleInfo(evaluatePatch(src).patch) }
}


/** `patch new NAME|PATH`: NAME.ts in the patch library, or PATH(.ts). */
export function patchNewCommand(target: string, io: CliIo): number {
  const isPath = /[\\/]/.test(target) || extname(target) !== ''
  const file = isPath ? resolve(extname(target) ? target : `${target}.ts`) : resolve(patchLibraryDir(defaultDataDir()), `${target}.ts`)
  const name = basename(file).replace(/\.(ts|js|mts|mjs)$/, '')
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) throw new InputError(`patch new: "${name}" is not a patch name (1-64 letters, digits, '-', '_', '.')`)
  if (existsSync(file)) throw new InputError(`patch new: ${file} exists already`)
  try {
    makeDirs(dirname(file))
    writeFileSync(file, patchTemplate(name), { flag: 'wx' })
  } catch (e) {
    throw new InputError(`patch new: cannot write ${file}: ${(e as Error).message}`)
  }
  io.out(`${file}\n`)
  return 0
}

/** `patch check FILE`: compile and load it; its metadata, or its first problem located. */
export function patchCheckCommand(target: string, json: boolean, io: CliIo): number {
  let info: PatchModuleInfo
  const lib = cliPatchLibrary()
  try {
    const src = /[\\/]/.test(target) || extname(target) !== '' ? readPatchFile(resolve(target), target) : patchReader(lib)(target, resolve('x'))
    info = patchModuleInfo(evaluatePatch(src).patch)
  } catch (e) {
    const err = e instanceof PatchError ? e : new PatchError(e instanceof Error ? e.message : String(e), target)
    const at = `${err.file}${err.line !== undefined ? `:${err.line}:${err.column ?? 1}` : ''}`
    if (json) io.out(JSON.stringify({ ok: false, file: err.file, line: err.line ?? null, column: err.column ?? null, message: err.message }, null, 2) + '\n')
    else io.err(`${at}: ${err.message}\n`)
    return 2
  }
  if (json) {
    io.out(JSON.stringify({ ok: true, file: target, ...info }, null, 2) + '\n')
    return 0
  }
  const kernelOf = (h: string): string => HOOK_POINTS.find((x) => x.name === h)?.kernel ?? ''
  io.out(`${target}: OK: patch "${info.name}"${info.description ? ` (${info.description})` : ''}\n`)
  io.out(`  hooks: ${info.hooks.map((h) => `${h} [${kernelOf(h)}]`).join(', ') || 'none'}\n`)
  const feats = Object.entries(info.features)
  if (feats.length) io.out(`  flags: ${feats.map(([n, d]) => `${n} (default ${d.default ? 'on' : 'off'})`).join(', ')}\n`)
  const params = Object.entries(info.params)
  if (params.length) io.out(`  parameters: ${params.map(([n, d]) => `${n} = ${d.default}${d.min !== undefined || d.max !== undefined ? ` [${d.min ?? ''}..${d.max ?? ''}]` : ''}`).join(', ')}\n`)
  return 0
}

/** The library's modules, for `schedlab patches`. */
export function libraryListing(): { name: string; file: string; example: boolean }[] {
  return listLibrary(cliPatchLibrary())
}
