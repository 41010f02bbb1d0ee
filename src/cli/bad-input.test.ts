import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from './index'
import { memoryIo } from './io'

const dir = join(__dirname, 'fixtures', 'bad')
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()

describe('bad input corpus', () => {
  it('has at least 50 malformed scenarios and rt-app files', () => {
    expect(files.length).toBeGreaterThanOrEqual(50)
  })

  for (const f of files) {
    const expected = /^\/\/ expect: (.*)$/m.exec(readFileSync(join(dir, f), 'utf8'))?.[1]
    it(`${f}: exit 2 naming ${expected}`, async () => {
      for (const cmd of ['validate', 'run']) {
        const io = memoryIo()
        const code = await runCli([cmd, join(dir, f)], io, () => {
          throw new Error('must not simulate invalid input')
        })
        expect(code, io.stderr).toBe(2)
        expect(io.stdout).toBe('')
        expect(io.stderr).toContain(f)
        expect(io.stderr).toContain(`: ${expected}: `)
        expect(io.stderr).not.toMatch(/\n\s+at /)
      }
    })
  }
})
