import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { simulate } from '../sim/index'
import { parseScenario } from '../sim/scenario'
import { ScenarioError } from '../sim/scenario/errors'
import { HOOK_POINTS } from '../sim/patch-api/hook-points'
import { KERNEL_FN_NAMES } from '../sim/kernel/fns'
import { PatchError, evaluatePatch } from '../sim/patch-api/evaluate'
import { digestOf } from '../golden/cases'
import { listPresets } from './presets'
import { patchModuleFromText } from './patch-loader'

/** A scenario whose variants may name in-memory patch modules by their file name. */
function withModules(text: string, modules: Record<string, string>): ReturnType<typeof parseScenario> {
  return parseScenario(text, '/scenarios/s.json', {
    readPatch: (ref) => {
      const src = modules[ref]
      if (src === undefined) throw new PatchError(`no such file: ${ref}`, ref)
      return patchModuleFromText(src, ref)
    }
  })
}

const passThrough = `import { definePatch } from 'schedlab/patch'
export default definePatch({
  name: 'pass-through',
  hooks: {
${HOOK_POINTS.map((h) => `    ${h.name}(s, orig, a, b, c, d, e) { return orig(a, b, c, d, e) },`).join('\n')}
  }
})
`

function preset(id: string): { text: string; file: string } {
  const p = listPresets().find((x) => x.id === id)!
  return { text: readFileSync(p.file, 'utf8'), file: p.file }
}

describe('patch modules', () => {
  it('hook points cover every function of the kernel table, and only those', () => {
    expect(HOOK_POINTS.map((h) => h.name).sort()).toEqual([...KERNEL_FN_NAMES].sort())
  })

  it('a pass-through patch on every hook point changes no result', () => {
    const { text } = preset('cyclictest-hackbench-dd-neglag-rb5')
    const base = parseScenario(text, '/scenarios/s.json', { durationMs: 150 })
    const patched = withModules(text.replace('{ "name": "tip 8/20 ms" }', '{ "name": "tip 8/20 ms", "patches": ["./pass.ts"] }'), { './pass.ts': passThrough })
    const vi = base.variants.findIndex((v) => v.name === 'tip 8/20 ms')
    const a = simulate({ ...base, durationMs: 150 }, vi, 1)
    const b = simulate({ ...patched, durationMs: 150 }, vi, 1)
    expect(b.patchSources?.map((p) => p.name)).toEqual(['pass-through'])
    const { patchSources: _ps, ...bare } = b
    expect(digestOf(bare)).toBe(digestOf(a))
  })

  it('a patch that changes placement changes results, the same way every time', () => {
    const half = `import { definePatch, ENQUEUE_WAKEUP } from 'schedlab/patch'
export default definePatch({
  name: 'no-lag',
  params: { keep: { default: 0, min: 0, max: 1, doc: 'share of the lag kept' } },
  features: { NO_LAG_PLACE: { default: true } },
  hooks: {
    placeEntity(s, orig, cpu, se, flags) {
      if (s.feat.NO_LAG_PLACE && (flags & ENQUEUE_WAKEUP)) {
        s.task.vlag[se] = Math.trunc(s.task.vlag[se] * s.params.keep)
        s.count('placed')
      }
      orig(cpu, se, flags)
    }
  }
})
`
    const text = JSON.stringify({
      topology: 'smp-2', durationMs: 200,
      variants: [{ name: 'base' }, { name: 'no lag', patches: ['./half.ts'] }, { name: 'kept', patches: ['./half.ts'], patchParams: { 'no-lag': { keep: 1 } } }, { name: 'off', patches: ['./half.ts'], features: { NO_LAG_PLACE: false } }],
      workloads: [{ type: 'cyclictest', periodUs: 1000 }, { type: 'hog', count: 3 }]
    })
    const s = withModules(text, { './half.ts': half })
    const r = [0, 1, 2, 3].map((v) => simulate(s, v, 1))
    const again = simulate(s, 1, 1)
    expect(digestOf(again)).toBe(digestOf(r[1]))
    expect(r[1].counters?.['patch.placed']).toBeGreaterThan(0)
    expect(r[1].workloads[0].latencyUs).not.toEqual(r[0].workloads[0].latencyUs)
    const strip = (x: (typeof r)[number]): unknown => digestOf({ ...x, name: '', patchSources: undefined, counters: {} })
    // keep: 1 and the flag off both leave the model as it is
    expect(strip(r[2])).toBe(strip(r[0]))
    expect(strip(r[3])).toBe(strip(r[0]))
    expect(r[1].patchSources?.[0]).toMatchObject({ name: 'no-lag', file: './half.ts', source: half })
    expect(r[1].patchSources?.[0].sha256).toMatch(/^[0-9a-f]{64}$/)
  })

  it('locates problems in the file the researcher wrote', () => {
    // a syntax error: file, line and column, at the variant's entry
    const scenario = (patch: string): string => JSON.stringify({ topology: 'smp-2', durationMs: 50, variants: [{ name: 'a', patches: [patch] }], workloads: [{ type: 'hog', count: 3 }] })
    let err: unknown
    try {
      withModules(scenario('./bad.ts'), { './bad.ts': 'export default {\n  name: "x",\n  hooks: { placeEntity(s, orig, cpu { } }\n}\n' })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ScenarioError)
    expect(String((err as Error).message)).toMatch(/variants\[0\]\.patches\[0\]: patch module \.\/bad\.ts:3:\d+: /)
    // a hook that does not exist, and a wrong parameter, at evaluation
    const typo = patchModuleFromText(`export default { name: 'x', hooks: { placeEntitty(s, orig) {} } }`, 'typo.ts')
    expect(() => evaluatePatch(typo)).toThrow(/hooks\.placeEntitty: no such hook \(did you mean "placeEntity"\?\)/)
    // an exception while simulating: the hook, the line of the original TypeScript, the simulated time
    const thrower = `import type { Patch } from 'schedlab/patch'
type Unused = number

const patch: Patch = {
  name: 'thrower',
  hooks: {
    pickEevdf(s, orig, cpu, protect) {
      if (s.now > 20_000_000) throw new Error('too late')
      return orig(cpu, protect)
    }
  }
}
export default patch
`
    const s = withModules(scenario('./thrower.ts'), { './thrower.ts': thrower })
    expect(() => simulate(s, 0, 1)).toThrow(/patch thrower \(\.\/thrower\.ts:8:\d+\) threw in pickEevdf at 2\d\.\d{3} ms simulated: too late/)
  })

  it('keeps runs reproducible: Math.random is seeded, clocks are not available', () => {
    const rnd = (body: string): string => `export default { name: 'r', hooks: { updateCurr(s, orig, cpu) { ${body}; orig(cpu) } } }`
    const scenario = JSON.stringify({ topology: 'smp-2', durationMs: 50, variants: [{ name: 'a', patches: ['./r.ts'] }], workloads: [{ type: 'hog', count: 3 }] })
    const s = withModules(scenario, { './r.ts': rnd('if (Math.random() < 0.001) s.count("x")') })
    expect(digestOf(simulate(s, 0, 7))).toBe(digestOf(simulate(s, 0, 7)))
    const c = withModules(scenario, { './r.ts': rnd('Date.now()') })
    expect(() => simulate(c, 0, 1)).toThrow(/clocks are not available in a patch/)
  })
})

describe('docs/patches.md', () => {
  it('has the hook reference of today\'s hook points (npm run docs:patches)', async () => {
    const { withHookReference } = await import('../sim/patch-api/docs')
    const doc = readFileSync(new URL('../../docs/patches.md', import.meta.url), 'utf8')
    expect(withHookReference(doc)).toBe(doc)
  })
})

describe('hook wrappers', () => {
  it('pass each hook point its function\'s arguments', async () => {
    const { hookArity } = await import('../sim/patch-api/install')
    const { KERNEL_FNS } = await import('../sim/kernel/fns')
    for (const h of HOOK_POINTS) {
      // the model's function takes the kernel (or fair scheduler) first, then the hook's arguments
      const fn = KERNEL_FNS[h.name] as (...a: unknown[]) => unknown
      expect(hookArity(h.args), h.name).toBeGreaterThanOrEqual(fn.length - 1)
    }
  })
})
