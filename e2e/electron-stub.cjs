/**
 * Runs the built Electron main bundle (out/main/index.js) in plain Node, with a recording
 * stand-in for the `electron` module (no Electron binary can be downloaded here). Prints what
 * the app did as JSON: window options, session hardening, IPC answers, events sent.
 * argv: MAIN_BUNDLE USER_DATA_DIR SCENARIO_TEXT_FILE
 */
const Module = require('node:module')
const { readFileSync } = require('node:fs')
const [, , mainPath, userData, scenarioFile] = process.argv

const log = { windows: [], loadedUrl: null, csp: null, permission: null, navigation: null, frameNavigation: null, windowOpen: null, channels: [], sent: [], calls: {}, privileged: null, protocol: {} }
const protocolHandlers = new Map()
const handlers = new Map()
const appListeners = {}
const windows = []

let appReady = false
const app = {
  whenReady: () => Promise.resolve().then(() => (appReady = true)),
  getPath: () => userData,
  getVersion: () => '0.1.0',
  getName: () => 'schedlab',
  isPackaged: false,
  on: (ev, fn) => ((appListeners[ev] ??= []).push(fn)),
  requestSingleInstanceLock: () => true,
  addRecentDocument() {},
  quit() {
    for (const fn of appListeners['before-quit'] ?? []) fn({ preventDefault() { app.quitDeferred = true } })
  },
  exit(code) {
    process.exit(code)
  }
}

class BrowserWindow {
  constructor(opts) {
    log.windows.push(opts)
    const contents = {
      mainFrame: { url: '', parent: null },
      send: (channel, payload) => log.sent.push({ channel, payload }),
      on: (ev, fn) => {
        if (ev === 'will-navigate') {
          let prevented = false
          fn({ preventDefault: () => (prevented = true) }, 'https://example.com/')
          log.navigation = prevented ? 'prevented' : 'allowed'
        }
        if (ev === 'will-frame-navigate') {
          const tries = {}
          for (const url of ['https://example.com/', 'app://schedlab/index.html']) {
            let prevented = false
            fn({ url, isMainFrame: false, preventDefault: () => (prevented = true) })
            tries[url] = prevented ? 'prevented' : 'allowed'
          }
          log.frameNavigation = tries
        }
      },
      setWindowOpenHandler: (fn) => (log.windowOpen = fn({ url: 'https://example.com/' }).action)
    }
    this.webContents = contents
    for (const fn of appListeners['web-contents-created'] ?? []) fn({}, contents)
    windows.push(this)
  }
  loadURL(url) {
    log.loadedUrl = url
    this.webContents.mainFrame.url = url
    return Promise.resolve()
  }
  on() {}
  once() {}
  show() {}
  maximize() {}
  isDestroyed() { return false }
  isMinimized() { return false }
  isMaximized() { return false }
  getNormalBounds() { return { x: 0, y: 0, width: 1440, height: 900 } }
  setDocumentEdited() {}
  static getAllWindows() { return windows }
}

const electron = {
  app,
  BrowserWindow,
  ipcMain: {
    handle: (ch, fn) => handlers.set(ch, fn),
    removeHandler: (ch) => handlers.delete(ch),
    on() {}
  },
  protocol: {
    registerSchemesAsPrivileged: (list) => {
      if (appReady) throw new Error('registerSchemesAsPrivileged after the app is ready')
      log.privileged = list
    },
    handle: (scheme, fn) => protocolHandlers.set(scheme, fn)
  },
  screen: {
    getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
    getPrimaryDisplay: () => ({ workArea: { x: 0, y: 0, width: 1920, height: 1080 } })
  },
  session: {
    defaultSession: {
      webRequest: {
        onHeadersReceived: (fn) => fn({ responseHeaders: {} }, (r) => (log.csp = r.responseHeaders['Content-Security-Policy'][0]))
      },
      setPermissionRequestHandler: (fn) => fn(null, 'camera', (ok) => (log.permission = ok)),
      setPermissionCheckHandler() {}
    }
  },
  Menu: { buildFromTemplate: (t) => ({ template: t }), setApplicationMenu: (m) => (log.menu = m.template.map((i) => i.label ?? i.role)) },
  dialog: {
    showErrorBox: (title, msg) => {
      log.fatal = `${title}: ${msg}`
    }
  },
  shell: {},
  nativeTheme: { shouldUseDarkColors: false }
}
electron.default = electron

const resolve = Module._resolveFilename
Module._resolveFilename = function (request, ...rest) {
  return request === 'electron' ? 'electron-stub' : resolve.call(this, request, ...rest)
}
require.cache['electron-stub'] = { id: 'electron-stub', filename: 'electron-stub', loaded: true, exports: electron }

async function main() {
  require(mainPath)
  for (let i = 0; i < 200 && windows.length === 0 && !log.fatal; i++) await new Promise((r) => setTimeout(r, 25))
  if (log.fatal) throw new Error(log.fatal)
  log.channels = [...handlers.keys()].sort()
  const appProtocol = protocolHandlers.get('app')
  for (const url of ['app://schedlab/index.html', 'app://schedlab/%2e%2e/%2e%2e/package.json', 'app://schedlab/../main/index.js']) {
    const r = await appProtocol({ url, method: 'GET' })
    log.protocol[url] = { status: r.status, csp: r.headers.get('content-security-policy'), body: (await r.text()).slice(0, 200) }
  }
  const win = windows[0]
  const trusted = { sender: win.webContents, senderFrame: win.webContents.mainFrame }
  const call = (method, ...args) => handlers.get(`schedlab:${method}`)(trusted, ...args)
  log.calls.listRuns = await call('listRuns')
  log.calls.foreign = await handlers.get('schedlab:listRuns')({ sender: win.webContents, senderFrame: { url: 'https://example.com/', parent: null } })
  const text = readFileSync(scenarioFile, 'utf8')
  log.calls.startRun = await call('startRun', { text, file: 'smoke.json' })
  for (let i = 0; i < 2400 && !log.sent.some((s) => s.channel === 'schedlab:event:run-finished'); i++) await new Promise((r) => setTimeout(r, 50))
  log.calls.listRunsAfter = await call('listRuns')
  app.quit()
  for (let i = 0; i < 200 && !appListeners.closed; i++) await new Promise((r) => setTimeout(r, 10))
  process.stdout.write(JSON.stringify(log))
  process.exit(0)
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n')
  process.exit(1)
})
