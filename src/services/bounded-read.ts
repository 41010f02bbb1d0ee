/**
 * The one way the tools read a file they were handed (scenarios, includes, sweep shards,
 * traces): regular files only, a size cap, and for traces a cap on the gunzipped bytes. A device
 * (/dev/zero), a FIFO, a socket or a directory is refused at once with a message naming what it
 * is, instead of being read forever (or blocking in open). The line-length cap of traces is the
 * reader's (src/trace/reader.ts).
 */
import { closeSync, constants, createReadStream, fstatSync, openSync, readSync, type Stats } from 'node:fs'
import { pipeline, Transform, type Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { formatMb, MAX_SCENARIO_BYTES } from '../shared/limits'

const MB = 1024 * 1024

/** Largest scenario, include or rt-app file read from disk: the web host's scenario limit. */
export const MAX_INPUT_FILE_BYTES = MAX_SCENARIO_BYTES

/** Largest result file read back (a sweep shard's sweep.json for `schedlab merge`). */
export const MAX_RESULT_FILE_BYTES = 256 * MB

/** Default of `--max-trace-mb`: the most trace text read (after gunzip), in MB. */
export const DEFAULT_MAX_TRACE_MB = 1024

/** A file refused before or while reading it: the message is for the user (exit 2). */
export class FileLimitError extends Error {}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory'
  if (st.isFIFO()) return 'a FIFO (named pipe)'
  if (st.isCharacterDevice()) return 'a character device'
  if (st.isBlockDevice()) return 'a block device'
  if (st.isSocket()) return 'a socket'
  return 'not a regular file'
}

function errnoMessage(e: unknown): string {
  const err = e as NodeJS.ErrnoException
  if (err.code === 'ENOENT') return 'no such file'
  if (err.code === 'EACCES' || err.code === 'EPERM') return 'permission denied'
  if (err.code === 'EISDIR') return 'is a directory, not a file'
  return err.message
}

/**
 * Open `path` for reading, a regular file only. O_NONBLOCK: opening a FIFO for reading would
 * otherwise wait for a writer; on a regular file the flag changes nothing.
 */
export function openRegularFile(path: string): { fd: number; size: number } {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (e) {
    throw new FileLimitError(errnoMessage(e))
  }
  let st: Stats
  try {
    st = fstatSync(fd)
  } catch (e) {
    closeSync(fd)
    throw new FileLimitError(errnoMessage(e))
  }
  if (!st.isFile()) {
    closeSync(fd)
    throw new FileLimitError(`${kindOf(st)}, not a regular file`)
  }
  return { fd, size: st.size }
}

function tooLarge(bytes: number, max: number, what: string): FileLimitError {
  return new FileLimitError(`${what} too large: ${formatMb(bytes)}, the limit is ${formatMb(max)}`)
}

/** A regular file's text (UTF-8), at most `maxBytes`: never more is read, even if it grows. */
export function readTextFileBounded(path: string, maxBytes = MAX_INPUT_FILE_BYTES, what = 'file'): string {
  const { fd, size } = openRegularFile(path)
  try {
    if (size > maxBytes) throw tooLarge(size, maxBytes, what)
    // one byte more than the cap tells a file that grew past it since the fstat
    const buf = Buffer.allocUnsafe(Math.min(size, maxBytes) + 1)
    let n = 0
    for (;;) {
      const r = readSync(fd, buf, n, buf.length - n, null)
      if (r === 0) break
      n += r
      if (n === buf.length) {
        if (n > maxBytes) throw tooLarge(n, maxBytes, what)
        break
      }
    }
    return buf.toString('utf8', 0, n)
  } finally {
    closeSync(fd)
  }
}

/** Passes at most `max` bytes on, then fails with `message`. */
export function byteCap(max: number, message: () => string): Transform {
  let n = 0
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      n += chunk.length
      if (n > max) done(new FileLimitError(message()))
      else done(null, chunk)
    }
  })
}

/**
 * A trace as a byte stream: a regular file (gunzipped when compressed) or "-" for stdin, at most
 * `maxMb` MB of text in either case. The checks on the file itself throw at once.
 */
export function openTraceStream(path: string, maxMb = DEFAULT_MAX_TRACE_MB): Readable {
  const max = maxMb * MB
  const over = (what: string) => () => `${what} too large: over ${formatMb(max)}, the limit is ${formatMb(max)} (--max-trace-mb)`
  if (path === '-') return pipeline(process.stdin, byteCap(max, over('trace')), () => {})
  const { fd, size } = openRegularFile(path)
  let gzip = false
  try {
    if (size > max) throw new FileLimitError(`trace too large: ${formatMb(size)}, the limit is ${formatMb(max)} (--max-trace-mb)`)
    const b = Buffer.alloc(2)
    gzip = readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b
  } catch (e) {
    closeSync(fd)
    throw e
  }
  const file = createReadStream('', { fd, start: 0, end: max, highWaterMark: MB })
  // pipeline() passes a read error on to the last stream, whose reader then throws it
  return gzip ? pipeline(file, createGunzip(), byteCap(max, over('gunzipped trace')), () => {}) : pipeline(file, byteCap(max, over('trace')), () => {})
}
