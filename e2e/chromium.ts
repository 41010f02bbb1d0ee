import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { chromium, type Browser, type LaunchOptions } from 'playwright-core'
import { makeDirs } from '../src/services/data-dir'

/**
 * The browser of the browser tests, found without anything installed by hand:
 * `SCHEDLAB_CHROMIUM` where it names an existing file, else Debian's `/usr/bin/chromium` where
 * SCHEDLAB_CHROMIUM is unset, else the Chromium that the `@sparticuz/chromium` package ships
 * (a devDependency; brotli-packed in the package, unpacked once into node_modules/.cache).
 * `SCHEDLAB_CHROMIUM` pointing nowhere therefore tests the fresh-machine path.
 */

const ROOT = resolve(__dirname, '..')
const SYSTEM_CHROMIUM = '/usr/bin/chromium'

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'
]

export interface ChromiumFound {
  executablePath: string
  /** 'system' (SCHEDLAB_CHROMIUM or /usr/bin/chromium) or 'package' (@sparticuz/chromium). */
  source: 'system' | 'package'
  env?: Record<string, string>
}

/** The system browser to use, or null where the packaged one must stand in. */
export function systemChromium(): string | null {
  const named = process.env.SCHEDLAB_CHROMIUM
  const path = named !== undefined && named !== '' ? named : SYSTEM_CHROMIUM
  return existsSync(path) ? path : null
}

function packageDir(): string | null {
  try {
    return dirname(dirname(createRequire(join(ROOT, 'package.json')).resolve('@sparticuz/chromium/package.json')))
  } catch {
    try {
      // the package's exports map hides package.json: find it from its entry point
      let dir = dirname(createRequire(join(ROOT, 'package.json')).resolve('@sparticuz/chromium'))
      while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'bin'))) {
        const up = dirname(dir)
        if (up === dir) return null
        dir = up
      }
      return dir
    } catch {
      return null
    }
  }
}

/** Why no browser can be had here, or null. */
export function chromiumMissing(): string | null {
  if (systemChromium() !== null) return null
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return `no Chromium: set SCHEDLAB_CHROMIUM to a Chromium or Chrome binary (the packaged @sparticuz/chromium is for Linux x64 only)`
  }
  if (packageDir() === null) return 'no Chromium: /usr/bin/chromium is missing and @sparticuz/chromium is not installed (npm install)'
  return null
}

/**
 * Unpack the packaged Chromium once per version into node_modules/.cache: a child process
 * does the package's own unpacking into a staging folder (its TMPDIR), renamed into place
 * at the end, so parallel test files never see half a binary.
 */
function unpackPackaged(): string {
  const pkg = packageDir()
  if (pkg === null) throw new Error(chromiumMissing() ?? 'no packaged Chromium')
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version
  const cacheRoot = join(ROOT, 'node_modules', '.cache')
  const dir = join(cacheRoot, `schedlab-chromium-${version}`)
  if (existsSync(join(dir, 'chromium'))) return dir
  makeDirs(cacheRoot)
  const staging = mkdtempSync(join(cacheRoot, 'schedlab-chromium-unpacking-'))
  try {
    // AWS_EXECUTION_ENV makes the package unpack its copies of NSS and expat as well (al2023/lib),
    // used below only where the system lacks them.
    const r = spawnSync(process.execPath, ['--input-type=module', '-e',
      "const m = await import('@sparticuz/chromium'); process.stdout.write(await m.default.executablePath())"], {
      cwd: ROOT, encoding: 'utf8',
      env: { ...process.env, TMPDIR: staging, AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs20.x' }
    })
    if (r.status !== 0 || !existsSync(join(staging, 'chromium'))) {
      throw new Error(`unpacking @sparticuz/chromium failed: ${r.stderr || r.stdout}`)
    }
    try {
      renameSync(staging, dir)
    } catch (e) {
      if (!existsSync(join(dir, 'chromium'))) throw e // someone else's unpacking won the race otherwise
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return dir
}

function missingLibraries(binary: string): boolean {
  const r = spawnSync('ldd', [binary], { encoding: 'utf8' })
  return r.status === 0 && /not found/.test(r.stdout)
}

/** The browser to launch and the environment it needs. */
export function findChromium(): ChromiumFound {
  const system = systemChromium()
  if (system !== null) return { executablePath: system, source: 'system' }
  const dir = unpackPackaged()
  const executablePath = join(dir, 'chromium')
  const env: Record<string, string> = {}
  if (missingLibraries(executablePath)) {
    const lib = join(dir, 'al2023', 'lib')
    env.LD_LIBRARY_PATH = [lib, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':')
  }
  if (!existsSync('/etc/fonts/fonts.conf') && process.env.FONTCONFIG_FILE === undefined) {
    const conf = join(dir, 'schedlab-fonts.conf')
    writeFileSync(conf, `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${join(dir, 'fonts', 'fonts')}</dir><cachedir>${join(dir, 'fonts-cache')}</cachedir></fontconfig>\n`)
    env.FONTCONFIG_FILE = conf
  }
  return { executablePath, source: 'package', env: Object.keys(env).length > 0 ? env : undefined }
}

/** A headless Chromium for the browser tests, wherever one can be had (see findChromium). */
export async function launchChromium(options: LaunchOptions = {}): Promise<Browser> {
  const found = findChromium()
  return chromium.launch({
    headless: true,
    args: CHROMIUM_ARGS,
    ...options,
    executablePath: found.executablePath,
    env: found.env ? { ...process.env as Record<string, string>, ...found.env, ...(options.env as Record<string, string> | undefined) } : options.env
  })
}
