import { mkdirSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/**
 * `mkdir -p` without Node's recursive mkdir, which spins at 100 % of a core for ever on a path
 * inside /proc (mkdir there fails with ENOENT although the parent exists, and Node retries).
 * Each missing parent is created once, from the top down; a failure names the folder and why.
 */
export function makeDirs(path: string): void {
  const missing: string[] = []
  let p = resolve(path)
  for (;;) {
    try {
      if (statSync(p).isDirectory()) break
      throw dirError(p, 'a file is in the way')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e instanceof DirError ? e : dirError(p, reason(e))
    }
    missing.push(p)
    const up = dirname(p)
    if (up === p) break
    p = up
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && statSync(dir).isDirectory()) continue
      throw dirError(dir, reason(e))
    }
  }
}

/** makeDirs for async callers (a few stat and mkdir calls: kept synchronous, one code path). */
export async function makeDirsAsync(path: string): Promise<void> {
  makeDirs(path)
}

/** A folder that cannot be created: the message names it and the reason. */
export class DirError extends Error {
  constructor(readonly dir: string, message: string) {
    super(message)
  }
}

function dirError(dir: string, why: string): DirError {
  return new DirError(dir, `cannot create the folder ${dir}: ${why}`)
}

function reason(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'this file system takes no new folders'
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'read-only file system'
    case 'ENOSPC':
      return 'no space left on the device'
    default:
      return (e as Error).message
  }
}
