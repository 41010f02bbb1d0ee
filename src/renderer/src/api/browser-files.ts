/** Browser file delivery for the web host: a file picker for input, downloads for output. */

export function download(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = url
  a.download = name
  a.style.display = 'none'
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}

/** The text of a file, gunzipped when it is gzip (by its first bytes). */
export async function fileText(f: Blob): Promise<string> {
  const head = new Uint8Array(await f.slice(0, 2).arrayBuffer())
  if (head[0] !== 0x1f || head[1] !== 0x8b) return f.text()
  return new Response(f.stream().pipeThrough(new DecompressionStream('gzip'))).text()
}

/** Let the user pick one text file (gzipped or not); null when the picker is dismissed. */
export function pickTextFile(accept: string): Promise<{ name: string; text: string } | null> {
  return new Promise((resolve) => {
    const input = document.createElement('input')
    input.type = 'file'
    input.accept = accept
    input.style.display = 'none'
    document.body.append(input)
    const done = (v: { name: string; text: string } | null): void => {
      input.remove()
      resolve(v)
    }
    input.addEventListener('change', () => {
      const f = input.files?.[0]
      if (!f) return done(null)
      fileText(f).then((text) => done({ name: f.name, text }), () => done(null))
    })
    input.addEventListener('cancel', () => done(null))
    input.click()
  })
}
