import { spawn, spawnSync } from 'node:child_process'
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { diskError, VmCancelled, VmFailure, VmRefusal } from './errors'
import { makeDirs } from '../trace/make-dirs'

/**
 * Kernel images for `schedlab vm`: Debian's mainline-based cloud kernels by series ("6.12" from
 * trixie, "7.2" from sid), fetched on first use with a private apt configuration (its own
 * sources list, package lists, cache and an empty dpkg status: the system's apt state is never
 * read for packages nor written) and unpacked into the VM cache, keeping only the kernel image
 * and its config; or the user's own bzImage by path.
 */

export interface KernelSeries {
  series: string
  suite: string
  /** The package holding the image; its newest version in the suite is taken. */
  packagePattern: RegExp
  /** The modeled kernel profile that matches it (the fidelity suite simulates with it). */
  profile: '6.12' | 'tip-2026'
}

export const KERNEL_SERIES: readonly KernelSeries[] = [
  { series: '6.12', suite: 'trixie', packagePattern: /^linux-image-6\.12\.(\d+)\+deb\d+-cloud-amd64$/, profile: '6.12' },
  { series: '7.2', suite: 'sid', packagePattern: /^linux-binary-7\.2\.(\d+)\+deb\d+-cloud-amd64$/, profile: 'tip-2026' }
]

export interface KernelImage {
  /** "debian" (a cached package) or "user" (a bzImage the user gave). */
  source: 'debian' | 'user'
  /** The kernel's version string (the package's release, or what the bzImage says). */
  version: string
  /** The Debian package name, or the user's path. */
  image: string
  /** The series asked for ("6.12", "7.2"), null for a user's image. */
  series: string | null
  vmlinuz: string
  /** CONFIG_* of the image when its config is known (Debian's 6.12 ships one). */
  config: Map<string, string>
}

export interface FetchOptions {
  log?: (line: string) => void
  /** 0..1 while a kernel downloads (the workbench's progress bar). */
  progress?: (fraction: number, what: string) => void
  signal?: AbortSignal
  /** The Debian mirror (default: the system's, else deb.debian.org). */
  mirror?: string
}

/** Where the VM runner keeps kernels, images and the private apt state: DATA/vm, or $SCHEDLAB_VM_CACHE. */
export function vmCacheDir(dataDir: string): string {
  return process.env.SCHEDLAB_VM_CACHE ? resolve(process.env.SCHEDLAB_VM_CACHE) : join(dataDir, 'vm')
}

const KERNEL_FETCH_MB = 120

/** A series name, or a path to the user's image. */
export function seriesOf(kernel: string): KernelSeries | null {
  return KERNEL_SERIES.find((s) => s.series === kernel) ?? null
}

/** The series a scenario's kernel profile means when --kernel is not given: 6.12 up to 6.12, else 7.2. */
export function seriesForProfile(profile: string | undefined): string {
  return profile === '6.6' || profile === '6.12' || profile === undefined ? '6.12' : '7.2'
}

/** Kernels already in the cache (the workbench's picker), newest first per series. */
export function cachedKernels(cacheDir: string): KernelImage[] {
  const dir = join(cacheDir, 'kernels')
  const out: KernelImage[] = []
  for (const name of readdirSafe(dir)) {
    const info = readKernelInfo(join(dir, name))
    if (info) out.push(info)
  }
  return out.sort((a, b) => (a.series ?? '').localeCompare(b.series ?? '') || compareVersions(b.version, a.version))
}

function readKernelInfo(dir: string): KernelImage | null {
  try {
    const j = JSON.parse(readFileSync(join(dir, 'kernel.json'), 'utf8')) as { version: string; package: string; series: string }
    const vmlinuz = join(dir, 'vmlinuz')
    if (!existsSync(vmlinuz)) return null
    return { source: 'debian', version: j.version, image: j.package, series: j.series, vmlinuz, config: readConfig(join(dir, 'config')) }
  } catch {
    return null
  }
}

export function readConfig(path: string): Map<string, string> {
  const m = new Map<string, string>()
  let text = ''
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return m
  }
  for (const line of text.split('\n')) {
    const eq = /^(CONFIG_\w+)=(.*)$/.exec(line)
    if (eq) m.set(eq[1], eq[2].replace(/^"|"$/g, ''))
  }
  return m
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.+-]/).map((x) => Number(x) || 0)
  const pb = b.split(/[.+-]/).map((x) => Number(x) || 0)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0)
  return 0
}

/**
 * `--kernel 6.12|7.2|PATH` as an image on disk: a cached Debian kernel of the series (fetched
 * now when there is none), or the user's bzImage (checked for the boot header).
 */
export async function resolveKernel(kernel: string, cacheDir: string, opts: FetchOptions = {}): Promise<KernelImage> {
  const series = seriesOf(kernel)
  if (!series) return userImage(kernel)
  const have = cachedKernels(cacheDir).find((k) => k.series === series.series)
  if (have) return have
  return fetchKernel(series, cacheDir, opts)
}

/** The user's own kernel: a bzImage (x86 boot protocol header "HdrS"). */
export function userImage(path: string): KernelImage {
  const p = resolve(path)
  if (!existsSync(p)) throw new VmRefusal(`--kernel ${path}: no such file (give 6.12, 7.2 or the path to a bzImage)`)
  const head = Buffer.alloc(0x240)
  let fd = -1
  try {
    fd = openSync(p, 'r')
    readSync(fd, head, 0, head.length, 0)
  } catch (e) {
    throw new VmRefusal(`--kernel ${path}: cannot read it (${(e as Error).message})`)
  } finally {
    if (fd >= 0) closeSync(fd)
  }
  if (head.toString('latin1', 0x202, 0x206) !== 'HdrS') throw new VmRefusal(`--kernel ${path}: not an x86 bzImage (no boot header); give arch/x86/boot/bzImage of a kernel built with docs/vm.md's config fragment`)
  // the version string the boot header points to (kernel_version, at 0x200 + its offset)
  const off = head.readUInt16LE(0x20e)
  let version = basename(p)
  if (off > 0) {
    const buf = Buffer.alloc(256)
    const f = openSync(p, 'r')
    try {
      readSync(f, buf, 0, 256, off + 0x200)
    } finally {
      closeSync(f)
    }
    const s = buf.toString('latin1').split('\0')[0].split(' ')[0]
    if (/^\d+\.\d+/.test(s)) version = s
  }
  const config = readConfig(join(p, '..', '..', '..', '..', '.config'))
  return { source: 'user', version, image: p, series: null, vmlinuz: p, config }
}

/** The mirror the system's apt uses for Debian (deb822 or one-line sources), else deb.debian.org. */
export function systemMirror(): string {
  const texts: string[] = []
  for (const f of ['/etc/apt/sources.list', ...readdirSafe('/etc/apt/sources.list.d').map((n) => join('/etc/apt/sources.list.d', n))]) {
    try {
      texts.push(readFileSync(f, 'utf8'))
    } catch {
      // unreadable
    }
  }
  for (const t of texts) {
    for (const m of t.matchAll(/(?:^URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?)(\S+\/debian)\/?\s*$/gm)) return m[1]
    for (const m of t.matchAll(/(?:^URIs:\s*|^deb\s+(?:\[[^\]]*\]\s+)?)(\S+\/debian)\/?\s/gm)) return m[1]
  }
  return 'http://deb.debian.org/debian'
}

const KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg'

/** apt-get with the private configuration under CACHE/apt. */
function aptOptions(aptDir: string): string[] {
  return [
    '-o', `Dir::Etc::sourcelist=${join(aptDir, 'sources.list')}`,
    '-o', 'Dir::Etc::sourceparts=-',
    '-o', `Dir::Etc::preferences=${join(aptDir, 'preferences')}`,
    '-o', 'Dir::Etc::preferencesparts=-',
    '-o', `Dir::State::Lists=${join(aptDir, 'lists')}`,
    '-o', `Dir::State::status=${join(aptDir, 'status')}`,
    '-o', `Dir::Cache=${join(aptDir, 'cache')}`,
    '-o', 'Debug::NoLocking=1',
    '-o', 'APT::Sandbox::User=root',
    '-o', 'Acquire::Retries=2',
    '-q'
  ]
}

async function fetchKernel(series: KernelSeries, cacheDir: string, opts: FetchOptions): Promise<KernelImage> {
  const log = opts.log ?? (() => {})
  if (!which('apt-get') || !which('dpkg-deb')) throw new VmRefusal(`fetching Debian's ${series.series} kernel needs apt-get and dpkg-deb (a Debian or Ubuntu system); elsewhere give --kernel PATH to a bzImage (docs/vm.md)`)
  if (!existsSync(KEYRING)) throw new VmRefusal(`fetching Debian's kernels needs Debian's archive keyring (${KEYRING}: apt-get install debian-archive-keyring), or give --kernel PATH to a bzImage`)
  const aptDir = join(cacheDir, 'apt')
  try {
    for (const d of [join(aptDir, 'lists', 'partial'), join(aptDir, 'cache', 'archives', 'partial'), join(cacheDir, 'kernels')]) makeDirs(d)
    const free = freeMb(cacheDir)
    if (free !== null && free < KERNEL_FETCH_MB) throw Object.assign(new Error('No space left on device'), { code: 'ENOSPC' })
    const mirror = opts.mirror ?? process.env.SCHEDLAB_DEBIAN_MIRROR ?? systemMirror()
    const suites = KERNEL_SERIES.map((s) => s.suite)
    writeFileSync(join(aptDir, 'sources.list'), suites.map((s) => `deb [signed-by=${KEYRING}] ${mirror} ${s} main\n`).join(''))
    writeFileSync(join(aptDir, 'preferences'), '')
    writeFileSync(join(aptDir, 'status'), '')
  } catch (e) {
    throw diskError(e, cacheDir, `fetching Debian's ${series.series} kernel (about ${KERNEL_FETCH_MB} MB)`)
  }
  const opt = aptOptions(aptDir)
  const pkg = await newestPackage(series, opt, log, opts.signal)
  opts.progress?.(0, `downloading ${pkg.name}`)
  log(`downloading ${pkg.name} ${pkg.version} (${(pkg.size / 1e6).toFixed(1)} MB) into ${cacheDir}`)
  const work = join(cacheDir, 'kernels', `.fetch-${process.pid}-${Date.now().toString(36)}`)
  makeDirs(work)
  try {
    let lastTenth = -1
    await apt(['download', pkg.name], opt, work, opts.signal, (line) => {
      const m = /^dlstatus:[^:]*:([\d.]+):/.exec(line)
      if (!m) return
      const f = Math.min(1, Number(m[1]) / 100)
      opts.progress?.(f, `downloading ${pkg.name}`)
      const tenth = Math.floor(f * 10)
      if (tenth > lastTenth) {
        lastTenth = tenth
        log(`  ${tenth * 10} %`)
      }
    })
    const deb = readdirSafe(work).find((n) => n.endsWith('.deb'))
    if (!deb) throw new VmFailure(`apt-get download ${pkg.name} left no package in ${work}`)
    // only the image and its config: the modules are not needed (the guest loads none)
    const tar = spawnSync('sh', ['-c', 'dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" --wildcards "./boot/vmlinuz-*" "./boot/config-*" "./usr/lib/modules/*/vmlinuz" "./usr/lib/modules/*/config" 2>&1; exit 0', 'sh', join(work, deb), work], { encoding: 'utf8' })
    if (/No space left/i.test(tar.stdout)) throw Object.assign(new Error('No space left on device'), { code: 'ENOSPC' })
    const found = findFiles(work, (p) => /\/vmlinuz(-[^/]*)?$/.test(p))
    if (found.length === 0) throw new VmFailure(`${deb} holds no kernel image (boot/vmlinuz-*): ${tar.stdout.trim().split('\n').slice(-1)[0] ?? ''}`)
    const config = findFiles(work, (p) => /\/config(-[^/]*)?$/.test(p))
    const release = /linux-(?:image|binary)-(.+)$/.exec(pkg.name)?.[1] ?? pkg.version
    const dest = join(cacheDir, 'kernels', release)
    const stage = `${dest}.${process.pid}.tmp`
    rmSync(stage, { recursive: true, force: true })
    makeDirs(stage)
    renameSync(found[0], join(stage, 'vmlinuz'))
    if (config[0]) renameSync(config[0], join(stage, 'config'))
    writeFileSync(join(stage, 'kernel.json'), JSON.stringify({ version: release, package: pkg.name, packageVersion: pkg.version, series: series.series, suite: series.suite, fetched: new Date().toISOString() }, null, 2) + '\n')
    rmSync(dest, { recursive: true, force: true })
    renameSync(stage, dest)
    opts.progress?.(1, `downloaded ${pkg.name}`)
    log(`cached ${release} in ${dest}`)
    const img = readKernelInfo(dest)
    if (!img) throw new VmFailure(`the fetched kernel in ${dest} is unreadable`)
    return img
  } catch (e) {
    throw diskError(e, cacheDir, `fetching Debian's ${series.series} kernel (about ${KERNEL_FETCH_MB} MB)`)
  } finally {
    rmSync(work, { recursive: true, force: true })
    rmSync(join(aptDir, 'cache', 'archives'), { recursive: true, force: true })
  }
}

async function newestPackage(series: KernelSeries, opt: string[], log: (l: string) => void, signal?: AbortSignal): Promise<{ name: string; version: string; size: number }> {
  const listed = (): { name: string; version: string; size: number }[] => {
    const r = spawnSync('apt-cache', [...opt, 'search', '--names-only', series.packagePattern.source.replace(/\\d/g, '[0-9]')], { encoding: 'utf8', maxBuffer: 1 << 24 })
    const names = r.stdout.split('\n').map((l) => l.split(' - ')[0].trim()).filter((n) => series.packagePattern.test(n))
    names.sort((a, b) => Number(series.packagePattern.exec(b)?.[1]) - Number(series.packagePattern.exec(a)?.[1]))
    if (names.length === 0) return []
    const show = spawnSync('apt-cache', [...opt, 'show', names[0]], { encoding: 'utf8', maxBuffer: 1 << 24 })
    const version = /^Version:\s*(\S+)/m.exec(show.stdout)?.[1] ?? ''
    const size = Number(/^Size:\s*(\d+)/m.exec(show.stdout)?.[1] ?? 0)
    return [{ name: names[0], version, size }]
  }
  let found = listed()
  if (found.length === 0) {
    log(`reading Debian's package lists (${KERNEL_SERIES.map((s) => s.suite).join(', ')}) into a private apt state`)
    await apt(['update'], opt, undefined, signal, () => {})
    found = listed()
  }
  if (found.length === 0) throw new VmFailure(`Debian's ${series.suite} has no package matching ${series.packagePattern.source} (the mirror's lists were read); give --kernel PATH to a bzImage`)
  return found[0]
}

/** apt-get with the private options; status lines (APT::Status-Fd) go to onStatus. */
function apt(args: string[], opt: string[], cwd: string | undefined, signal: AbortSignal | undefined, onStatus: (line: string) => void): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    if (signal?.aborted) return reject(new VmCancelled())
    const child = spawn('apt-get', [...opt, '-o', 'APT::Status-Fd=3', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] })
    let out = ''
    const keep = (d: Buffer): void => {
      out = (out + d.toString('utf8')).slice(-4000)
    }
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
    let buf = ''
    ;(child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      buf += d.toString('utf8')
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        onStatus(buf.slice(0, nl))
        buf = buf.slice(nl + 1)
      }
    })
    const onAbort = (): void => {
      child.kill('SIGTERM')
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    child.on('error', (e) => reject(new VmRefusal(`apt-get: ${e.message}`)))
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort)
      if (signal?.aborted) return reject(new VmCancelled())
      if (code === 0) return resolvePromise()
      if (/No space left on device/i.test(out)) return reject(Object.assign(new Error('No space left on device'), { code: 'ENOSPC' }))
      const last = out.trim().split('\n').filter((l) => /^(E|W|Err):/.test(l)).slice(-2).join(' | ') || out.trim().split('\n').slice(-1)[0]
      reject(new VmFailure(`apt-get ${args[0]} failed (exit ${code}): ${last}; Debian's mirror must be reachable the first time a kernel is used`))
    })
  })
}

function freeMb(dir: string): number | null {
  try {
    const s = statfsSync(dir)
    return (s.bavail * s.bsize) / 1e6
  } catch {
    return null
  }
}

export function which(prog: string): string | null {
  const r = spawnSync('sh', ['-c', 'command -v "$1"', 'sh', prog], { encoding: 'utf8' })
  const p = r.status === 0 ? r.stdout.trim() : ''
  return p === '' ? null : p
}

function findFiles(dir: string, match: (path: string) => boolean): string[] {
  const out: string[] = []
  const walk = (d: string): void => {
    for (const n of readdirSafe(d)) {
      const p = join(d, n)
      let isDir = false
      try {
        isDir = statSync(p).isDirectory()
      } catch {
        isDir = false
      }
      if (isDir) walk(p)
      else if (match(p)) out.push(p)
    }
  }
  walk(dir)
  return out
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
