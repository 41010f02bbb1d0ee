import { z } from 'zod'
import type { IssueSink } from './errors'
import { offsetIn, type JValue } from './jsonc'
import type { JsonPath } from './paths'

/**
 * Validate a plain value against a zod schema and report each issue to the sink under `base`,
 * in words a scheduler researcher reads (not zod's), with unknown keys named one by one and
 * the closest known key suggested.
 */
export function validateInto<T extends z.ZodType>(
  schema: T,
  plain: unknown,
  sink: IssueSink,
  base: JsonPath,
  node?: JValue
): z.output<T> | undefined {
  const r = schema.safeParse(plain)
  if (r.success) return r.data
  for (const issue of r.error.issues) report(schema, plain, issue, sink, base, node)
  return undefined
}

function report(schema: z.ZodType, plain: unknown, issue: z.core.$ZodIssue, sink: IssueSink, base: JsonPath, node?: JValue): void {
  const rel = issue.path.filter((p): p is string | number => typeof p !== 'symbol')
  const at = (p: JsonPath): number | undefined => (node ? offsetIn(node, p) : undefined)
  const put = (p: JsonPath, msg: string): void => sink.error([...base, ...p], msg, at(p))
  const value = valueAt(plain, rel)
  switch (issue.code) {
    case 'unrecognized_keys': {
      const known = knownKeys(schema, plain, rel)
      // with no close match, the keys allowed there ("cyclictest's keys: periodUs, threads, ...")
      const owner = valueAt(plain, rel) as { type?: unknown } | undefined
      const whose = owner && typeof owner === 'object' && typeof owner.type === 'string' ? `${owner.type}'s keys` : 'keys allowed here'
      for (const k of issue.keys) {
        const hint = closest(k, known)
        put([...rel, k], `unknown key "${k}"${hint ? ` (did you mean "${hint}"?)` : known.length ? ` (${whose}: ${known.join(', ')})` : ''}`)
      }
      return
    }
    case 'invalid_type':
      if (value === undefined) put(rel, `required ${describeExpected(issue.expected)} is missing`)
      else put(rel, `expected ${describeExpected(issue.expected)}, got ${describeValue(value)}`)
      return
    case 'too_small':
      put(rel, issue.origin === 'array' ? `needs at least ${issue.minimum} item(s)` : issue.origin === 'string' ? 'must not be empty' : `must be ${issue.inclusive ? '>=' : '>'} ${issue.minimum}, got ${describeValue(value)}`)
      return
    case 'too_big':
      put(rel, issue.origin === 'array' ? `allows at most ${issue.maximum} item(s)` : issue.origin === 'string' ? `is longer than ${issue.maximum} characters` : `must be ${issue.inclusive ? '<=' : '<'} ${issue.maximum}, got ${describeValue(value)}`)
      return
    case 'invalid_value':
      put(rel, `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describeValue(value)}`)
      return
    case 'invalid_union': {
      const disc = (issue as { discriminator?: string; options?: unknown[] }).discriminator
      if (disc) {
        const options = ((issue as { options?: unknown[] }).options ?? []).map(String)
        const at = rel[rel.length - 1] === disc ? rel : [...rel, disc]
        const got = valueAt(plain, at)
        put(at, got === undefined ? `required "${disc}" is missing (one of ${options.join(', ')})` : `unknown ${disc} ${describeValue(got)} (known: ${options.join(', ')})`)
        return
      }
      // Report the branch that got furthest when one branch matches the value's JSON type.
      const branches = issue.errors.filter((b) => !(b.length === 1 && b[0].code === 'invalid_type' && b[0].path.length === 0))
      if (branches.length === 1) {
        for (const sub of branches[0]) report(schema, plain, { ...sub, path: [...issue.path, ...sub.path] } as z.core.$ZodIssue, sink, base, node)
        return
      }
      put(rel, `expected ${unionExpectation(issue.errors)}, got ${describeValue(value)}`)
      return
    }
    case 'invalid_format':
      put(rel, issue.format === 'regex' && 'pattern' in issue ? `does not match ${String(issue.pattern)}` : `invalid ${issue.format}`)
      return
    case 'not_multiple_of':
      put(rel, `must be a multiple of ${String(issue.divisor)}`)
      return
    default:
      put(rel, issue.message)
  }
}

/**
 * What a union accepts, in words: "one of 100, 250, 300, 1000", "a string or an object",
 * "a number >= 1 or one of \"max\"", from what each branch said about the value.
 */
function unionExpectation(branches: z.core.$ZodIssue[][]): string {
  const literals: unknown[] = []
  const kinds: string[] = []
  for (const b of branches) {
    const i = b.length === 1 ? b[0] : undefined
    if (!i) kinds.push('another shape')
    else if (i.code === 'invalid_type') kinds.push(describeExpected(i.expected))
    else if (i.code === 'invalid_value') literals.push(...i.values)
    else if (i.code === 'too_small' && i.origin === 'number') kinds.push(`a number ${i.inclusive ? '>=' : '>'} ${i.minimum}`)
    else if (i.code === 'too_big' && i.origin === 'number') kinds.push(`a number ${i.inclusive ? '<=' : '<'} ${i.maximum}`)
    else if (i.code === 'invalid_format' && i.format === 'regex' && 'pattern' in i) kinds.push(`a string matching ${String(i.pattern)}`)
    else kinds.push('another shape')
  }
  if (literals.length) kinds.unshift(`one of ${[...new Set(literals)].map((v) => JSON.stringify(v)).join(', ')}`)
  return [...new Set(kinds)].join(' or ')
}

function describeExpected(expected: string): string {
  switch (expected) {
    case 'object': return 'an object'
    case 'array': return 'an array'
    case 'int': return 'an integer'
    default: return `a ${expected}`
  }
}

export function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing'
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return 'an object'
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v)
  return String(v)
}

function valueAt(v: unknown, path: JsonPath): unknown {
  let cur = v
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string | number, unknown>)[seg]
  }
  return cur
}

/** Keys the schema accepts for the object at `path` (for "did you mean"). */
function knownKeys(schema: z.ZodType, plain: unknown, path: JsonPath): string[] {
  let s: z.ZodType | undefined = schema
  let v: unknown = plain
  const unwrap = (x: z.ZodType): z.ZodType => {
    let cur = x
    for (;;) {
      if (cur instanceof z.ZodOptional || cur instanceof z.ZodDefault || cur instanceof z.ZodNullable) cur = cur.unwrap() as z.ZodType
      else return cur
    }
  }
  const pickUnion = (x: z.ZodType, val: unknown): z.ZodType => {
    if (x instanceof z.ZodDiscriminatedUnion && val && typeof val === 'object') {
      const disc = (x.def as { discriminator: string }).discriminator
      const want = (val as Record<string, unknown>)[disc]
      for (const o of x.options as z.ZodType[]) {
        const u = unwrap(o)
        if (u instanceof z.ZodObject) {
          const lit = u.shape[disc]
          if (lit instanceof z.ZodLiteral && lit.values.has(want as never)) return u
        }
      }
    }
    if (x instanceof z.ZodUnion) {
      for (const o of x.options as z.ZodType[]) if (unwrap(o) instanceof z.ZodObject && val && typeof val === 'object' && !Array.isArray(val)) return unwrap(o)
    }
    return x
  }
  for (const seg of path) {
    if (!s) return []
    s = pickUnion(unwrap(s), v)
    if (s instanceof z.ZodObject && typeof seg === 'string') s = s.shape[seg] as z.ZodType | undefined
    else if (s instanceof z.ZodArray) s = s.element as z.ZodType
    else if (s instanceof z.ZodRecord) s = s.valueType as z.ZodType
    else return []
    v = v && typeof v === 'object' ? (v as Record<string | number, unknown>)[seg] : undefined
  }
  if (!s) return []
  const o = pickUnion(unwrap(s), v)
  return o instanceof z.ZodObject ? Object.keys(o.shape) : []
}

/** The known key within edit distance 2 (or differing only in case), if any. */
export function closest(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined
  let bestD = 3
  for (const k of known) {
    // The distance is at least the length difference: skip the quadratic work for far names.
    if (Math.abs(k.length - key.length) >= bestD && k.toLowerCase() !== key.toLowerCase()) continue
    const dist = k.toLowerCase() === key.toLowerCase() ? 0 : levenshtein(k, key)
    if (dist < bestD) {
      best = k
      bestD = dist
    }
  }
  return best
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = tmp
    }
  }
  return prev[b.length]
}
