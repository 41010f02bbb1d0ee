import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser'

/**
 * Locate a scenario issue in the text: issues carry a display path such as
 * `workloads[1].periodUs` (and sometimes a line/column); the editor needs a range.
 */

export function parseDisplayPath(path: string): (string | number)[] | null {
  if (path === '' || path === '(root)') return []
  const out: (string | number)[] = []
  const re = /(?:^|\.)([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/gy
  let m: RegExpExecArray | null
  let last = 0
  while ((m = re.exec(path)) !== null) {
    if (m[1] !== undefined) out.push(m[1])
    else if (m[2] !== undefined) out.push(Number(m[2]))
    else out.push(JSON.parse(`"${m[3]}"`) as string)
    last = re.lastIndex
  }
  return last === path.length ? out : null
}

export interface TextRange {
  offset: number
  length: number
}

/** The range of the value at `path`, or of the deepest existing parent; null for the root. */
export function rangeOfPath(text: string, path: string): TextRange | null {
  const segs = parseDisplayPath(path)
  if (!segs || segs.length === 0) return null
  const tree = parseTree(text, [], { allowTrailingComma: true, disallowComments: false })
  if (!tree) return null
  for (let n = segs.length; n > 0; n--) {
    const node: Node | undefined = findNodeAtLocation(tree, segs.slice(0, n))
    if (node) {
      // For a property, underline its key: the value may span many lines.
      const key = node.parent?.type === 'property' ? node.parent.children?.[0] : undefined
      return key && n === segs.length && node.type === 'object' ? { offset: key.offset, length: key.length } : { offset: node.offset, length: node.length }
    }
  }
  return null
}

/** 1-based line/column of an offset. */
export function lineColAt(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      lineStart = i + 1
    }
  }
  return { line, column: offset - lineStart + 1 }
}
