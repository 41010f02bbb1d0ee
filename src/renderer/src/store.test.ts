import { describe, expect, it } from 'vitest'
import { createStore, shallowEqual } from './store'

describe('state store', () => {
  it('notifies a watcher only when its slice changes, with the previous value', () => {
    const store = createStore({ a: 1, b: { x: 1 } })
    const seen: [number, number][] = []
    store.watch((s) => s.a, (v, p) => seen.push([v, p]))
    store.set({ b: { x: 2 } })
    expect(seen).toEqual([])
    store.set({ a: 2 })
    store.set((s) => ({ a: s.a + 1 }))
    expect(seen).toEqual([[2, 1], [3, 2]])
  })

  it('calls at once with `now`, compares with `equals`, and stops when unsubscribed', () => {
    const store = createStore({ list: [1, 2] })
    const seen: number[][] = []
    const stop = store.watch((s) => [...s.list], (v) => seen.push(v), { now: true, equals: shallowEqual })
    store.set({ list: [1, 2] })
    store.set({ list: [1, 2, 3] })
    stop()
    store.set({ list: [] })
    expect(seen).toEqual([[1, 2], [1, 2, 3]])
  })

  it('applies a set made by a watcher in the same flush; every watcher ends on the final state', () => {
    const store = createStore({ text: '', length: 0, log: [] as string[] })
    store.watch((s) => s.text, (t) => store.set({ length: t.length }))
    const last: number[] = []
    store.watch((s) => s.length, (n) => last.push(n))
    store.set({ text: 'abc' })
    expect(store.state.length).toBe(3)
    expect(last).toEqual([3])
    store.set({ text: 'abcdef' })
    expect(last).toEqual([3, 6])
  })

  it('a watcher removed during a flush is not called', () => {
    const store = createStore({ n: 0 })
    const calls: string[] = []
    let stopB = (): void => undefined
    store.watch((s) => s.n, () => { calls.push('a'); stopB() })
    stopB = store.watch((s) => s.n, () => calls.push('b'))
    store.set({ n: 1 })
    expect(calls).toEqual(['a'])
  })
})
