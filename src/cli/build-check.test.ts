import { afterEach, describe, expect, it } from 'vitest'
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt } from './build-check'

/**
 * `schedlab serve` on a fresh clone builds the workbench first: one line says so, the build's
 * own output stays behind it (shown when the build fails, or with --verbose).
 */
describe('building the workbench before serving it', () => {
  const roots: string[] = []
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
  })

  /** A project whose "electron-vite build" prints a page of output and writes out/ (or fails). */
  function fakeProject(fail = false): string {
    const root = mkdtempSync(join(tmpdir(), 'schedlab-build-check-'))
    roots.push(root)
    mkdirSync(join(root, 'src', 'renderer'), { recursive: true })
    writeFileSync(join(root, 'src', 'renderer', 'main.ts'), '')
    const old = new Date(Date.now() - 60_000)
    utimesSync(join(root, 'src', 'renderer', 'main.ts'), old, old)
    mkdirSync(join(root, 'node_modules', 'electron-vite', 'bin'), { recursive: true })
    writeFileSync(join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), `
      const fs = require('node:fs')
      for (let i = 0; i < 40; i++) console.log('vite output line ' + i)
      console.error('a warning on stderr')
      if (${fail}) process.exit(1)
      for (const f of ['out/main/index.js', 'out/preload/index.js', 'out/renderer/index.html']) {
        fs.mkdirSync(require('node:path').dirname(f), { recursive: true }); fs.writeFileSync(f, '')
      }
    `)
    return root
  }

  it('says one line and keeps the build output behind it', () => {
    const root = fakeProject()
    const logged: string[] = []
    ensureBuilt(root, { log: (t) => logged.push(t) })
    expect(logged).toEqual(['schedlab: building the workbench… (out/ is missing or older than the sources)'])
    // current now: nothing at all the second time
    ensureBuilt(root, { log: (t) => logged.push(t) })
    expect(logged).toHaveLength(1)
  })

  it('shows the build output when the build fails', () => {
    const root = fakeProject(true)
    const logged: string[] = []
    expect(() => ensureBuilt(root, { log: (t) => logged.push(t) })).toThrow(/building the workbench failed/)
    expect(logged).toHaveLength(2)
    expect(logged[1]).toContain('vite output line 39')
    expect(logged[1]).toContain('a warning on stderr')
  })
})
