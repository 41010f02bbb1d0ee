import { createScanner, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser'
import type { JsonPath } from './paths'

/**
 * A lenient JSON reader for scenarios and rt-app files. It accepts what json-c's non-strict mode
 * accepts in the rt-app examples (C and line comments, trailing commas) plus rt-app's value-less
 * keys (`"suspend",`), keeps duplicate keys in document order (rt-app event order is key order,
 * and workgen-style files repeat keys), and remembers the text offset of every value so that any
 * JSON path can be reported with a line and column.
 */

export type JValue = JObject | JArray | JScalar

interface JBase {
  /** Offset of the value's first character in the text. */
  offset: number
  length: number
}

export interface JEntry {
  key: string
  /** Offset of the key's opening quote. */
  keyOffset: number
  /** undefined for a value-less key such as rt-app's `"suspend",`. */
  value: JValue | undefined
}

export interface JObject extends JBase {
  kind: 'object'
  entries: JEntry[]
}

export interface JArray extends JBase {
  kind: 'array'
  items: JValue[]
}

export interface JScalar extends JBase {
  kind: 'string' | 'number' | 'boolean' | 'null'
  value: string | number | boolean | null
}

export interface SyntaxIssue {
  path: JsonPath
  message: string
  line: number
  column: number
}

export interface LenientDoc {
  text: string
  root: JValue | undefined
  /** Syntax errors (empty when the text parsed). Value-less keys are not errors. */
  errors: SyntaxIssue[]
  /** 1-based line and column of a text offset. */
  lineCol(offset: number): { line: number; column: number }
  /** Location of the value at `path` (or of the deepest existing ancestor). */
  locate(path: JsonPath): { line: number; column: number } | undefined
  /** The value at `path`, following the last occurrence of duplicate keys. */
  at(path: JsonPath): JValue | undefined
}

const MESSAGES: Record<string, string> = {
  InvalidSymbol: 'invalid symbol (JSON has no NaN, Infinity or unquoted words)',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'a property name in double quotes was expected',
  ValueExpected: 'a value was expected',
  ColonExpected: 'a colon was expected',
  CommaExpected: 'a comma was expected',
  CloseBraceExpected: 'a closing brace } was expected',
  CloseBracketExpected: 'a closing bracket ] was expected',
  EndOfFileExpected: 'end of file expected (extra text after the document)',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in string'
}

const MAX_SYNTAX_ERRORS = 3

/**
 * Deepest nesting of objects and arrays accepted. A real scenario nests about 8 levels (rt-app
 * phases); thousands of levels exist only to overflow the stack of recursive readers, ours and
 * jsonc-parser's, so they are refused before any of them runs.
 */
export const MAX_NESTING = 256

/** jsonc-parser's SyntaxKind values (an ambient const enum, which isolated modules cannot read). */
export const TOKEN = { OpenBrace: 1, CloseBrace: 2, OpenBracket: 3, CloseBracket: 4, Comma: 5, String: 10, LineComment: 12, BlockComment: 13, EOF: 17 } as const

/**
 * The first place where `text` nests deeper than `max` levels, with its JSON path, or null. A
 * flat token scan (no recursion), so any depth is safe to check.
 */
export function nestingError(text: string, max = MAX_NESTING): { offset: number; path: JsonPath } | null {
  // One frame per open object or array: the array index, or the object key last seen.
  type Frame = { array: boolean; key: string | number | undefined; expectKey: boolean }
  const stack: Frame[] = []
  const scanner = createScanner(text, true)
  for (let tok: number = scanner.scan(); tok !== TOKEN.EOF; tok = scanner.scan()) {
    const top = stack[stack.length - 1]
    switch (tok) {
      case TOKEN.OpenBrace:
      case TOKEN.OpenBracket:
        if (stack.length >= max) {
          return { offset: scanner.getTokenOffset(), path: stack.map((f) => f.key).filter((k) => k !== undefined) }
        }
        stack.push(tok === TOKEN.OpenBracket ? { array: true, key: 0, expectKey: false } : { array: false, key: undefined, expectKey: true })
        break
      case TOKEN.CloseBrace:
      case TOKEN.CloseBracket:
        stack.pop()
        break
      case TOKEN.Comma:
        if (top?.array) top.key = (top.key as number) + 1
        else if (top) top.expectKey = true
        break
      case TOKEN.String:
        if (top && !top.array && top.expectKey) {
          top.key = scanner.getTokenValue()
          top.expectKey = false
        }
        break
    }
  }
  return null
}

export function readLenient(text: string): LenientDoc {
  const lineStarts = computeLineStarts(text)
  const lineCol = (offset: number): { line: number; column: number } => {
    let lo = 0
    let hi = lineStarts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (lineStarts[mid] <= offset) lo = mid
      else hi = mid - 1
    }
    return { line: lo + 1, column: offset - lineStarts[lo] + 1 }
  }

  const deep = nestingError(text)
  if (deep) {
    const at = lineCol(deep.offset)
    const errors = [{ path: deep.path, message: `nested deeper than ${MAX_NESTING} levels (arrays and objects inside each other); a scenario needs a handful`, ...at }]
    return { text, root: undefined, errors, lineCol, locate: () => at, at: () => undefined }
  }
  const raw: ParseError[] = []
  const tree = text.trim() === '' ? undefined : parseTree(text, raw, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false })
  const root = tree ? convert(tree) : undefined
  const errors: SyntaxIssue[] = []
  if (text.trim() === '') {
    errors.push({ path: [], message: 'the file is empty', line: 1, column: 1 })
  }
  let reported = 0
  for (const e of raw) {
    const code = printParseErrorCode(e.error)
    // rt-app's value-less keys: `"suspend",` or `"suspend" }` parse as a property without value.
    if (code === 'ColonExpected' && (text[e.offset] === ',' || text[e.offset] === '}')) continue
    // After the first few, errors are mostly the parser's recovery cascading.
    if (++reported > MAX_SYNTAX_ERRORS) continue
    const { line, column } = lineCol(e.offset)
    errors.push({ path: root ? pathAtOffset(root, e.offset) : [], message: `syntax error: ${MESSAGES[code] ?? code}`, line, column })
  }
  if (root) collectNumberErrors(root, [], errors, lineCol)

  const at = (path: JsonPath): JValue | undefined => walk(root, path).value
  const locate = (path: JsonPath): { line: number; column: number } | undefined => {
    const w = walk(root, path)
    return w.offset === undefined ? undefined : lineCol(w.offset)
  }
  return { text, root, errors, lineCol, locate, at }
}

function computeLineStarts(text: string): number[] {
  const starts = [0]
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) starts.push(i + 1)
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++
      starts.push(i + 1)
    }
  }
  return starts
}

function convert(n: Node): JValue {
  switch (n.type) {
    case 'object': {
      const entries: JEntry[] = []
      for (const p of n.children ?? []) {
        const [k, v] = p.children ?? []
        if (!k) continue
        entries.push({ key: String(k.value), keyOffset: k.offset, value: v ? convert(v) : undefined })
      }
      return { kind: 'object', offset: n.offset, length: n.length, entries }
    }
    case 'array':
      return { kind: 'array', offset: n.offset, length: n.length, items: (n.children ?? []).map(convert) }
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return { kind: n.type, offset: n.offset, length: n.length, value: n.value as string | number | boolean | null }
    default:
      return { kind: 'null', offset: n.offset, length: n.length, value: null }
  }
}

/** 1e400 parses to Infinity: JSON cannot carry it, so it is reported like NaN. */
function collectNumberErrors(v: JValue, path: JsonPath, out: SyntaxIssue[], lineCol: (o: number) => { line: number; column: number }): void {
  if (v.kind === 'number' && !Number.isFinite(v.value as number)) {
    out.push({ path, message: 'number out of range', ...lineCol(v.offset) })
  } else if (v.kind === 'object') {
    for (const e of v.entries) if (e.value) collectNumberErrors(e.value, [...path, e.key], out, lineCol)
  } else if (v.kind === 'array') {
    v.items.forEach((it, i) => collectNumberErrors(it, [...path, i], out, lineCol))
  }
}

/**
 * Keys that name JavaScript's object machinery. No scenario or rt-app field has these names; a
 * plain-object reader (zod records among them) would drop `__proto__` silently or treat it as
 * the prototype, so they are found here and reported as unknown fields.
 */
export const RESERVED_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype']

export function reservedKeys(v: JValue | undefined, path: JsonPath = []): { path: JsonPath; key: string; keyOffset: number }[] {
  const out: { path: JsonPath; key: string; keyOffset: number }[] = []
  if (v?.kind === 'object') {
    for (const e of v.entries) {
      if (RESERVED_KEYS.includes(e.key)) out.push({ path: [...path, e.key], key: e.key, keyOffset: e.keyOffset })
      else out.push(...reservedKeys(e.value, [...path, e.key]))
    }
  } else if (v?.kind === 'array') {
    v.items.forEach((it, i) => out.push(...reservedKeys(it, [...path, i])))
  }
  return out
}

/** Last entry with this key: the one a plain JSON reader (and json-c) keeps. */
export function lastEntry(o: JObject, key: string): JEntry | undefined {
  for (let i = o.entries.length - 1; i >= 0; i--) if (o.entries[i].key === key) return o.entries[i]
  return undefined
}

/** Offset of the value at `path` below `v` (or of its deepest existing ancestor). */
export function offsetIn(v: JValue | undefined, path: JsonPath): number | undefined {
  return walk(v, path).offset
}

function walk(root: JValue | undefined, path: JsonPath): { value: JValue | undefined; offset: number | undefined } {
  let cur: JValue | undefined = root
  let offset = root?.offset
  for (const seg of path) {
    if (!cur) break
    if (cur.kind === 'object' && typeof seg === 'string') {
      const e = lastEntry(cur, seg)
      if (!e) return { value: undefined, offset }
      offset = e.value ? e.value.offset : e.keyOffset
      cur = e.value
    } else if (cur.kind === 'array' && typeof seg === 'number') {
      const it: JValue | undefined = cur.items[seg]
      if (!it) return { value: undefined, offset }
      offset = it.offset
      cur = it
    } else {
      return { value: undefined, offset }
    }
  }
  return { value: cur, offset }
}

/** The JSON path of the innermost value containing `offset` (for syntax errors). */
function pathAtOffset(root: JValue, offset: number): JsonPath {
  const path: (string | number)[] = []
  let cur: JValue | undefined = root
  while (cur) {
    let next: JValue | undefined
    if (cur.kind === 'object') {
      const obj = cur
      obj.entries.forEach((e, i) => {
        // A key whose value failed to parse owns the text up to the next key.
        const end = e.value ? e.value.offset + e.value.length : i + 1 < obj.entries.length ? obj.entries[i + 1].keyOffset - 1 : obj.offset + obj.length
        if (offset >= e.keyOffset && offset <= end) {
          path.push(e.key)
          next = e.value
        }
      })
    } else if (cur.kind === 'array') {
      cur.items.forEach((it, i) => {
        if (offset >= it.offset && offset <= it.offset + it.length) {
          path.push(i)
          next = it
        }
      })
    }
    if (next === cur) break
    cur = next
  }
  return path
}

export interface PlainOptions {
  /** Called for every duplicate key outside rt-app sections (the last value wins). */
  onDuplicate?(path: JsonPath, key: string): void
}

/**
 * A plain JS value for schema validation. Duplicate keys keep json-c's rule (the last value at
 * the first key's position); value-less keys become null.
 */
export function toPlain(v: JValue | undefined, opts: PlainOptions = {}, path: JsonPath = []): unknown {
  if (!v) return null
  switch (v.kind) {
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const e of v.entries) {
        if (Object.prototype.hasOwnProperty.call(out, e.key)) opts.onDuplicate?.(path, e.key)
        Object.defineProperty(out, e.key, { value: toPlain(e.value, opts, [...path, e.key]), enumerable: true, writable: true, configurable: true })
      }
      return out
    }
    case 'array':
      return v.items.map((it, i) => toPlain(it, opts, [...path, i]))
    default:
      return v.value
  }
}
