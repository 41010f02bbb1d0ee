/**
 * One of two processes writing the same data folder (run-store-hardening.test.ts): saves N runs
 * through its own RunStore and conf-backed index, then waits until its history, refreshed
 * without a restart, lists TOTAL runs, and prints { ids, problems }.
 * argv: DATA_DIR NAME N TOTAL
 */
import Conf from 'conf'
import { RunStore } from '../run-store'
import { sampleRun } from './sample-run'

async function main(): Promise<void> {
  const [dir, name, n, total] = process.argv.slice(2)
  const store = await RunStore.open(dir, new Conf({ cwd: dir, configName: 'config', projectName: 'schedlab' }))
  for (let i = 0; i < Number(n); i++) {
    await store.save(sampleRun(`run-${name}-${String(i).padStart(3, '0')}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString()))
  }
  const deadline = Date.now() + 60_000
  for (;;) {
    await store.refresh()
    if (store.list().length >= Number(total) || Date.now() > deadline) break
    await new Promise((r) => setTimeout(r, 20))
  }
  process.stdout.write(JSON.stringify({ ids: store.list().map((r) => r.id), problems: store.getProblems() }))
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
