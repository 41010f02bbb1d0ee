/**
 * `schedlab sweep --out DIR` keeps each finished run in DIR/checkpoint.jsonl; killed, the same
 * command with --resume runs only the rest and writes the same sweep.json as a sweep that was
 * never interrupted.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from './index'
import { memoryIo, nodeIo, type CliIo } from './io'
import { strip } from '../sweep/merge'
import { CHECKPOINT_FILE } from './checkpoint'
import type { SimulateFn } from './simulator'
import { simulate } from '../sim/index'

const ROOT = resolve(__dirname, '../..')
const FIXTURE = join(ROOT, 'src/sweep/fixtures/sweep-2x3.json')
const dir = mkdtempSync(join(tmpdir(), 'schedlab-sweep-resume-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function diskIo(): CliIo & { stdout: string; stderr: string } {
  const io = { ...nodeIo(), stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) }
  return io
}

const finishedRuns = (file: string): number => existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(1).filter((l) => l.endsWith('}')).length : 0

describe('sweep --resume', () => {
  it('a killed sweep, resumed, runs only what had not finished and writes the same sweep.json', async () => {
    const whole = join(dir, 'whole')
    const io = diskIo()
    expect(await runCli(['sweep', FIXTURE, '--out', whole], io), io.stderr).toBe(0)
    expect(existsSync(join(whole, CHECKPOINT_FILE))).toBe(false)

    // the same sweep as its own process, one run at a time, killed once its first runs are kept
    const out = join(dir, 'killed')
    const child = spawn(process.execPath, [join(ROOT, 'bin/schedlab.mjs'), 'sweep', FIXTURE, '--out', out], {
      cwd: ROOT, stdio: 'ignore', env: { ...process.env, SCHEDLAB_WORKERS: '1' }
    })
    const exited = new Promise((ok) => child.once('exit', ok))
    const checkpoint = join(out, CHECKPOINT_FILE)
    await expect.poll(() => finishedRuns(checkpoint) > 0 || child.exitCode !== null, { timeout: 120_000, interval: 20 }).toBe(true)
    child.kill('SIGKILL')
    await exited
    const kept = finishedRuns(checkpoint)
    expect(kept).toBeGreaterThan(0)
    expect(kept).toBeLessThan(12)
    expect(existsSync(join(out, 'sweep.json'))).toBe(false)

    const again = diskIo()
    expect(await runCli(['sweep', FIXTURE, '--out', out, '--resume'], again), again.stderr).toBe(0)
    expect(again.stderr).toContain(`resuming: ${kept} of 12 runs had finished (${checkpoint})`)
    const a = JSON.parse(readFileSync(join(whole, 'sweep.json'), 'utf8')) as unknown
    const b = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as unknown
    expect(JSON.stringify(strip(b))).toBe(JSON.stringify(strip(a)))
    expect(existsSync(checkpoint)).toBe(false)
  }, 300_000)

  it('a torn last line is run again; a checkpoint of another sweep or none at all is refused', async () => {
    const noSim: SimulateFn = () => {
      throw new Error('must not simulate')
    }
    // in this process: the third run and those after it fail, as if the process had died there
    const out = join(dir, 'torn')
    let calls = 0
    const dying: SimulateFn = (...a) => {
      if (++calls >= 3) throw new Error('killed')
      return simulate(...a)
    }
    const io = memoryIo()
    expect(await runCli(['sweep', FIXTURE, '--out', out], io, dying)).toBe(1)
    const file = join(out, CHECKPOINT_FILE)
    // a kill in the middle of a record
    io.files[file] += '{"index":7,"result":{"na'
    io.stderr = ''
    calls = 0
    const counted: SimulateFn = (...a) => {
      calls++
      return simulate(...a)
    }
    expect(await runCli(['sweep', FIXTURE, '--out', out, '--resume', '--json'], io, counted), io.stderr).toBe(0)
    expect(io.stderr).toContain(`resuming: 2 of 12 runs had finished (${file})`)
    expect(calls).toBe(10)
    expect(file in io.files).toBe(false)
    const uninterrupted = memoryIo()
    expect(await runCli(['sweep', FIXTURE, '--out', join(dir, 'whole-here')], uninterrupted, simulate)).toBe(0)
    const whole = JSON.parse(uninterrupted.files[join(dir, 'whole-here', 'sweep.json')]) as unknown
    expect(JSON.stringify(strip(JSON.parse(io.files[join(out, 'sweep.json')]) as unknown))).toBe(JSON.stringify(strip(whole)))

    const bare = memoryIo()
    expect(await runCli(['sweep', FIXTURE, '--resume'], bare, noSim)).toBe(2)
    expect(bare.stderr).toContain('sweep: --resume needs --out DIR')
    const none = memoryIo()
    expect(await runCli(['sweep', FIXTURE, '--out', join(dir, 'none'), '--resume'], none, noSim)).toBe(2)
    expect(none.stderr).toContain(`--resume: ${join(dir, 'none', CHECKPOINT_FILE)}: no checkpoint here (the sweep finished, or never ran with --out ${join(dir, 'none')})`)
    // the same folder, another --set: other runs
    const other = memoryIo({ [file]: `${JSON.stringify({ format: 1, runs: 'x'.repeat(64) })}\n` })
    expect(await runCli(['sweep', FIXTURE, '--out', out, '--resume', '--set', 'durationMs=5'], other, noSim)).toBe(2)
    expect(other.stderr).toContain(`--resume: ${file} holds the runs of another sweep (its scenario, --set values or options differ): resume it with the same command line`)
    expect(other.stderr).not.toMatch(/\n\s+at /)
  })
})
