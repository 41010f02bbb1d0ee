import { applyEdits, createScanner, format } from 'jsonc-parser'
import { lastEntry, readLenient, TOKEN, type JObject } from './jsonc'
import { importRtApp, parseScenario, type ImportOptions } from './parse'
import { DEFAULT_TOPOLOGY } from './topology-adapter'

/**
 * An rt-app file as the text of a new scenario (the desktop "import rt-app" command): the
 * file's `tasks` and `global` are copied, comments, key order and duplicate keys included, into
 * one rt-app workload, indented as the scenario around them (two spaces a level, the file's
 * line breaks kept). The file's other comments come along: one before `tasks` or `global` stays
 * before it, the rest go under the import line at the top. The rt-app file is checked first
 * (ScenarioError if bad).
 */
export function rtappScenarioText(text: string, file: string, opts: ImportOptions = {}): string {
  const s = importRtApp(text, file, opts)
  const doc = readLenient(text)
  const root = doc.root
  if (!root || root.kind !== 'object') throw new Error('unreachable: importRtApp accepted a non-object')
  const slice = (key: string): string | undefined => {
    const v = lastEntry(root, key)?.value
    return v ? text.slice(v.offset, v.offset + v.length) : undefined
  }
  const global = slice('global')
  const tasks = slice('tasks') as string
  const base = file.split(/[\\/]/).pop() ?? file
  const comments = outsideComments(text, root)
  const before = (key: string): string[] => comments.before.get(key)?.map((c) => reindent(c, '      ')) ?? []
  const raw = [
    `// Imported from the rt-app file ${base}. Choose the topology and add variants to compare.`,
    ...comments.header.map((c) => reindent(c, '')),
    '{',
    `  "name": ${JSON.stringify(s.name)},`,
    `  "topology": ${JSON.stringify(opts.topology ?? DEFAULT_TOPOLOGY)},`,
    `  "durationMs": ${s.durationMs},`,
    '  "variants": [{ "name": "base" }],',
    '  "workloads": [',
    '    {',
    '      "type": "rt-app",',
    '      "name": "rt-app",',
    ...(global ? [...before('global'), `      "global": ${global},`] : []),
    ...before('tasks'),
    `      "tasks": ${tasks}`,
    '    }',
    '  ]',
    '}',
    ''
  ].join('\n')
  const out = applyEdits(raw, format(raw, undefined, { tabSize: 2, insertSpaces: true, keepLines: true, eol: '\n' }))
  parseScenario(out, file)
  return out
}

/**
 * The comments of an rt-app file outside the `tasks` and `global` values (those values are
 * copied whole): each one that comes right before the `tasks` or `global` key, under that key's
 * name; the others (before the object, between other keys, at the end) in `header`.
 */
function outsideComments(text: string, root: JObject): { before: Map<string, string[]>; header: string[] } {
  const kept = ['tasks', 'global'].map((k) => lastEntry(root, k)).filter((e) => e !== undefined)
  const inside = (o: number): boolean => kept.some((e) => e.value !== undefined && o >= e.value.offset && o < e.value.offset + e.value.length)
  const before = new Map<string, string[]>()
  const header: string[] = []
  const scanner = createScanner(text, false)
  for (let t: number = scanner.scan(); t !== TOKEN.EOF; t = scanner.scan()) {
    if (t !== TOKEN.LineComment && t !== TOKEN.BlockComment) continue
    const o = scanner.getTokenOffset()
    if (inside(o)) continue
    const inRoot = o > root.offset && o < root.offset + root.length
    const next = inRoot ? root.entries.filter((e) => e.keyOffset > o).sort((a, b) => a.keyOffset - b.keyOffset)[0] : undefined
    const list = next && kept.includes(next) ? (before.get(next.key) ?? before.set(next.key, []).get(next.key)!) : header
    list.push(text.slice(o, o + scanner.getTokenLength()))
  }
  return { before, header }
}

/** A comment's text at `indent`: a block comment's inner lines aligned under its opening star. */
function reindent(comment: string, indent: string): string {
  const [first, ...rest] = comment.split(/\r?\n/)
  return [indent + first, ...rest.map((l) => `${indent}${l.trimStart().startsWith('*') ? ' ' : ''}${l.trimStart()}`)].join('\n')
}
