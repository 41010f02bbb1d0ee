/**
 * Regenerates the committed real-kernel fixtures of src/trace (run as root on a Linux machine
 * with tracefs, rt-tests and a C compiler):
 * - fixtures/real-<kernel>.trace.txt.gz + .result.json: a short `schedlab real --trace` run
 *   (cyclictest beside a pinned hog), its trace as text and the run's own result;
 * - fixtures/raw-<kernel>/: a few ring-buffer pages as read from trace_pipe_raw, the events'
 *   format files, and the kernel's own text rendering of the same events (`trace`, gzipped).
 * Usage: npx tsx scripts/real-fixtures.mts
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { release, tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { parseScenario } from '../src/sim/scenario'
import { REAL_EVENTS, runRealScenario } from '../src/real/runner'
import { closeTracefs, openTracefs, TraceInstance } from '../src/real/tracefs'
import { makeDirs } from '../src/services/data-dir'

const out = join(import.meta.dirname, '..', 'src', 'trace', 'fixtures')
const kernel = release().split('-')[0]
makeDirs(out)

const scenario = parseScenario(JSON.stringify({
  name: 'fixture', topology: 'smp-2', durationMs: 400, variants: [{ name: 'base' }],
  workloads: [
    { type: 'cyclictest', name: 'cyclictest', threads: 1, periodUs: 2777 },
    { type: 'hog', name: 'hog', count: 1, cpus: [0] }
  ]
}), 'fixture.json')
const tmp = mkdtempSync(join(tmpdir(), 'schedlab-fixture-'))
try {
  const r = await runRealScenario(scenario, { quiet: false, traceDir: tmp })
  const v = r.variants[0]
  const trace = readdirSync(tmp).find((f) => f.endsWith('.trace.txt'))!
  writeFileSync(join(out, `real-${kernel}.trace.txt.gz`), gzipSync(readFileSync(join(tmp, trace))))
  writeFileSync(join(out, `real-${kernel}.result.json`), JSON.stringify({ workloads: v.workloads.map(({ latencyHist: _h, ...w }) => w), tasks: v.tasks, stats: v.stats }, null, 2) + '\n')

  const root = openTracefs()
  const raw = join(tmp, 'raw')
  const inst = TraceInstance.create(root.path, `schedlab-${process.pid}-fixture`, { bufferKb: 1024, events: REAL_EVENTS, rawDir: raw })
  try {
    inst.start()
    execFileSync('cyclictest', ['-q', '-t1', '-i', '2777', '--policy=other', '-D', '1', '-l', '40'])
    inst.stop()
    const text = readFileSync(join(inst.dir, 'trace'), 'utf8')
    inst.drain()
    const dir = join(out, `raw-${kernel}`)
    rmSync(dir, { recursive: true, force: true })
    makeDirs(join(dir, 'formats'))
    for (const f of inst.rawFiles()) writeFileSync(join(dir, `cpu${f.cpu}.raw`), readFileSync(f.path))
    for (const ev of REAL_EVENTS) writeFileSync(join(dir, 'formats', `${ev.split('/')[1]}.format`), readFileSync(join(inst.dir, 'events', ev, 'format')))
    writeFileSync(join(dir, 'kernel.txt.gz'), gzipSync(text))
    writeFileSync(join(dir, 'page-size'), `${inst.pageSize}\n`)
  } finally {
    inst.remove()
    closeTracefs(root)
  }
  console.log(`wrote ${out}`)
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
