import { describe, expect, it } from 'vitest'
import { looksLikeRtApp, suggestedFileName } from './editor'

describe('the editor\'s actions', () => {
  it('suggests the scenario\'s name when a new document is saved, not untitled.json', () => {
    expect(suggestedFileName('untitled.json', '{ "name": "ct under hackbench", "topology": "smp-2" }')).toBe('ct under hackbench.json')
    expect(suggestedFileName('untitled.json', '{ "name": "a/b: c?" }')).toBe('a-b- c-.json')
    expect(suggestedFileName('untitled.json', '{ "topology": "smp-2" }')).toBe('untitled.json')
    expect(suggestedFileName('mine.json', '{ "name": "other" }')).toBe('mine.json')
  })

  it('tells an rt-app file from a scenario', () => {
    expect(looksLikeRtApp('{ "tasks": {} }')).toBe(true)
    expect(looksLikeRtApp('{ "tasks": {}, "workloads": [] }')).toBe(false)
  })
})
