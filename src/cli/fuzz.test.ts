/**
 * The deterministic fuzz of the scenario reader and CLI (src/cli/fuzz.ts): a few hundred mutated
 * presets, bad-input files and rt-app examples, each validated and, when valid, run briefly
 * in-process. Exit 0 or 2 only, no stack trace, bounded time. `npm run fuzz` runs thousands.
 */
import { describe, expect, it } from 'vitest'
import { Prng } from '../sim/engine/prng'
import { fuzzCases, fuzzSeeds, mutate, runFuzzCase } from './fuzz'

const CASES = 400
/** Per case (validate + short run), generous for a loaded 2-core CI machine. */
const CASE_MS = 10_000

describe('scenario fuzz', () => {
  const seeds = fuzzSeeds()

  it('draws on the presets, the bad-input corpus and (when present) the rt-app examples', () => {
    const groups = new Set(seeds.map((s) => s.group))
    expect(groups.has('presets')).toBe(true)
    expect(groups.has('bad')).toBe(true)
    expect(seeds.length).toBeGreaterThan(50)
  })

  it('is deterministic and covers every kind of mutation', () => {
    const a = fuzzCases(seeds, CASES, 1)
    const b = fuzzCases(seeds, CASES, 1)
    expect(a.map((c) => c.text)).toEqual(b.map((c) => c.text))
    const kinds = a.map((c) => c.mutation).join(' ')
    for (const k of ['truncate', 'flip', 'number', 'non-finite', 'key __proto__', 'key constructor', 'deep', 'huge string', 'type swap', 'delete', 'duplicate']) {
      expect(kinds).toContain(k)
    }
    expect(mutate('{"a": [1, {"b": "c"}]}', new Prng(3)).text).not.toBe('{"a": [1, {"b": "c"}]}')
  })

  it('2,000 nested arrays exit 2 naming file, line, column and JSON path (was exit 1, a stack overflow)', async () => {
    const text = `{ "topology": "smp-2",\n  "workloads": ${'['.repeat(2000)}${']'.repeat(2000)} }`
    const [o] = await runFuzzCase({ id: 0, seed: 'deep.json', mutation: 'none', text })
    expect(o.code).toBe(2)
    expect(o.stderr).toMatch(/^fuzz\/0-deep\.json:2:\d+: workloads(\[0\])+: nested deeper than \d+ levels/)
    expect(o.stderr.split('\n').filter(Boolean)).toHaveLength(1)
  })

  it(`${CASES} mutated inputs exit 0 or 2, never 1, never with a stack trace`, async () => {
    const broken: string[] = []
    const outcomes = new Map<string, number>()
    for (const c of fuzzCases(seeds, CASES, 1)) {
      for (const o of await runFuzzCase(c, { simulate: true })) {
        const key = `${o.command}=${o.code}`
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
        if (o.failure || o.ms > CASE_MS) broken.push(`case ${c.id} (${c.seed}: ${c.mutation}) ${o.command}: ${o.failure ?? `took ${o.ms.toFixed(0)} ms`}: ${o.stderr.slice(0, 300)}`)
      }
    }
    expect(broken).toEqual([])
    // Both paths are exercised: rejected inputs and inputs that still run.
    expect(outcomes.get('validate=2') ?? 0).toBeGreaterThan(CASES / 2)
    expect(outcomes.get('run=0') ?? 0).toBeGreaterThan(10)
  }, 240_000)
})
