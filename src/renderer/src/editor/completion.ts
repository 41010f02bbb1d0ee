/**
 * Completion and hovers of the scenario editor, from the scenario's JSON Schema read together
 * with the document: a workload offers `type` first and, once its type is chosen, that type's
 * fields only; a variant's workload overrides (`variants[i].workloads.NAME`) offer the fields of
 * the workload named NAME; a key is inserted as `"key": ` with a prompt for its value (the
 * allowed values offered at once where the schema lists them). Pure (no Monaco): the editor
 * turns these into Monaco's items (scenario-editor.ts).
 */
import { findNodeAtLocation, getLocation, getNodeValue, parseTree, type Node } from 'jsonc-parser'
import { alternatives, isSchema, resolveRef, type Schema } from '../../../shared/json-schema-nodes'
type Seg = string | number

export interface Completion {
  label: string
  /** Monaco snippet syntax. */
  insertText: string
  kind: 'property' | 'value'
  detail?: string
  /** Markdown. */
  documentation?: string
  /** The text offsets the completion replaces. */
  from: number
  to: number
  sortText: string
  preselect?: boolean
  /** Open the suggestions again once inserted: the prompt for a key's value. */
  retrigger?: boolean
}

export interface Hover {
  from: number
  to: number
  /** Markdown. */
  contents: string
}

/** What a variant may not change of a workload (the scenario parser refuses these). */
const NOT_OVERRIDDEN = new Set(['type', 'name', 'tasks', 'global', 'file'])

const isObj = isSchema
const deref = resolveRef

/** The literal a node fixes a property to (`const`, or a one-value `enum`). */
function literalOf(n: Schema): { value: unknown } | null {
  if (n.const !== undefined) return { value: n.const }
  if (Array.isArray(n.enum) && n.enum.length === 1) return { value: n.enum[0] }
  return null
}

/**
 * A node with its alternatives unfolded (anyOf/oneOf/allOf, references followed). Where `doc`
 * is an object, alternatives that fix a property to another value than the document's are
 * dropped (a workload's `type` picks its schema), except for `open` (the property being
 * completed) and unless none would be left.
 */
function unfold(root: Schema, node: Schema, doc?: unknown, open?: Seg): Schema[] {
  if (!isObj(doc)) return alternatives(root, node)
  return alternatives(root, node, (alts) => {
    const fitting = alts.filter((a) => !isObj(a.properties) || Object.entries(a.properties).every(([p, s]) => {
      if (p === open || !(p in doc) || !isObj(s)) return true
      const lit = literalOf(deref(root, s))
      return !lit || lit.value === doc[p]
    }))
    return fitting.length > 0 ? fitting : alts
  })
}

function children(n: Schema, seg: Seg): Schema[] {
  if (typeof seg === 'number') {
    if (Array.isArray(n.prefixItems) && isObj(n.prefixItems[seg])) return [n.prefixItems[seg] as Schema]
    return isObj(n.items) ? [n.items] : []
  }
  if (isObj(n.properties) && isObj(n.properties[seg])) return [n.properties[seg] as Schema]
  const out: Schema[] = []
  if (isObj(n.patternProperties)) {
    for (const [re, s] of Object.entries(n.patternProperties)) {
      try {
        if (isObj(s) && new RegExp(re).test(seg)) out.push(s)
      } catch { /* a pattern JavaScript cannot read matches nothing */ }
    }
  }
  if (out.length === 0 && isObj(n.additionalProperties)) out.push(n.additionalProperties)
  return out
}

/** The document's value at `path` (undefined where there is none). */
function docAt(tree: Node | undefined, path: Seg[]): unknown {
  const n = tree ? findNodeAtLocation(tree, path) : undefined
  return n ? getNodeValue(n) : undefined
}

/** The name a workload goes by (its `name`, else its type, type-2 ... as the parser names them). */
function workloadNames(workloads: unknown): string[] {
  if (!Array.isArray(workloads)) return []
  const count: Record<string, number> = {}
  return workloads.map((w) => {
    if (!isObj(w)) return ''
    const type = typeof w.type === 'string' ? w.type : ''
    count[type] = (count[type] ?? 0) + 1
    return typeof w.name === 'string' ? w.name : count[type] === 1 ? type : `${type}-${count[type]}`
  })
}

/**
 * Where the schema describes a path: a variant's override `variants[i].workloads.NAME.rest`
 * is described as `workloads[k].rest` of the workload named NAME.
 */
interface Target {
  path: Seg[]
  /** The override this path is in: the workload's name and index. */
  override?: { name: string; index: number }
}

function target(tree: Node | undefined, path: Seg[]): Target {
  if (path.length >= 4 && path[0] === 'variants' && typeof path[1] === 'number' && path[2] === 'workloads' && typeof path[3] === 'string') {
    const index = workloadNames(docAt(tree, ['workloads'])).indexOf(path[3])
    if (index >= 0) return { path: ['workloads', index, ...path.slice(4)], override: { name: path[3], index } }
  }
  return { path }
}

/**
 * The schema nodes at `path`, narrowed by the document's values on the way; `open` is the
 * property of the last one being written or read (its value does not narrow).
 */
function nodesAt(root: Schema, tree: Node | undefined, path: Seg[], open?: Seg): Schema[] {
  let nodes = unfold(root, root, docAt(tree, []), path.length > 0 ? path[0] : open)
  for (let i = 0; i < path.length; i++) {
    const doc = docAt(tree, path.slice(0, i + 1))
    const next: Schema[] = []
    for (const n of nodes) for (const c of children(n, path[i])) next.push(...unfold(root, c, doc, i + 1 < path.length ? path[i + 1] : open))
    nodes = [...new Set(next)]
  }
  return nodes
}

const describe = (n: Schema): string | undefined =>
  (typeof n.markdownDescription === 'string' ? n.markdownDescription : typeof n.description === 'string' ? n.description : undefined)

interface Literal {
  value: unknown
  doc?: string
}

/** The values the nodes allow one by one (enum, const, booleans), with their docs. */
function literals(nodes: Schema[]): Literal[] {
  const out: Literal[] = []
  const seen = new Set<string>()
  const add = (value: unknown, doc?: string) => {
    const key = JSON.stringify(value)
    if (seen.has(key)) return
    seen.add(key)
    out.push({ value, doc })
  }
  for (const n of nodes) {
    if (n.const !== undefined) add(n.const, describe(n))
    if (Array.isArray(n.enum)) {
      const docs = (Array.isArray(n.markdownEnumDescriptions) ? n.markdownEnumDescriptions : n.enumDescriptions) as unknown[] | undefined
      n.enum.forEach((v, i) => add(v, typeof docs?.[i] === 'string' ? (docs[i] as string) : undefined))
    }
    if (n.type === 'boolean') { add(true); add(false) }
    if (Array.isArray(n.examples)) for (const v of n.examples) add(v)
  }
  return out
}

function typeOf(nodes: Schema[]): string | undefined {
  for (const n of nodes) if (typeof n.type === 'string') return n.type
  return undefined
}

/** A short line on what a key takes: its type and range, or its values. */
function detailOf(nodes: Schema[]): string {
  const lits = literals(nodes)
  if (lits.length > 0 && lits.length <= 8) return lits.map((l) => JSON.stringify(l.value)).join(' | ')
  const t = typeOf(nodes) ?? ''
  const n = nodes.find((x) => x.minimum !== undefined || x.maximum !== undefined)
  return n && (t === 'integer' || t === 'number') ? `${t} ${n.minimum ?? ''}..${n.maximum ?? ''}` : t
}

const snippetEscape = (s: string): string => s.replace(/[\\$}]/g, (c) => `\\${c}`)

/** What follows `"key": `: the value's prompt (a tab stop, or its literals offered at once). */
function valuePrompt(nodes: Schema[]): { text: string; retrigger: boolean } {
  if (literals(nodes).length > 0) return { text: '$1', retrigger: true }
  switch (typeOf(nodes)) {
    case 'object': return { text: '{ $1 }', retrigger: false }
    case 'array': return { text: '[$1]', retrigger: false }
    case 'string': return { text: '"$1"', retrigger: false }
    default: {
      const d = nodes.find((n) => typeof n.default === 'number')?.default
      return { text: d !== undefined ? `\${1:${d}}` : '$1', retrigger: false }
    }
  }
}

/** The property names a group of schema nodes offers (properties, then plain pattern names). */
function propertyNames(nodes: Schema[]): { name: string; node: Schema }[] {
  const out = new Map<string, Schema>()
  for (const n of nodes) {
    if (isObj(n.properties)) for (const [k, s] of Object.entries(n.properties)) if (isObj(s) && !out.has(k)) out.set(k, s)
  }
  for (const n of nodes) {
    if (!isObj(n.patternProperties)) continue
    for (const [re, s] of Object.entries(n.patternProperties)) {
      const m = /^\^([A-Za-z_][A-Za-z0-9_]*)$/.exec(re)
      if (m && isObj(s) && !out.has(m[1])) out.set(m[1], s)
    }
  }
  return [...out].map(([name, node]) => ({ name, node }))
}

/**
 * The property that picks an object's schema among alternatives (a workload's `type`): one that
 * each of several alternatives fixes to its own value. Null where the nodes have no such choice.
 */
function discriminator(root: Schema, nodes: Schema[]): string | null {
  const objects = nodes.filter((n) => isObj(n.properties))
  if (objects.length < 2) return null
  const counts = new Map<string, Set<string>>()
  for (const n of objects) {
    for (const [k, s] of Object.entries(n.properties as Schema)) {
      const lit = isObj(s) ? literalOf(deref(root, s)) : null
      if (lit) (counts.get(k) ?? counts.set(k, new Set()).get(k)!).add(JSON.stringify(lit.value))
    }
  }
  for (const [k, values] of counts) if (values.size >= 2) return k
  return null
}

/** The span of the word or string at `offset` that a completion replaces. */
function spanAt(text: string, offset: number, node: Node | undefined): { from: number; to: number } {
  if (node && node.type !== 'object' && node.type !== 'array' && node.offset <= offset && offset <= node.offset + node.length) {
    return { from: node.offset, to: node.offset + node.length }
  }
  let from = offset
  while (from > 0 && /[\w"-]/.test(text[from - 1])) from--
  let to = offset
  // an auto-closed quote after the caret belongs to what is replaced
  if (text[from] === '"' && text[to] === '"') to++
  return { from, to }
}

const nextChar = (text: string, i: number): string => text.slice(i).trimStart()[0] ?? ''
const prevChar = (text: string, i: number): string => text.slice(0, i).trimEnd().slice(-1)

export function scenarioCompletions(schema: Schema, text: string, offset: number): Completion[] {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false })
  const loc = getLocation(text, offset)
  const path = loc.path as Seg[]
  if (loc.isAtPropertyKey || (path.length === 0 && prevChar(text, offset) === '{')) {
    return keyCompletions(schema, text, offset, tree, loc.isAtPropertyKey ? path.slice(0, -1) : [], loc.previousNode)
  }
  if (path.length === 0) return []
  return valueCompletions(schema, text, offset, tree, path, loc.previousNode)
}

function keyCompletions(root: Schema, text: string, offset: number, tree: Node | undefined, objectPath: Seg[], node: Node | undefined): Completion[] {
  const { from, to } = spanAt(text, offset, node?.type === 'string' ? node : undefined)
  const present = new Set(Object.keys((docAt(tree, objectPath) as Schema | undefined) ?? {}))
  const typed = node?.type === 'string' ? String(node.value) : ''
  present.delete(typed)
  const before = /[\]}"\de]/.test(prevChar(text, from)) && prevChar(text, from) !== '' ? ', ' : ''
  const after = nextChar(text, to) === '"' ? ',' : ''
  const out: Completion[] = []
  const key = (name: string, nodes: Schema[], sortText: string, doc?: string, preselect = false): void => {
    const v = valuePrompt(nodes)
    out.push({
      label: name, kind: 'property', from, to, sortText, preselect, retrigger: v.retrigger,
      insertText: `${before}${snippetEscape(JSON.stringify(name))}: ${v.text}${after}`,
      detail: detailOf(nodes), documentation: doc ?? nodes.map(describe).find((d) => d)
    })
  }

  // a variant's workloads: the names of the scenario's workloads
  if (objectPath.length === 3 && objectPath[0] === 'variants' && objectPath[2] === 'workloads') {
    const workloads = docAt(tree, ['workloads'])
    workloadNames(workloads).forEach((name, i) => {
      if (!name || present.has(name)) return
      const type = isObj((workloads as unknown[])[i]) ? String(((workloads as unknown[])[i] as Schema).type ?? '') : ''
      out.push({ label: name, kind: 'property', from, to, sortText: `0${i}`, insertText: `${before}${snippetEscape(JSON.stringify(name))}: { $1 }${after}`, detail: `workload ${i + 1}${type ? ` (${type})` : ''}`, documentation: `The fields of workload \`${name}\` this variant changes, e.g. \`{ "disabled": true }\`.` })
    })
    return out
  }

  const t = target(tree, objectPath)
  const nodes = nodesAt(root, tree, t.path)
  const d = discriminator(root, nodes)
  const chosen = d !== null ? docAt(tree, [...t.path, d]) : undefined
  if (d !== null && chosen === undefined && !t.override) {
    // the choice first (and preselected); then only what every alternative has in common
    if (!present.has(d)) key(d, nodes.flatMap((n) => (isObj(n.properties) && isObj(n.properties[d]) ? [deref(root, n.properties[d] as Schema)] : [])), '0', `Chooses the ${objectPath[0] === 'workloads' ? 'workload' : 'object'}'s kind, and with it the fields it takes.`, true)
    const alts = nodes.filter((n) => isObj(n.properties) && isObj(n.properties[d]))
    const common = propertyNames(alts).filter(({ name }) => name !== d && alts.every((a) => isObj(a.properties) && name in a.properties))
    for (const { name } of common) if (!present.has(name)) key(name, nodesAt(root, tree, [...t.path, name]), `1${name}`)
    return out
  }
  for (const { name } of propertyNames(nodes)) {
    if (present.has(name) || (t.override && NOT_OVERRIDDEN.has(name))) continue
    const own = t.override ? docAt(tree, [...t.path, name]) : undefined
    const doc = t.override ? overrideDoc(t.override.name, name, own, nodesAt(root, tree, [...t.path, name])) : undefined
    key(name, nodesAt(root, tree, [...t.path, name]), `1${name}`, doc)
  }
  return out
}

function overrideDoc(workload: string, key: string, own: unknown, nodes: Schema[]): string {
  const doc = nodes.map(describe).find((x) => x)
  const base = own === undefined ? 'not set there' : `\`${JSON.stringify(own)}\` there`
  return `Changes \`${key}\` of workload \`${workload}\` in this variant (${base}).${doc ? `\n\n${doc}` : ''}`
}

function valueCompletions(root: Schema, text: string, offset: number, tree: Node | undefined, path: Seg[], node: Node | undefined): Completion[] {
  const t = target(tree, path)
  const nodes = nodesAt(root, tree, t.path)
  // the values of a workload's type come with each type's description
  const last = t.path[t.path.length - 1]
  const parent = nodesAt(root, tree, t.path.slice(0, -1), last)
  const d = typeof last === 'string' ? discriminator(root, parent) : null
  const lits: Literal[] = d === last
    ? parent.flatMap((a) => {
      const s = isObj(a.properties) && isObj(a.properties[d]) ? literalOf(deref(root, a.properties[d] as Schema)) : null
      return s ? [{ value: s.value, doc: describe(a) }] : []
    })
    : literals(nodes)
  const literal = node && (node.type === 'string' || node.type === 'number' || node.type === 'boolean' || node.type === 'null') ? node : undefined
  const { from, to } = spanAt(text, offset, literal)
  const after = nextChar(text, to) === '"' ? ',' : ''
  return lits.map((l, i) => ({
    label: JSON.stringify(l.value), kind: 'value' as const, from, to, sortText: String(i).padStart(3, '0'),
    insertText: snippetEscape(JSON.stringify(l.value)) + after, documentation: l.doc
  }))
}

/** The hover at `offset`: a key's documentation (an override's with the workload's own value), a workload type's. */
export function scenarioHover(schema: Schema, text: string, offset: number): Hover | null {
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false })
  const loc = getLocation(text, offset)
  const node = loc.previousNode
  if (!node || node.offset > offset || offset > node.offset + node.length) return null
  const path = loc.path as Seg[]
  const span = { from: node.offset, to: node.offset + node.length }
  if (loc.isAtPropertyKey) {
    const keyPath = path
    const name = keyPath[keyPath.length - 1]
    if (typeof name !== 'string') return null
    // a variant's workloads: which workload a name is
    if (keyPath.length === 4 && keyPath[0] === 'variants' && keyPath[2] === 'workloads') {
      const t = target(tree, keyPath)
      if (!t.override) return { ...span, contents: `No workload is named \`${name}\` in this scenario.` }
      const w = docAt(tree, ['workloads', t.override.index]) as Schema | undefined
      return { ...span, contents: `Workload \`${name}\`${w && typeof w.type === 'string' ? ` (${w.type}, workloads[${t.override.index}])` : ''}: the fields this variant changes.` }
    }
    const t = target(tree, keyPath)
    const nodes = nodesAt(schema, tree, t.path)
    const parent = nodesAt(schema, tree, t.path.slice(0, -1), name)
    const d = discriminator(schema, parent)
    if (d === name) {
      const kinds = parent.flatMap((a) => (isObj(a.properties) && isObj(a.properties[d]) ? [literalOf(deref(schema, a.properties[d] as Schema))?.value] : []))
      return { ...span, contents: `**${name}**: which kind this is, and with it the fields it takes: ${kinds.map((k) => `\`${String(k)}\``).join(', ')}.` }
    }
    if (t.override) return { ...span, contents: overrideDoc(t.override.name, name, docAt(tree, t.path), nodes) }
    const doc = nodes.map(describe).find((x) => x)
    return doc ? { ...span, contents: `**${name}**: ${doc}` } : null
  }
  // a value: a workload type's description
  const t = target(tree, path)
  const last = t.path[t.path.length - 1]
  const parent = nodesAt(schema, tree, t.path.slice(0, -1), last)
  if (typeof last === 'string' && discriminator(schema, parent) === last) {
    const alt = parent.find((a) => isObj(a.properties) && isObj(a.properties[last]) && literalOf(deref(schema, a.properties[last] as Schema))?.value === node.value)
    const doc = alt ? describe(alt) : undefined
    return doc ? { ...span, contents: `**${String(node.value)}**: ${doc}` } : null
  }
  const lit = literals(nodesAt(schema, tree, t.path)).find((l) => l.value === node.value)
  return lit?.doc ? { ...span, contents: lit.doc } : null
}
