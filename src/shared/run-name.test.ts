import { describe, expect, it } from 'vitest'
import { describeChanges, runName, withUnit } from './run-name'

const scenario = (over: { hb?: object; ct?: object; top?: object; variants?: object[] } = {}) => `{
  // a comment that is no difference
  "name": "ct + hb",
  "topology": "rb5",
  "durationMs": 1000,
  ${over.top ? Object.entries(over.top).map(([k, v]) => `"${k}": ${JSON.stringify(v)},`).join('\n') : ''}
  "variants": ${JSON.stringify(over.variants ?? [{ name: 'base' }, { name: 'patched', patches: ['dd-neglag'] }])},
  "workloads": [
    ${JSON.stringify({ type: 'cyclictest', name: 'cyclictest', threads: 1, periodUs: 3777, sliceUs: 8000, ...over.ct })},
    ${JSON.stringify({ type: 'hackbench', name: 'hackbench', groups: 1, loops: 1000, ...over.hb })}
  ]
}`
const facts = (text: string, durationMs = 1000, seeds = 1) => ({ text, durationMs, seeds })

describe('run names', () => {
  it('say what differs from the last run of the scenario, with units', () => {
    const prev = facts(scenario())
    const next = facts(scenario({ hb: { groups: 2 }, ct: { sliceUs: 4000 } }))
    expect(describeChanges(prev, next)).toEqual(['ct slice 4 ms', 'hb groups=2'])
    expect(runName('ct + hb', prev, next)).toBe('ct + hb · ct slice 4 ms, hb groups=2')
  })

  it('name nothing when nothing changed, or when there is no earlier run', () => {
    const text = scenario()
    expect(runName('ct + hb', facts(text), facts(text.replace('a comment', 'another comment')))).toBe('ct + hb')
    expect(runName('ct + hb', null, facts(text))).toBe('ct + hb')
  })

  it('describe kernel flags, variants, workloads added or removed, duration and seeds', () => {
    const prev = facts(scenario())
    const next = facts(scenario({ top: { kernel: { features: { RUN_TO_PARITY: false } } }, variants: [{ name: 'base' }, { name: 'v2' }] }), 2000, 3)
    expect(describeChanges(prev, next, 10)).toEqual(['RUN_TO_PARITY off', 'variants +v2 -patched', 'duration 2 s', '3 seeds'])
    const fewer = facts(scenario().replace(/,\n\s*\{"type":"hackbench"[^\n]*/, ''))
    expect(describeChanges(prev, fewer)).toEqual(['-hb'])
    expect(describeChanges(fewer, prev)).toEqual(['+hb'])
    const removed = facts(scenario().replace(',"sliceUs":8000', ''))
    expect(describeChanges(prev, removed)).toEqual(['ct slice default'])
  })

  it('cap the list', () => {
    const prev = facts(scenario())
    const next = facts(scenario({ hb: { groups: 2, loops: 5 }, ct: { sliceUs: 4000, periodUs: 1000, threads: 2 } }))
    expect(describeChanges(prev, next, 2)).toEqual(['ct threads=2 period 1 ms slice 4 ms', 'hb groups=2 loops=5'])
    expect(describeChanges(prev, facts(scenario({ top: { a: 1, b: 2, c: 3 } })), 2)).toEqual(['a=1', 'b=2', '+1 more'])
  })

  it('format units', () => {
    expect(withUnit('sliceUs', 700)).toEqual({ label: 'slice', text: '700 us' })
    expect(withUnit('periodUs', 3777)).toEqual({ label: 'period', text: '3.777 ms' })
    expect(withUnit('publishedDurationMs', 130_000)).toEqual({ label: 'published duration', text: '130 s' })
    expect(withUnit('groups', 2)).toBeNull()
  })
})
