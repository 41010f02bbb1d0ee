/**
 * `npm start` where the Electron binary cannot run (as on our machines): one line saying so,
 * then the same workbench through `schedlab serve` on the default data folder, its URL
 * printed and handed to the system's opener, and how to install Electron by hand.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ensureBuilt } from '../src/cli/serve'
import { ROOT } from './host'

describe('npm start without an Electron binary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-start-'))
  let child: ChildProcess | null = null
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const gone = new Promise((ok) => child!.once('exit', ok))
      child.kill('SIGTERM')
      await gone
    }
    rmSync(dir, { recursive: true, force: true })
  })

  it('falls back to the web host, prints its URL, opens it, and says how to install Electron', async () => {
    ensureBuilt()
    const opened = join(dir, 'opened.txt')
    const opener = join(dir, 'opener.sh')
    writeFileSync(opener, `#!/bin/sh\necho "$1" > '${opened}'\n`)
    chmodSync(opener, 0o755)
    let out = ''
    child = spawn(process.execPath, [join(ROOT, 'scripts/start.mjs')], {
      cwd: ROOT,
      env: { ...process.env, SCHEDLAB_START_NO_BUILD: '1', SCHEDLAB_ELECTRON: join(dir, 'no-electron-here'), SCHEDLAB_START_OPENER: opener, XDG_CONFIG_HOME: join(dir, 'config') },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    child.stdout!.on('data', (b: Buffer) => { out += b.toString() })
    await vi.waitFor(() => expect(existsSync(opened) && readFileSync(opened, 'utf8').trim()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/), { timeout: 90_000, interval: 100 })
    const url = readFileSync(opened, 'utf8').trim()
    const lines = out.split('\n')
    expect(lines[0]).toMatch(/^schedlab: the Electron binary cannot start \(.+\): opening the workbench in your browser instead, through schedlab serve$/)
    expect(lines[1]).toBe(url)
    await vi.waitFor(() => expect(out).toMatch(/install Electron 45 by hand: .*install\.js.*ELECTRON_OVERRIDE_DIST_PATH/), { timeout: 10_000 })
    const page = await fetch(url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<div id="app">')
    // the desktop app's data folder (XDG_CONFIG_HOME/schedlab), not a temporary one
    expect(existsSync(join(dir, 'config', 'schedlab'))).toBe(true)
    // Ctrl+C (or a TERM) stops the web host with it
    const exited = new Promise<number | null>((ok) => child!.once('exit', (code) => ok(code)))
    child.kill('SIGTERM')
    await exited
    await vi.waitFor(async () => expect(await fetch(url).then(() => 'up', () => 'down')).toBe('down'), { timeout: 15_000 })
  }, 120_000)
})
