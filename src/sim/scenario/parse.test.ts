import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { estimateEvents, expandRuns, importRtApp, parseScenario, ScenarioError, scenarioJsonSchema } from './index'
import { scenarioReferenceMarkdown } from './docs'
import { WORKLOAD_TYPES } from './schema'
import type { CyclictestWorkload, RtAppWorkload, SchbenchWorkload } from './workload-specs'
import { issuesOf } from '../testing'


const base = { topology: 'smp-4', workloads: [{ type: 'hog' }] }

describe('parseScenario', () => {
  it('applies defaults into the normalized scenario', () => {
    const s = parseScenario(JSON.stringify(base), 'dir/my-test.json')
    expect(s.name).toBe('my-test')
    expect(s.durationMs).toBe(1000)
    expect(s.seed).toBe(1)
    expect(s.seeds).toBe(1)
    expect(s.kernel).toEqual({ hz: 250, profile: 'tip-2026', features: {} })
    expect(s.variants).toEqual([{ name: 'base', patches: [], features: {} }])
    expect(s.topology.clusters).toEqual([{ name: 'cpu', cpus: 4, capacity: 1024 }])
    expect(s.workloads[0]).toMatchObject({ type: 'hog', name: 'hog', policy: 'other', nice: 0, count: 1 })
  })

  it('names repeated workload types type-2, type-3 and derives the RT policy from priority', () => {
    const s = parseScenario(JSON.stringify({ topology: 'smp-2', workloads: [{ type: 'cyclictest' }, { type: 'cyclictest', priority: 80 }] }), 'x.json')
    expect(s.workloads.map((w) => w.name)).toEqual(['cyclictest', 'cyclictest-2'])
    expect(s.workloads[1]).toMatchObject({ policy: 'fifo', priority: 80 })
    expect((s.workloads[0] as CyclictestWorkload).periodUs).toBe(1000)
  })

  it('gives fifo cyclictest without priority the threads+1 priority, as cyclictest does', () => {
    const s = parseScenario(JSON.stringify({ topology: 'smp-2', workloads: [{ type: 'cyclictest', threads: 3, policy: 'fifo' }] }), 'x.json')
    expect(s.workloads[0].priority).toBe(4)
  })

  it('resolves schbench workers from the topology and derives the request work', () => {
    const s = parseScenario(JSON.stringify({ topology: 'smp-8', workloads: [{ type: 'schbench', messageThreads: 3 }] }), 'x.json')
    const w = s.workloads[0] as SchbenchWorkload
    expect(w.workers).toBe(3)
    // side = floor(sqrt(256 KiB / 3 / 8)) = 104; 5 x 104^3 multiply-adds at 0.5 ns.
    expect(w.requestWorkUs).toBeCloseTo((5 * 104 ** 3 * 0.5) / 1000, 6)
  })

  it('clamps slices like the kernel, with a warning', () => {
    const s = parseScenario(JSON.stringify({ topology: 'smp-2', workloads: [{ type: 'hog', sliceUs: 50 }] }), 'x.json')
    expect(s.workloads[0].sliceUs).toBe(100)
    expect(s.warnings?.join('\n')).toMatch(/workloads\[0\]\.sliceUs: slice 50 us clamped to 100 us/)
  })

  it('warns about duplicate keys outside rt-app sections (the last value wins)', () => {
    const s = parseScenario('{ "topology": "smp-2", "durationMs": 5, "durationMs": 7, "workloads": [{"type":"hog"}] }', 'x.json')
    expect(s.durationMs).toBe(7)
    expect(s.warnings?.[0]).toMatch(/x\.json:1:\d+: durationMs: duplicate key/)
  })

  it('reports every issue with file, JSON path, line and column, in reading order', () => {
    const text = '{\n  "topology": "smp-2",\n  "workloads": [\n    { "type": "cyclictest", "periodUS": 5 },\n    { "type": "hog", "cpus": [7] }\n  ],\n  "kernel": { "features": { "PREEMPT_SHORTT": true } }\n}'
    const e = issuesOf(() => parseScenario(text, 'bad.json'))
    expect(e.issues.map((i) => [i.path, i.line])).toEqual([
      ['workloads[0].periodUS', 4],
      ['workloads[1].cpus', 5],
      ['kernel.features.PREEMPT_SHORTT', 7]
    ])
    expect(e.issues[0].message).toContain('did you mean "periodUs"')
    expect(e.issues[2].message).toContain('did you mean "PREEMPT_SHORT"')
    expect(e.format().split('\n')[0]).toMatch(/^bad\.json:4:\d+: workloads\[0\]\.periodUS: unknown key/)
  })

  it('reports the first error, not its consequences; an unknown key with no close match lists the keys allowed there', () => {
    const text = JSON.stringify({
      topology: 'smp-2',
      workloads: [{ type: 'cyclictest', name: 'ct', intervalUs: 1000 }],
      variants: [{ name: 'a' }, { name: 'b', workloads: { ct: { threads: 2 } } }]
    })
    const e = issuesOf(() => parseScenario(text, 'x.json'))
    // the variant's reference to "ct" fails only because "ct" did not parse: not reported
    expect(e.issues.map((i) => i.path)).toEqual(['workloads[0].intervalUs'])
    expect(e.issues[0].message).toMatch(/^unknown key "intervalUs" \(cyclictest's keys: .*threads.*periodUs/)
    // a reference to a workload that is really missing still is
    const missing = issuesOf(() => parseScenario(JSON.stringify({ topology: 'smp-2', workloads: [{ type: 'hog' }], variants: [{ name: 'a', workloads: { ct: { threads: 2 } } }] }), 'x.json'))
    expect(missing.issues.map((i) => `${i.path}: ${i.message}`)).toEqual(['variants[0].workloads.ct: no workload named "ct" (workloads: hog)'])
  })

  it('checks patch and feature names against the registries', () => {
    const e = issuesOf(() =>
      parseScenario(JSON.stringify({ ...base, variants: [{ name: 'a', patches: ['short-slice-v1', 'nope'], features: { PLACE_LAG: false, FOO: true } }] }), 'x.json')
    )
    expect(e.issues.map((i) => i.path)).toEqual(['variants[0].patches[1]', 'variants[0].features.FOO'])
  })

  it('refuses a scenario whose event estimate is beyond the limit, saying how to raise it', () => {
    const text = JSON.stringify({ topology: 'smp-2', durationMs: 3_600_000, workloads: [{ type: 'cyclictest', threads: 4, periodUs: 100 }] })
    const e = issuesOf(() => parseScenario(text, 'x.json'))
    expect(e.issues[0].path).toBe('workloads[0]')
    expect(e.issues[0].message).toMatch(/about [\d.]+ million events/)
    expect(e.issues[0].message).toMatch(/--max-events \d+/)
    // ... and accepts it with the limit raised.
    expect(parseScenario(text, 'x.json', { maxEvents: 1e10 }).durationMs).toBe(3_600_000)
  })

  it('estimates events in proportion to the simulated time and the wakeup rate', () => {
    const mk = (ms: number, period: number) => parseScenario(JSON.stringify({ topology: 'smp-1', durationMs: ms, workloads: [{ type: 'cyclictest', periodUs: period }] }), 'x.json')
    const a = estimateEvents(mk(1000, 1000)).total
    expect(estimateEvents(mk(2000, 1000)).total).toBeCloseTo(2 * a, 6)
    expect(estimateEvents(mk(1000, 500)).workloads[0].events).toBeCloseTo(2 * estimateEvents(mk(1000, 1000)).workloads[0].events, 6)
  })

  it('reads an rt-app workload from a file relative to the scenario, locating its issues in that file', () => {
    const files: Record<string, string> = { 'dir/load.json': '{ "tasks": { "t": { "run": 100, "slep": 5 } } }' }
    const readFile = (p: string, from: string) => {
      const full = `${from.replace(/[^/]*$/, '')}${p}`
      if (!(full in files)) throw new Error('ENOENT')
      return { text: files[full], file: full }
    }
    const text = JSON.stringify({ topology: 'smp-2', workloads: [{ type: 'rt-app', file: 'load.json' }] })
    const e = issuesOf(() => parseScenario(text, 'dir/s.json', { readFile }))
    expect(e.issues[0]).toMatchObject({ file: 'dir/load.json', path: 'tasks.t.slep', line: 1 })
    files['dir/load.json'] = '{ "tasks": { "t": { "run": 100, "sleep": 5 } } }'
    const s = parseScenario(text, 'dir/s.json', { readFile })
    expect((s.workloads[0] as RtAppWorkload).source).toBe('dir/load.json')
  })

  it('applies workload-level defaults to rt-app tasks that do not set their own', () => {
    const s = parseScenario(JSON.stringify({ topology: 'smp-4', workloads: [{ type: 'rt-app', sliceUs: 16000, cpus: [1, 2], tasks: { a: { run: 1 }, b: { run: 1, cpus: [3], 'dl-runtime': 3000 } } }] }), 'x.json')
    const [a, b] = (s.workloads[0] as RtAppWorkload).rtapp.tasks
    expect(a.props).toMatchObject({ policy: 'other', priority: 0, sliceUs: 16000, cpus: [1, 2] })
    expect(b.props).toMatchObject({ sliceUs: 3000, cpus: [3] })
  })
})

describe('rt-app reading', () => {
  it('keeps duplicate keys in order and matches event keys by prefix (workgen-style files)', () => {
    const s = importRtApp('{ "tasks": { "t": { "loop": 2, "run": 1, "runtime3": 2, "sleep_b": 3, "run": 4, "memrun": { "size": 64 }, "mem": 8 } } }', 't.json', { topology: 'smp-2' })
    const ev = (s.workloads[0] as RtAppWorkload).rtapp.tasks[0].phases[0].events
    expect(ev.map((e) => e.kind)).toEqual(['run', 'runtime', 'sleep', 'run', 'work', 'work'])
    expect(ev.map((e) => e.key)).toEqual(['run', 'runtime3', 'sleep_b', 'run', 'memrun', 'mem'])
    expect(s.warnings?.some((w) => /memrun is modeled as CPU work/.test(w))).toBe(true)
  })

  it('reports an issue in a duplicated key at that occurrence', () => {
    const e = issuesOf(() => importRtApp('{ "tasks": { "t": {\n "run": 1,\n "run": "x" } } }', 't.json', { topology: 'smp-2' }))
    expect(e.issues[0]).toMatchObject({ path: 'tasks.t.run', line: 3 })
  })

  it('accepts value-less keys such as "suspend",', () => {
    const s = importRtApp('{ "tasks": { "a": { "loop": 1, "run": 5, "suspend", "run": 5 }, "b": { "loop": 1, "resume": "a" } } }', 'v.json', { topology: 'smp-2' })
    expect((s.workloads[0] as RtAppWorkload).rtapp.tasks[0].phases[0].events.map((e) => e.kind)).toEqual(['run', 'suspend', 'run'])
  })

  it('takes the duration from global.duration and the loop semantics of tasks without phases', () => {
    const s = importRtApp('{ "tasks": { "a": { "loop": 5, "run": 1 }, "b": { "run": 1 } }, "global": { "duration": 3 } }', 'd.json', { topology: 'smp-2' })
    expect(s.durationMs).toBe(3000)
    const [a, b] = (s.workloads[0] as RtAppWorkload).rtapp.tasks
    expect([a.loop, a.phases[0].loop]).toEqual([1, 5])
    expect([b.loop, b.phases[0].loop]).toEqual([-1, 1])
  })

  it('counts barrier participants per reference and instance, as rt-app does', () => {
    const s = importRtApp('{ "tasks": { "a": { "instance": 3, "barrier": "B", "run": 1 }, "b": { "barrier": "B", "run": 1 } } }', 'b.json', { topology: 'smp-2' })
    expect((s.workloads[0] as RtAppWorkload).rtapp.barriers).toEqual({ B: 4 })
  })

  it('marks a timer absolute when any of its users says so', () => {
    const s = importRtApp('{ "tasks": { "a": { "timer": { "ref": "t", "period": 100 } }, "b": { "timer": { "ref": "t", "period": 100, "mode": "absolute" } } } }', 't.json', { topology: 'smp-2' })
    const tasks = (s.workloads[0] as RtAppWorkload).rtapp.tasks
    expect(tasks.map((t) => t.phases[0].events[0])).toMatchObject([{ absolute: true }, { absolute: true }])
  })

  it('scales run by the calibration CPU capacity', () => {
    const topo = JSON.stringify({ topology: { name: 'bl', clusters: [{ name: 'l', cpus: 2, capacity: 256 }, { name: 'b', cpus: 2, capacity: 1024 }] }, workloads: [{ type: 'rt-app', global: { calibration: 'CPU0' }, tasks: { a: { run: 1 } } }] })
    expect((parseScenario(topo, 'x.json').workloads[0] as RtAppWorkload).rtapp.calibrationCapacity).toBe(256)
  })
})

describe('expandRuns', () => {
  const s = parseScenario(JSON.stringify({ ...base, seed: 7, seeds: 2, variants: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }), 'x.json')

  it('expands variants x seeds, variant-major', () => {
    expect(expandRuns(s).map((r) => [r.variant, r.variantIndex, r.seed])).toEqual([
      ['a', 0, 7], ['a', 0, 8], ['b', 1, 7], ['b', 1, 8], ['c', 2, 7], ['c', 2, 8]
    ])
  })

  it('filters variants in the order asked (the first is the baseline), overrides seeds and duration', () => {
    const runs = expandRuns(s, { variants: ['c', 'a'], seed: 100, seeds: 1, durationMs: 50 })
    expect(runs.map((r) => [r.variant, r.variantIndex, r.seed])).toEqual([['c', 2, 100], ['a', 0, 100]])
    expect(runs[0].scenario.durationMs).toBe(50)
    expect(s.durationMs).toBe(1000)
  })

  it('refuses unknown variants and a duration beyond the event limit', () => {
    expect(issuesOf(() => expandRuns(s, { variants: ['z'] })).issues[0]).toMatchObject({ path: '--variant' })
    const c = parseScenario(JSON.stringify({ topology: 'smp-2', workloads: [{ type: 'cyclictest', threads: 8, periodUs: 50 }] }), 'x.json')
    expect(issuesOf(() => expandRuns(c, { durationMs: 86_400_000 })).issues[0].message).toMatch(/refused/)
  })
})

describe('one schema source', () => {
  it('the JSON Schema for the editor knows workloads, rt-app events and feature names', () => {
    const js = scenarioJsonSchema() as { properties: Record<string, { items?: { oneOf?: unknown[] } }> }
    expect(Object.keys(js.properties)).toEqual(expect.arrayContaining(['topology', 'kernel', 'variants', 'workloads', 'durationMs']))
    const text = JSON.stringify(js)
    expect(text).toContain('"^runtime"')
    expect(text).toContain('"^barrier"')
    expect(text).toContain('"PREEMPT_SHORT"')
    expect(text).toContain('"short-slice-v1"')
    expect(js.properties.workloads.items?.oneOf?.length).toBe(WORKLOAD_TYPES.length)
  })

  it('every $ref of the editor schema resolves from the document root', () => {
    const js = scenarioJsonSchema()
    const refs = JSON.stringify(js).match(/"\$ref":"[^"]*"/g) ?? []
    expect(refs.length).toBeGreaterThan(0)
    for (const r of refs) {
      const path = r.slice(8, -1).replace(/^#\//, '').split('/')
      let node: unknown = js
      for (const part of path) node = (node as Record<string, unknown>)[part]
      expect(node, r).toBeTypeOf('object')
    }
  })

  it('docs/scenario.md is up to date (npm run docs:scenario)', () => {
    const committed = readFileSync(join(__dirname, '../../../docs/scenario.md'), 'utf8')
    expect(committed).toBe(scenarioReferenceMarkdown())
  })
})

const EXAMPLES = join(__dirname, '../../../../shared/rt-app-examples')

describe.runIf(existsSync(EXAMPLES))('rt-app example files (../shared/rt-app-examples)', () => {
  const names = existsSync(EXAMPLES) ? readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')) : []
  for (const f of names) {
    it(`${f} imports, or is refused naming the unsupported key and its JSON path`, () => {
      const text = readFileSync(join(EXAMPLES, f), 'utf8')
      try {
        const s = parseScenario(text, f, { topology: 'smp-4' })
        expect(s.workloads[0].type).toBe('rt-app')
      } catch (e) {
        if (!(e instanceof ScenarioError)) throw e
        expect(e.issues[0].path).toMatch(/^tasks\.\w+\.\w+/)
        expect(e.issues[0].message).toMatch(/not modeled|unsupported/)
        expect(e.issues[0].line).toBeGreaterThan(0)
      }
    })
  }
})

if (!existsSync(EXAMPLES)) {
  describe('rt-app example files', () => {
    it.skip(`SKIPPED: ${EXAMPLES} is absent (a fresh clone); the rt-app examples are not checked`, () => {})
  })
}

describe('variants that change the setup', () => {
  const text = JSON.stringify({
    topology: 'smp-4',
    workloads: [
      { type: 'cyclictest', periodUs: 2777, sliceUs: 8000 },
      { type: 'hog', name: 'stress', count: 4, disabled: true }
    ],
    variants: [
      { name: 'default slice', workloads: { cyclictest: { sliceUs: 0 } } },
      { name: '8 ms' },
      { name: '8 ms + stress', workloads: { stress: { disabled: false } } }
    ]
  })

  it('gives each run the variant\'s workloads; disabled workloads stay out', () => {
    const s = parseScenario(text, 'x.json')
    expect(s.workloads.map((w) => w.name)).toEqual(['cyclictest'])
    const runs = expandRuns(s)
    expect(runs.map((r) => r.scenario.workloads.map((w) => `${w.name}:${w.sliceUs ?? '-'}`))).toEqual([
      ['cyclictest:0'],
      ['cyclictest:8000'],
      ['cyclictest:8000', 'stress:-']
    ])
    expect(runs[2].scenario.workloads[1]).toMatchObject({ type: 'hog', count: 4 })
  })

  it('locates errors in a variant\'s overrides', () => {
    const bad = JSON.parse(text)
    bad.variants[0].workloads = { cyclictest: { periodUs: -1 }, nope: { sliceUs: 1 } }
    bad.variants[1].workloads = { stress: { type: 'periodic' } }
    const e = issuesOf(() => parseScenario(JSON.stringify(bad), 'x.json'))
    expect(e.issues.map((i) => i.path).sort()).toEqual(['variants[0].workloads.cyclictest.periodUs', 'variants[0].workloads.nope', 'variants[1].workloads.stress.type'])
  })

  it('refuses a variant with nothing to run', () => {
    const bad = JSON.parse(text)
    bad.variants[1].workloads = { cyclictest: { disabled: true } }
    expect(issuesOf(() => parseScenario(JSON.stringify(bad), 'x.json')).issues[0]).toMatchObject({ path: 'variants[1].workloads', message: expect.stringMatching(/every workload is disabled/) })
  })
})

describe('rtappScenarioText', () => {
  it('wraps an rt-app file in a scenario, keeping comments and duplicate keys', async () => {
    const { rtappScenarioText } = await import('./index')
    const rt = '{\n  /* doc */\n  "tasks": { "t": { "loop": 2, "run": 10, "sleep": 5, "run": 20 } },\n  "global": { "duration": 2 }\n}'
    const text = rtappScenarioText(rt, 'dir/x.json', { topology: 'smp-2' })
    expect(text).toContain('"run": 10, "sleep": 5, "run": 20')
    const s = parseScenario(text, 'x-scenario.json')
    expect(s.topology.name).toBe('smp-2')
    expect(s.durationMs).toBe(2000)
    expect((s.workloads[0] as RtAppWorkload).rtapp.tasks[0].phases[0].events.map((e) => e.key)).toEqual(['run', 'sleep', 'run'])
  })

  it('keeps the file\'s comments and indents the imported blocks as the scenario around them', async () => {
    const { rtappScenarioText } = await import('./index')
    const rt = [
      '// made for the 2-CPU board',
      '{',
      '\t/*',
      '\t * one thread: 2 ms of work every 10 ms',
      '\t */',
      '\t"tasks" : {',
      '\t\t// the only thread',
      '\t\t"thread0" : {',
      '\t\t\t"loop" : -1,',
      '\t\t\t"run" :   2000, /* 2 ms */',
      '\t\t\t"sleep" : 8000',
      '\t\t}',
      '\t},',
      '\t// two seconds',
      '\t"global" : { "duration" : 2 }',
      '}',
      '// end'
    ].join('\n')
    const text = rtappScenarioText(rt, 'ex.json', { topology: 'smp-2' })
    const lines = text.split('\n')
    const at = (s: string): number => lines.findIndex((l) => l.includes(s))
    // every comment of the file is there, once
    for (const c of ['// made for the 2-CPU board', '* one thread: 2 ms of work every 10 ms', '// the only thread', '/* 2 ms */', '// two seconds', '// end']) expect(text.split(c).length - 1, c).toBe(1)
    // the ones before a key stay before it; the others go under the import line
    expect(at('// made for the 2-CPU board')).toBe(1)
    expect(at('// end')).toBe(2)
    expect(at('* one thread')).toBe(at('"tasks"') - 2)
    expect(at('// two seconds')).toBe(at('"global"') - 1)
    // indented as the workload around them: two spaces a level, no tabs
    expect(text).not.toContain('\t')
    expect(lines[at('"tasks"')]).toBe('      "tasks": {')
    expect(lines[at('* one thread')]).toBe('       * one thread: 2 ms of work every 10 ms')
    expect(lines[at('"thread0"')]).toBe('        "thread0": {')
    expect(lines[at('"loop"')]).toBe('          "loop": -1,')
    expect(lines[at('"run"')]).toBe('          "run": 2000, /* 2 ms */')
    const s = parseScenario(text, 'ex-scenario.json')
    expect(s.durationMs).toBe(2000)
    expect((s.workloads[0] as RtAppWorkload).rtapp.tasks[0].phases[0].events.map((e) => e.key)).toEqual(['run', 'sleep'])
  })
})

describe('every problem in one pass', () => {
  const problems = (text: string): string[] => {
    try {
      parseScenario(text, 'p.json')
    } catch (e) {
      return (e as ScenarioError).issues.map((i) => `${i.path}: ${i.message}`)
    }
    return []
  }

  it('reports a bad top-level field together with the problems found past it', () => {
    expect(problems(JSON.stringify({
      topology: 'rb5', kernel: { hz: 251 }, durationMs: -5,
      variants: [{ name: 'a', patches: ['nope-patch'], features: { NOT_A_FLAG: true } }],
      workloads: [{ type: 'hog', name: 'h', nice: 99 }, { type: 'rt-app', name: 'r', tasks: { t: { run: 100, slep: 5 } } }]
    }))).toEqual(expect.arrayContaining([
      'kernel.hz: expected one of 100, 250, 300, 1000, got 251',
      'durationMs: must be >= 1, got -5',
      'workloads[0].nice: must be <= 19, got 99',
      expect.stringMatching(/^variants\[0\]\.patches\[0\]: unknown patch "nope-patch"/),
      expect.stringMatching(/^variants\[0\]\.features\.NOT_A_FLAG: unknown feature/),
      expect.stringMatching(/^workloads\[1\]\.tasks\.t\.slep: /)
    ]))
  })

  it('does not call a workload with problems of its own "disabled"', () => {
    const p = problems(JSON.stringify({ topology: 'rb5', workloads: [{ type: 'hog', name: 'h', nice: 99 }] }))
    expect(p).toEqual(['workloads[0].nice: must be <= 19, got 99'])
  })

  it('names the values a union accepts instead of "another shape"', () => {
    expect(problems(JSON.stringify({ topology: 'rb5', kernel: { hz: 251 }, workloads: [{ type: 'hog' }] }))).toEqual(['kernel.hz: expected one of 100, 250, 300, 1000, got 251'])
    expect(problems(JSON.stringify({ topology: 'rb5', kernel: { hz: 251 }, workloads: [{ type: 'hog' }] })).join('\n')).not.toMatch(/another shape/)
  })
})

describe('syntax error paths', () => {
  it('stop at the object when the error is inside a key being read', () => {
    const text = '{"topology":"rb5","workloads":[{"type":"hog"},{"type":"hog"},{"type":"hog", "name: "x"}]}'
    const e = issuesOf(() => parseScenario(text, 's.json'))
    expect(e.issues.length).toBeGreaterThan(0)
    for (const i of e.issues) {
      expect(i.path).toBe('workloads[2]')
      expect(i.line).toBe(1)
    }
  })
})
