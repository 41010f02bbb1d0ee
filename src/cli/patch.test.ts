import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from './index'
import { nodeIo, type CliIo } from './io'

/** The CLI's output captured, on the real file system (patch modules are files). */
function capture(): { io: CliIo; out: () => string; err: () => string } {
  let out = ''
  let err = ''
  const io: CliIo = { ...nodeIo(), out: (s) => (out += s), err: (s) => (err += s), errIsTty: false }
  return { io, out: () => out, err: () => err }
}

describe('schedlab patch and --patch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-patch-'))
  const saved = process.env.SCHEDLAB_USER_DATA
  beforeAll(() => {
    process.env.SCHEDLAB_USER_DATA = join(dir, 'data')
  })
  afterAll(() => {
    if (saved === undefined) delete process.env.SCHEDLAB_USER_DATA
    else process.env.SCHEDLAB_USER_DATA = saved
  })
  const scenario = (variants: unknown[]): string => {
    const f = join(dir, `s${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(f, JSON.stringify({ topology: 'smp-2', durationMs: 100, variants, workloads: [{ type: 'cyclictest', periodUs: 1000 }, { type: 'hog', count: 4 }] }))
    return f
  }

  it('writes a template into the library that checks, runs and is listed', async () => {
    const c = capture()
    expect(await runCli(['patch', 'new', 'lag-keep'], c.io)).toBe(0)
    const file = c.out().trim()
    expect(file).toBe(join(dir, 'data', 'patches', 'lag-keep.ts'))
    expect(readFileSync(file, 'utf8')).toMatch(/definePatch\(/)
    const chk = capture()
    expect(await runCli(['patch', 'check', file, '--json'], chk.io)).toBe(0)
    expect(JSON.parse(chk.out())).toMatchObject({ ok: true, name: 'lag-keep', hooks: ['placeEntity'], params: { keep: { default: 1 } }, features: { LAG_KEEP: { default: true } } })
    const again = capture()
    expect(await runCli(['patch', 'new', 'lag-keep'], again.io)).toBe(2)
    expect(again.err()).toMatch(/exists already/)
    const list = capture()
    expect(await runCli(['patches'], list.io)).toBe(0)
    expect(list.out()).toMatch(/lag-keep\s+.*lag-keep\.ts/)
    expect(list.out()).toMatch(/seed002-dd-neglag\s+\(example\)/)
    // by library name, with a parameter, in --json results with the source recorded
    const s = scenario([{ name: 'base' }, { name: 'half', patches: ['lag-keep'], patchParams: { 'lag-keep': { keep: 0.5 } } }])
    const run = capture()
    expect(await runCli(['run', s, '--json'], run.io)).toBe(0)
    const out = JSON.parse(run.out()) as { variants: { name: string; patchSources?: { name: string; sha256: string; source: string }[] }[] }
    expect(out.variants[0].patchSources).toBeUndefined()
    expect(out.variants[1].patchSources?.[0]).toMatchObject({ name: 'lag-keep', source: readFileSync(file, 'utf8') })
  })

  it('--patch adds a module to every variant that names none', async () => {
    const f = join(dir, 'mine.ts')
    writeFileSync(f, `export default { name: 'mine', hooks: { updateCurr(s: any, orig: any, cpu: number) { s.count('curr'); orig(cpu) } } }\n`)
    const s = scenario([{ name: 'a' }, { name: 'b', patches: ['dd-neglag'] }])
    const c = capture()
    expect(await runCli(['run', s, '--json', '--patch', f], c.io)).toBe(0)
    const out = JSON.parse(c.out()) as { variants: { patchSources?: { name: string }[]; counters?: Record<string, number> }[] }
    expect(out.variants[0].patchSources?.[0].name).toBe('mine')
    expect(out.variants[0].counters?.['patch.curr']).toBeGreaterThan(0)
    expect(out.variants[1].patchSources).toBeUndefined()
  })

  it('says where a patch is wrong, with exit 2', async () => {
    const bad = join(dir, 'bad.ts')
    writeFileSync(bad, 'export default {\n  name: "bad",\n  hooks: { pickEevdf(s, orig, cpu { } }\n}\n')
    const chk = capture()
    expect(await runCli(['patch', 'check', bad], chk.io)).toBe(2)
    expect(chk.err()).toMatch(/bad\.ts:3:\d+: /)
    const typo = join(dir, 'typo.ts')
    writeFileSync(typo, `export default { name: 'typo', params: { t: { default: 1, max: 2 } }, hooks: { pickEevdff() {} } }\n`)
    const t = capture()
    expect(await runCli(['patch', 'check', typo], t.io)).toBe(2)
    expect(t.err()).toMatch(/hooks\.pickEevdff: no such hook \(did you mean "pickEevdf"\?\)/)
    const thrower = join(dir, 'thrower.ts')
    writeFileSync(thrower, `export default {\n  name: 'thrower',\n  hooks: {\n    updateCurr(s: any, orig: any, cpu: number) {\n      if (s.now > 50e6) throw new RangeError('late')\n      orig(cpu)\n    }\n  }\n}\n`)
    const r = capture()
    expect(await runCli(['run', scenario([{ name: 'x', patches: [thrower] }])], r.io)).toBe(2)
    expect(r.err()).toMatch(/patch thrower \(.*thrower\.ts:5:\d+\) threw in updateCurr at 50\.\d{3} ms simulated: RangeError: late/)
    const v = capture()
    expect(await runCli(['validate', scenario([{ name: 'x', patches: ['./nope.ts'] }])], v.io)).toBe(2)
    expect(v.err()).toMatch(/variants\[0\]\.patches\[0\]: patch module "\.\/nope\.ts": no such file/)
  })
})
