import type { LenientDoc } from './jsonc'
import { formatPath, type JsonPath } from './paths'
import type { ScenarioIssue } from '../../shared/scenario-issue'

export type { ScenarioIssue }


/**
 * Invalid scenario input. Carries every issue found (not only the first) so that a user fixes
 * them in one pass; `format()` gives `file:line:column: path: message` lines, no stack trace.
 */
export class ScenarioError extends Error {
  readonly file: string
  readonly issues: ScenarioIssue[]

  constructor(file: string, issues: ScenarioIssue[]) {
    super(formatIssues(file, issues))
    this.name = 'ScenarioError'
    this.file = file
    this.issues = issues
  }

  format(): string {
    return formatIssues(this.file, this.issues)
  }
}

export function formatIssues(file: string, issues: readonly ScenarioIssue[]): string {
  return issues
    .map((i) => {
      const f = i.file ?? file
      const where = i.line !== undefined ? `${f}:${i.line}:${i.column ?? 1}` : f
      return `${where}: ${i.path}: ${i.message}`
    })
    .join('\n')
}

/** Quoted user text in messages (unknown names, values) is cut short: a name can be megabytes. */
export function clipQuoted(message: string, max = 60): string {
  if (message.length < max * 2) return message
  return message.replace(/"([^"]*)"/g, (m, inner: string) => (inner.length > max ? `"${inner.slice(0, max - 3)}..."` : m))
}

/**
 * Collects errors and warnings for one text document, locating each by its JSON path, or by an
 * explicit text offset where a path is ambiguous (duplicate rt-app keys).
 */
export class IssueSink {
  readonly issues: ScenarioIssue[] = []
  readonly warnings: string[] = []
  /** Paths already reported as a whole (reserved keys): later issues at or below them are noise. */
  private readonly claimed: string[] = []

  constructor(
    readonly file: string,
    readonly doc?: LenientDoc
  ) {}

  private where(path: JsonPath, offset?: number): { line: number; column: number } | undefined {
    if (!this.doc) return undefined
    return offset !== undefined ? this.doc.lineCol(offset) : this.doc.locate(path)
  }

  error(path: JsonPath, message: string, offset?: number): void {
    const p = formatPath(path)
    if (this.claimed.some((c) => p === c || p.startsWith(c + '.') || p.startsWith(c + '['))) return
    this.issues.push({ path: p, message: clipQuoted(message), ...(this.where(path, offset) ?? {}) })
  }

  /** Report an issue that covers its path and everything below it: no other issue is added there. */
  claim(path: JsonPath, message: string, offset?: number): void {
    this.error(path, message, offset)
    this.claimed.push(formatPath(path))
  }

  /** A finding that does not stop the run; located like errors so users can find it. */
  warn(path: JsonPath, message: string, offset?: number): void {
    const loc = this.where(path, offset)
    const at = loc ? `${this.file}:${loc.line}:${loc.column}` : this.file
    const line = `${at}: ${formatPath(path)}: ${clipQuoted(message)}`
    if (!this.warnings.includes(line)) this.warnings.push(line)
  }

  /** A warning about the document as a whole (no position). */
  note(message: string): void {
    const line = `${this.file}: ${message}`
    if (!this.warnings.includes(line)) this.warnings.push(line)
  }

  /** Merge another document's findings (an rt-app file referenced by the scenario). */
  absorb(other: IssueSink): void {
    for (const i of other.issues) this.issues.push({ ...i, file: i.file ?? other.file })
    for (const w of other.warnings) if (!this.warnings.includes(w)) this.warnings.push(w)
  }

  get ok(): boolean {
    return this.issues.length === 0
  }

  throwIfAny(): void {
    if (this.issues.length === 0) return
    // Reading order: other files after the scenario, then by position; unlocated issues last.
    const key = (i: ScenarioIssue): [string, number, number] => [i.file ?? '', i.line ?? Infinity, i.column ?? 0]
    const sorted = [...this.issues].sort((a, b) => {
      const [fa, la, ca] = key(a)
      const [fb, lb, cb] = key(b)
      return fa === fb ? la - lb || ca - cb : fa < fb ? -1 : 1
    })
    throw new ScenarioError(this.file, sorted)
  }
}
