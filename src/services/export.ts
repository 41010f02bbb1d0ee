import type { ExportContent, ExportTableRequest, StoredRun } from '../shared/ipc'
import { buildTables, columnLabels, identicalSeedNotes, pickMetrics, tablesToCsv, tablesToMarkdown, tablesToText, variantResults } from '../shared/tables'

/**
 * Table exports of a comparison (variants of saved runs): CSV, Markdown and plain text in the
 * seed threads' form, and JSON. Delivery (save dialog, browser download) is the host's job.
 */

const MIME: Record<ExportTableRequest['format'], string> = {
  csv: 'text/csv',
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json'
}

/** A file name from a title: the whole title (up to what file systems take), lowercased, dashes for the rest. */
export function slug(s: string): string {
  const out = s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 200).replace(/-+$/, '')
  return out || 'schedlab'
}

export async function exportContent(req: ExportTableRequest, getRun: (id: string) => Promise<StoredRun>): Promise<ExportContent> {
  const runs = new Map<string, StoredRun>()
  for (const c of req.columns) if (!runs.has(c.runId)) runs.set(c.runId, await getRun(c.runId))
  const cols = req.columns.map((c) => {
    const run = runs.get(c.runId)!
    const results = variantResults(run.results, c.variant)
    if (results.length === 0) throw new Error(`run "${run.name}" has no results for variant "${c.variant}"`)
    return { ...c, run, results }
  })
  const labels = columnLabels(cols.map((c) => ({ variant: c.variant, runName: c.run.name })))
  const columns = cols.map((c, i) => ({ label: labels[i], results: c.results }))
  const tables = pickMetrics(buildTables(columns, req.baseline), req.metrics)
  // seeds with identical results count once: every form says so
  const notes = identicalSeedNotes(columns)
  const title = req.title.trim() || cols[0].run.scenarioName
  let text: string
  switch (req.format) {
    case 'csv':
      text = tablesToCsv(labels, tables, req.baseline) + notes.map((n) => `# warning: ${n}\n`).join('')
      break
    case 'md':
      text = tablesToMarkdown(title, labels, tables) + notes.map((n) => `> ${n}\n`).join('')
      break
    case 'txt':
      text = tablesToText(labels, tables) + notes.map((n) => `warning: ${n}\n`).join('')
      break
    case 'json':
      text = JSON.stringify({
        title,
        baseline: labels[req.baseline],
        columns: cols.map((c, i) => ({
          label: labels[i], runId: c.runId, runName: c.run.name, variant: c.variant,
          seeds: c.results.map((r) => r.seed), version: c.run.version
        })),
        tables,
        ...(notes.length ? { warnings: notes } : {}),
        results: cols.map((c) => c.results)
      }, null, 2) + '\n'
      break
  }
  return { fileName: `${slug(title)}.${req.format}`, mime: MIME[req.format], text }
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/** Width and height of a PNG (from its IHDR chunk), or null when the bytes are not a PNG. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | null {
  if (bytes.length < 33) return null
  for (let i = 0; i < 8; i++) if (bytes[i] !== PNG_SIGNATURE[i]) return null
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return null
  const width = dv.getUint32(16)
  const height = dv.getUint32(20)
  return width > 0 && height > 0 ? { width, height } : null
}

export function pngFileName(name: string): string {
  return `${slug(name.replace(/\.png$/i, ''))}.png`
}
