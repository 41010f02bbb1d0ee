import { describe, expect, it } from 'vitest'
import { parseScenario } from './index'
import { applySets, parseSetArg, setArgsOf, type SetArg } from './set'

const ok = (a: string): SetArg => {
  const r = parseSetArg(a)
  if (typeof r === 'string') throw new Error(r)
  return r
}

describe('--set PATH=VALUE', () => {
  it('parses paths as messages write them and values as JSON or text', () => {
    expect(ok('workloads[0].groups=4')).toMatchObject({ path: ['workloads', 0, 'groups'], value: 4 })
    expect(ok('workloads[1].mode=thread')).toMatchObject({ path: ['workloads', 1, 'mode'], value: 'thread' })
    expect(ok('tasks.t.dl-runtime=3000').path).toEqual(['tasks', 't', 'dl-runtime'])
    expect(ok('variants[0].features={"NEXT_BUDDY":true}').value).toEqual({ NEXT_BUDDY: true })
    expect(ok('["odd.key"]=1').path).toEqual(['odd.key'])
    for (const bad of ['nope', '=3', 'a..b=1', 'a[x]=1']) expect(typeof parseSetArg(bad)).toBe('string')
  })

  it('changes the text and keeps comments and the other lines in place', () => {
    const text = '{\n  // the load\n  "topology": "smp-4",\n  "workloads": [ { "type": "hackbench", "groups": 1 } ]\n}'
    const out = applySets(text, [ok('workloads[0].groups=8'), ok('workloads[0].mode=thread'), ok('durationMs=50')])
    expect(out).toContain('// the load')
    const s = parseScenario(out, 'x.json')
    expect(s.workloads[0]).toMatchObject({ groups: 8, mode: 'thread' })
    expect(s.durationMs).toBe(50)
  })

  it('takes a script\'s fixed edits as { PATH: VALUE }, and names a bad path', () => {
    const text = '{ "topology": "smp-2", "workloads": [ { "type": "hackbench", "loops": 100 } ] }'
    const s = parseScenario(applySets(text, setArgsOf({ 'workloads[0].loops': 4000, 'workloads[0].mode': 'thread' })), 'x.json')
    expect(s.workloads[0]).toMatchObject({ loops: 4000, mode: 'thread' })
    expect(setArgsOf({})).toEqual([])
    expect(() => setArgsOf({ 'a..b': 1 })).toThrow(/bad path "a..b"/)
  })
})
