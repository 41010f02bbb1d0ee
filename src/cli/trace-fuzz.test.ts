/**
 * The deterministic fuzz of `schedlab analyze` (src/cli/trace-fuzz.ts): mutated real traces,
 * huge ids, binary, lines without end, gzip bombs. Exit 0 or 2 only, no stack trace, bounded
 * time and memory (the process's peak RSS is reported). `npm run fuzz` runs more.
 */
import { describe, expect, it } from 'vitest'
import { peakRssMb, runTraceFuzzCase, traceFuzzCases, traceFuzzSeeds } from './trace-fuzz'

const CASES = 150
/** Per case, generous for a loaded 2-core CI machine. */
const CASE_MS = 10_000
/** The test process's peak RSS: a trace naming CPU 99999999 grew past 4 GB. */
const MAX_RSS_MB = 2048

describe('trace fuzz', () => {
  const seeds = traceFuzzSeeds()

  it('is deterministic and covers every kind of mutation', () => {
    const a = traceFuzzCases(seeds, 40, 1)
    const b = traceFuzzCases(seeds, 40, 1)
    expect(a.map((c) => c.bytes.toString('base64'))).toEqual(b.map((c) => c.bytes.toString('base64')))
    const kinds = a.map((c) => c.mutation).join(' ')
    for (const k of ['cpu ', 'pid ', '#P: huge', ' tasks', 'binary', 'line without end', 'truncate', 'flip', 'shuffle', 'timestamp', 'crlf', 'gzip bomb (zeros)', 'gzip bomb (newlines)', 'empty']) expect(kinds).toContain(k)
  })

  it(`${CASES} mutated traces exit 0 or 2, never 1, in bounded time and memory`, async () => {
    const broken: string[] = []
    const codes = new Map<number, number>()
    for (const c of traceFuzzCases(seeds, CASES, 1)) {
      const o = await runTraceFuzzCase(c)
      codes.set(o.code, (codes.get(o.code) ?? 0) + 1)
      if (o.failure || o.ms > CASE_MS) broken.push(`case ${c.id} (${c.seed}: ${c.mutation}): ${o.failure ?? `took ${o.ms.toFixed(0)} ms`}: ${o.stderr.slice(0, 300)}`)
    }
    expect(broken).toEqual([])
    // both paths: traces refused, and traces (with malformed lines) analyzed
    expect(codes.get(0) ?? 0).toBeGreaterThan(CASES / 4)
    expect(codes.get(2) ?? 0).toBeGreaterThan(10)
    const rss = peakRssMb()
    console.log(`trace fuzz: ${CASES} cases, exit 0: ${codes.get(0) ?? 0}, exit 2: ${codes.get(2) ?? 0}; peak RSS ${rss} MB`)
    expect(rss).toBeLessThan(MAX_RSS_MB)
  }, 240_000)
})
