import { BrowserWindow, nativeTheme, protocol, screen, session } from 'electron'
import { join } from 'node:path'
import { rendererCsp } from '../shared/csp'
import { APP_RENDERER_URL, APP_SCHEME, appProtocolHandler } from './app-protocol'
import type { SettingsService } from '../services/settings'
import { fitWindowState, parseSavedState, type SavedWindowState } from './window-state'

const STATE_KEY = 'window'

/** The URL the renderer is loaded from: the dev server in development, else app://schedlab/. */
export function rendererUrl(): string {
  return process.env.ELECTRON_RENDERER_URL ?? APP_RENDERER_URL
}

/** Serve the built renderer on app://schedlab/ (the scheme is registered as privileged at startup). */
export function serveRendererProtocol(): void {
  protocol.handle(APP_SCHEME, appProtocolHandler(join(__dirname, '../renderer'), rendererCsp()))
}

/** Session-wide hardening: CSP on every response, no permissions, no navigation, no popups. */
export function hardenSession(): void {
  const csp = rendererCsp()
  session.defaultSession.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } })
  })
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, cb) => cb(false))
  session.defaultSession.setPermissionCheckHandler(() => false)
}

export function createMainWindow(settings: SettingsService): BrowserWindow {
  const workAreas = screen.getAllDisplays().map((d) => d.workArea)
  const primary = screen.getPrimaryDisplay().workArea
  const fit = fitWindowState(parseSavedState(settings.getRaw(STATE_KEY)), [primary, ...workAreas.filter((a) => a !== primary)])
  const win = new BrowserWindow({
    x: fit.x,
    y: fit.y,
    width: fit.width,
    height: fit.height,
    minWidth: 900,
    minHeight: 560,
    show: false,
    title: 'schedlab',
    // The page paints its theme soon; until then match the system's, to avoid a flash.
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#1e1e1e' : '#ffffff',
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false
    }
  })
  if (fit.maximized) win.maximize()
  win.once('ready-to-show', () => win.show())

  let timer: NodeJS.Timeout | undefined
  const save = (): void => {
    if (win.isDestroyed() || win.isMinimized()) return
    const state: SavedWindowState = { ...win.getNormalBounds(), maximized: win.isMaximized() }
    settings.setRaw(STATE_KEY, state)
  }
  const saveSoon = (): void => {
    clearTimeout(timer)
    timer = setTimeout(save, 500)
  }
  win.on('resize', saveSoon)
  win.on('move', saveSoon)
  win.on('close', () => {
    clearTimeout(timer)
    save()
  })

  void win.loadURL(rendererUrl())
  return win
}
