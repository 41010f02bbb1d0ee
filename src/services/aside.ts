import { renameSync, promises as fs } from 'node:fs'
import { makeDirs, makeDirsAsync } from './data-dir'
import { basename, dirname, join } from 'node:path'

/** Where a corrupt file is moved: next to it, in `corrupt/`, stamped so nothing is overwritten. */
export function asideName(file: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  return join(dirname(file), 'corrupt', `${basename(file)}.${stamp}`)
}

export function moveAsideSync(file: string): string {
  const to = asideName(file)
  makeDirs(dirname(to))
  renameSync(file, to)
  return to
}

export async function moveAside(file: string): Promise<string> {
  const to = asideName(file)
  await makeDirsAsync(dirname(to))
  await fs.rename(file, to)
  return to
}
