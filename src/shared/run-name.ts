/**
 * Names a run after what was run: the scenario's name, then what differs from the last saved
 * run of the same scenario, in the words a researcher would write in a lab notebook
 * ("hb groups=2, ct slice 4 ms"). Works on the raw JSON of the two scenario texts, so a
 * comment or a reordering of keys is no difference, and any field is described.
 */
import { parse as parseJsonc } from 'jsonc-parser'

/** What a run was, beyond its scenario text. */
export interface RunFacts {
  text: string
  durationMs: number
  seeds: number
}

const TYPE_ABBREV: Record<string, string> = {
  cyclictest: 'ct', hackbench: 'hb', schbench: 'sb', 'rt-app': 'rt', periodic: 'per', hog: 'hog'
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

function parse(text: string): Json {
  return (parseJsonc(text, [], { allowTrailingComma: true }) ?? null) as Json
}

const isObj = (v: Json | undefined): v is { [k: string]: Json } => !!v && typeof v === 'object' && !Array.isArray(v)

/** "4 ms", "700 us", "2 s": a value with its unit, from a field named ...Us or ...Ms. */
export function withUnit(field: string, v: number): { label: string; text: string } | null {
  const m = /^(.*?)(Us|Ms|Ns)$/.exec(field)
  if (!m || !m[1]) return null
  const us = m[2] === 'Us' ? v : m[2] === 'Ms' ? v * 1000 : v / 1000
  const fmt = (x: number) => String(+x.toFixed(3))
  const text = us >= 1e6 ? `${fmt(us / 1e6)} s` : us >= 1000 ? `${fmt(us / 1000)} ms` : `${fmt(us)} us`
  return { label: m[1].replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`), text }
}

function show(v: Json | undefined): string {
  if (v === undefined) return 'default'
  if (typeof v === 'boolean') return v ? 'on' : 'off'
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object' || x === null)) return v.join(',')
  return typeof v === 'string' ? v : JSON.stringify(v)
}

function fieldChange(field: string, v: Json | undefined): string {
  if (typeof v === 'number') {
    const u = withUnit(field, v)
    if (u) return `${u.label} ${u.text}`
  }
  if (typeof v === 'boolean') return `${field} ${show(v)}`
  const u = v === undefined ? withUnit(field, 0) : null
  return `${u ? u.label : field}${v === undefined ? ' default' : `=${show(v)}`}`
}

/** Leaf paths whose values differ, as [path, new value (undefined: removed)]. */
function diffLeaves(a: Json | undefined, b: Json | undefined, path: string[], out: [string[], Json | undefined][]): void {
  if ((isObj(a) || a === undefined) && (isObj(b) || b === undefined) && (a !== undefined || b !== undefined)) {
    a = a ?? {}
    b = b ?? {}
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) diffLeaves((a as { [k: string]: Json })[k], (b as { [k: string]: Json })[k], [...path, k], out)
    return
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push([path, b])
}

function workloadLabel(w: { [k: string]: Json }, sameType: number): string {
  const type = typeof w.type === 'string' ? w.type : ''
  const name = typeof w.name === 'string' ? w.name : ''
  if (name && (name !== type || sameType > 1)) return name
  return TYPE_ABBREV[type] ?? (name || type || 'workload')
}

function describeWorkloads(a: Json | undefined, b: Json | undefined): string[] {
  const before = Array.isArray(a) ? a.filter(isObj) : []
  const after = Array.isArray(b) ? b.filter(isObj) : []
  const key = (w: { [k: string]: Json }, i: number) => (typeof w.name === 'string' ? `n:${w.name}` : `i:${i}`)
  const typeCount = (list: { [k: string]: Json }[], t: Json) => list.filter((w) => w.type === t).length
  const prev = new Map(before.map((w, i) => [key(w, i), w]))
  const out: string[] = []
  after.forEach((w, i) => {
    const label = workloadLabel(w, typeCount(after, w.type))
    const old = prev.get(key(w, i))
    prev.delete(key(w, i))
    if (!old) {
      out.push(`+${label}`)
      return
    }
    const changes: [string[], Json | undefined][] = []
    diffLeaves(old, w, [], changes)
    const parts = changes.filter(([p]) => p[0] !== 'name').map(([p, v]) => fieldChange(p[p.length - 1], v))
    if (parts.length) out.push(`${label} ${parts.join(' ')}`)
  })
  for (const w of prev.values()) out.push(`-${workloadLabel(w, typeCount(before, w.type))}`)
  return out
}

function describeVariants(a: Json | undefined, b: Json | undefined): string[] {
  const names = (v: Json | undefined) => (Array.isArray(v) ? v.filter(isObj).map((x) => String(x.name ?? '')) : [])
  const before = names(a)
  const after = names(b)
  const added = after.filter((n) => !before.includes(n)).map((n) => `+${n}`)
  const removed = before.filter((n) => !after.includes(n)).map((n) => `-${n}`)
  if (added.length || removed.length) return [`variants ${[...added, ...removed].join(' ')}`]
  return JSON.stringify(a) === JSON.stringify(b) ? [] : ['variants edited']
}

/** What changed from `prev` to `next`, most telling first; [] when nothing did. */
export function describeChanges(prev: RunFacts, next: RunFacts, limit = 4): string[] {
  const a = parse(prev.text)
  const b = parse(next.text)
  if (!isObj(a) || !isObj(b)) return prev.text === next.text ? [] : ['scenario edited']
  const out: string[] = [...describeWorkloads(a.workloads, b.workloads)]
  const rest: [string[], Json | undefined][] = []
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (['name', 'workloads', 'variants', 'durationMs', 'seeds', 'description'].includes(k)) continue
    diffLeaves(a[k], b[k], [k], rest)
  }
  for (const [p, v] of rest) out.push(fieldChange(p[p.length - 1], v))
  out.push(...describeVariants(a.variants, b.variants))
  if (prev.durationMs !== next.durationMs) out.push(`duration ${withUnit('durationMs', next.durationMs)!.text}`)
  if (prev.seeds !== next.seeds) out.push(`${next.seeds} seed${next.seeds === 1 ? '' : 's'}`)
  return out.length > limit ? [...out.slice(0, limit), `+${out.length - limit} more`] : out
}

/** "base · hb groups=2, ct slice 4 ms", or `base` when there is no earlier run or no change. */
export function runName(base: string, prev: RunFacts | null, next: RunFacts): string {
  if (!prev) return base
  const changes = describeChanges(prev, next)
  return changes.length ? `${base} · ${changes.join(', ')}` : base
}
