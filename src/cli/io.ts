import { Readable } from 'node:stream'
import { openLineWriter, type LineWriter } from '../trace/line-writer'
import { appendFileSync, closeSync, existsSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { openTraceStream, readTextFileBounded } from '../services/bounded-read'
import { makeDirs } from '../services/data-dir'
import { InputError } from './errors'

/** What the CLI touches outside itself, so commands can be tested in-process. */
export interface CliIo {
  out(text: string): void
  err(text: string): void
  /** True when stderr is a terminal (progress redraws in place). */
  errIsTty: boolean
  exists(path: string): boolean
  /** A regular file's text, at most `maxBytes` (default: the scenario limit, 16 MB). */
  readFile(path: string, maxBytes?: number): string
  writeFile(path: string, text: string): void
  /** Append to a file (made when missing), at once: what a kill leaves is what was appended. */
  appendFile(path: string, text: string): void
  removeFile(path: string): void
  mkdirp(path: string): void
  /** A file written line by line (traces), buffered. */
  openLines(path: string): LineWriter
  /** A binary file written in chunks (Perfetto traces). */
  openBytes(path: string): ByteWriter
  /** A file as a byte stream (traces: gunzipped when compressed; "-" is stdin), at most `maxMb` MB of text. */
  readStream(path: string, maxMb?: number): Readable
  /** Wall clock in ms, for progress only (never inside the simulation). */
  now(): number
}

export type { LineWriter }

export interface ByteWriter {
  write(chunk: Uint8Array): void
  close(): void
}

export function nodeIo(): CliIo {
  return {
    out: (t) => process.stdout.write(t),
    err: (t) => process.stderr.write(t),
    errIsTty: !!process.stderr.isTTY,
    exists: (p) => existsSync(p),
    readFile: (p, max) => readTextFileBounded(p, max),
    writeFile: (p, t) => {
      try {
        writeFileSync(p, t)
      } catch (e) {
        throw new InputError(`${p}: cannot write: ${(e as Error).message}`)
      }
    },
    appendFile: (p, t) => {
      try {
        appendFileSync(p, t)
      } catch (e) {
        throw new InputError(`${p}: cannot write: ${(e as Error).message}`)
      }
    },
    removeFile: (p) => rmSync(p, { force: true }),
    mkdirp: (p) => makeDirs(p),
    openLines: (p) => openLineWriter(p),
    readStream: (p, max) => openTraceStream(p, max),
    openBytes: (p) => {
      const fd = openSync(p, 'w')
      return {
        write(chunk) {
          writeSync(fd, chunk)
        },
        close() {
          closeSync(fd)
        }
      }
    },
    now: () => performance.now()
  }
}

/** An in-memory CliIo for tests: collects stdout and stderr. */
export function memoryIo(files: Record<string, string> = {}): CliIo & { stdout: string; stderr: string; files: Record<string, string>; binaries: Record<string, Uint8Array> } {
  const io = {
    stdout: '',
    stderr: '',
    files: { ...files },
    binaries: {} as Record<string, Uint8Array>,
    errIsTty: false,
    out(t: string) {
      io.stdout += t
    },
    err(t: string) {
      io.stderr += t
    },
    exists(p: string) {
      return p in io.files || existsSync(p)
    },
    readFile(p: string, max?: number) {
      if (p in io.files) return io.files[p]
      return readTextFileBounded(p, max)
    },
    writeFile(p: string, t: string) {
      io.files[p] = t
    },
    appendFile(p: string, t: string) {
      io.files[p] = (io.files[p] ?? '') + t
    },
    removeFile(p: string) {
      delete io.files[p]
    },
    mkdirp() {},
    readStream(p: string, max?: number) {
      return p in io.files ? Readable.from([io.files[p]]) : openTraceStream(p, max)
    },
    openLines(p: string) {
      const lines: string[] = []
      return {
        line: (t: string) => lines.push(t),
        close: () => {
          io.files[p] = lines.join('\n') + '\n'
        }
      }
    },
    openBytes(p: string) {
      const chunks: Uint8Array[] = []
      return {
        write: (c: Uint8Array) => chunks.push(c.slice()),
        close: () => {
          io.binaries[p] = Buffer.concat(chunks)
        }
      }
    },
    now: () => performance.now()
  }
  return io
}
