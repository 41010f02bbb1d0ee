import { promises as fs, closeSync, openSync, readFileSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs'
import { dirname, basename, join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { makeDirsAsync } from './data-dir'

/**
 * Write a file so that readers see either the old or the new content, never a torn one:
 * write a temporary file in the same folder, fsync it, rename it over the target (atomic
 * within a file system), then fsync the folder so the rename itself survives a power cut.
 * The temporary name carries the writer's pid, so another process sharing the folder can tell
 * an in-flight write from a leftover.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(file)
  await makeDirsAsync(dir)
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  const fh = await fs.open(tmp, 'w')
  try {
    try {
      await fh.writeFile(data)
      await fh.sync()
    } finally {
      await fh.close()
    }
  } catch (err) {
    // a full disk (ENOSPC) or a quota: no partial temporary file stays behind
    await fs.rm(tmp, { force: true }).catch(() => {})
    throw err
  }
  try {
    await fs.rename(tmp, file)
  } catch (err) {
    await fs.rm(tmp, { force: true })
    throw err
  }
  await syncDir(dir)
}

/** fsync a folder (its entries); where folders cannot be opened (Windows), there is nothing to do. */
async function syncDir(dir: string): Promise<void> {
  let fh: fs.FileHandle | undefined
  try {
    fh = await fs.open(dir, 'r')
    await fh.sync()
  } catch {
    // EISDIR/EPERM on platforms without directory fsync.
  } finally {
    await fh?.close().catch(() => undefined)
  }
}

const OUR_TEMP = /^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/
/** The settings store (conf, electron-store) writes through the `atomically` package: `config.json.tmp-<time><hex>`. */
const CONF_TEMP = /^config\.json\.tmp-\d{10}[0-9a-f]{6}$/
/** No writer keeps a temporary file this long: an older one is left by a dead process. */
export const STALE_TEMP_MS = 10 * 60_000

/** Temporary files left by an interrupted writeFileAtomic (a kill between write and rename). */
export function isAtomicTemp(name: string): boolean {
  return OUR_TEMP.test(name)
}

/** Whether process `pid` runs (one of another user counts: EPERM). */
export function alive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Is this temporary file a leftover (its writer gone) rather than another process's write in
 * flight? Ours name their writer's pid; any temp older than STALE_TEMP_MS is a leftover too.
 */
export function isStaleTemp(name: string, mtimeMs: number, now = Date.now()): boolean {
  const ours = OUR_TEMP.exec(name)
  if (!ours && !CONF_TEMP.test(name)) return false
  if (now - mtimeMs > STALE_TEMP_MS) return true
  return ours ? !alive(Number(ours[1])) : false
}

/**
 * Remove the stale temporary files in `dir` (not its subfolders), except those `keep` claims;
 * returns their names. Synchronous: the settings store opens synchronously.
 */
export function cleanStaleTemps(dir: string, keep: (name: string) => boolean = () => false): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const removed: string[] = []
  for (const name of names) {
    if (keep(name)) continue
    try {
      if (!isStaleTemp(name, statSync(join(dir, name)).mtimeMs)) continue
      rmSync(join(dir, name), { force: true })
      removed.push(name)
    } catch {
      // Gone already (its writer renamed it), or not ours to remove.
    }
  }
  return removed
}

/** A lock held longer than this (its holder hung, or a pid reused) is taken over. */
const STALE_LOCK_MS = 10_000

/**
 * Run `fn` (synchronous, short: a read-modify-write of a shared file) holding `lock`, a file
 * made with O_EXCL that names its holder's pid, so that processes sharing a folder do not
 * interleave their writes. A lock whose holder is gone, or older than STALE_LOCK_MS, is taken
 * over. Waits at most `waitMs`, then runs `fn` anyway: a lost cache entry is better than a hung
 * host (the run files stay the truth). Where no lock can be made (a read-only folder), `fn`
 * runs without one.
 */
export function withFileLockSync<T>(lock: string, fn: () => T, waitMs = 5000): T {
  const deadline = Date.now() + waitMs
  const nap = new Int32Array(new SharedArrayBuffer(4))
  let fd: number | null = null
  for (;;) {
    try {
      fd = openSync(lock, 'wx')
      writeSync(fd, String(process.pid))
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') break
      if (staleLock(lock)) {
        rmSync(lock, { force: true })
        continue
      }
      if (Date.now() > deadline) break
      Atomics.wait(nap, 0, 0, 1)
    }
  }
  try {
    return fn()
  } finally {
    if (fd !== null) {
      closeSync(fd)
      rmSync(lock, { force: true })
    }
  }
}

function staleLock(lock: string): boolean {
  try {
    const st = statSync(lock)
    if (Date.now() - st.mtimeMs > STALE_LOCK_MS) return true
    const pid = Number(readFileSync(lock, 'utf8'))
    // a lock being made has no pid yet: its holder is alive
    return Number.isInteger(pid) && pid > 0 && !alive(pid)
  } catch {
    // gone meanwhile: try again
    return false
  }
}
