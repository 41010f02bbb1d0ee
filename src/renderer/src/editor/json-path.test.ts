import { describe, expect, it } from 'vitest'
import { lineColAt, parseDisplayPath, rangeOfPath } from './json-path'

describe('issue paths', () => {
  it('parses display paths', () => {
    expect(parseDisplayPath('workloads[1].periodUs')).toEqual(['workloads', 1, 'periodUs'])
    expect(parseDisplayPath('(root)')).toEqual([])
    expect(parseDisplayPath('kernel.features["A.B"]')).toEqual(['kernel', 'features', 'A.B'])
    expect(parseDisplayPath('a..b')).toBeNull()
  })

  it('finds the range of a value, falling back to its parent', () => {
    const text = '{\n  // comment\n  "workloads": [ { "type": "hog" }, { "periodUs": -1, }, ],\n}'
    const r = rangeOfPath(text, 'workloads[1].periodUs')!
    expect(text.slice(r.offset, r.offset + r.length)).toBe('-1')
    expect(lineColAt(text, r.offset)).toEqual({ line: 3, column: 51 })
    const p = rangeOfPath(text, 'workloads[1].missing')!
    expect(text.slice(p.offset, p.offset + p.length)).toBe('{ "periodUs": -1, }')
    expect(rangeOfPath(text, '(root)')).toBeNull()
  })
})
