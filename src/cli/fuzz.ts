import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseTree, type Node } from 'jsonc-parser'
import { Prng } from '../sim/engine/prng'
import { runCli } from './index'
import { memoryIo } from './io'

/**
 * A deterministic mutation fuzzer of the scenario reader and the CLI: it takes well-formed and
 * malformed inputs (the presets, the bad-input corpus, rt-app's examples), breaks them the ways
 * files get broken or crafted (truncation, byte flips, huge and non-finite numbers, prototype
 * keys, deep nesting, huge strings, type swaps), and runs each through `runCli` in-process. The
 * contract: exit 0 or 2, never 1, never a stack trace, never a hang. Used by the fuzz test
 * (a few hundred cases) and `npm run fuzz` (as many as asked).
 */

export interface FuzzSeed {
  /** presets, bad or rt-app: cases take the groups in turn, so the few presets weigh as much as the large bad corpus. */
  group: string
  name: string
  text: string
}

export interface FuzzCase {
  id: number
  seed: string
  mutation: string
  text: string
}

export interface FuzzOutcome {
  case: FuzzCase
  command: string
  code: number
  ms: number
  /** Why the outcome breaks the contract, or null. */
  failure: string | null
  stderr: string
}

const PROJECT_ROOT = resolve(__dirname, '../..')

/** The fuzz seeds: presets, the bad-input corpus and (when ../shared is there) rt-app's examples. */
export function fuzzSeeds(root = PROJECT_ROOT): FuzzSeed[] {
  const dirs: [string, string][] = [
    ['presets', join(root, 'resources', 'scenarios')],
    ['bad', join(root, 'src', 'cli', 'fixtures', 'bad')],
    ['rt-app', join(root, '..', 'shared', 'rt-app-examples')]
  ]
  const out: FuzzSeed[] = []
  for (const [group, dir] of dirs) {
    if (!existsSync(dir)) continue
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) out.push({ group, name: f, text: readFileSync(join(dir, f), 'utf8') })
  }
  return out
}

/** The value nodes of a (possibly broken) document, for mutations that replace one value. */
function valueNodes(text: string): Node[] {
  let tree: Node | undefined
  try {
    tree = parseTree(text, [], { allowTrailingComma: true })
  } catch {
    return []
  }
  const out: Node[] = []
  const stack: Node[] = tree ? [tree] : []
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type === 'property') {
      if (n.children?.[1]) stack.push(n.children[1])
      continue
    }
    out.push(n)
    for (const c of n.children ?? []) stack.push(c)
  }
  return out.sort((a, b) => a.offset - b.offset)
}

const pick = <T>(r: Prng, xs: readonly T[]): T => xs[r.below(xs.length)]

const HUGE_NUMBERS = ['1e308', '-1e308', '1e400', '-1e400', '9007199254740993', '1e-320', '-0', '0', '-1', '4294967296', '1.5', '99999999999999999999', '-2147483649', '0.0000001']
const NON_FINITE = ['NaN', 'Infinity', '-Infinity', '+1', '0x10', '.5', '1.', '01']
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype']
const SWAPS = ['"s"', '""', '1', '0', '-1', 'true', 'false', 'null', '[]', '{}', '[1, 2]', '{ "a": 1 }', '["x"]', '[{}]', '"1000"']
const FLIP_CHARS = '{}[]":,0123456789abcdefxyz\\ \n/*-.e+\u0000\u00ff\ud800\ufeff'

function replaceNode(text: string, n: Node, by: string): string {
  return text.slice(0, n.offset) + by + text.slice(n.offset + n.length)
}

function nest(r: Prng): string {
  const depth = pick(r, [100, 300, 600, 1500, 5000, 20000])
  if (r.below(2) === 0) return '['.repeat(depth) + ']'.repeat(depth)
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
}

type Mutator = (text: string, r: Prng, nodes: Node[]) => [string, string] | null

const MUTATORS: [string, Mutator][] = [
  ['truncate', (t, r) => (t.length > 0 ? [t.slice(0, r.below(t.length)), 'truncate'] : null)],
  ['flip', (t, r) => {
    if (t.length === 0) return null
    let s = t
    const n = 1 + r.below(3)
    for (let i = 0; i < n; i++) {
      const at = r.below(s.length)
      const c = r.below(4) === 0 ? String.fromCharCode(r.below(256)) : FLIP_CHARS[r.below(FLIP_CHARS.length)]
      s = s.slice(0, at) + c + s.slice(at + 1)
    }
    return [s, `flip x${n}`]
  }],
  ['number', (t, r, nodes) => {
    const nums = nodes.filter((n) => n.type === 'number')
    if (nums.length === 0) return null
    const by = pick(r, HUGE_NUMBERS)
    return [replaceNode(t, pick(r, nums), by), `number ${by}`]
  }],
  ['non-finite', (t, r, nodes) => {
    const vals = nodes.filter((n) => n.type !== 'object' && n.type !== 'array')
    if (vals.length === 0) return null
    const by = pick(r, NON_FINITE)
    return [replaceNode(t, pick(r, vals), by), `non-finite ${by}`]
  }],
  ['proto-key', (t, r, nodes) => {
    const objs = nodes.filter((n) => n.type === 'object')
    if (objs.length === 0) return null
    const o = pick(r, objs)
    const key = pick(r, PROTO_KEYS)
    const props = o.children ?? []
    if (props.length > 0 && r.below(2) === 0) {
      const k = pick(r, props).children?.[0]
      if (k) return [replaceNode(t, k, JSON.stringify(key)), `rename key to ${key}`]
    }
    const val = pick(r, ['{ "polluted": true }', '1', 'null', '{ "toString": 1 }', '[]'])
    const at = o.offset + 1
    return [t.slice(0, at) + ` ${JSON.stringify(key)}: ${val}${props.length > 0 ? ',' : ''} ` + t.slice(at), `insert key ${key}`]
  }],
  ['deep', (t, r, nodes) => {
    if (nodes.length === 0) return [nest(r), 'deep root']
    const by = nest(r)
    return [replaceNode(t, pick(r, nodes), by), `deep ${by.length / 2 | 0} chars`]
  }],
  ['huge-string', (t, r, nodes) => {
    const strs = nodes.filter((n) => n.type === 'string')
    if (strs.length === 0) return null
    const kind = r.below(3)
    const by = kind === 0 ? `"${'x'.repeat(pick(r, [1e4, 1e5, 1e6]))}"` : kind === 1 ? '"\\ud800\\udfff\\u0000\\n"' : `"${'\\u00e9'.repeat(5000)}"`
    return [replaceNode(t, pick(r, strs), by), `huge string ${by.length}`]
  }],
  ['type-swap', (t, r, nodes) => {
    if (nodes.length === 0) return null
    const by = pick(r, SWAPS)
    return [replaceNode(t, pick(r, nodes), by), `type swap ${by}`]
  }],
  ['delete', (t, r, nodes) => {
    const objs = nodes.filter((n) => n.type === 'object' && (n.children?.length ?? 0) > 0)
    if (objs.length === 0) return null
    const p = pick(r, pick(r, objs).children!)
    return [t.slice(0, p.offset) + t.slice(p.offset + p.length), 'delete property']
  }],
  ['duplicate', (t, r, nodes) => {
    const objs = nodes.filter((n) => n.type === 'object' && (n.children?.length ?? 0) > 0)
    if (objs.length === 0) return null
    const p = pick(r, pick(r, objs).children!)
    const src = t.slice(p.offset, p.offset + p.length)
    return [t.slice(0, p.offset) + src + ', ' + t.slice(p.offset), 'duplicate property']
  }]
]

/** One mutation (sometimes two or three stacked) of `text`. */
export function mutate(text: string, r: Prng): { text: string; mutation: string } {
  const rounds = r.below(4) === 0 ? 2 + r.below(2) : 1
  let cur = text
  const done: string[] = []
  for (let i = 0; i < rounds; i++) {
    // Parsing a text that is already deeply nested is what we test, not how we mutate.
    const nodes = cur.length < 400_000 ? valueNodes(cur) : []
    for (let tries = 0; tries < 8; tries++) {
      const [, m] = pick(r, MUTATORS)
      const res = m(cur, r, nodes)
      if (!res) continue
      cur = res[0]
      done.push(res[1])
      break
    }
  }
  return { text: cur, mutation: done.join(' + ') || 'none' }
}

/** `count` cases, deterministic for a given fuzz seed, round-robin over the seeds. */
export function fuzzCases(seeds: FuzzSeed[], count: number, fuzzSeed = 1): FuzzCase[] {
  const r = new Prng(fuzzSeed)
  const groups = [...new Set(seeds.map((s) => s.group))].map((g) => seeds.filter((s) => s.group === g))
  const out: FuzzCase[] = []
  for (let id = 0; id < count; id++) {
    const group = groups[id % groups.length]
    const seed = group[Math.floor(id / groups.length) % group.length]
    const m = mutate(seed.text, r)
    out.push({ id, seed: seed.name, mutation: m.mutation, text: m.text })
  }
  return out
}

/** Bounds for a fuzzed `run`: the fuzz tests the input paths, not long simulations. */
const RUN_ARGS = ['--duration-ms', '20', '--max-events', '2000000']

/**
 * Run one case: `validate`, then (when valid and `simulate` is set) a short `run`. Only the
 * case's own text is readable (an rt-app "file" reference to anything else is not found).
 */
export async function runFuzzCase(c: FuzzCase, opts: { simulate?: boolean } = {}): Promise<FuzzOutcome[]> {
  const file = `fuzz/${c.id}-${c.seed}`
  const commands: string[][] = [['validate', file]]
  if (opts.simulate) commands.push(['run', file, ...RUN_ARGS])
  const out: FuzzOutcome[] = []
  for (const argv of commands) {
    const io = memoryIo({ [file]: c.text })
    io.exists = (p) => p in io.files
    io.readFile = (p) => {
      if (p in io.files) return io.files[p]
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${p}'`), { code: 'ENOENT' })
    }
    const t0 = performance.now()
    let code: number
    let thrown: string | null = null
    try {
      code = await runCli(argv, io)
    } catch (e) {
      code = -1
      thrown = e instanceof Error ? `${e.message}\n${e.stack}` : String(e)
    }
    const ms = performance.now() - t0
    const stderr = thrown ?? io.stderr
    const failure = thrown ? 'runCli threw'
      : code !== 0 && code !== 2 ? `exit ${code}`
        : /\n\s+at /.test(stderr) || /Maximum call stack/.test(stderr) ? 'stack trace on stderr'
          : null
    out.push({ case: c, command: argv[0], code, ms, failure, stderr })
    if (code !== 0) break
  }
  return out
}
