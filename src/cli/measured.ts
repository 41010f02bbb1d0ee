import { join } from 'node:path'
import type { Scenario } from '../sim/scenario'
import type { RunOutput } from '../shared/result'
import type { CliIo } from './io'

/**
 * What `schedlab real` and `schedlab vm` share around their runner: Ctrl+C and SIGTERM abort
 * the run (a second Ctrl+C exits at once), --out gets result.json and the normalized scenario,
 * stdout the JSON object or the tables.
 */
export async function measuredCommand<T extends RunOutput>(
  io: CliIo,
  o: { stopping: string; scenario: Scenario; out?: string; json: boolean; render: (r: T) => string },
  run: (signal: AbortSignal) => Promise<T>
): Promise<number> {
  const ac = new AbortController()
  let interrupts = 0
  const onSignal = (): void => {
    interrupts++
    if (interrupts === 1) io.err(`\n${o.stopping}\n`)
    else process.exit(130)
    ac.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  try {
    const out = await run(ac.signal)
    if (o.out) {
      io.mkdirp(o.out)
      io.writeFile(join(o.out, 'result.json'), JSON.stringify(out, null, 2) + '\n')
      io.writeFile(join(o.out, 'scenario.json'), JSON.stringify(o.scenario, null, 2) + '\n')
      io.err(`wrote ${join(o.out, 'result.json')} and scenario.json\n`)
    }
    io.out(o.json ? JSON.stringify(out, null, 2) + '\n' : o.render(out))
    return 0
  } finally {
    process.removeListener('SIGINT', onSignal)
    process.removeListener('SIGTERM', onSignal)
  }
}
