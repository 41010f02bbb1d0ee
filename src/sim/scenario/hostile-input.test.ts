/**
 * Scenario text crafted or broken the way a fuzzer or an attacker would: deep nesting,
 * prototype keys, huge strings. Each must give a ScenarioError naming file, line, column and
 * JSON path, never a stack overflow, a dropped key or a minutes-long check.
 */
import { describe, expect, it } from 'vitest'
import { MAX_NESTING, readLenient } from './jsonc'
import { parseScenario } from './index'
import { applySets, parseSetArg, type SetArg } from './set'
import { issuesOf } from '../testing'


const scenario = (extra: Record<string, unknown> = {}, workload: Record<string, unknown> = {}): string =>
  JSON.stringify({ topology: 'smp-2', durationMs: 100, workloads: [{ type: 'hog', ...workload }], ...extra })

describe('nesting depth', () => {
  it('limits nesting to a few hundred levels', () => {
    expect(MAX_NESTING).toBeGreaterThanOrEqual(100)
    expect(MAX_NESTING).toBeLessThanOrEqual(1000)
  })

  for (const depth of [1000, 2000, 100_000]) {
    it(`reports ${depth} nested arrays with line, column and JSON path`, () => {
      const text = `{\n  "topology": "smp-2",\n  "workloads": [{ "type": "hog", "cpus": ${'['.repeat(depth)}${']'.repeat(depth)} }]\n}`
      const e = issuesOf(() => parseScenario(text, 'deep.json'))
      expect(e.issues).toHaveLength(1)
      const i = e.issues[0]
      expect(i.message).toMatch(new RegExp(`nested deeper than ${MAX_NESTING} levels`))
      expect(i.line).toBe(3)
      expect(i.column).toBe(42 + MAX_NESTING - 3)
      expect(i.path).toBe(`workloads[0].cpus${'[0]'.repeat(MAX_NESTING - 3)}`)
      expect(e.format()).toMatch(/^deep\.json:3:\d+: workloads\[0\]\.cpus\[0\]/)
    })
  }

  it('reports deep objects and counts nesting inside strings and comments as text', () => {
    const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)
    const i = issuesOf(() => parseScenario(deep, 'objs.json')).issues[0]
    expect(i.path).toBe(Array(MAX_NESTING).fill('a').join('.'))
    const doc = readLenient(`{ "s": "${'['.repeat(5000)}", /* ${'{'.repeat(5000)} */ "n": [[1]] }`)
    expect(doc.errors).toEqual([])
  })

  it('accepts nesting up to the limit', () => {
    const doc = readLenient('['.repeat(MAX_NESTING) + ']'.repeat(MAX_NESTING))
    expect(doc.errors).toEqual([])
  })

  it('--set edits on a too-deep text leave it to the parser to report', () => {
    const text = `{"workloads": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`
    const set = parseSetArg('durationMs=5') as SetArg
    expect(applySets(text, [set])).toBe(text)
    expect(issuesOf(() => parseScenario(applySets(text, [set]), 'x.json')).issues[0].message).toMatch(/nested deeper/)
  })
})

describe('prototype keys', () => {
  const cases: [string, string, string][] = [
    ['top level', scenario({ __proto__x: 0 }).replace('"__proto__x"', '"__proto__"'), '__proto__'],
    ['top-level constructor', scenario({ constructor: 1 }), 'constructor'],
    ['workload', scenario({}, { prototype: 2 }), 'workloads[0].prototype'],
    ['kernel.features', scenario({ kernel: { features: { X: true } } }).replace('"X"', '"__proto__"'), 'kernel.features.__proto__'],
    ['kernel.features constructor', scenario({ kernel: { features: { constructor: true } } }), 'kernel.features.constructor'],
    ['variant features', scenario({ variants: [{ name: 'a', features: { X: true } }] }).replace('"X"', '"__proto__"'), 'variants[0].features.__proto__'],
    ['variant workloads', scenario({ variants: [{ name: 'a', workloads: { X: { count: 3 } } }] }).replace('"X"', '"__proto__"'), 'variants[0].workloads.__proto__'],
    ['rt-app phases', scenario({}, { type: 'rt-app', tasks: { t: { phases: { X: { run: 1 }, p: { run: 100 } } } } }).replace('"X"', '"__proto__"'), 'workloads[0].tasks.t.phases.__proto__'],
    ['rt-app tasks', scenario({}, { type: 'rt-app', tasks: { X: { run: 1 }, t: { run: 100 } } }).replace('"X"', '"prototype"'), 'workloads[0].tasks.prototype'],
    ['rt-app global', scenario({}, { type: 'rt-app', global: { X: 1 }, tasks: { t: { run: 100 } } }).replace('"X"', '"__proto__"'), 'workloads[0].global.__proto__']
  ]
  for (const [where, text, path] of cases) {
    it(`reports ${path} (${where}) as an unknown field, once`, () => {
      const e = issuesOf(() => parseScenario(text, 'p.json'))
      const at = e.issues.filter((i) => i.path === path)
      expect(at, e.format()).toHaveLength(1)
      expect(at[0].message).toMatch(/unknown/)
      expect(at[0].line).toBe(1)
    })
  }

  it('never pollutes Object.prototype', () => {
    const text = scenario({ variants: [{ name: 'a', workloads: { X: { polluted: true } } }] }).replace('"X"', '"__proto__"')
    issuesOf(() => parseScenario(text, 'p.json'))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('huge values', () => {
  it('checks a megabyte-long unknown name quickly and quotes it short', () => {
    const long = 'x'.repeat(1_000_000)
    const text = scenario({ variants: [{ name: 'a', patches: [long], features: { [long]: true } }] }, { [long]: 1 })
    const t0 = performance.now()
    const e = issuesOf(() => parseScenario(text, 'big.json'))
    expect(performance.now() - t0).toBeLessThan(10_000) // a quadratic check would take minutes; a loaded machine, a few seconds
    expect(e.issues.length).toBeGreaterThanOrEqual(3)
    expect(e.format().length).toBeLessThan(5000)
  })
})

describe('task limit', () => {
  it('is reported once', () => {
    const e = issuesOf(() => parseScenario(scenario({}, { count: 30_000 }), 't.json'))
    expect(e.issues.filter((i) => /tasks in total exceed/.test(i.message))).toHaveLength(1)
  })
})
