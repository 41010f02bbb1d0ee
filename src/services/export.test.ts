import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { StoredRun } from '../shared/ipc'
import type { VariantResult } from '../shared/result'
import { rendererCsp } from '../shared/csp'
import { exportContent, pngFileName, pngSize, slug } from './export'

function result(name: string, seed: number, max: number): VariantResult {
  return {
    name, seed,
    stats: { events: 1, wallMs: 1, simulatedMs: 1, contextSwitches: 0, migrations: 0, wakeups: 0, sysPct: 0 },
    workloads: [{ name: 'cyclictest', type: 'cyclictest', latencyUs: { count: 100000, min: 1, avg: 5, p50: 4, p90: 8, p99: 91, p99_9: 126, max } }],
    tasks: [], cpus: [], unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
  }
}

const run = (id: string, name: string, results: VariantResult[]): StoredRun => ({
  format: 1, id, name, scenarioName: 'RB5 cyclictest', scenarioFile: 's.json', createdAt: '2026-01-01T00:00:00Z', status: 'done',
  variants: [...new Set(results.map((r) => r.name))], seeds: [1], durationMs: 1, wallMs: 1, version: '1', scenarioText: '{}', results, errors: []
})

const runs = new Map([
  ['r1', run('r1', 'before', [result('tip/sched/core', 1, 2273), result('this patchset', 1, 1018)])],
  ['r2', run('r2', 'after', [result('tip/sched/core', 1, 2000)])]
])
const getRun = async (id: string) => {
  const r = runs.get(id)
  if (!r) throw new Error(`no saved run with id ${id}`)
  return r
}

describe('table exports', () => {
  it('exports the variants of a run in the seeds form', async () => {
    const cols = [{ runId: 'r1', variant: 'tip/sched/core' }, { runId: 'r1', variant: 'this patchset' }]
    const md = await exportContent({ columns: cols, baseline: 0, format: 'md', title: 'RB5: short slices' }, getRun)
    expect(md.fileName).toBe('rb5-short-slices.md')
    expect(md.mime).toBe('text/markdown')
    expect(md.text).toContain('## RB5: short slices')
    expect(md.text).toContain('| Maximum (us) | 2273 | 1018 (+55 %) |')
    const txt = await exportContent({ columns: cols, baseline: 0, format: 'txt', title: '' }, getRun)
    expect(txt.fileName).toBe('rb5-cyclictest.txt')
    expect(txt.text).toMatch(/Maximum \(us\) +2273 \| +1018 \(\+55 %\)/)
    const csv = await exportContent({ columns: cols, baseline: 0, format: 'csv', title: 't' }, getRun)
    expect(csv.text.split('\n')).toContain('cyclictest,max,2273,,,1018,,,55.2,')
    expect(md.text).toMatch(/\*: significant/)
    expect(txt.text).toMatch(/\*: significant/)
  })

  it('labels columns from different runs by run when variant names repeat', async () => {
    const json = await exportContent({ columns: [{ runId: 'r1', variant: 'tip/sched/core' }, { runId: 'r2', variant: 'tip/sched/core' }], baseline: 1, format: 'json', title: 'x' }, getRun)
    const doc = JSON.parse(json.text)
    expect(doc.columns.map((c: { label: string }) => c.label)).toEqual(['tip/sched/core [before]', 'tip/sched/core [after]'])
    expect(doc.baseline).toBe('tip/sched/core [after]')
    expect(doc.results[0][0].workloads[0].latencyUs.max).toBe(2273)
    expect(doc.tables[0].rows.find((r: { key: string }) => r.key === 'max').changes[0]).toBeCloseTo(-13.65, 1)
  })

  it('names a missing variant', async () => {
    await expect(exportContent({ columns: [{ runId: 'r2', variant: 'nope' }], baseline: 0, format: 'csv', title: '' }, getRun))
      .rejects.toThrow('run "after" has no results for variant "nope"')
  })

  it('makes safe file names', () => {
    expect(slug('  ../../etc/passwd ')).toBe('etc-passwd')
    expect(slug('***')).toBe('schedlab')
    // a download is named after the whole title, not its first 60 characters
    expect(slug('cyclictest beside hackbench with one group of thread pipes on the RB5 board · ct slice 4 ms')).toBe('cyclictest-beside-hackbench-with-one-group-of-thread-pipes-on-the-rb5-board-ct-slice-4-ms')
    expect(pngFileName('dev run-b / latency-cdf.PNG')).toBe('dev-run-b-latency-cdf.png')
  })
})

describe('PNG check', () => {
  it('reads the size of a real PNG and rejects other bytes', () => {
    const png = new Uint8Array(readFileSync(join(__dirname, '__fixtures__', 'tiny.png')))
    expect(pngSize(png)).toEqual({ width: 2, height: 1 })
    expect(pngSize(png.subarray(0, 20))).toBeNull()
    expect(pngSize(new TextEncoder().encode('GIF89a'.padEnd(40, ' ')))).toBeNull()
  })
})

describe('renderer CSP', () => {
  it('index.html carries the same policy both hosts send (minus frame-ancestors, which meta tags ignore)', () => {
    const html = readFileSync(join(__dirname, '../renderer/index.html'), 'utf8')
    const meta = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]
    expect(meta).toBe(rendererCsp().replace("; frame-ancestors 'none'", ''))
    expect(meta).not.toMatch(/unsafe-eval/)
  })
})
