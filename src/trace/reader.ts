import { closeSync, createReadStream, openSync, readSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { pipeline, type Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import type { SchedEvent, TraceMeta } from './events'
import { parseFtraceLine } from './ftrace-text'

/**
 * Streaming ftrace-text reader: lines go through one at a time, so a trace of hundreds of MB
 * costs memory for one chunk, not for the file. A line that is not an event is counted, and the
 * first few are kept with their line numbers to report; none is fatal.
 */

export interface ReadStats {
  lines: number
  /** Lines of events the analyzer reads. */
  events: number
  /** Well-formed event lines of other events (counted, not read). */
  otherEvents: number
  malformed: number
  /** The first malformed lines, for the report. */
  malformedExamples: { line: number; text: string; reason: string }[]
  /** Events the kernel said it lost ("CPU:N [LOST M EVENTS]"). */
  lostEvents: number
  bytes: number
}

export interface TraceSink {
  /** A string refuses the event: the line counts as malformed, with that reason. */
  event(e: SchedEvent): unknown
  meta?(m: TraceMeta): unknown
}

const MAX_EXAMPLES = 5

/**
 * Longest line read (characters): ftrace lines are a few hundred; anything longer is no trace
 * (a binary file, a file of zeros), and reading on would hold it all in memory.
 */
export const MAX_TRACE_LINE_CHARS = 64 * 1024

/** A stream that is no ftrace text: reading stops at once (exit 2 in the CLI). */
export class TraceFormatError extends Error {}

export function emptyReadStats(): ReadStats {
  return { lines: 0, events: 0, otherEvents: 0, malformed: 0, malformedExamples: [], lostEvents: 0, bytes: 0 }
}

/** Feeds lines to a sink, keeping the counts. */
export class FtraceLineReader {
  readonly stats = emptyReadStats()
  constructor(private readonly sink: TraceSink) {}

  line(text: string): void {
    const s = this.stats
    s.lines++
    const r = parseFtraceLine(text)
    switch (r.type) {
      case 'comment':
        return
      case 'other':
        s.otherEvents++
        return
      case 'meta': {
        const refused = this.sink.meta?.(r.meta)
        if (typeof refused === 'string') this.malformed(text, refused)
        return
      }
      case 'lost':
        s.lostEvents += r.count
        return
      case 'malformed':
        this.malformed(text, r.reason)
        return
      default: {
        const refused = this.sink.event(r)
        if (typeof refused === 'string') this.malformed(text, refused)
        else s.events++
      }
    }
  }

  private malformed(text: string, reason: string): void {
    const s = this.stats
    s.malformed++
    if (s.malformedExamples.length < MAX_EXAMPLES) s.malformedExamples.push({ line: s.lines, text: text.length > 200 ? text.slice(0, 200) + '...' : text, reason })
  }
}

/**
 * Read ftrace text from a stream of bytes or text. A line longer than `maxLineChars` ends the
 * read with a TraceFormatError naming its line (the stream is destroyed: nothing more is read).
 */
export async function readFtraceStream(input: Readable, sink: TraceSink, maxLineChars = MAX_TRACE_LINE_CHARS): Promise<ReadStats> {
  const reader = new FtraceLineReader(sink)
  const decoder = new StringDecoder('utf8')
  let rest = ''
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    reader.stats.bytes += chunk.length
    rest = feedText(rest + (typeof chunk === 'string' ? chunk : decoder.write(chunk)), reader, maxLineChars)
    if (rest.length > maxLineChars) throw lineTooLong(reader, maxLineChars)
  }
  rest += decoder.end()
  if (rest.length > maxLineChars) throw lineTooLong(reader, maxLineChars)
  if (rest.length > 0) reader.line(stripCr(rest))
  return reader.stats
}

function lineTooLong(reader: FtraceLineReader, max: number): TraceFormatError {
  return new TraceFormatError(`line ${reader.stats.lines + 1} is longer than ${Math.round(max / 1024)} KB: not ftrace text (a binary file?)`)
}

function stripCr(s: string): string {
  return s.charCodeAt(s.length - 1) === 13 ? s.slice(0, -1) : s
}

/** Feed every complete line of `text`; returns the incomplete tail. */
function feedText(text: string, reader: FtraceLineReader, maxLineChars = MAX_TRACE_LINE_CHARS): string {
  let start = 0
  for (;;) {
    const nl = text.indexOf('\n', start)
    if (nl < 0) break
    if (nl - start > maxLineChars) throw lineTooLong(reader, maxLineChars)
    reader.line(stripCr(text.slice(start, nl)))
    start = nl + 1
  }
  return start === 0 ? text : text.slice(start)
}

/** A trace file as a byte stream: gunzipped when compressed, "-" is stdin. */
export function openTraceFile(path: string): Readable {
  if (path === '-') return process.stdin
  const file = createReadStream(path, { highWaterMark: 1 << 20 })
  // pipeline() passes a read error on to the gunzip stream, whose reader then throws it
  return isGzip(path) ? pipeline(file, createGunzip(), () => {}) : file
}

/** Read a trace file ("-" is stdin). */
export function readFtraceFile(path: string, sink: TraceSink): Promise<ReadStats> {
  return readFtraceStream(openTraceFile(path), sink)
}

function isGzip(path: string): boolean {
  const fd = openSync(path, 'r')
  try {
    const b = Buffer.alloc(2)
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b
  } finally {
    closeSync(fd)
  }
}

/** Read ftrace text held in memory (tests, small traces). */
export function readFtraceString(text: string, sink: TraceSink): ReadStats {
  const reader = new FtraceLineReader(sink)
  const rest = feedText(text, reader)
  if (rest.length > MAX_TRACE_LINE_CHARS) throw lineTooLong(reader, MAX_TRACE_LINE_CHARS)
  if (rest.length > 0) reader.line(stripCr(rest))
  return reader.stats
}
