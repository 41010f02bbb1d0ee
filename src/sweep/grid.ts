/**
 * A scenario's `"sweep"`: the grid of cells (the product of its axes, first axis slowest), the
 * `--set` edits of each cell, and shards (`--shard I/N` runs the cells whose index is I mod N,
 * numbered from 0 like Slurm's array task ids).
 */
import type { SweepAxis } from '../sim/scenario/types'
import { applySets, parseSetPath, type SetArg } from '../sim/scenario/set'

export interface Cell {
  index: number
  values: unknown[]
}

export interface Shard {
  index: number
  count: number
}

export function cellCount(axes: readonly SweepAxis[]): number {
  return axes.reduce((n, a) => n * a.values.length, 1)
}

/** Every cell of the grid in index order: the last axis varies fastest. */
export function cells(axes: readonly SweepAxis[]): Cell[] {
  const n = cellCount(axes)
  const out: Cell[] = []
  for (let i = 0; i < n; i++) {
    const values: unknown[] = []
    let rest = i
    for (let a = axes.length - 1; a >= 0; a--) {
      const len = axes[a].values.length
      values.unshift(axes[a].values[rest % len])
      rest = Math.floor(rest / len)
    }
    out.push({ index: i, values })
  }
  return out
}

export function shardCells(all: readonly Cell[], shard: Shard | undefined): Cell[] {
  return shard ? all.filter((c) => c.index % shard.count === shard.index) : [...all]
}

/** `I/N` with 0 <= I < N; an error message otherwise. */
export function parseShard(text: string): Shard | string {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text)
  if (!m) return `expected I/N (e.g. 0/4), got "${text}"`
  const index = Number(m[1])
  const count = Number(m[2])
  if (count < 1 || count > 100000) return `N must be in 1..100000, got ${count}`
  if (index >= count) return `I must be in 0..${count - 1} (shards are numbered from 0), got ${index}`
  return { index, count }
}

/** The `--set` edits that make a cell. */
export function cellSets(axes: readonly SweepAxis[], cell: Cell): SetArg[] {
  return axes.map((a, i) => {
    const path = parseSetPath(a.path.trim())
    if (typeof path === 'string') throw new Error(`sweep path "${a.path}": ${path}`)
    return { path, value: cell.values[i], text: `${a.path}=${JSON.stringify(cell.values[i])}` }
  })
}

/** "workloads[0].sliceUs=8000, kernel.hz=250". */
export function cellLabel(axes: readonly SweepAxis[], cell: Cell): string {
  return axes.map((a, i) => `${a.path}=${JSON.stringify(cell.values[i])}`).join(', ')
}

export interface PlannedCell<S> {
  cell: Cell
  /** The scenario text with the cell's values set. */
  text: string
  scenario: S
}

/**
 * Every cell (or a shard's) of a sweep, parsed: `parse` turns a cell's text into its scenario
 * and may throw; the error is passed to `wrap` with where it happened ("FILE (sweep cell 3:
 * workloads[0].sliceUs=8000)") so messages name the cell as well as the JSON path.
 */
export function planCells<S>(
  axes: readonly SweepAxis[], text: string, chosen: readonly Cell[], file: string,
  parse: (cellText: string) => S, wrap: (err: unknown, where: string) => unknown
): PlannedCell<S>[] {
  return chosen.map((cell) => {
    const cellText = applySets(text, cellSets(axes, cell))
    try {
      return { cell, text: cellText, scenario: parse(cellText) }
    } catch (e) {
      throw wrap(e, `${file} (sweep cell ${cell.index}: ${cellLabel(axes, cell)})`)
    }
  })
}
