/**
 * The workbench's one state store. Views subscribe to the slices they show; actions
 * (actions/, joined in workbench.ts) are the only writers besides a view's own local state. Data flows one way:
 * host API -> actions -> store -> views.
 *
 * The whole API (keep it this small):
 *
 *   const store = createStore<S>(initial)
 *   store.state                 the current state; treat it as immutable (set new slices,
 *                               never mutate the objects inside)
 *   store.set(patch)            shallow-merge `patch` (or `patch(state)`) into the state and
 *                               notify the watchers whose selected value changed
 *   store.watch(select, fn, o?) call `fn(value, previous)` each time `select(state)` changes
 *                               (Object.is, or `o.equals`); `o.now` also calls it at once;
 *                               returns the function that stops watching
 *
 * Notification is synchronous. A `set` made by a watcher while others are being notified is
 * applied at once and its watchers are notified in the same flush, in order, so every watcher
 * ends the flush having seen the final state.
 *
 * A new view: a module in views/ exporting a function that takes the `ViewContext`
 * (view-context.ts: store, api, actions) and returns `{ el }` (or a `TabView` for the right pane,
 * listed in shell.ts); it builds its DOM once, watches the slices it shows, keeps its own
 * ephemeral state (scroll, sort, open menus) to itself, and changes shared state only
 * through `ctx.actions` or `ctx.store.set`.
 */

export interface WatchOptions<T> {
  equals?: (a: T, b: T) => boolean
  /** Call the listener with the current value right away. */
  now?: boolean
}

export interface Store<S extends object> {
  readonly state: Readonly<S>
  set(patch: Partial<S> | ((s: Readonly<S>) => Partial<S>)): void
  watch<T>(select: (s: Readonly<S>) => T, fn: (value: T, previous: T) => void, opts?: WatchOptions<T>): () => void
}

interface Watcher<S> {
  select(s: S): unknown
  fn(value: unknown, previous: unknown): void
  equals(a: unknown, b: unknown): boolean
  last: unknown
}

export function createStore<S extends object>(initial: S): Store<S> {
  let state: S = initial
  const watchers = new Set<Watcher<S>>()
  let flushing = false
  let changed = false

  const flush = (): void => {
    flushing = true
    try {
      do {
        changed = false
        for (const w of [...watchers]) {
          if (!watchers.has(w)) continue
          const v = w.select(state)
          if (w.equals(v, w.last)) continue
          const prev = w.last
          w.last = v
          w.fn(v, prev)
        }
      } while (changed)
    } finally {
      flushing = false
    }
  }

  return {
    get state() {
      return state
    },
    set(patch) {
      const p = typeof patch === 'function' ? patch(state) : patch
      state = { ...state, ...p }
      changed = true
      if (!flushing) flush()
    },
    watch(select, fn, opts = {}) {
      const w: Watcher<S> = {
        select: select as (s: S) => unknown,
        fn: fn as (v: unknown, p: unknown) => void,
        equals: (opts.equals as ((a: unknown, b: unknown) => boolean) | undefined) ?? Object.is,
        last: select(state)
      }
      watchers.add(w)
      if (opts.now) w.fn(w.last, undefined)
      return () => {
        watchers.delete(w)
      }
    }
  }
}

/** Shallow equality of arrays or plain objects, for selectors that build a new one each time. */
export function shallowEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object') return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  return ka.length === kb.length && ka.every((k) => Object.is((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}
