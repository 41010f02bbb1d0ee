/**
 * The sweep's result object (DESIGN.md): `{ "sweep": { "axes", "cells": [ { "values", "result" } ] } }`,
 * and `schedlab merge`, which joins shard outputs into the object the unsharded sweep prints.
 */
import type { SweepAxis } from '../sim/scenario/types'
import { cellCount, type Shard } from './grid'
import { MAX_SWEEP_CELLS } from '../sim/scenario/parse'

export interface SweepCellResult<R = unknown> {
  index: number
  values: unknown[]
  /** The `run --json` object of this cell. */
  result: R
}

export interface SweepObject<R = unknown> {
  sweep: {
    scenario: string
    axes: SweepAxis[]
    /** Cells in the grid (all shards). */
    total: number
    /** Only in a shard's output. */
    shard?: Shard
    cells: SweepCellResult<R>[]
  }
}

export class MergeError extends Error {}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** Join shard outputs (any order) into the whole sweep; every cell exactly once. */
export function mergeSweeps<R>(parts: readonly { source: string; object: SweepObject<R> }[]): SweepObject<R> {
  if (parts.length === 0) throw new MergeError('nothing to merge')
  const first = parts[0]
  const byIndex = new Map<number, { source: string; cell: SweepCellResult<R> }>()
  for (const p of parts) {
    const s = p.object?.sweep
    if (!s || !Array.isArray(s.cells) || !Array.isArray(s.axes)) throw new MergeError(`${p.source}: not a schedlab sweep output (no "sweep" object with axes and cells)`)
    checkShape(s, p.source)
    if (s.scenario !== first.object.sweep.scenario || !same(s.axes, first.object.sweep.axes) || s.total !== first.object.sweep.total) {
      throw new MergeError(`${p.source}: another sweep than ${first.source} (scenario, axes or grid size differ)`)
    }
    for (const c of s.cells) {
      const seen = byIndex.get(c.index)
      if (seen && !same(strip(seen.cell), strip(c))) throw new MergeError(`cell ${c.index} differs between ${seen.source} and ${p.source}`)
      byIndex.set(c.index, { source: p.source, cell: c })
    }
  }
  const total = first.object.sweep.total
  const missing: number[] = []
  for (let i = 0; i < total; i++) if (!byIndex.has(i)) missing.push(i)
  if (missing.length > 0) {
    const list = missing.length > 12 ? `${missing.slice(0, 12).join(', ')}, ...` : missing.join(', ')
    throw new MergeError(`${missing.length} of ${total} cells missing (${list}): a shard has not finished or its folder was not given`)
  }
  const cells = [...byIndex.values()].map((x) => x.cell).sort((a, b) => a.index - b.index)
  return { sweep: { scenario: first.object.sweep.scenario, axes: first.object.sweep.axes, total, cells } }
}

/**
 * The fields merge relies on, checked as a scenario's are: a "total" of 1e12 used to end in a
 * V8 fatal error (the missing-cell list), -1 or "abc" were accepted.
 */
function checkShape(s: SweepObject['sweep'], source: string): void {
  const bad = (path: string, message: string): MergeError => new MergeError(`${source}: ${path}: ${message}`)
  s.axes.forEach((a, i) => {
    if (!a || typeof a !== 'object' || typeof a.path !== 'string' || !Array.isArray(a.values) || a.values.length === 0) throw bad(`sweep.axes[${i}]`, 'expected { "path": string, "values": [a value at least] }')
  })
  const grid = cellCount(s.axes)
  if (typeof s.total !== 'number' || !Number.isSafeInteger(s.total) || s.total < 1 || s.total > MAX_SWEEP_CELLS) {
    throw bad('sweep.total', `expected a whole number of cells in 1..${MAX_SWEEP_CELLS}, got ${JSON.stringify(s.total)?.slice(0, 40)}`)
  }
  if (s.total !== grid) throw bad('sweep.total', `${s.total} is not the grid's ${grid} cells (${s.axes.map((a) => a.values.length).join(' x ')})`)
  s.cells.forEach((c, i) => {
    if (!c || typeof c !== 'object') throw bad(`sweep.cells[${i}]`, 'expected an object')
    if (!Number.isSafeInteger(c.index) || c.index < 0 || c.index >= s.total) throw bad(`sweep.cells[${i}].index`, `expected a cell index in 0..${s.total - 1}, got ${JSON.stringify(c.index)?.slice(0, 40)}`)
    if (!Array.isArray(c.values) || c.values.length !== s.axes.length) throw bad(`sweep.cells[${i}].values`, `expected ${s.axes.length} value(s), one per axis`)
  })
}

/** A copy without wall-clock fields (`wallMs` anywhere): what must be identical between runs. */
export function strip<T>(x: T): T {
  return JSON.parse(JSON.stringify(x, (k, v) => (k === 'wallMs' ? undefined : v))) as T
}
