/**
 * One of two processes saving into one data folder as fast as they can, with no listing between
 * (run-store-hardening.test.ts): what the stored index holds afterwards is only what the saves
 * themselves wrote. argv: DATA_DIR NAME N
 */
import Conf from 'conf'
import { RunStore } from '../run-store'
import { sampleRun } from './sample-run'

async function main(): Promise<void> {
  const [dir, name, n] = process.argv.slice(2)
  const store = await RunStore.open(dir, new Conf({ cwd: dir, configName: 'config', projectName: 'schedlab' }))
  for (let i = 0; i < Number(n); i++) {
    await store.save(sampleRun(`run-${name}-${String(i).padStart(4, '0')}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()))
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
