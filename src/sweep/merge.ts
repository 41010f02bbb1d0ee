/**
 * The sweep's result object (DESIGN.md): `{ "sweep": { "axes", "cells": [ { "values", "result" } ] } }`,
 * and `schedlab merge`, which joins shard outputs into the object the unsharded sweep prints.
 */
import type { SweepAxis } from '../sim/scenario/types'
import type { Shard } from './grid'

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

/** A copy without wall-clock fields (`wallMs` anywhere): what must be identical between runs. */
export function strip<T>(x: T): T {
  return JSON.parse(JSON.stringify(x, (k, v) => (k === 'wallMs' ? undefined : v))) as T
}
