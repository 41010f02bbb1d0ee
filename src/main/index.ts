import { app, BrowserWindow, dialog, Menu, protocol } from 'electron'
import { join, resolve } from 'node:path'
import Store from 'electron-store'
import workerPath from '../services/sim-worker?modulePath'
import { createBackend, type Backend } from '../services/backend'
import { openKeyValueStore, parseConfigJson } from '../services/kv'
import { createMainWindow, hardenSession, rendererUrl, serveRendererProtocol } from './window'
import { APP_SCHEME_PRIVILEGES } from './app-protocol'
import { isTrustedRendererUrl } from './sender'
import { buildMenu } from './menu'
import { createElectronHost } from './host'
import { registerIpc } from './ipc'
import { eventChannel, type MenuCommand } from '../shared/ipc'

let win: BrowserWindow | null = null
let backend: Backend | null = null

// Before the app is ready: app:// is a standard, secure origin (see app-protocol.ts).
protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES])

// Every web contents: no navigation away from the renderer in any frame, no new windows, no webviews.
app.on('web-contents-created', (_e, contents) => {
  contents.on('will-navigate', (e) => e.preventDefault())
  contents.on('will-frame-navigate', (e) => {
    if (!isTrustedRendererUrl(e.url, rendererUrl())) e.preventDefault()
  })
  contents.on('will-attach-webview', (e) => e.preventDefault())
  contents.setWindowOpenHandler(() => ({ action: 'deny' }))
})

// A separate data folder (profiles, tests); the single-instance lock is per folder.
if (process.env.SCHEDLAB_USER_DATA) app.setPath('userData', resolve(process.env.SCHEDLAB_USER_DATA))

if (!app.requestSingleInstanceLock()) app.quit()
app.on('second-instance', () => {
  if (win) {
    if (win.isMinimized()) win.restore()
    win.focus()
  }
})

async function start(): Promise<void> {
  hardenSession()
  serveRendererProtocol()
  const dataDir = app.getPath('userData')
  const { kv, problems } = openKeyValueStore(join(dataDir, 'config.json'), () => {
    const store = new Store<Record<string, unknown>>({ name: 'config', cwd: dataDir, deserialize: parseConfigJson })
    return { get: (k) => store.get(k), set: (k, v) => store.set(k, v) }
  })
  const be = await createBackend({ dataDir, kv, kvProblems: problems, workerPath, version: app.getVersion(), platform: 'electron', patches: { allowed: true }, warmWorkers: true })
  backend = be

  const send = (command: MenuCommand, path?: string): void => {
    win?.webContents.send(eventChannel('menu-command'), { command, path })
  }
  const refreshMenu = (): void => Menu.setApplicationMenu(buildMenu(send, be.settings.get().recentFiles))
  const host = createElectronHost(be, () => win, refreshMenu)
  registerIpc(be, host, () => win, rendererUrl())
  refreshMenu()

  const open = (): void => {
    win = createMainWindow(be.settings)
    win.on('close', (e) => {
      if (!host.isDirty() || !win) return
      const choice = dialog.showMessageBoxSync(win, {
        type: 'question',
        buttons: ['Discard Changes', 'Cancel'],
        defaultId: 1,
        cancelId: 1,
        message: 'The scenario has unsaved changes.',
        detail: 'Close the window and discard them?'
      })
      if (choice === 1) e.preventDefault()
    })
    win.on('closed', () => {
      win = null
    })
  }
  open()
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) open()
  })
}

app.whenReady().then(start).catch((err: unknown) => {
  dialog.showErrorBox('schedlab could not start', err instanceof Error ? err.message : String(err))
  app.exit(1)
})

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit()
})

let closing = false
app.on('before-quit', (e) => {
  if (closing || !backend) return
  closing = true
  e.preventDefault()
  // Cancel running simulations and let finished ones be saved before the process exits.
  void backend.close().finally(() => app.quit())
})
