/** A JSON path as a list of object keys and array indexes. */
export type JsonPath = readonly (string | number)[]

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/

/** `workloads[1].tasks.thread0.phases.p1.run`; the root is `(root)`. */
export function formatPath(path: JsonPath): string {
  if (path.length === 0) return '(root)'
  let out = ''
  for (const raw of path) {
    // A key can be megabytes long; a message only needs to say which one.
    const seg = typeof raw === 'string' && raw.length > 60 ? `${raw.slice(0, 57)}...` : raw
    if (typeof seg === 'number') out += `[${seg}]`
    else if (PLAIN_KEY.test(seg)) out += out === '' ? seg : `.${seg}`
    else out += `[${JSON.stringify(seg)}]`
  }
  return out
}

/**
 * The path of a syntax error: a key still being read when the error struck (`"name: "x"`
 * reads as the key `name: `) is garbage, so the path stops at its object; line and column
 * say where exactly.
 */
export function syntaxErrorPath(path: JsonPath): string {
  const last = path[path.length - 1]
  return formatPath(typeof last === 'string' && !PLAIN_KEY.test(last) ? path.slice(0, -1) : path)
}
