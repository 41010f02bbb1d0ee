/**
 * A worker's warm-up: V8 compiles the simulator's hot paths only after they have run for a
 * while (about a second of a fresh process on the RB5 hackbench setup, where the first 50 ms of
 * simulated time run several times slower than the rest). A worker started by a long-lived host
 * (the desktop app, `schedlab serve`) runs this short mix once, before its first job, so that a
 * user's run starts on compiled code: cyclictest, a hackbench of threads over pipes, periodic
 * tasks and hogs on the RB5, which pass through wakeups, the EEVDF tree, CPU selection, load
 * balancing, PELT and the pipes.
 */
import { simulate } from '../sim/index'
import { parseScenario } from '../sim/scenario'

const WARM_SCENARIO = JSON.stringify({
  name: 'warm-up', topology: 'rb5', durationMs: 400,
  variants: [{ name: 'warm' }],
  workloads: [
    { type: 'cyclictest', periodUs: 2777, sliceUs: 8000 },
    { type: 'hackbench', groups: 2, mode: 'thread', ipc: 'pipe', loops: 1000, repeat: true, sliceUs: 20000 },
    { type: 'periodic', count: 2, runUs: 1000, periodUs: 7777 },
    { type: 'hog', count: 2 }
  ]
})

/** Run the warm-up mix once (about half a second of CPU on a 2 GHz core); never throws. */
export function warmUp(): void {
  try {
    simulate(parseScenario(WARM_SCENARIO, 'warm-up.json'), 0, 1)
  } catch {
    // a warm-up that fails costs nothing but speed
  }
}
