import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { gzipSync, gunzipSync } from 'node:zlib'
import { Prng } from '../sim/engine/prng'
import { runCli } from './index'
import { memoryIo } from './io'
import { makeDirs } from '../services/data-dir'

/**
 * A deterministic mutation fuzzer of `schedlab analyze`: the repository's real traces (the
 * fixtures of src/trace), cut to a few hundred lines, broken the ways trace files get broken or
 * crafted: huge CPU ids and pids, a `#P:` header of a billion CPUs, thousands of tasks, binary
 * bytes, lines without end, truncation, byte flips, timestamps out of order or absurd, gzip
 * bombs. Each case is a real file read through the bounded reader. The contract: exit 0 or 2,
 * never 1, never a stack trace, bounded time and memory. Used by the fuzz test and `npm run fuzz`.
 */

export interface TraceFuzzCase {
  id: number
  seed: string
  mutation: string
  bytes: Buffer
}

export interface TraceFuzzOutcome {
  case: TraceFuzzCase
  code: number
  ms: number
  failure: string | null
  stderr: string
}

const PROJECT_ROOT = resolve(__dirname, '../..')
/** Lines of each seed trace a case starts from: enough for every event kind, fast to analyze. */
const SEED_LINES = 400
/** The cap the cases run under (`--max-trace-mb`): gzip bombs stop there. */
export const TRACE_FUZZ_MAX_MB = 4

/** The seed traces: the repository's real trace fixtures, each cut to its first lines. */
export function traceFuzzSeeds(root = PROJECT_ROOT): { name: string; text: string }[] {
  const dir = join(root, 'src', 'trace', 'fixtures')
  return [
    ['real-6.18.44.trace.txt', join(dir, 'real-6.18.44.trace.txt.gz')],
    ['raw-6.18.44-kernel.txt', join(dir, 'raw-6.18.44', 'kernel.txt.gz')]
  ].map(([name, file]) => {
    const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n')
    // the header and the first events, and some from the middle (other event kinds)
    const mid = Math.floor(lines.length / 2)
    return { name, text: [...lines.slice(0, SEED_LINES / 2), ...lines.slice(mid, mid + SEED_LINES / 2)].join('\n') + '\n' }
  })
}

type Mutation = (text: string, r: Prng) => { mutation: string; bytes: Buffer | string }

const pick = <T>(r: Prng, xs: readonly T[]): T => xs[r.below(xs.length)]
const HUGE = ['99999999', '4294967296', '18446744073709551616', '1' + '0'.repeat(40), '8192', '8191']

function lineAt(text: string, r: Prng, f: (line: string) => string): string {
  const lines = text.split('\n')
  const i = r.below(lines.length)
  lines[i] = f(lines[i])
  return lines.join('\n')
}

const MUTATIONS: Mutation[] = [
  (t, r) => {
    const v = pick(r, HUGE)
    return { mutation: `cpu ${v}`, bytes: lineAt(t, r, (l) => l.replace(/\[\d+\]/, `[${v}]`)) }
  },
  (t, r) => {
    const v = pick(r, HUGE)
    return { mutation: `pid ${v}`, bytes: t.replace(/(next_pid|pid)=\d+/g, (m, k: string) => (r.below(8) === 0 ? `${k}=${v}` : m)) }
  },
  (t, r) => ({ mutation: '#P: huge', bytes: `#P:${pick(r, HUGE)}\n${t}` }),
  (t, r) => {
    // thousands of tasks: each a wakeup and a switch of its own pid
    const n = 1000 + r.below(4000)
    const out: string[] = []
    for (let p = 1; p <= n; p++) {
      const ts = (100 + p / 1e4).toFixed(6)
      out.push(`          <idle>-0     [000] d..2.  ${ts}: sched_waking: comm=w pid=${p} prio=120 target_cpu=000`, `          <idle>-0     [000] d..2.  ${ts}: sched_switch: prev_comm=swapper prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w next_pid=${p} next_prio=120`)
    }
    return { mutation: `${n} tasks`, bytes: t + out.join('\n') + '\n' }
  },
  (t, r) => {
    const junk = Buffer.alloc(64 + r.below(4096))
    for (let i = 0; i < junk.length; i++) junk[i] = r.below(256)
    const at = r.below(t.length)
    return { mutation: 'binary', bytes: Buffer.concat([Buffer.from(t.slice(0, at)), junk, Buffer.from(t.slice(at))]) }
  },
  (t, r) => ({ mutation: 'line without end', bytes: t + 'x'.repeat(70_000 + r.below(100_000)) }),
  (t, r) => ({ mutation: 'truncate', bytes: t.slice(0, r.below(t.length)) }),
  (t, r) => {
    const b = Buffer.from(t)
    for (let k = 0; k < 1 + r.below(20); k++) b[r.below(b.length)] = r.below(256)
    return { mutation: 'flip', bytes: b }
  },
  (t, r) => {
    const lines = t.split('\n')
    for (let k = 0; k < lines.length; k++) {
      const j = r.below(lines.length)
      ;[lines[k], lines[j]] = [lines[j], lines[k]]
    }
    return { mutation: 'shuffle', bytes: lines.join('\n') }
  },
  (t, r) => {
    const v = pick(r, ['999999999999999999999.000000', '0.000000', '1e300.5', '-5.000000', '4294967296.999999999'])
    return { mutation: `timestamp ${v}`, bytes: t.replace(/\d+\.\d{6,9}:/g, (m) => (r.below(5) === 0 ? `${v}:` : m)) }
  },
  (t) => ({ mutation: 'crlf and nul', bytes: t.replace(/\n/g, '\r\n').replace(/=/g, (m, i: number) => (i % 97 === 0 ? '=\u0000' : m)) }),
  (t, r) => ({ mutation: 'gzip', bytes: gzipSync(lineAt(t, r, (l) => l.replace(/\[\d+\]/, '[99999999]'))) }),
  (_t, r) => ({ mutation: 'gzip bomb (zeros)', bytes: gzipSync(Buffer.alloc((8 + r.below(8)) << 20)) }),
  (_t, r) => ({ mutation: 'gzip bomb (newlines)', bytes: gzipSync(Buffer.alloc((TRACE_FUZZ_MAX_MB + 1 + r.below(4)) << 20, 10)) }),
  () => ({ mutation: 'empty', bytes: '' })
]

/** `count` cases from `fuzzSeed`: the same cases every time. */
export function traceFuzzCases(seeds: { name: string; text: string }[], count: number, fuzzSeed: number): TraceFuzzCase[] {
  const r = new Prng(fuzzSeed)
  return Array.from({ length: count }, (_, id) => {
    const s = seeds[id % seeds.length]
    // every mutation in turn, then at random; sometimes two on top of each other
    const m = MUTATIONS[id < MUTATIONS.length ? id : r.below(MUTATIONS.length)](s.text, r)
    let { mutation, bytes } = m
    if (id >= MUTATIONS.length && r.below(4) === 0 && typeof bytes === 'string') {
      const again = MUTATIONS[r.below(MUTATIONS.length)](bytes, r)
      mutation += ` + ${again.mutation}`
      bytes = again.bytes
    }
    return { id, seed: s.name, mutation, bytes: typeof bytes === 'string' ? Buffer.from(bytes) : bytes }
  })
}

/** Run one case through `schedlab analyze` on a real file (the bounded reader included). */
export async function runTraceFuzzCase(c: TraceFuzzCase, dir = join(tmpdir(), `schedlab-trace-fuzz-${process.pid}`)): Promise<TraceFuzzOutcome> {
  makeDirs(dir)
  const file = join(dir, `${c.id}-${c.seed}`)
  writeFileSync(file, c.bytes)
  const io = memoryIo()
  const t0 = performance.now()
  let code: number
  let thrown: string | null = null
  try {
    code = await runCli(['analyze', file, '--json', '--max-trace-mb', String(TRACE_FUZZ_MAX_MB)], io)
  } catch (e) {
    code = -1
    thrown = e instanceof Error ? `${e.message}\n${e.stack}` : String(e)
  } finally {
    rmSync(file, { force: true })
  }
  const ms = performance.now() - t0
  const stderr = thrown ?? io.stderr
  const failure = thrown ? 'runCli threw'
    : code !== 0 && code !== 2 ? `exit ${code}`
      : /\n\s+at /.test(stderr) || /internal error/.test(stderr) ? 'stack trace or internal error on stderr'
        : null
  return { case: c, code, ms, failure, stderr }
}

/** Peak resident memory of this process so far, in MB. */
export function peakRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024)
}
