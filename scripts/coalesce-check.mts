/**
 * `npm run coalesce:check [-- PRESET... --ms N --seeds N --variant I]`: kernel.coalesce against
 * the message-by-message mode on presets with hackbench (default: all of them), over seeds,
 * metric by metric (src/sim/workloads/coalesce-check.ts). Longer and with more seeds than the
 * test; docs/model.md quotes its figures.
 */
import { readFileSync } from 'node:fs'
import { listPresets } from '../src/services/presets'
import { expandRuns, parseScenario } from '../src/sim/scenario'
import { compareModes, K_SE } from '../src/sim/workloads/coalesce-check'

const argv = process.argv.slice(2)
const opt = (name: string, def: number): number => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : def)
const ms = opt('--ms', 500)
const seeds = Array.from({ length: opt('--seeds', 10) }, (_, i) => i + 1)
const names = argv.filter((a, i) => !a.startsWith('--') && !(i > 0 && argv[i - 1].startsWith('--')))
const presets = listPresets().filter((p) => (names.length ? names.includes(p.id) : /"type":\s*"hackbench"/.test(readFileSync(p.file, 'utf8'))))
for (const p of presets) {
  const s = parseScenario(readFileSync(p.file, 'utf8'), p.file, { durationMs: ms, maxEvents: 1e12 })
  const runs = expandRuns(s, { seeds: 1 })
  const wanted = argv.includes('--variant') ? [runs[opt('--variant', 0)]] : runs
  for (const run of wanted) {
    const c = compareModes(run.scenario, run.variantIndex, seeds)
    console.log(`\n${p.id} / ${run.variant}: ${seeds.length} seeds x ${ms} ms, events ${(c.exactEvents / seeds.length).toFixed(0)} -> ${(c.coalescedEvents / seeds.length).toFixed(0)} per run, faults ${c.faults}`)
    for (const r of c.rows) {
      console.log(`  ${r.metric.padEnd(24)} ${r.exact.toFixed(3).padStart(12)} ${r.coalesced.toFixed(3).padStart(12)} ${((r.change * 100).toFixed(1) + ' %').padStart(9)}  ±${(r.halfWidth * 100).toFixed(1)} % (${K_SE} SE)  tol ${(r.tolerance * 100).toFixed(0)} %  ${r.equivalent ? 'ok' : 'DIFFERS'}`)
    }
  }
}
