/**
 * The layers of src/ and the import graph's shape, read from every import of every file
 * (type-only imports and `import('...')` types count too: they tie files together as much as
 * values do). After VS Code's code-layering lint rule: each folder lists the folders it may
 * import.
 *
 * - sim is the pure model: it imports only itself and shared (no I/O, no host).
 * - renderer imports only shared and the pure statistics (stats); main is Electron only and
 *   never the CLI; services (the Node host of the desktop app, serve and the CLI) never import
 *   renderer, main or cli.
 * - No file reaches itself through its imports (no import circle between files).
 *
 * Tests may also drive the command end to end (cli) and use the golden cases and presets
 * (golden, services); tests of the pure layers (sim, stats, shared, renderer) may not.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { parseSync } from 'vite'
import { describe, expect, it } from 'vitest'

const SRC = __dirname

/** Folder of src/ -> the folders its code may import (itself always). */
const LAYERS: Record<string, readonly string[]> = {
  shared: ['stats'],
  stats: ['shared'],
  sim: ['shared'],
  trace: ['sim', 'shared'],
  real: ['trace', 'sim', 'shared'],
  vm: ['real', 'trace', 'sim', 'shared'],
  sweep: ['sim', 'shared', 'stats'],
  calibrate: ['real', 'trace', 'sim', 'shared', 'stats'],
  services: ['sim', 'shared', 'stats', 'trace', 'real', 'vm', 'sweep', 'calibrate'],
  golden: ['services', 'sim', 'shared'],
  cli: ['services', 'sim', 'shared', 'stats', 'trace', 'real', 'vm', 'sweep', 'calibrate'],
  main: ['services', 'shared', 'trace'],
  preload: ['shared'],
  renderer: ['shared', 'stats']
}

/**
 * What tests (and test support) of a folder may import besides: the command (end to end), the
 * golden cases and the presets; in the pure layers nothing, but the statistics' tests record
 * their samples as the simulator does (stats/testing.ts).
 */
const HOST_TESTS: readonly string[] = ['cli', 'golden', 'services']
const TEST_EXTRA: Record<string, readonly string[]> = { sim: [], stats: ['sim'], shared: [], renderer: [], preload: [] }

/**
 * Imports against the rules that are still to be undone (each a "from -> to" of files), and
 * import circles still to be broken (each the sorted files of one): the test fails on any other,
 * and on an entry here that no longer occurs, so the lists only shrink.
 */
const KNOWN_VIOLATIONS: readonly string[] = []
const KNOWN_CIRCLES: readonly string[][] = []

interface Edge {
  from: string
  to: string
  typeOnly: boolean
}

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) {
      if (name !== 'node_modules') sourceFiles(p, out)
    } else if (/\.(ts|mts|cts|tsx)$/.test(name) && !name.endsWith('.d.ts')) out.push(p)
  }
  return out
}

/** A relative specifier as the bundler resolves it (extensionless, index files, `?query` dropped). */
function resolveSpecifier(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null
  const base = resolve(dirname(from), spec.replace(/\?.*$/, ''))
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}.mts`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')]) {
    if (existsSync(c) && statSync(c).isFile()) return c
  }
  return base
}

function importsOf(file: string): Edge[] {
  const code = readFileSync(file, 'utf8')
  const lang = file.endsWith('.tsx') ? 'tsx' : 'ts'
  const parsed = parseSync(file, code, { lang })
  if (parsed.errors.length > 0) throw new Error(`${relative(SRC, file)}: ${parsed.errors[0].message}`)
  const edges: Edge[] = []
  const add = (spec: string, typeOnly: boolean): void => {
    const to = resolveSpecifier(file, spec)
    if (to !== null) edges.push({ from: file, to, typeOnly })
  }
  const mod = parsed.module
  for (const i of mod.staticImports) add(i.moduleRequest.value, i.entries.length > 0 && i.entries.every((e) => e.isType))
  for (const e of mod.staticExports) for (const en of e.entries) if (en.moduleRequest) add(en.moduleRequest.value, en.isType)
  for (const d of mod.dynamicImports) {
    const m = /^(['"`])([^'"`]*)\1$/.exec(code.slice(d.moduleRequest.start, d.moduleRequest.end))
    if (m) add(m[2], false)
  }
  // `typeof import('./x')` and `import('./x').T` in types
  if (code.includes('import(')) {
    const visit = (n: unknown): void => {
      if (n === null || typeof n !== 'object') return
      if (Array.isArray(n)) {
        for (const c of n) visit(c)
        return
      }
      const node = n as Record<string, unknown>
      if (node.type === 'TSImportType') {
        const arg = (node.argument ?? node.parameter) as { literal?: { value?: unknown }; value?: unknown } | undefined
        const v = arg?.literal?.value ?? arg?.value
        if (typeof v === 'string') add(v, true)
      }
      for (const k in node) if (k !== 'parent') visit(node[k])
    }
    visit(parsed.program)
  }
  return edges
}

const rel = (p: string): string => relative(SRC, p).split(sep).join('/')
const folderOf = (p: string): string => rel(p).split('/')[0]
const isTest = (p: string): boolean =>
  /\.test\.tsx?$/.test(p) || /[/\\](__fixtures__|fixtures|testing)[/\\]/.test(p) || /(^|[/\\-])testing\.ts$/.test(p)

const FILES = sourceFiles(SRC)
const EDGES = FILES.flatMap(importsOf)

/** Strongly connected components of more than one file (Tarjan). */
function circles(): string[][] {
  const out = new Map<string, string[]>()
  for (const e of EDGES) (out.get(e.from) ?? out.set(e.from, []).get(e.from)!).push(e.to)
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const connect = (v: string): void => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const c: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      c.push(w)
    } while (w !== v)
    if (c.length > 1) found.push(c.map(rel).sort())
  }
  for (const f of FILES) if (!index.has(f)) connect(f)
  return found
}

describe('the layers of src/', () => {
  it('every folder of src/ has its place in the layers', () => {
    const folders = [...new Set(FILES.map(folderOf))].filter((f) => !f.includes('.'))
    expect(folders.filter((f) => !(f in LAYERS))).toEqual([])
  })

  it('no file imports a folder its layer may not (type-only imports count)', () => {
    const bad: string[] = []
    for (const e of EDGES) {
      if (!e.to.startsWith(SRC + sep)) continue
      const from = folderOf(e.from)
      const to = folderOf(e.to)
      if (from === to || !(from in LAYERS)) continue
      const allowed = LAYERS[from].includes(to) || (isTest(e.from) && (TEST_EXTRA[from] ?? HOST_TESTS).includes(to))
      if (!allowed) bad.push(`${rel(e.from)} -> ${rel(e.to)}`)
    }
    const unique = [...new Set(bad)].sort()
    expect(unique.filter((b) => !KNOWN_VIOLATIONS.includes(b)), 'imports against the layers').toEqual([])
    expect(KNOWN_VIOLATIONS.filter((k) => !unique.includes(k)), 'undone: remove from KNOWN_VIOLATIONS').toEqual([])
  })

  it('no import circle between files', () => {
    const found = circles()
    const key = (c: readonly string[]): string => c.join(' ')
    const known = new Set(KNOWN_CIRCLES.map(key))
    const show = (c: string[]): string => {
      const files = new Set(c.map((f) => join(SRC, f)))
      const inside = EDGES.filter((e) => files.has(e.from) && files.has(e.to))
      return `${c.length} files: ${inside.map((e) => `${rel(e.from)} -> ${rel(e.to)}${e.typeOnly ? ' (type)' : ''}`).join(', ')}`
    }
    expect(found.filter((c) => !known.has(key(c))).map(show), 'import circles').toEqual([])
    expect(KNOWN_CIRCLES.filter((c) => !found.some((f) => key(f) === key(c))), 'broken: remove from KNOWN_CIRCLES').toEqual([])
  })
})
