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

/** monitor[0]: the code of the hook running (0: none; see hookCode). */
export const MONITOR_HOOK = 0
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

/** What installPatches leaves the run: the patches' views, and the translator of exceptions. */
export interface InstalledPatches {
  views: Sched[]
  /**
   * An exception that escaped the run, as the PatchError of the hook that was running when it
   * was thrown (the monitor holds the innermost one); other exceptions unchanged.
   */
  errorOf(err: unknown): unknown
}

export function installPatches(k: Kernel, fs: FairSched, loaded: readonly LoadedPatch[], opts: InstallOptions): InstalledPatches {
  if (loaded.length === 0) return { views: [], errorOf: (e) => e }
  Object.assign(k.f, patchFeatures(loaded, opts.features))
  const params = resolveParams(loaded, opts.patchParams)
  const shared = sharedView(k, fs, opts.workloadNames)
  const views = loaded.map((_, i) => schedView(shared, params[i]))
  const mon = opts.monitor ?? new Int32Array(1)
  const table: Partial<Record<KernelFnName, AnyFn>> = {}
  const current = (name: KernelFnName): AnyFn => (table[name] ?? k.fn[name]) as AnyFn
  loaded.forEach((lp, pi) => {
    const s = views[pi]
    for (const [name, hook] of Object.entries(lp.patch.hooks) as unknown as [HookName, AnyFn][]) {
      const hi = HOOK_POINTS.findIndex((h) => h.name === name)
      const ctx = HOOK_POINTS[hi].on === 'kernel' ? k : fs
      const orig = current(name)
      const code = hookCode(pi, hi)
      table[name] = hookWrapper(name, hookArity(HOOK_POINTS[hi].args), hook, s, orig, ctx, mon, code)
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
  return {
    views,
    errorOf(err) {
      if (err instanceof PatchError) return err
      const where = describeHookCode(mon[MONITOR_HOOK])
      const lp = where ? loaded[where.patchIndex] : undefined
      return lp && where ? hookError(err, lp, where.hook, k.now) : err
    }
  }
}

/** How many arguments a hook point's function takes after the kernel (from its documented args). */
export function hookArity(args: string): number {
  return args.replace(/\([^)]*\)/g, '').split(',').filter((x) => x.trim() !== '').length
}

type Factory = (h: AnyFn, s: Sched, orig: AnyFn, ctx: unknown, mon: Int32Array, code: number) => AnyFn

const factories = new Map<string, Factory>()

/**
 * The function the table holds for a hooked entry: it publishes the hook in the monitor (which
 * also tells, when an exception escapes, which hook of which patch it came from: see
 * `patchErrorOf`), and calls the hook with `orig` bound to the kernel. Each hook point gets a
 * function of its own source (built once per name and arity), so that V8 sees one target at
 * each call site, as in the unpatched model, and inlines it; one closure shared by every hook
 * made each call site megamorphic (a pass-through patch on every hook point cost about 40 % on
 * seed 002's setup), and a try/finally in it kept it from being inlined.
 */
function hookWrapper(name: string, arity: number, h: AnyFn, s: Sched, orig: AnyFn, ctx: unknown, mon: Int32Array, code: number): AnyFn {
  const key = `${name}/${arity}`
  let f = factories.get(key)
  if (!f) {
    const a = Array.from({ length: arity }, (_, i) => `a${i}`).join(', ')
    const comma = arity > 0 ? ', ' : ''
    // eslint-disable-next-line no-new-func
    f = new Function('h', 's', 'orig', 'ctx', 'mon', 'code', `
      function orig_${name}(${a}) { return orig(ctx${comma}${a}) }
      return function hook_${name}(_ctx${comma}${a}) {
        const prev = mon[${MONITOR_HOOK}]
        mon[${MONITOR_HOOK}] = code
        const r = h(s, orig_${name}${comma}${a})
        mon[${MONITOR_HOOK}] = prev
        return r
      }`) as Factory
    factories.set(key, f)
  }
  return f(h, s, orig, ctx, mon, code)
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
