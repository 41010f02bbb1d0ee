/**
 * The built desktop main process (out/main/index.js, with its `?modulePath` worker chunk) run in
 * plain Node against a recording stand-in for `electron`: the window's security settings, the
 * session's CSP and permission refusal, navigation and pop-up blocking, the IPC surface, the
 * sender check, and a real run through the bundled worker.
 */
import { describe, expect, it } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { API_METHODS, ipcChannel } from '../src/shared/ipc'
import { rendererCsp } from '../src/shared/csp'
import { ensureBuilt } from '../src/cli/serve'
import { ROOT } from './host'

describe('desktop main bundle', () => {
  it('hardens the window and serves the API through its worker chunk', () => {
    ensureBuilt()
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-electron-'))
    try {
      const scenario = join(dir, 'smoke.json')
      writeFileSync(scenario, JSON.stringify({
        name: 'bundle smoke', topology: 'smp-2', durationMs: 200, seed: 1,
        variants: [{ name: 'base' }], workloads: [{ type: 'hog', name: 'hog', count: 1 }]
      }))
      const out = execFileSync(process.execPath, [join(__dirname, 'electron-stub.cjs'), join(ROOT, 'out/main/index.js'), join(dir, 'userData'), scenario], { encoding: 'utf8', timeout: 120_000 })
      const log = JSON.parse(out)
      const prefs = log.windows[0].webPreferences
      expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false })
      expect(prefs.preload).toMatch(/out[\\/]preload[\\/]index\.js$/)
      // The renderer comes from app://, a privileged standard scheme whose responses carry the CSP header.
      expect(log.loadedUrl).toBe('app://schedlab/index.html')
      expect(log.privileged).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } }])
      const page = log.protocol['app://schedlab/index.html']
      expect(page.status).toBe(200)
      expect(page.csp).toBe(rendererCsp())
      expect(page.body).toMatch(/^<!doctype html>/)
      expect(log.protocol['app://schedlab/%2e%2e/%2e%2e/package.json'].status).toBeGreaterThanOrEqual(400)
      expect(log.protocol['app://schedlab/../main/index.js'].status).toBeGreaterThanOrEqual(400)
      expect(log.frameNavigation).toEqual({ 'https://example.com/': 'prevented', 'app://schedlab/index.html': 'allowed' })
      expect(log.csp).toBe(rendererCsp())
      expect(log.permission).toBe(false)
      expect(log.navigation).toBe('prevented')
      expect(log.windowOpen).toBe('deny')
      expect(log.channels).toEqual(API_METHODS.map(ipcChannel).sort())
      expect(log.menu).toEqual(['&File', 'editMenu', '&Run', '&View', 'windowMenu', 'help'])
      expect(log.calls.listRuns).toEqual({ ok: true, value: { runs: [], problems: [] } })
      expect(log.calls.foreign).toEqual({ ok: false, error: 'refused: the call did not come from the schedlab window' })
      expect(log.calls.startRun.ok).toBe(true)
      const finished = log.sent.find((s: { channel: string }) => s.channel === 'schedlab:event:run-finished')
      expect(finished?.payload).toMatchObject({ status: 'done', errors: [] })
      expect(log.calls.listRunsAfter.value.runs).toHaveLength(1)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 180_000)
})
