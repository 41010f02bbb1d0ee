import { describe, expect, it } from 'vitest'
import { readLenient, toPlain } from './jsonc'

describe('lenient JSON reader', () => {
  it('accepts comments, trailing commas and value-less keys', () => {
    const doc = readLenient('{ /* c */ "a": 1, // line\n "suspend", "b": [1, 2,], }')
    expect(doc.errors).toEqual([])
    expect(toPlain(doc.root)).toEqual({ a: 1, suspend: null, b: [1, 2] })
  })

  it('keeps duplicate keys in document order', () => {
    const doc = readLenient('{"run": 1, "sleep": 2, "run": 3}')
    const root = doc.root
    expect(root?.kind).toBe('object')
    if (root?.kind !== 'object') return
    expect(root.entries.map((e) => [e.key, toPlain(e.value)])).toEqual([['run', 1], ['sleep', 2], ['run', 3]])
    // A plain reader keeps the last value, at the first key's position (json-c's rule).
    expect(Object.entries(toPlain(root) as object)).toEqual([['run', 3], ['sleep', 2]])
  })

  it('locates every JSON path by line and column', () => {
    const text = '{\n  "workloads": [\n    { "type": "hog",\n      "count": 2 }\n  ]\n}'
    const doc = readLenient(text)
    expect(doc.locate(['workloads', 0, 'count'])).toEqual({ line: 4, column: 16 })
    expect(doc.locate(['workloads', 0])).toEqual({ line: 3, column: 5 })
    // A missing key is located at its parent object.
    expect(doc.locate(['workloads', 0, 'nope'])).toEqual({ line: 3, column: 5 })
  })

  it('reports NaN, Infinity and out-of-range numbers with their position', () => {
    for (const [text, col] of [['{"a": NaN}', 7], ['{"a": Infinity}', 7], ['{"a": 1e999}', 7]] as const) {
      const doc = readLenient(text)
      expect(doc.errors.length).toBeGreaterThan(0)
      expect(doc.errors[0]).toMatchObject({ line: 1, column: col })
      expect(doc.errors[0].path).toEqual(['a'])
    }
  })

  it('reports broken JSON with the path of the enclosing value', () => {
    const doc = readLenient('{\n "workloads": [ { "type": "hog" "count": 1 } ]\n}')
    expect(doc.errors[0]).toMatchObject({ line: 2, message: expect.stringContaining('comma') })
    expect(doc.errors[0].path.slice(0, 2)).toEqual(['workloads', 0])
  })

  it('treats an empty file as an error', () => {
    expect(readLenient('  \n').errors[0].message).toMatch(/empty/)
  })

  it('does not let a "__proto__" key change the prototype', () => {
    const v = toPlain(readLenient('{"__proto__": {"polluted": true}}').root) as Record<string, unknown>
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.keys(v)).toEqual(['__proto__'])
  })
})
