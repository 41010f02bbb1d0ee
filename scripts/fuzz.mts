/**
 * `npm run fuzz -- [--cases N] [--trace-cases N] [--seed S] [--no-run] [--show K]`: the scenario
 * fuzzer and the trace fuzzer at scale (the tests run a few hundred cases; this runs thousands).
 * Prints the exit-code counts, the contract failures grouped by their first stderr line, the
 * slowest cases and the peak RSS. Exit 1 when any case breaks the contract (exit 1, a stack
 * trace, a throw).
 */
import { fileURLToPath } from 'node:url'
import { fuzzCases, fuzzSeeds, runFuzzCase, type FuzzOutcome } from '../src/cli/fuzz'
import { peakRssMb, runTraceFuzzCase, traceFuzzCases, traceFuzzSeeds } from '../src/cli/trace-fuzz'

const argv = process.argv.slice(2)
const opt = (name: string, def: number): number => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? Number(argv[i + 1]) : def
}
const cases = opt('cases', 2000)
const traceCases = opt('trace-cases', 500)
const seed = opt('seed', 1)
const show = opt('show', 5)
const simulate = !argv.includes('--no-run')

const seeds = fuzzSeeds(fileURLToPath(new URL('..', import.meta.url)))
const all = fuzzCases(seeds, cases, seed)
const codes = new Map<string, number>()
const failures = new Map<string, FuzzOutcome[]>()
const slow: FuzzOutcome[] = []
const t0 = performance.now()
let broken = 0
for (const c of all) {
  const outs = await runFuzzCase(c, { simulate })
  const last = outs[outs.length - 1]
  const key = outs.map((o) => `${o.command}=${o.code}`).join(' ')
  codes.set(key, (codes.get(key) ?? 0) + 1)
  for (const o of outs) {
    slow.push(o)
    if (!o.failure) continue
    const first = o.stderr.split('\n')[0].replace(/fuzz\/\d+-/g, 'fuzz/N-').slice(0, 160)
    const k = `${o.failure}: ${first}`
    failures.set(k, [...(failures.get(k) ?? []), o])
  }
  if (outs.some((o) => o.failure)) broken++
  if ((c.id + 1) % 500 === 0) process.stderr.write(`${c.id + 1}/${cases} cases, ${broken} broken, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`)
  void last
}
slow.sort((a, b) => b.ms - a.ms)

console.log(`${cases} cases over ${seeds.length} seed files (fuzz seed ${seed}, ${simulate ? 'validate + short run' : 'validate only'}) in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
console.log('outcomes:')
for (const [k, n] of [...codes].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(6)}  ${k}`)
console.log(`cases breaking the contract: ${broken} (${((broken / cases) * 100).toFixed(2)} %)`)
for (const [k, list] of [...failures].sort((a, b) => b[1].length - a[1].length)) {
  console.log(`  ${String(list.length).padStart(6)}  ${k}`)
  for (const o of list.slice(0, show)) console.log(`          case ${o.case.id} (${o.case.seed}: ${o.case.mutation})`)
}
console.log('slowest:')
for (const o of slow.slice(0, 5)) console.log(`  ${o.ms.toFixed(0).padStart(6)} ms  ${o.command} case ${o.case.id} (${o.case.seed}: ${o.case.mutation}) exit ${o.code}`)

// the trace fuzzer: `schedlab analyze` on mutated real traces
const traceCodes = new Map<string, number>()
let traceBroken = 0
const t1 = performance.now()
let slowestTrace = { ms: 0, what: '' }
for (const c of traceFuzzCases(traceFuzzSeeds(fileURLToPath(new URL('..', import.meta.url))), traceCases, seed)) {
  const o = await runTraceFuzzCase(c)
  const key = o.failure ?? `exit ${o.code}`
  traceCodes.set(key, (traceCodes.get(key) ?? 0) + 1)
  if (o.failure) {
    traceBroken++
    if (traceBroken <= show) console.log(`  trace case ${c.id} (${c.seed}: ${c.mutation}): ${o.failure}: ${o.stderr.split('\n')[0].slice(0, 160)}`)
  }
  if (o.ms > slowestTrace.ms) slowestTrace = { ms: o.ms, what: `case ${c.id} (${c.seed}: ${c.mutation}) exit ${o.code}` }
}
console.log(`${traceCases} trace cases (fuzz seed ${seed}) in ${((performance.now() - t1) / 1000).toFixed(1)} s: ${[...traceCodes].map(([k, n]) => `${k}: ${n}`).join(', ')}; slowest ${slowestTrace.ms.toFixed(0)} ms (${slowestTrace.what})`)
console.log(`trace cases breaking the contract: ${traceBroken}; peak RSS of this process: ${peakRssMb()} MB`)
process.exitCode = broken + traceBroken > 0 ? 1 : 0
