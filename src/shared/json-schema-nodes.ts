/**
 * Walking a JSON Schema document: local `$ref`s followed, and a node unfolded into the
 * alternatives it stands for (anyOf/oneOf/allOf). The editor's schema (services/editor-schema.ts)
 * and the editor's completion (renderer/src/editor/completion.ts) both read schemas this way.
 */

export type Schema = Record<string, unknown>

export const isSchema = (v: unknown): v is Schema => !!v && typeof v === 'object' && !Array.isArray(v)

/** What a local JSON pointer (`#/$defs/X`) names, or undefined. */
export function pointerTarget(root: Schema, ref: string): unknown {
  let target: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    target = isSchema(target) ? target[key] : undefined
  }
  return target
}

/** The node a chain of local references ends at (the node itself when it has none). */
export function resolveRef(root: Schema, node: Schema): Schema {
  let cur = node
  for (let guard = 0; guard < 32 && typeof cur.$ref === 'string' && cur.$ref.startsWith('#/'); guard++) {
    const target = pointerTarget(root, cur.$ref)
    if (!isSchema(target)) break
    cur = target
  }
  return cur
}

/**
 * The node and every alternative it unfolds into (anyOf/oneOf/allOf, references followed).
 * `choose` may keep fewer of an anyOf's or oneOf's alternatives (allOf's all apply).
 */
export function alternatives(root: Schema, node: Schema, choose?: (alts: Schema[]) => Schema[], seen = new Set<Schema>()): Schema[] {
  const n = resolveRef(root, node)
  if (seen.has(n)) return []
  seen.add(n)
  const out = [n]
  for (const k of ['anyOf', 'oneOf', 'allOf']) {
    const list = n[k]
    if (!Array.isArray(list)) continue
    const alts = list.filter(isSchema).map((a) => resolveRef(root, a))
    for (const a of choose && k !== 'allOf' ? choose(alts) : alts) out.push(...alternatives(root, a, choose, seen))
  }
  return out
}
