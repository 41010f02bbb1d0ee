import { spawn, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import type { Browser, Page } from 'playwright-core'
import { launchChromium } from './chromium'
import { createInterface } from 'node:readline'

export const ROOT = resolve(__dirname, '..')
const TSX_CLI = createRequire(__filename).resolve('tsx/cli')

export interface ServeProcess {
  url: string
  child: ChildProcess
  stderr: string[]
  stop(): Promise<void>
}

/** Start `schedlab serve` as a user would (through the CLI entry); resolve with its URL. */
export async function startServe(dataDir: string, extraArgs: readonly string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [TSX_CLI, join(ROOT, 'src/cli/index.ts'), 'serve', '--data-dir', dataDir, ...extraArgs], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const stderr: string[] = []
  createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l))
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`schedlab serve printed no URL in 60 s; stderr:\n${stderr.join('\n')}`)), 60_000)
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer)
      ok(line.trim())
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      fail(new Error(`schedlab serve exited with ${code}; stderr:\n${stderr.join('\n')}`))
    })
  })
  return {
    url, child, stderr,
    stop: () => new Promise<void>((ok) => {
      if (child.exitCode !== null || child.signalCode !== null) return ok()
      child.once('exit', () => ok())
      child.kill('SIGTERM')
    })
  }
}

export { CHROMIUM_ARGS, chromiumMissing, findChromium, launchChromium } from './chromium'

/**
 * The Electron binary if one is installed. `require('electron')` would try to download it
 * (Electron 42+ fetches lazily), so look for it without loading the package.
 */
export function electronBinary(): string | null {
  const dir = join(ROOT, 'node_modules', 'electron')
  const pathFile = join(dir, 'path.txt')
  if (!existsSync(pathFile)) return null
  const rel = readFileSync(pathFile, 'utf8').trim()
  const base = process.env.ELECTRON_OVERRIDE_DIST_PATH ?? join(dir, 'dist')
  const bin = join(base, rel)
  return existsSync(bin) ? bin : null
}

/**
 * What every browser test starts from: a fresh data folder, `schedlab serve` on it and a
 * headless Chromium. Construct it first (the folder exists at once), then start(): stop()
 * undoes whatever was started, also after a start that failed half way.
 */
export class WorkbenchHost {
  readonly dataDir: string
  private serveProc: ServeProcess | null = null
  private chromiumBrowser: Browser | null = null

  constructor(prefix: string, private readonly serveArgs: readonly string[] = []) {
    this.dataDir = mkdtempSync(join(tmpdir(), prefix))
  }

  async start(): Promise<this> {
    this.serveProc = await startServe(this.dataDir, this.serveArgs)
    this.chromiumBrowser = await launchChromium()
    return this
  }

  get serve(): ServeProcess {
    if (!this.serveProc) throw new Error('WorkbenchHost: not started')
    return this.serveProc
  }

  get browser(): Browser {
    if (!this.chromiumBrowser) throw new Error('WorkbenchHost: not started')
    return this.chromiumBrowser
  }

  get url(): string {
    return this.serve.url
  }

  /** A restart of `schedlab serve` on the same data folder (what a user's restart keeps). */
  async restartServe(): Promise<void> {
    await this.serveProc?.stop()
    this.serveProc = null
    this.serveProc = await startServe(this.dataDir, this.serveArgs)
  }

  async stop(): Promise<void> {
    await this.chromiumBrowser?.close()
    await this.serveProc?.stop()
    rmSync(this.dataDir, { recursive: true, force: true })
  }
}

export interface LaunchedWorkbench {
  serve: ServeProcess
  browser: Browser
  page: Page
  close(): Promise<void>
}

/** `schedlab serve` on a fresh data folder and Chromium on its page, ready; close() undoes all of it. */
export async function launchWorkbench(prefix: string): Promise<LaunchedWorkbench> {
  const host = new WorkbenchHost(prefix)
  try {
    await host.start()
  } catch (e) {
    await host.stop()
    throw e
  }
  const { serve, browser } = host
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(serve.url).origin })
  const page = await context.newPage()
  await page.goto(serve.url)
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 })
  return {
    serve, browser, page,
    close: () => host.stop()
  }
}
