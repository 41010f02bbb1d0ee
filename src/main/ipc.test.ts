import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { API_METHODS, ipcChannel, eventChannel } from '../shared/ipc'
import { createBackend, type Backend } from '../services/backend'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker, tempDir } from '../services/test-helpers'

// The Electron API the main-process modules use, as recording fakes.
const handlers = new Map<string, (event: unknown, ...args: unknown[]) => Promise<unknown>>()
const dialogs = { open: [] as string[], save: [] as string[] }
vi.mock('electron', () => ({
  ipcMain: {
    handle: (ch: string, fn: (event: unknown, ...args: unknown[]) => Promise<unknown>) => handlers.set(ch, fn),
    removeHandler: (ch: string) => handlers.delete(ch)
  },
  app: { addRecentDocument: vi.fn(), getPath: () => '/tmp' },
  dialog: {
    showOpenDialog: vi.fn(async () => {
      const p = dialogs.open.shift()
      return p ? { canceled: false, filePaths: [p] } : { canceled: true, filePaths: [] }
    }),
    showSaveDialog: vi.fn(async () => {
      const p = dialogs.save.shift()
      return p ? { canceled: false, filePath: p } : { canceled: true }
    })
  }
}))

const { registerIpc } = await import('./ipc')
const { createElectronHost } = await import('./host')

const RENDERER = 'file:///app/out/renderer/index.html'
const sent: [string, unknown][] = []
const mainFrame = { url: RENDERER, parent: null }
const webContents = { mainFrame, send: (ch: string, p: unknown) => sent.push([ch, p]) }
const win = { webContents, isDestroyed: () => false, setDocumentEdited: vi.fn() }

let backend: Backend
let dir: string
let cleanup: () => void
let unregister: () => void

beforeEach(async () => {
  const t = tempDir()
  dir = t.dir
  cleanup = t.cleanup
  backend = await createBackend({ dataDir: dir, kv: new MemoryKv(), workerPath: fixtureWorker('result-worker.ts'), execArgv: TSX_WORKER_ARGV, poolSize: 1, version: '1', platform: 'electron' })
  const host = createElectronHost(backend, () => win as never, () => {})
  unregister = registerIpc(backend, host, () => win as never, RENDERER)
})

afterEach(async () => {
  unregister()
  await backend.close()
  cleanup()
  sent.length = 0
})

const call = (method: string, args: unknown[], event: object = { sender: webContents, senderFrame: mainFrame }) =>
  handlers.get(ipcChannel(method))!(event, ...args) as Promise<{ ok: boolean; value?: any; error?: string }>

describe('IPC registration', () => {
  it('registers a handler for every contract method', () => {
    expect([...handlers.keys()].sort()).toEqual(API_METHODS.map(ipcChannel).sort())
  })

  it('answers calls from our window with the service result', async () => {
    expect(await call('listRuns', [])).toEqual({ ok: true, value: { runs: [], problems: [] } })
  })

  it('refuses calls from another frame, another page or another window', async () => {
    const sub = { url: RENDERER, parent: mainFrame }
    for (const event of [
      { sender: webContents, senderFrame: sub },
      { sender: webContents, senderFrame: { url: 'https://evil.example/', parent: null } },
      { sender: { mainFrame }, senderFrame: mainFrame },
      { sender: webContents, senderFrame: null }
    ]) {
      const r = await call('listRuns', [], event)
      expect(r).toEqual({ ok: false, error: 'refused: the call did not come from the schedlab window' })
    }
    // the page URL is checked too, even for our own top frame
    const navigated = { url: 'file:///tmp/evil.html', parent: null }
    const w2 = { ...webContents, mainFrame: navigated }
    Object.assign(win, { webContents: w2 })
    expect((await call('listRuns', [], { sender: w2, senderFrame: navigated })).ok).toBe(false)
    Object.assign(win, { webContents })
  })

  it('validates arguments before any service sees them', async () => {
    expect((await call('setBaseline', [{ id: 1 }])).error).toMatch(/^invalid call to setBaseline/)
    expect((await call('saveScenario', [{ name: 'x', path: null }, false])).error).toMatch(/invalid call to saveScenario: argument 0\.text/)
    expect((await call('exportPng', ['x', 'not bytes'])).error).toMatch(/invalid call to exportPng/)
  })

  it('forwards service events to the window', async () => {
    const text = JSON.stringify({ name: 'ipc', topology: 'smp-2', durationMs: 10, variants: [{ name: 'a' }], workloads: [{ type: 'hog', name: 'w', count: 1 }] })
    const r = await call('startRun', [{ text, file: 'ipc.json' }])
    expect(r.ok).toBe(true)
    await backend.runs.whenIdle()
    expect(sent.map(([ch]) => ch)).toContain(eventChannel('run-finished'))
  })
})

describe('desktop file delivery', () => {
  it('writes only to paths the user picked in a dialog', async () => {
    const target = join(dir, 'chosen.json')
    dialogs.save.push(target)
    // a path the renderer made up is ignored: the user is asked
    const saved = await call('saveScenario', [{ name: 'x.json', path: '/etc/passwd', text: '{"a":1}' }, false])
    expect(saved.value).toEqual({ name: 'chosen.json', path: target, text: '{"a":1}' })
    expect(readFileSync(target, 'utf8')).toBe('{"a":1}')
    // once chosen, plain Save writes there without asking
    const again = await call('saveScenario', [{ name: 'chosen.json', path: target, text: '{"a":2}' }, false])
    expect(again.value.path).toBe(target)
    expect(readFileSync(target, 'utf8')).toBe('{"a":2}')
    expect(backend.settings.get().recentFiles).toEqual([target])
  })

  it('opens recent files only from the recent list', async () => {
    const f = join(dir, 'open.json')
    writeFileSync(f, '{"name":"o"}')
    expect((await call('openRecent', [f])).error).toMatch(/not in the recent files list/)
    dialogs.open.push(f)
    expect((await call('openScenario', [])).value).toEqual({ name: 'open.json', path: f, text: '{"name":"o"}' })
    expect((await call('openRecent', [f])).value.text).toBe('{"name":"o"}')
  })

  it('saves a PNG only if it is one', async () => {
    expect((await call('exportPng', ['chart', new Uint8Array([1, 2, 3])])).error).toMatch(/not a valid PNG/)
    const png = new Uint8Array(readFileSync(join(__dirname, '..', 'services', '__fixtures__', 'tiny.png')))
    const target = join(dir, 'chart.png')
    dialogs.save.push(target)
    expect((await call('exportPng', ['chart', png])).value).toEqual({ saved: true, name: target })
    expect(readFileSync(target).equals(Buffer.from(png))).toBe(true)
  })

  it('reports a canceled dialog as not saved', async () => {
    expect((await call('exportPng', ['chart', new Uint8Array(readFileSync(join(__dirname, '..', 'services', '__fixtures__', 'tiny.png')))])).value).toEqual({ saved: false })
  })
})
