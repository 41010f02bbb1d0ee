#!/usr/bin/env node
// `npm start`: build, then open the desktop workbench in Electron. Where the Electron binary
// cannot be installed or started (no download access, Node older than Electron 45's 22.12, a
// machine without its libraries), say so in one line and open the same workbench in the
// browser through `schedlab serve` on the desktop app's data folder, so the README's first
// command always opens the workbench.
//
// Environment: SCHEDLAB_START_NO_BUILD=1 skips the build (serve rebuilds a stale one anyway);
// SCHEDLAB_ELECTRON=PATH uses that Electron binary; SCHEDLAB_START_OPENER=CMD opens the URL
// with CMD instead of xdg-open / open / start; SCHEDLAB_START_NO_OPEN=1 opens nothing.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const ELECTRON_PKG = join(ROOT, 'node_modules', 'electron')
/** A binary that cannot start fails at once; one that ran this long was the app, closed by its user. */
const STARTUP_MS = 10_000

const HOW_TO_INSTALL =
  'to use the desktop app, install Electron 45 by hand: with Node >= 22.12 and access to github.com (or ELECTRON_MIRROR), ' +
  '`node node_modules/electron/install.js`; or unpack an Electron 45 release zip and set ELECTRON_OVERRIDE_DIST_PATH to its folder; then `npm start` again'

function say(line) {
  process.stdout.write(`schedlab: ${line}\n`)
}

function build() {
  if (process.env.SCHEDLAB_START_NO_BUILD === '1') return
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: ROOT, stdio: 'inherit' })
  if (r.status !== 0) {
    say('the build failed (see above); `npm run build` shows why')
    process.exit(r.status ?? 1)
  }
}

/** The Electron binary the package would run, or null (looked up without running its installer). */
function electronBinary() {
  if (process.env.SCHEDLAB_ELECTRON) return process.env.SCHEDLAB_ELECTRON
  const pathFile = join(ELECTRON_PKG, 'path.txt')
  if (!existsSync(pathFile)) return null
  const bin = join(process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(ELECTRON_PKG, 'dist'), readFileSync(pathFile, 'utf8').trim())
  return existsSync(bin) ? bin : null
}

/** Try Electron's own installer once, quietly; the reason it failed, or null. */
function installElectron() {
  if (!existsSync(join(ELECTRON_PKG, 'install.js'))) return 'the electron package is not installed (npm install)'
  const r = spawnSync(process.execPath, [join(ELECTRON_PKG, 'install.js')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 })
  if (r.status === 0 && electronBinary()) return null
  const text = `${r.stderr ?? ''}\n${r.stdout ?? ''}`
  const line = text.split('\n').map((l) => l.trim()).find((l) => /error|fail|unsupported|ENOTFOUND|ECONN|EAI_AGAIN|timed out/i.test(l) && !/^at /.test(l))
  const node = Number(process.versions.node.split('.')[0])
  const why = line ? line.replace(/^Error:\s*/, '').slice(0, 140) : r.error ? r.error.message : `its installer exited with ${r.status}`
  return node < 22 ? `${why}; Electron 45 needs Node >= 22.12, this is Node ${process.versions.node}` : why
}

function runElectron(bin) {
  return new Promise((resolve) => {
    const t0 = Date.now()
    const child = spawn(bin, [ROOT], { cwd: ROOT, stdio: 'inherit' })
    child.once('error', (e) => resolve(`it could not start (${e.message})`))
    child.once('exit', (code, signal) => {
      if (code !== 0 && signal === null && Date.now() - t0 < STARTUP_MS) resolve(`it exited at start with code ${code}`)
      else resolve(null)
    })
  })
}

function findOnPath(cmd) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && existsSync(join(dir, cmd))) return join(dir, cmd)
  return null
}

/** Open `url` in the system's browser when there is one; false when there is none. */
function openInBrowser(url) {
  if (process.env.SCHEDLAB_START_NO_OPEN === '1') return false
  let cmd = null
  let args = [url]
  if (process.env.SCHEDLAB_START_OPENER) cmd = process.env.SCHEDLAB_START_OPENER
  else if (process.platform === 'darwin') cmd = 'open'
  else if (process.platform === 'win32') {
    cmd = 'cmd'
    args = ['/c', 'start', '""', url]
  } else if (process.env.DISPLAY || process.env.WAYLAND_DISPLAY) cmd = findOnPath('xdg-open')
  if (!cmd) return false
  try {
    const c = spawn(cmd, args, { stdio: 'ignore', detached: true })
    c.on('error', () => undefined)
    c.unref()
    return true
  } catch {
    return false
  }
}

/** `schedlab serve` on the default data folder, in the foreground until Ctrl+C. */
function serve() {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'schedlab.mjs'), 'serve'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig))
  let first = true
  createInterface({ input: child.stdout }).on('line', (line) => {
    process.stdout.write(`${line}\n`)
    if (!first) return
    first = false
    const opened = openInBrowser(line.trim())
    say(`${opened ? 'opened it in your browser' : 'open that URL in a browser'}; Ctrl+C stops the web host`)
    say(HOW_TO_INSTALL)
  })
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 0 : 1)))
}

build()
let bin = electronBinary()
let why = null
if (!bin && process.env.SCHEDLAB_ELECTRON === undefined) why = installElectron()
bin = electronBinary()
if (bin) why = await runElectron(bin)
else why ??= 'no Electron binary'
if (why === null) process.exit(0)
say(`the Electron binary cannot ${bin ? 'start' : 'be installed'} (${why}): opening the workbench in your browser instead, through schedlab serve`)
serve()
