import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import type { LatencySummary, TaskResult } from '../shared/result'
import type { SchedEvent } from './events'
import { analyzeFile } from '.'
import { readFtraceString } from './reader'
import { decodeRawFiles, parseEventFormat, RingBufferDecoder } from './ring-buffer'

/**
 * Fixtures recorded on a 2-vCPU guest by scripts/real-fixtures.mts (a real kernel's trace, made
 * with `schedlab real`), so these tests run anywhere, tracefs or not.
 */
const dir = join(__dirname, 'fixtures')
const realTraces = readdirSync(dir).filter((f) => /^real-.*\.trace\.txt\.gz$/.test(f))
const rawDirs = readdirSync(dir).filter((f) => f.startsWith('raw-'))

describe('real-kernel fixtures', () => {
  it.each(rawDirs)('%s: binary ring-buffer pages decode to the events the kernel printed as text', (name) => {
    const d = join(dir, name)
    const formats = readdirSync(join(d, 'formats')).map((f) => parseEventFormat(readFileSync(join(d, 'formats', f), 'utf8')))
    const pageSize = Number(readFileSync(join(d, 'page-size'), 'utf8'))
    const files = readdirSync(d).filter((f) => /^cpu\d+\.raw$/.test(f)).map((f) => ({ cpu: Number(/\d+/.exec(f)![0]), path: join(d, f) }))
    const raw: SchedEvent[] = []
    const st = decodeRawFiles(files, pageSize, new RingBufferDecoder(formats), (e) => raw.push(e))
    const text: SchedEvent[] = []
    readFtraceString(gunzipSync(readFileSync(join(d, 'kernel.txt.gz'))).toString('utf8'), { event: (e) => text.push(e) })
    expect(st.lostEvents).toBe(0)
    expect(raw.length).toBe(text.length)
    expect(raw.length).toBeGreaterThan(100)
    // the text form rounds timestamps to microseconds and hashes pointers; all else is equal
    const comparable = (e: SchedEvent): Record<string, unknown> => {
      const { ts, comm: _c, ...rest } = e as SchedEvent & Record<string, unknown>
      delete rest.timer
      delete rest.function
      return { ...rest, us: Math.round(ts / 1000) }
    }
    for (let i = 0; i < raw.length; i++) expect(comparable(raw[i]), `event ${i}`).toEqual({ ...comparable(text[i]), us: text[i].ts / 1000 })
    const types = new Set(raw.map((e) => e.type))
    for (const t of ['sched_switch', 'sched_waking', 'hrtimer_start', 'hrtimer_expire_entry'] as const) expect(types.has(t), t).toBe(true)
  })

  it.each(realTraces)('%s: analyze of a `schedlab real --trace` file gives the run\'s own result', async (name) => {
    const want = JSON.parse(readFileSync(join(dir, name.replace('.trace.txt.gz', '.result.json')), 'utf8')) as { workloads: { name: string; latencyUs: LatencySummary; wakeupLatencyUs: LatencySummary }[]; tasks: TaskResult[] }
    const got = await analyzeFile(join(dir, name), { onlyAssigned: true })
    expect(got.trace.timerLatency).toBe(true)
    expect(got.trace.malformed).toBe(0)
    for (const w of want.workloads) {
      const g = got.workloads.find((x) => x.name === w.name)
      expect(g?.latencyUs, w.name).toEqual(w.latencyUs)
      expect(g?.wakeupLatencyUs, w.name).toEqual(w.wakeupLatencyUs)
    }
    expect(want.workloads.find((w) => w.name === 'cyclictest')!.latencyUs.count).toBeGreaterThan(50)
    for (const t of want.tasks) {
      const g = got.tasks.find((x) => x.tid === t.tid)
      expect({ l: g?.latencyUs, s: g?.contextSwitches, m: g?.migrations, c: g?.cpuTimeMs }, t.name).toEqual({ l: t.latencyUs, s: t.contextSwitches, m: t.migrations, c: t.cpuTimeMs })
    }
  })
})
