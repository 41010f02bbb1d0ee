import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { runCli } from '../cli/index'
import { memoryIo } from '../cli/io'
import { simulate } from '../sim/index'
import { strip } from './merge'
import { startLocalSlurm, waitFor, type LocalSlurm } from './local-slurm'

/**
 * The sweep on a real Slurm: a single-node cluster started here for the test (local-slurm.ts),
 * the 2x3 fixture submitted as a job array of 3 shards, merged, and compared with the same
 * sweep run locally. Skips, saying why, where Slurm cannot start.
 */
const ROOT = resolve(__dirname, '../..')
const FIXTURE = join(__dirname, 'fixtures', 'sweep-2x3.json')
const BIN = join(ROOT, 'bin', 'schedlab.mjs')

let slurm: LocalSlurm | null = null
let why = ''

beforeAll(async () => {
  const s = await startLocalSlurm()
  if (typeof s === 'string') why = s
  else slurm = s
}, 60_000)

afterAll(async () => {
  await slurm?.stop()
}, 60_000)

describe('sweep on a local Slurm', () => {
  it('runs the 2x3 sweep as a job array; merged, it is the local sweep', async (ctx) => {
    if (!slurm) {
      console.warn(`skipped: ${why}`)
      ctx.skip(why)
      return
    }
    const out = join(slurm.dir, 'sweep')
    const sub = spawnSync(process.execPath, [BIN, 'sweep', FIXTURE, '--slurm', '--shards', '3', '--out', out], { env: slurm.env, encoding: 'utf8', timeout: 60_000 })
    expect(sub.status, sub.stderr).toBe(0)
    const jobId = sub.stdout.trim()
    expect(jobId).toMatch(/^\d+$/)
    expect(sub.stderr).toMatch(/when it is done: schedlab merge .*shard-\* --json/)
    const script = readFileSync(join(out, 'sweep.sbatch'), 'utf8')
    expect(script).toContain('#SBATCH --array=0-2')
    // wait for the job by its state: no task of it left in the queue
    const finished = await waitFor(() => {
      const q = spawnSync('squeue', ['-h', '-j', jobId, '-o', '%T'], { env: slurm!.env, encoding: 'utf8' })
      return q.status === 0 && q.stdout.trim() === ''
    }, 180_000)
    expect(finished, 'the job array did not finish in 3 minutes').toBe(true)
    const shards = [0, 1, 2].map((i) => join(out, `shard-${i}`))
    for (const [i, d] of shards.entries()) {
      const log = join(out, `slurm-${jobId}_${i}.out`)
      expect(existsSync(join(d, 'sweep.json')), existsSync(log) ? readFileSync(log, 'utf8') : `no ${log}`).toBe(true)
    }
    const mergedFile = join(slurm.dir, 'merged.json')
    execFileSync(process.execPath, [BIN, 'merge', ...shards, '--out', mergedFile], { stdio: 'ignore', timeout: 60_000 })
    const merged = readFileSync(mergedFile, 'utf8')
    const io = memoryIo()
    expect(await runCli(['sweep', FIXTURE, '--json'], io, simulate)).toBe(0)
    expect(strip(JSON.parse(merged))).toEqual(strip(JSON.parse(io.stdout)))
  }, 300_000)
})
