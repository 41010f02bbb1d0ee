import { describe, expect, it } from 'vitest'
import { augmentSchema, schemaNodesAt } from './editor-schema'

// The shape zod's toJSONSchema produces: refs into $defs, anyOf for unions, records as additionalProperties.
const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    topology: { anyOf: [{ type: 'string', description: 'preset name' }, { $ref: '#/$defs/Topo' }] },
    kernel: { type: 'object', properties: { features: { $ref: '#/$defs/Features' } } },
    variants: { type: 'array', items: { type: 'object', properties: { patches: { type: 'array', items: { type: 'string', minLength: 1 } }, features: { $ref: '#/$defs/Features' } } } },
    workloads: { type: 'array', items: { oneOf: [
      { type: 'object', properties: { type: { const: 'cyclictest' } } },
      { type: 'object', properties: { type: { const: 'hog' } } }
    ] } }
  },
  $defs: {
    Features: { type: 'object', additionalProperties: { type: 'boolean' } },
    Topo: { type: 'object', properties: { name: { type: 'string' } } }
  }
}

const lists = {
  workloadTypes: [{ name: 'cyclictest', doc: 'c' }],
  patches: [{ name: 'short-slice-v1', doc: 'Seed 000' }, { name: 'dd-neglag', doc: 'Seed 002' }],
  features: [{ name: 'RUN_TO_PARITY', doc: 'protect the slice' }],
  topologies: [{ name: 'rb5', doc: 'Qualcomm RB5' }]
}

describe('augmentSchema', () => {
  const out = augmentSchema(schema, lists)

  it('offers patch names while still accepting other strings', () => {
    const [node] = schemaNodesAt(out, ['variants', '*', 'patches', '*']).filter((n) => Array.isArray(n.enum))
    expect(node.enum).toEqual(['short-slice-v1', 'dd-neglag'])
    expect(node.markdownEnumDescriptions).toEqual(['Seed 000', 'Seed 002'])
    const patches = (((out.properties as any).variants.items.properties.patches.items) as any)
    expect(patches.anyOf[1]).toEqual({ type: 'string', minLength: 1 })
  })

  it('documents feature flags in both feature objects, through refs', () => {
    const defs = (out.$defs as any).Features
    expect(defs.properties.RUN_TO_PARITY).toMatchObject({ type: 'boolean', description: 'protect the slice' })
    expect(defs.additionalProperties).toEqual({ type: 'boolean' })
  })

  it('offers topology presets on the string branch only', () => {
    const topo = (out.properties as any).topology
    expect(topo.anyOf[0].anyOf[0].enum).toEqual(['rb5'])
    expect(topo.anyOf[1]).toEqual({ $ref: '#/$defs/Topo' })
  })

  it('leaves workload types alone when the schema has them as constants', () => {
    expect(JSON.stringify((out.properties as any).workloads)).toBe(JSON.stringify(schema.properties.workloads))
  })

  it('does not modify its input', () => {
    expect((schema.$defs.Features as any).properties).toBeUndefined()
  })

  it('neutralizes local refs that point nowhere, keeping the rest', () => {
    const broken = { type: 'object', properties: { a: { $ref: '#/$defs/Missing', description: 'kept' }, b: { $ref: '#/$defs/There' } }, $defs: { There: { type: 'string' } } }
    const o = augmentSchema(broken, lists) as any
    expect(o.properties.a).toEqual({ description: 'kept' })
    expect(o.properties.b).toEqual({ $ref: '#/$defs/There' })
  })

  it('adds workload types where the schema has none', () => {
    const plain = { type: 'object', properties: { workloads: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } } } } } }
    const o = augmentSchema(plain, lists) as any
    expect(o.properties.workloads.items.properties.type.anyOf[0].enum).toEqual(['cyclictest'])
  })
})

describe('the editor schema and the parser agree', () => {
  it('accepts every preset and every rt-app example that the scenario parser accepts', async () => {
    const { default: Ajv2020 } = await import('ajv/dist/2020.js')
    const { existsSync, readdirSync, readFileSync } = await import('node:fs')
    const { join } = await import('node:path')
    const { parse } = await import('jsonc-parser')
    const { editorInfo, importRtApp, validate } = await import('./scenario-service')
    const check = new Ajv2020({ strict: false, allErrors: true }).compile(editorInfo().schema)
    const root = join(__dirname, '../..')
    const texts: [string, string][] = readdirSync(join(root, 'resources/scenarios')).map((f) => [f, readFileSync(join(root, 'resources/scenarios', f), 'utf8')])
    const examples = join(root, '../shared/rt-app-examples')
    // The rt-app examples sit beside the checkout (../shared); the presets are always here.
    for (const f of existsSync(examples) ? readdirSync(examples).filter((x) => x.endsWith('.json')) : []) {
      const r = importRtApp(readFileSync(join(examples, f), 'utf8'), f)
      if (r.ok) texts.push([`rt-app ${f}`, r.doc.text])
    }
    if (existsSync(examples)) expect(texts.filter(([n]) => n.startsWith('rt-app')).length).toBeGreaterThan(5)
    expect(texts.some(([, t]) => t.includes('"rt-app"'))).toBe(true)
    const refused = texts.filter(([name, text]) => validate(text, name).ok && !check(parse(text, [], { allowTrailingComma: true })))
      .map(([name]) => `${name}: ${JSON.stringify(check.errors?.slice(0, 3))}`)
    expect(refused).toEqual([])
  })
})
