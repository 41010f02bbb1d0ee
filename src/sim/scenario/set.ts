import { applyEdits, modify, parse } from 'jsonc-parser'
import { formatPath, type JsonPath } from './paths'
import { nestingError } from './jsonc'

/**
 * `--set PATH=VALUE`: change one field of the scenario text before it is parsed, keeping its
 * comments and layout (and so the line numbers of everything else). PATH is written as in
 * messages (`workloads[0].groups`, `tasks.thread0.run`); VALUE is JSON, or a string.
 */

export interface SetArg {
  path: JsonPath
  value: unknown
  text: string
}

/** Parse `PATH=VALUE`; returns an error message when malformed. */
export function parseSetArg(arg: string): SetArg | string {
  const eq = arg.indexOf('=')
  if (eq <= 0) return `expected PATH=VALUE, got "${arg}"`
  const path = parseSetPath(arg.slice(0, eq).trim())
  if (typeof path === 'string') return path === '' ? `empty path in "${arg}"` : path
  const raw = arg.slice(eq + 1)
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    value = raw
  }
  return { path, value, text: arg }
}

/** A path as messages write it (`workloads[0].groups`); an error message ('' when empty) otherwise. */
export function parseSetPath(pathText: string): JsonPath | string {
  const path: (string | number)[] = []
  const re = /\s*(?:\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\])/y
  let i = 0
  while (i < pathText.length) {
    re.lastIndex = i
    const m = re.exec(pathText)
    if (!m || (i === 0 && pathText[0] === '.')) return `bad path "${pathText}" at "${pathText.slice(i)}"`
    if (m[1] !== undefined) path.push(m[1])
    else if (m[2] !== undefined) path.push(Number(m[2]))
    else path.push(JSON.parse(`"${m[3]}"`) as string)
    i = re.lastIndex
  }
  if (path.length === 0) return ''
  return path
}

/** `sets` given as { PATH: VALUE } (scripts' fixed edits): each one as `--set PATH=VALUE` would. */
export function setArgsOf(sets: Readonly<Record<string, unknown>>): SetArg[] {
  return Object.entries(sets).map(([k, v]) => {
    const a = parseSetArg(`${k}=${JSON.stringify(v)}`)
    if (typeof a === 'string') throw new Error(a)
    return a
  })
}

/** A `--set` (or sweep path) that cannot apply to the scenario: exit 2 naming it, never an internal error. */
export class SetPathError extends Error {
  constructor(readonly arg: string, readonly problem: string) {
    super(`--set ${arg}: ${problem}`)
  }
}

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'a list'
  if (v === null) return 'null'
  if (typeof v === 'object') return 'an object'
  if (typeof v === 'boolean') return 'true or false'
  return `a ${typeof v}`
}

/**
 * Why `path` cannot be set in the scenario value `root` (a field of a list or of a number, an
 * index of an object, an index past a list's end), or null. Missing parents are created.
 */
export function setPathProblem(root: unknown, path: JsonPath): string | null {
  let cur = root
  for (let i = 0; i < path.length; i++) {
    if (cur === undefined) return null
    const key = path[i]
    const at = formatPath(path.slice(0, i))
    if (typeof key === 'number') {
      if (!Array.isArray(cur)) return `${at} is ${kindOf(cur)}, not a list: [${key}] cannot index it`
      if (key > cur.length) return `${at} has ${cur.length} item(s): [${key}] is past its end (the next one is [${cur.length}])`
      cur = cur[key]
    } else {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) {
        return `${at} is ${kindOf(cur)}, not an object: "${key}" names no field of it${Array.isArray(cur) ? ` (index it: ${at}[0])` : ''}`
      }
      cur = Object.prototype.hasOwnProperty.call(cur, key) ? (cur as Record<string, unknown>)[key] : undefined
    }
  }
  return null
}

/** Apply the edits in order; a path that cannot apply throws SetPathError. */
export function applySets(text: string, sets: readonly SetArg[]): string {
  // jsonc-parser's modify recurses; a text too deep for it is left as it is for the parser to report.
  if (sets.length === 0 || nestingError(text)) return text
  let out = text
  for (const s of sets) {
    const problem = setPathProblem(parse(out, [], { allowTrailingComma: true }), s.path)
    if (problem) throw new SetPathError(s.text, problem)
    let edits
    try {
      edits = modify(out, s.path as (string | number)[], s.value, { formattingOptions: { insertSpaces: true, tabSize: 2 } })
    } catch (e) {
      throw new SetPathError(s.text, (e as Error).message)
    }
    out = applyEdits(out, edits)
  }
  return out
}
