import { promises as fs } from 'node:fs'
import { dirname, basename, join } from 'node:path'
import { randomBytes } from 'node:crypto'

/**
 * Write a file so that readers see either the old or the new content, never a torn one:
 * write a temporary file in the same folder, fsync it, then rename over the target
 * (rename is atomic within a file system).
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(file)
  await fs.mkdir(dir, { recursive: true })
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  const fh = await fs.open(tmp, 'w')
  try {
    await fh.writeFile(data)
    await fh.sync()
  } finally {
    await fh.close()
  }
  try {
    await fs.rename(tmp, file)
  } catch (err) {
    await fs.rm(tmp, { force: true })
    throw err
  }
}

/** Temporary files left by an interrupted writeFileAtomic (a kill between write and rename). */
export function isAtomicTemp(name: string): boolean {
  return /^\..+\.\d+\.[0-9a-f]{8}\.tmp$/.test(name)
}
