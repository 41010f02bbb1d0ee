/**
 * Runs COUNT hogs on smp-CPUS briefly in this fresh process and prints the memory the run
 * added (peak RSS minus RSS before it) beside the run-store's estimate for it.
 * argv: COUNT CPUS
 */
import { parseScenario } from '../../sim/scenario'
import { estimateMemoryBytes } from '../../sim/scenario/estimate'
import { simulate } from '../../sim/index'

const [count, cpus] = process.argv.slice(2).map(Number)
const s = parseScenario(JSON.stringify({ topology: `smp-${cpus}`, durationMs: 20, workloads: [{ type: 'hog', count }] }), 'probe.json')
// Warm the simulator's code on a tiny run so the figure is the run's data, not its code.
simulate(parseScenario(JSON.stringify({ topology: 'smp-1', durationMs: 1, workloads: [{ type: 'hog' }] }), 'w.json'), 0, 1)
const before = process.memoryUsage().rss
simulate(s, 0, 1)
const peak = process.resourceUsage().maxRSS * 1024
const mb = (b: number): number => Math.round(b / 1048576)
process.stdout.write(JSON.stringify({ count, cpus, estimateMb: mb(estimateMemoryBytes(s)), usedMb: mb(peak - before) }))
