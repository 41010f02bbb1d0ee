/**
 * Size limits shared by the hosts and the renderer, so each side can say "too large" in the
 * same words and numbers. Plain constants: the sandboxed preload and the renderer import them.
 */

const MB = 1024 * 1024

/** Largest scenario text accepted (UTF-8 bytes), in both hosts and every method that takes one. */
export const MAX_SCENARIO_BYTES = 16 * MB

/**
 * Largest WebSocket message the web host accepts. JSON escaping can grow a scenario's text (a
 * newline becomes two bytes, a control character six): a scenario at the limit still fits.
 */
export const MAX_MESSAGE_BYTES = 2 * MAX_SCENARIO_BYTES + MB

/** UTF-8 length of a string without encoding it (a copy of a 16 MB text per check is waste). */
export function utf8Length(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

/** "17 MB": whole megabytes, rounded up, so a text just over the limit never reads as equal to it. */
export function formatMb(bytes: number): string {
  return `${Math.ceil(bytes / MB)} MB`
}

/** The one message for a scenario over the limit, or null when it fits. */
export function scenarioTooLarge(text: string): string | null {
  const n = text.length > MAX_SCENARIO_BYTES ? text.length : utf8Length(text)
  if (n <= MAX_SCENARIO_BYTES) return null
  return `scenario too large: ${formatMb(n)}, the limit is ${formatMb(MAX_SCENARIO_BYTES)}`
}

/**
 * Largest trace the browser sends as text (File > Import trace in `schedlab serve`): it travels
 * in one WebSocket message. The desktop app and `schedlab analyze` stream files of any size.
 */
export const MAX_TRACE_TEXT_BYTES = MAX_SCENARIO_BYTES

export function traceTooLarge(text: string): string | null {
  const n = text.length > MAX_TRACE_TEXT_BYTES ? text.length : utf8Length(text)
  if (n <= MAX_TRACE_TEXT_BYTES) return null
  return `trace too large to send from the browser: ${formatMb(n)}, the limit is ${formatMb(MAX_TRACE_TEXT_BYTES)} (use the desktop app or \`schedlab analyze\`, which stream any size)`
}
