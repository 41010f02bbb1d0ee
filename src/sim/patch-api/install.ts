/**
 * Installing patch modules into a kernel: their flags join the kernel's features, their
 * parameters are resolved against the variant's "patchParams", and a new function table
 * (src/sim/kernel/fns.ts) replaces each hooked function by the hook, which receives what it
 * replaced (so patches listed later wrap those before them). Done once, before the first event.
 *
 * Every hook call is wrapped so that an exception becomes a PatchError naming the patch's file,
 * line and column, the hook and the simulated time; and, when the host gives a monitor (a
 * shared Int32Array), the hook being run is published there, so the host can tell a patch
 * that never returns from a slow simulation and stop it.
 */
import type { Kernel } from '../kernel/core'
import type { FairSched } from '../kernel/fair-sched'
import { KERNEL_FN_NAMES, withFns } from '../kernel/fns'
import type { KernelFnName, KernelFns } from '../kernel/sched'
import type { HookName, Sched } from '../../shared/patch-api'
import { HOOK_POINTS } from './hook-points'
import { PatchError, paramProblem, type LoadedPatch } from './evaluate'
import { schedView, sharedView } from './sched-view'

/** monitor[0]: 1 + the running hook's code (0: none); monitor[1]: hook calls so far. */
export const MONITOR_HOOK = 0
export const MONITOR_CALLS = 1
/** The code of hook `h` of patch `p` in the monitor. */
export function hookCode(patchIndex: number, hookIndex: number): number {
  return patchIndex * 64 + hookIndex + 1
}
export function describeHookCode(code: number): { patchIndex: number; hook: string } | null {
  if (code <= 0) return null
  const c = code - 1
  const h = HOOK_POINTS[c % 64]
  return h ? { patchIndex: Math.floor(c / 64), hook: h.name } : null
}

export interface InstallOptions {
  /** The variant's feature overrides (its own flags among them) and patch parameters. */
  features: Readonly<Record<string, boolean>>
  patchParams?: Readonly<Record<string, Readonly<Record<string, number>>>>
  workloadNames: readonly string[]
  monitor?: Int32Array
}

/** Resolve each patch's parameters: the variant's value or the default, checked. */
export function resolveParams(loaded: readonly LoadedPatch[], given: InstallOptions['patchParams'] = {}): Record<string, number>[] {
  const names = new Set(loaded.map((l) => l.patch.name))
  for (const n of Object.keys(given)) {
    if (!names.has(n)) throw new PatchError(`patchParams.${n}: no patch of this variant is named "${n}" (its patches: ${[...names].join(', ') || 'none'})`, n)
  }
  return loaded.map(({ patch, src }) => {
    const decl = patch.params ?? {}
    const mine = given[patch.name] ?? {}
    const out: Record<string, number> = {}
    for (const k of Object.keys(mine)) {
      if (!(k in decl)) throw new PatchError(`patchParams.${patch.name}.${k}: the patch declares no parameter "${k}" (its parameters: ${Object.keys(decl).join(', ') || 'none'})`, src.file)
    }
    for (const [k, d] of Object.entries(decl)) {
      const v = mine[k] ?? d.default
      const err = paramProblem(d, v)
      if (err) throw new PatchError(`patchParams.${patch.name}.${k} ${err} (got ${JSON.stringify(v)})`, src.file)
      out[k] = v
    }
    return Object.freeze(out)
  })
}

/** The patches' own flags at the variant's values (or their defaults), for the kernel's features. */
export function patchFeatures(loaded: readonly LoadedPatch[], variantFeatures: Readonly<Record<string, boolean>>): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  for (const { patch } of loaded) {
    for (const [f, d] of Object.entries(patch.features ?? {})) out[f] = variantFeatures[f] ?? d.default
  }
  return out
}

type AnyFn = (...a: unknown[]) => unknown

export function installPatches(k: Kernel, fs: FairSched, loaded: readonly LoadedPatch[], opts: InstallOptions): Sched[] {
  if (loaded.length === 0) return []
  Object.assign(k.f, patchFeatures(loaded, opts.features))
  const params = resolveParams(loaded, opts.patchParams)
  const shared = sharedView(k, fs, opts.workloadNames)
  const views = loaded.map((_, i) => schedView(shared, params[i]))
  const mon = opts.monitor ?? new Int32Array(2)
  const table: Partial<Record<KernelFnName, AnyFn>> = {}
  const current = (name: KernelFnName): AnyFn => (table[name] ?? k.fn[name]) as AnyFn
  loaded.forEach((lp, pi) => {
    const s = views[pi]
    for (const [name, hook] of Object.entries(lp.patch.hooks) as unknown as [HookName, AnyFn][]) {
      const hi = HOOK_POINTS.findIndex((h) => h.name === name)
      const ctx = HOOK_POINTS[hi].on === 'kernel' ? k : fs
      const orig = current(name)
      const origBound = (a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown): unknown => orig(ctx, a, b, c, d, e)
      const code = hookCode(pi, hi)
      const h = hook
      table[name] = (_ctx: unknown, a?: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown): unknown => {
        const prev = mon[MONITOR_HOOK]
        mon[MONITOR_HOOK] = code
        mon[MONITOR_CALLS]++
        try {
          return h(s, origBound, a, b, c, d, e)
        } catch (err) {
          throw hookError(err, lp, name, k.now)
        } finally {
          mon[MONITOR_HOOK] = prev
        }
      }
    }
    if (lp.patch.init) {
      try {
        lp.patch.init(s)
      } catch (err) {
        throw hookError(err, lp, 'init', k.now)
      }
    }
  })
  k.fn = withFns(k.fn, table as Partial<KernelFns>)
  return views
}

/** An exception from a patch's code (or from the model under it), located and named. */
export function hookError(err: unknown, lp: LoadedPatch, hook: string, simNs: number): PatchError {
  if (err instanceof PatchError) return err
  const pos = lp.locate(err)
  const what = err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err)
  const at = `${lp.src.file}${pos ? `:${pos.line}:${pos.column}` : ''}`
  return new PatchError(
    `patch ${lp.patch.name} (${at}) threw in ${hook} at ${(simNs / 1e6).toFixed(3)} ms simulated: ${what}`,
    lp.src.file, pos?.line, pos?.column, hook, simNs
  )
}

export { KERNEL_FN_NAMES }
