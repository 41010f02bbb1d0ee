/**
 * Turning a compiled patch module (CommonJS text, with its source map) into a checked `Patch`.
 *
 * The module runs as a function whose parameters shadow the globals that would make a run
 * irreproducible: `Math.random` is seeded from the run's seed, `Date` and `performance` throw
 * (a patch reads the simulated clock, `s.now`), `process`, timers and `require` of anything but
 * 'schedlab/patch' are absent. This is no sandbox against a hostile patch (a patch is the user's
 * own code, like a script they run); it keeps honest code deterministic. The hosts run
 * simulations with patches only in worker threads.
 */
import * as api from '../../shared/patch-api'
import type { Patch, PatchFeature, PatchParam } from '../../shared/patch-api'
import { Prng } from '../engine/prng'
import { HOOK_NAMES } from './hook-points'
import { closest } from '../scenario/zod-issues'
import { decodeMappings, originalPosition, type Mapping } from './source-map'

/** A patch module as a scenario names it, with its source and its compiled form. */
export interface PatchModuleSource {
  /** The file (or library name) it was read from, as messages name it. */
  file: string
  source: string
  sha256: string
  /** CommonJS compiled by the host (esbuild), and its source map (JSON). */
  js: string
  map?: string
}

/** A problem in a patch, located in the file the researcher wrote. */
export class PatchError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
    readonly column?: number,
    readonly hook?: string,
    readonly simNs?: number
  ) {
    super(message)
    this.name = 'PatchError'
  }
}

/** Thrown by a host's patch reader when a name is neither a file nor in the patch library. */
export class UnknownPatchError extends Error {}

/** The evaluated patch and what locates its code's exceptions. */
export interface LoadedPatch {
  patch: Patch
  src: PatchModuleSource
  /** Where a stack frame of this module's code is in the original file. */
  locate(err: unknown): { line: number; column: number } | null
}

const RUNTIME: Record<string, unknown> = { ...api, definePatch: <P>(p: P): P => p }
const NAME = /^[A-Za-z0-9_.-]{1,64}$/
const FEATURE = /^[A-Z][A-Z0-9_]{0,63}$/
const PARAM = /^[a-z][A-Za-z0-9_]{0,63}$/
/** new Function() puts two lines before the body. */
const FN_HEADER_LINES = 2
let evalCount = 0

function noClock(): never {
  throw new Error('clocks are not available in a patch: read the simulated time, s.now')
}

/** Math with a seeded random(). */
function seededMath(seed: number): Math {
  const rng = new Prng(seed >>> 0 || 1)
  const m = Object.create(null) as Record<string, unknown>
  for (const k of Object.getOwnPropertyNames(Math)) m[k] = (Math as unknown as Record<string, unknown>)[k]
  m.random = () => rng.next()
  return Object.freeze(m) as unknown as Math
}

/**
 * Run the module's top level and check its default export. `seed` seeds its Math.random.
 * Throws PatchError (located in the original file where the runtime says where).
 */
export function evaluatePatch(src: PatchModuleSource, seed = 1): LoadedPatch {
  const url = `patch${++evalCount}:${src.file}`
  let mappings: Mapping[] | null = null
  const locate = (err: unknown): { line: number; column: number } | null => {
    const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack : ''
    const at = stack.split('\n').find((l) => l.includes(url))
    if (!at) return null
    const m = /:(\d+):(\d+)\)?\s*$/.exec(at)
    if (!m) return null
    const line = Number(m[1]) - FN_HEADER_LINES
    const column = Number(m[2])
    if (!src.map) return { line, column }
    try {
      mappings ??= decodeMappings((JSON.parse(src.map) as { mappings: string }).mappings)
    } catch {
      return { line, column }
    }
    return originalPosition(mappings, line, column)
  }
  const fail = (err: unknown, what: string): never => {
    if (err instanceof PatchError) throw err
    const pos = locate(err)
    const msg = err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err)
    throw new PatchError(`${what}: ${msg}`, src.file, pos?.line, pos?.column)
  }
  const module = { exports: {} as Record<string, unknown> }
  const require = (id: string): unknown => {
    if (id === 'schedlab/patch') return RUNTIME
    throw new Error(`a patch can import only 'schedlab/patch' (types and constants), not '${id}'`)
  }
  let fn: (...a: unknown[]) => void
  try {
    // eslint-disable-next-line no-new-func
    fn = new Function('exports', 'require', 'module', 'Math', 'Date', 'performance', 'process', 'setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'fetch', `${src.js}\n//# sourceURL=${url}`) as typeof fn
  } catch (err) {
    return fail(err, 'the compiled patch does not parse')
  }
  const clock = new Proxy(noClock, { get: noClock, construct: noClock, apply: noClock })
  try {
    fn(module.exports, require, module, seededMath(seed), clock, clock, undefined, undefined, undefined, undefined, undefined, undefined)
  } catch (err) {
    fail(err, 'the module threw while loading')
  }
  const exp = module.exports as { default?: unknown }
  const patch = (exp.default ?? (module.exports as unknown)) as Patch
  checkPatch(patch, src.file)
  return { patch, src, locate }
}

/** The default export's shape: name, hooks by known names, flags and parameters well formed. */
export function checkPatch(p: unknown, file: string): asserts p is Patch {
  const bad = (m: string): never => {
    throw new PatchError(m, file)
  }
  if (typeof p !== 'object' || p === null) bad('the module has no default export: write `export default definePatch({ name, hooks })`')
  const o = p as Record<string, unknown>
  if (typeof o.name !== 'string' || !NAME.test(o.name)) bad(`"name" must be 1-64 letters, digits, '-', '_' or '.' (got ${JSON.stringify(o.name)})`)
  if (o.hooks === undefined || typeof o.hooks !== 'object' || o.hooks === null) bad('"hooks" must be an object of hook functions, e.g. { placeEntity(s, orig, cpu, se, flags) { ... } }')
  for (const [h, fn] of Object.entries(o.hooks as object)) {
    if (!HOOK_NAMES.has(h)) {
      const hint = closest(h, [...HOOK_NAMES])
      bad(`hooks.${h}: no such hook${hint ? ` (did you mean "${hint}"?)` : ''}; the hooks are listed in docs/patches.md`)
    }
    if (typeof fn !== 'function') bad(`hooks.${h} must be a function (s, orig, ...args)`)
  }
  if (o.init !== undefined && typeof o.init !== 'function') bad('"init" must be a function (s)')
  if (o.features !== undefined) {
    if (typeof o.features !== 'object' || o.features === null) bad('"features" must be an object of { default, doc } flags')
    for (const [f, d] of Object.entries(o.features as Record<string, PatchFeature>)) {
      if (!FEATURE.test(f)) bad(`features.${f}: a flag's name is UPPER_CASE, as sched_feat's`)
      if (typeof d !== 'object' || d === null || typeof d.default !== 'boolean') bad(`features.${f}.default must be true or false`)
    }
  }
  if (o.params !== undefined) {
    if (typeof o.params !== 'object' || o.params === null) bad('"params" must be an object of { default, min, max, doc } parameters')
    for (const [n, d] of Object.entries(o.params as Record<string, PatchParam>)) {
      if (!PARAM.test(n)) bad(`params.${n}: a parameter's name is camelCase (a letter, then letters, digits, '_')`)
      if (typeof d !== 'object' || d === null || typeof d.default !== 'number' || !Number.isFinite(d.default)) bad(`params.${n}.default must be a finite number`)
      if (d.min !== undefined && typeof d.min !== 'number') bad(`params.${n}.min must be a number`)
      if (d.max !== undefined && typeof d.max !== 'number') bad(`params.${n}.max must be a number`)
      const err = paramProblem(d, d.default)
      if (err) bad(`params.${n}.default ${err}`)
    }
  }
}

/** Why a value does not fit a declared parameter, or null. */
export function paramProblem(d: PatchParam, v: unknown): string | null {
  if (typeof v !== 'number' || !Number.isFinite(v)) return 'must be a finite number'
  if (d.integer && !Number.isInteger(v)) return 'must be a whole number'
  if (d.min !== undefined && v < d.min) return `must be at least ${d.min}`
  if (d.max !== undefined && v > d.max) return `must be at most ${d.max}`
  return null
}

/** What a scenario and the workbench need to know of a patch without running it. */
export interface PatchModuleInfo {
  name: string
  description?: string
  hooks: string[]
  features: Record<string, PatchFeature>
  params: Record<string, PatchParam>
}

export function patchModuleInfo(p: Patch): PatchModuleInfo {
  return {
    name: p.name,
    ...(p.description !== undefined ? { description: String(p.description) } : {}),
    hooks: Object.keys(p.hooks),
    features: { ...(p.features ?? {}) },
    params: { ...(p.params ?? {}) }
  }
}
