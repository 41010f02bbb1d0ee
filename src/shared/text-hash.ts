/**
 * A short fingerprint of a text (32-bit FNV-1a over UTF-16 code units, hex). The editor and
 * the validation status publish it as a data attribute, so a test (or a host) can wait until
 * the editor holds exactly a given text without reading Monaco's virtualized DOM.
 */
export function textHash(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, '0')
}
