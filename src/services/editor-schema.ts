import type { NamedDoc } from '../shared/ipc'
import { alternatives, pointerTarget, type Schema } from '../shared/json-schema-nodes'

/**
 * Completion and hover docs for the editor come from the scenario's JSON Schema through
 * Monaco's JSON worker. This adds the registries (patch names, sched_feat flags, topology
 * presets, workload types) at the places of the schema that take them, without narrowing
 * what validates: names are offered through an `anyOf` branch next to the original schema.
 */

function child(node: Schema, seg: string): Schema[] {
  const out: Schema[] = []
  if (seg === '*') {
    if (node.items && typeof node.items === 'object' && !Array.isArray(node.items)) out.push(node.items as Schema)
    for (const k of ['items', 'prefixItems']) {
      const v = node[k]
      if (Array.isArray(v)) out.push(...(v.filter((s) => s && typeof s === 'object') as Schema[]))
    }
    return out
  }
  const props = node.properties as Record<string, Schema> | undefined
  if (props && typeof props[seg] === 'object') out.push(props[seg])
  return out
}

/** Schema nodes at a path (`*` = any array item), with their alternatives unfolded. */
export function schemaNodesAt(root: Schema, path: readonly string[]): Schema[] {
  let nodes = alternatives(root, root)
  for (const seg of path) {
    const next: Schema[] = []
    for (const n of nodes) for (const c of child(n, seg)) next.push(...alternatives(root, c))
    nodes = [...new Set(next)]
  }
  return nodes
}

const isStringish = (n: Schema): boolean => n.type === 'string' || (n.type === undefined && n.enum === undefined && n.const === undefined && !n.anyOf && !n.oneOf && !n.properties)

/** Offer `names` for string nodes at `path`, keeping whatever those nodes already accept. */
function offerNames(root: Schema, path: string[], names: readonly NamedDoc[]): number {
  if (names.length === 0) return 0
  let n = 0
  for (const node of schemaNodesAt(root, path).filter(isStringish)) {
    const original = { ...node }
    for (const k of Object.keys(node)) delete node[k]
    if (original.description) node.description = original.description
    node.anyOf = [
      {
        type: 'string',
        enum: names.map((x) => x.name),
        markdownEnumDescriptions: names.map((x) => x.doc),
        enumDescriptions: names.map((x) => x.doc)
      },
      original
    ]
    n++
  }
  return n
}

/** Add one documented boolean property per flag to object nodes at `path`. */
function offerFlags(root: Schema, path: string[], flags: readonly NamedDoc[]): number {
  let n = 0
  for (const node of schemaNodesAt(root, path).filter((x) => x.type === 'object' || x.properties || x.additionalProperties)) {
    const props = (node.properties ??= {}) as Record<string, Schema>
    for (const f of flags) props[f.name] ??= { type: 'boolean', description: f.doc, markdownDescription: f.doc }
    n++
  }
  return n
}

function hasLiteral(nodes: Schema[]): boolean {
  return nodes.some((x) => x.const !== undefined || Array.isArray(x.enum))
}

export interface EditorLists {
  workloadTypes: readonly NamedDoc[]
  patches: readonly NamedDoc[]
  features: readonly NamedDoc[]
  topologies: readonly NamedDoc[]
}

/**
 * A local `$ref` that points nowhere makes the JSON worker flag every document at line 1; such
 * a node accepts anything instead (validation proper is the scenario parser's job).
 */
export function dropDanglingRefs(root: Schema): string[] {
  const dropped: string[] = []
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return
    if (Array.isArray(node)) return node.forEach(visit)
    const n = node as Schema
    if (typeof n.$ref === 'string' && n.$ref.startsWith('#/') && pointerTarget(root, n.$ref) === undefined) {
      dropped.push(n.$ref)
      delete n.$ref
    }
    for (const v of Object.values(n)) visit(v)
  }
  visit(root)
  return dropped
}

/** A copy of `schema` carrying the registries for completion and hover. */
export function augmentSchema(schema: Record<string, unknown>, lists: EditorLists): Record<string, unknown> {
  const root = structuredClone(schema) as Schema
  dropDanglingRefs(root)
  offerNames(root, ['variants', '*', 'patches', '*'], lists.patches)
  offerNames(root, ['topology'], lists.topologies)
  offerFlags(root, ['kernel', 'features'], lists.features)
  offerFlags(root, ['variants', '*', 'features'], lists.features)
  // Workload types usually come as `const` per workload schema already; add them only if not.
  if (!hasLiteral(schemaNodesAt(root, ['workloads', '*', 'type']))) offerNames(root, ['workloads', '*', 'type'], lists.workloadTypes)
  return root
}
