/**
 * Source map lookup for patch modules: a patch is compiled from TypeScript before it runs, and
 * an exception thrown by its code carries a position in the compiled JavaScript; this maps it
 * back to the line and column of the file the researcher wrote (source map v3, one source).
 */

const B64 = new Int8Array(128).fill(-1)
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (B64[c.charCodeAt(0)] = i))

/** One segment per generated position: [generated line, generated column, source line, source column], 0-based. */
export type Mapping = [number, number, number, number]

/** Decode a v3 map's "mappings" (base-64 VLQ) into its segments that name a source position. */
export function decodeMappings(mappings: string): Mapping[] {
  const out: Mapping[] = []
  let genLine = 0
  let genCol = 0
  let srcLine = 0
  let srcCol = 0
  let src = 0
  let i = 0
  const vals: number[] = []
  while (i <= mappings.length) {
    const c = mappings[i]
    if (c === ';' || c === ',' || c === undefined) {
      if (vals.length >= 4) {
        genCol += vals[0]
        src += vals[1]
        srcLine += vals[2]
        srcCol += vals[3]
        out.push([genLine, genCol, srcLine, srcCol])
      } else if (vals.length >= 1) {
        genCol += vals[0]
      }
      vals.length = 0
      if (c === ';') {
        genLine++
        genCol = 0
      }
      i++
      continue
    }
    // one VLQ value
    let value = 0
    let shift = 0
    for (;;) {
      const d = B64[mappings.charCodeAt(i++)]
      if (d === undefined || d < 0) return out
      value += (d & 31) << shift
      if ((d & 32) === 0) break
      shift += 5
    }
    vals.push(value & 1 ? -(value >>> 1) : value >>> 1)
  }
  void src
  return out
}

/**
 * The source position (1-based line and column) of a generated one (1-based, as a stack frame
 * gives it): the last segment at or before it on its line.
 */
export function originalPosition(mappings: readonly Mapping[], line: number, column: number): { line: number; column: number } | null {
  const gl = line - 1
  const gc = column - 1
  let best: Mapping | null = null
  for (const m of mappings) {
    if (m[0] < gl) {
      if (!best || m[0] > best[0] || (m[0] === best[0] && m[1] >= best[1])) best = m
      continue
    }
    if (m[0] === gl && m[1] <= gc) {
      if (!best || best[0] < gl || m[1] >= best[1]) best = m
    }
  }
  if (!best) return null
  // a position past the last segment of an earlier line maps to that segment's source line
  return { line: best[2] + 1, column: best[0] === gl ? best[3] + 1 + (gc - best[1]) : best[3] + 1 }
}
