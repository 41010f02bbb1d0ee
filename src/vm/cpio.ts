import { gzipSync } from 'node:zlib'

/**
 * The initramfs format the kernel unpacks (cpio "newc", gzip-compressed): written here so that
 * building the guest's image needs no cpio program. Entries carry fixed owners and times, so
 * the same contents give the same bytes (and the same guest, run after run).
 */

export type CpioEntry =
  | { type: 'dir'; path: string; mode?: number }
  | { type: 'file'; path: string; data: Buffer | string; mode?: number }
  | { type: 'symlink'; path: string; target: string }
  | { type: 'chardev'; path: string; major: number; minor: number; mode?: number }

const S_IFDIR = 0o040000
const S_IFREG = 0o100000
const S_IFLNK = 0o120000
const S_IFCHR = 0o020000

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0')
}

function pad4(n: number): number {
  return (4 - (n % 4)) % 4
}

function header(ino: number, mode: number, size: number, name: string, rdev: [number, number] = [0, 0]): Buffer {
  const nameBytes = Buffer.from(name + '\0', 'utf8')
  const fields = [ino, mode, 0, 0, mode & S_IFDIR ? 2 : 1, 0, size, 0, 0, rdev[0], rdev[1], nameBytes.length, 0]
  const h = Buffer.from('070701' + fields.map(hex8).join(''), 'latin1')
  return Buffer.concat([h, nameBytes, Buffer.alloc(pad4(h.length + nameBytes.length))])
}

/** One newc archive (uncompressed) of the entries, parents before children as given. */
export function cpioNewc(entries: readonly CpioEntry[]): Buffer {
  const parts: Buffer[] = []
  let ino = 1
  for (const e of entries) {
    const name = e.path.replace(/^\/+/, '')
    if (e.type === 'dir') parts.push(header(ino++, S_IFDIR | (e.mode ?? 0o755), 0, name))
    else if (e.type === 'chardev') parts.push(header(ino++, S_IFCHR | (e.mode ?? 0o600), 0, name, [e.major, e.minor]))
    else {
      const data = e.type === 'file' ? (typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : e.data) : Buffer.from(e.target, 'utf8')
      const mode = e.type === 'file' ? S_IFREG | (e.mode ?? 0o644) : S_IFLNK | 0o777
      parts.push(header(ino++, mode, data.length, name), data, Buffer.alloc(pad4(data.length)))
    }
  }
  parts.push(header(0, 0, 0, 'TRAILER!!!'))
  return Buffer.concat(parts)
}

/** A gzip-compressed newc archive; several of them concatenated form one initramfs. */
export function cpioGz(entries: readonly CpioEntry[], level = 6): Buffer {
  return gzipSync(cpioNewc(entries), { level })
}

/** Directory entries for every parent of the paths (sorted, deduplicated). */
export function parentDirs(paths: readonly string[]): CpioEntry[] {
  const dirs = new Set<string>()
  for (const p of paths) {
    const parts = p.replace(/^\/+/, '').split('/').slice(0, -1)
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'))
  }
  return [...dirs].sort().map((d) => ({ type: 'dir' as const, path: d }))
}
