/**
 * `npm run bench`: simulator throughput. Prints a table and writes bench-results.json
 * (DESIGN.md contract): events/s, simulated time per wall time, peak RSS, and heapRatio =
 * our events/s over a bare binary-heap push/pop loop of the same event count (our ceiling).
 * A benchmark, not a test: it asserts nothing.
 */
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { simulateDetailed } from '../src/sim/index'
import { quickScenario } from '../src/sim/testing'
import { BENCH_SCENARIOS } from '../src/sim/bench-scenarios'
import { EventQueue } from '../src/sim/engine/event-queue'
import { Prng } from '../src/sim/engine/prng'

/** Cost per event at 320 tasks over 16 tasks on power11-160, against log(320)/log(16). */
function taskScaling(rows: Record<string, number | string>[]): string | null {
  const eps = (n: string): number | undefined => rows.find((r) => r.name === n)?.eventsPerSec as number | undefined
  const small = eps('power11-160-16tasks')
  const big = eps('power11-160-320tasks')
  if (!small || !big) return null
  const growth = small / big
  const bound = Math.log(320) / Math.log(16)
  return `power11-160: cost per event x${growth.toFixed(2)} from 16 to 320 tasks (log bound x${bound.toFixed(2)}): ${growth <= bound ? 'within' : 'EXCEEDS'}`
}

/** The ceiling: push and pop `events` events through the same heap, `pending` in flight. */
function bareHeap(events: number, pending: number): number {
  const q = new EventQueue(1024)
  const rng = new Prng(1)
  let now = 0
  for (let i = 0; i < pending; i++) q.push(rng.below(1_000_000), 1, i, 0)
  const t0 = performance.now()
  for (let i = 0; i < events; i++) {
    q.pop()
    now = q.popTime
    q.push(now + 1 + rng.below(1_000_000), q.popKind, q.popTarget, q.popGen)
  }
  return events / ((performance.now() - t0) / 1000)
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

function main(): void {
  const filter = process.argv[2]
  const rows: Record<string, number | string>[] = []
  for (const b of BENCH_SCENARIOS) {
    if (filter && !b.name.includes(filter)) continue
    const s = quickScenario(b.scenario)
    // one full run to warm the JIT up, then the median of three
    const warm = simulateDetailed(s, 0, 1)
    const walls: number[] = []
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now()
      simulateDetailed(s, 0, 1)
      walls.push((performance.now() - t0) / 1000)
    }
    const wall = median(walls)
    const events = warm.result.stats.events
    const eventsPerSec = events / wall
    const pending = Math.max(16, warm.kernel.eq.size)
    const ceiling = median([0, 1, 2].map(() => bareHeap(events, pending)))
    rows.push({
      name: b.name,
      events,
      eventsPerSec: Math.round(eventsPerSec),
      simToWall: Math.round((s.durationMs / 1000 / wall) * 100) / 100,
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      heapRatio: Math.round((eventsPerSec / ceiling) * 1000) / 1000
    })
  }
  console.table(rows)
  const scaling = taskScaling(rows)
  if (scaling) console.log(scaling)
  writeFileSync(resolve(process.cwd(), 'bench-results.json'), JSON.stringify({ scenarios: rows }, null, 2) + '\n')
  console.log('wrote bench-results.json')
}

main()
