import { closeSync, openSync, writeSync } from 'node:fs'

export interface LineWriter {
  line(text: string): void
  close(): void
}

/** A file written line by line, buffered (traces run to hundreds of MB). */
export function openLineWriter(path: string): LineWriter {
  const fd = openSync(path, 'w')
  let buf: string[] = []
  let size = 0
  const flush = (): void => {
    if (buf.length === 0) return
    writeSync(fd, buf.join('\n') + '\n')
    buf = []
    size = 0
  }
  return {
    line(t) {
      buf.push(t)
      size += t.length
      if (size > 1 << 20) flush()
    },
    close() {
      flush()
      closeSync(fd)
    }
  }
}

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'x'
}

/** "<scenario>-<variant>-<run>": the stem of the files `run --trace` and `real --trace` write. */
export function runFileStem(scenario: string, variant: string, run: string): string {
  return `${slug(scenario)}-${slug(variant)}-${run}`
}

export function traceFileName(scenario: string, variant: string, run: string): string {
  return `${runFileStem(scenario, variant, run)}.trace.txt`
}
