/**
 * Folders are made one level at a time (src/trace/make-dirs.ts), never with Node's recursive
 * mkdir, which spins at 100 % of a core for ever on a path inside /proc: the caches of real and
 * VM runs (the native helper, rt-app's calibration, kernels and guest images), their trace
 * folders, and every other folder the product makes. Each case runs in its own process with a
 * time limit, so a regression fails instead of hanging the tests.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tsxWorkerExecArgv } from '../services/tsx-worker'

const ROOT = resolve(__dirname, '../..')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return e.name === '__fixtures__' || e.name === 'node_modules' ? [] : sources(p)
    return /\.(ts|mts)$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [p] : []
  })
}

/** Run `code` (CommonJS, TypeScript modules loadable) in a child with `env`; at most 20 s. */
function child(code: string, env: Record<string, string>): { status: number | null; out: string; timedOut: boolean } {
  const r = spawnSync(process.execPath, [...tsxWorkerExecArgv(), '-e', code], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 })
  return { status: r.status, out: `${r.stdout}${r.stderr}`, timedOut: (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT' }
}

describe('folders are made without recursive mkdir', () => {
  it('no product code, script or test support calls mkdir with { recursive: true }', () => {
    const found = [join(ROOT, 'src'), join(ROOT, 'scripts'), join(ROOT, 'e2e')].flatMap(sources)
      .filter((f) => /mkdir(Sync)?\([^)]*recursive/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f))
    expect(found).toEqual([])
  })

  it('the real runs\' helper cache inside /proc: a clear error at once', () => {
    const r = child(`
      try { require('./src/real/helper.ts').ensureHelper(); console.log('built') }
      catch (e) { console.log('error: ' + e.message) }`, { XDG_CACHE_HOME: '/proc/schedlab-x' })
    expect(r.timedOut).toBe(false)
    expect(r.out).toContain('error: cannot create the folder /proc/schedlab-x: this file system takes no new folders')
  })

  it('the VM cache and a trace folder inside /proc or under a file: a clear error at once', () => {
    for (const dir of ['/proc/schedlab-x/vm', '/dev/null/x']) {
      const r = child(`
        const { vmCacheDir } = require('./src/vm/images.ts')
        const { makeDirs } = require('./src/trace/make-dirs.ts')
        try { makeDirs(vmCacheDir('/unused')); console.log('made') }
        catch (e) { console.log('error: ' + e.message) }`, { SCHEDLAB_VM_CACHE: dir })
      expect(r.timedOut).toBe(false)
      expect(r.out).toMatch(/error: cannot create the folder \/(proc\/schedlab-x|dev\/null\/x): (this file system takes no new folders|a file is in the way|a part of the path is a file, not a folder)/)
    }
  })
})
