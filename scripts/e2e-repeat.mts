/**
 * `npm run e2e:repeat [-- N]`: the browser tests (e2e/) N times in a row (default 3), to show
 * they are deterministic under load: each round's outcome and duration, then the spread (the
 * slowest and fastest round, and per test file). A flaky test shows as a round that failed.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const rounds = Number(process.argv[2] ?? 3)
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`e2e:repeat: expected a number of rounds, got ${process.argv[2]}`)
const dir = mkdtempSync(join(tmpdir(), 'schedlab-e2e-repeat-'))
interface Report { numPassedTests: number; numFailedTests: number; testResults: { name: string; startTime: number; endTime: number; status: string }[] }
const summary: { ms: number; passed: number; failed: number; files: Map<string, number> }[] = []
try {
  for (let r = 1; r <= rounds; r++) {
    const out = join(dir, `round-${r}.json`)
    const t0 = Date.now()
    spawnSync(process.execPath, [join('node_modules', 'vitest', 'vitest.mjs'), 'run', 'e2e/', '--reporter=json', `--outputFile=${out}`], { stdio: ['ignore', 'ignore', 'inherit'] })
    const rep = JSON.parse(readFileSync(out, 'utf8')) as Report
    const files = new Map(rep.testResults.map((f) => [f.name.replace(/^.*\/e2e\//, 'e2e/'), f.endTime - f.startTime]))
    summary.push({ ms: Date.now() - t0, passed: rep.numPassedTests, failed: rep.numFailedTests, files })
    const failedFiles = rep.testResults.filter((f) => f.status !== 'passed').map((f) => f.name.replace(/^.*\/e2e\//, 'e2e/'))
    process.stdout.write(`round ${r}: ${rep.numPassedTests} passed, ${rep.numFailedTests} failed${failedFiles.length ? ` (${failedFiles.join(', ')})` : ''} in ${(summary[r - 1].ms / 1000).toFixed(0)} s\n`)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
const secs = summary.map((s) => s.ms / 1000)
process.stdout.write(`\n${rounds} rounds: ${summary.filter((s) => s.failed === 0).length} green; wall ${Math.min(...secs).toFixed(0)}-${Math.max(...secs).toFixed(0)} s\n`)
for (const name of [...summary[0].files.keys()].sort()) {
  const t = summary.map((s) => (s.files.get(name) ?? 0) / 1000)
  process.stdout.write(`  ${name.padEnd(32)} ${t.map((x) => x.toFixed(1).padStart(6)).join(' ')} s\n`)
}
process.exitCode = summary.every((s) => s.failed === 0) ? 0 : 1
