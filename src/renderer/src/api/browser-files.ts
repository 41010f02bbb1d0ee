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

/** Let the user pick one text file; null when the picker is dismissed. */
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
      f.text().then((text) => done({ name: f.name, text }), () => done(null))
    })
    input.addEventListener('cancel', () => done(null))
    input.click()
  })
}
