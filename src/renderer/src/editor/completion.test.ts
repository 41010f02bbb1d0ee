import { describe, expect, it } from 'vitest'
import { scenarioCompletions, scenarioHover } from './completion'

/** The shape of the scenario's schema: workloads as alternatives picked by `type`, variants with overrides by workload name. */
const common = {
  name: { type: 'string', description: 'Unique name' },
  policy: { type: 'string', enum: ['other', 'fifo'], description: 'Scheduling policy' },
  disabled: { type: 'boolean' }
}
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    durationMs: { type: 'integer', default: 1000, minimum: 1 },
    kernel: { type: 'object', properties: { hz: { anyOf: [{ const: 100 }, { const: 250 }] } } },
    workloads: {
      type: 'array',
      items: {
        oneOf: [
          { type: 'object', description: 'cyclictest: timer wakeups', properties: { type: { type: 'string', const: 'cyclictest' }, ...common, periodUs: { type: 'number', description: 'Timer period' } } },
          { type: 'object', description: 'CPU hogs', properties: { type: { type: 'string', const: 'hog' }, ...common, count: { type: 'integer', default: 1 } } }
        ]
      }
    },
    variants: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, workloads: { type: 'object', additionalProperties: { type: 'object', additionalProperties: {} } } } }
    }
  }
}

const at = (text: string, tail = '') => scenarioCompletions(SCHEMA, text + tail, text.length)
const labels = (text: string, tail = '') => at(text, tail).map((c) => c.label)

describe('scenario completion', () => {
  it('offers type first in a workload, then the chosen type\'s fields only', () => {
    const none = at('{ "workloads": [ { ')
    expect(none[0]).toMatchObject({ label: 'type', insertText: '"type": $1', preselect: true, retrigger: true })
    // before the type: only what every type has
    expect(none.map((c) => c.label).sort()).toEqual(['disabled', 'name', 'policy', 'type'])
    expect(labels('{ "workloads": [ { "type": "hog", ')).toEqual(['name', 'policy', 'disabled', 'count'])
    expect(labels('{ "workloads": [ { "type": "cyclictest", "name": "ct", ')).toEqual(['policy', 'disabled', 'periodUs'])
  })

  it('inserts "key": with a prompt for the value, the values offered where the schema lists them', () => {
    const byLabel = (text: string) => Object.fromEntries(at(text).map((c) => [c.label, c]))
    const w = byLabel('{ "workloads": [ { "type": "hog", ')
    expect(w.policy).toMatchObject({ insertText: '"policy": $1', retrigger: true, detail: '"other" | "fifo"' })
    expect(w.count).toMatchObject({ insertText: '"count": ${1:1}', retrigger: false })
    expect(w.name.insertText).toBe('"name": "$1"')
    expect(byLabel('{ ').kernel.insertText).toBe('"kernel": { $1 }')
    expect(labels('{ "workloads": [ { "type": "hog", "policy": ')).toEqual(['"other"', '"fifo"'])
    expect(labels('{ "kernel": { "hz": ')).toEqual(['100', '250'])
    // the types, each with its description
    expect(at('{ "workloads": [ { "type": ').map((c) => [c.label, c.documentation])).toEqual([['"cyclictest"', 'cyclictest: timer wakeups'], ['"hog"', 'CPU hogs']])
    // a key typed in quotes is replaced whole; a comma where another key follows
    const typed = at('{ "workloads": [ { "type": "hog", "cou', '" "name": "h" } ] }')
    const count = typed.find((c) => c.label === 'count')!
    expect([count.from, count.to]).toEqual([34, 39])
    expect(count.insertText).toBe('"count": ${1:1},')
  })

  it('completes a variant\'s overrides with the fields of the workload they name', () => {
    const doc = '{ "workloads": [ { "type": "cyclictest", "name": "ct" }, { "type": "hog" } ], "variants": [ { "name": "b", "workloads": { '
    expect(labels(doc)).toEqual(['ct', 'hog'])
    expect(labels(`${doc}"ct": { `)).toEqual(['policy', 'disabled', 'periodUs'])
    expect(labels(`${doc}"hog": { `)).toEqual(['policy', 'disabled', 'count'])
    expect(labels(`${doc}"ct": { "policy": `)).toEqual(['"other"', '"fifo"'])
  })

  it('explains type, a type and override keys on hover', () => {
    const text = '{ "workloads": [ { "type": "cyclictest", "name": "ct", "periodUs": 1000 } ], "variants": [ { "name": "b", "workloads": { "ct": { "periodUs": 500 } } } ] }'
    const hover = (token: string, from = 0) => scenarioHover(SCHEMA, text, text.indexOf(token, from) + 2)?.contents
    expect(hover('"type"')).toBe('**type**: which kind this is, and with it the fields it takes: `cyclictest`, `hog`.')
    expect(hover('"cyclictest"')).toBe('**cyclictest**: cyclictest: timer wakeups')
    expect(hover('"periodUs"', text.indexOf('variants'))).toBe('Changes `periodUs` of workload `ct` in this variant (`1000` there).\n\nTimer period')
    expect(hover('"ct"', text.indexOf('variants'))).toBe('Workload `ct` (cyclictest, workloads[0]): the fields this variant changes.')
    expect(hover('"periodUs"')).toBe('**periodUs**: Timer period')
  })
})
