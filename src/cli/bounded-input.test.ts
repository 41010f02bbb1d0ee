/**
 * Files that would exhaust the host (issue: bounded by construction): a device, a FIFO, a
 * directory, a file over the cap, a trace line without end, a gzip bomb, a CPU id of 99999999,
 * an output folder inside /proc. Each is refused at once with exit 2 and a message naming the
 * file and the limit; none reads more than the cap. Sizes in these tests are small: the caps
 * are lowered by flag, and the large files are sparse (no disk, nothing read).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from './index'
import { memoryIo, nodeIo, type CliIo } from './io'

const dir = mkdtempSync(join(tmpdir(), 'schedlab-bounded-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fifo = join(dir, 'fifo')
const haveFifo = spawnSync('mkfifo', [fifo]).status === 0

/** The real file system (mkdir, write), output collected. */
function diskIo(): CliIo & { stdout: string; stderr: string } {
  const io = { ...nodeIo(), stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) }
  return io
}

async function cli(args: string[], io: CliIo & { stderr: string } = memoryIo()): Promise<{ code: number; err: string }> {
  const code = await runCli(args, io, () => {
    throw new Error('must not simulate')
  })
  return { code, err: io.stderr }
}

const SWITCH = (cpu: string, next: number): string =>
  `          <idle>-0     [${cpu}] d..2.  100.000000: sched_switch: prev_comm=swapper prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=${next} next_prio=120`

describe('files the commands refuse before reading', () => {
  for (const cmd of ['validate', 'run', 'compare', 'sweep', 'analyze']) {
    it(`${cmd} /dev/zero: exit 2, a character device`, async () => {
      const r = await cli([cmd, '/dev/zero'])
      expect(r.code, r.err).toBe(2)
      expect(r.err).toContain('/dev/zero: cannot read: a character device, not a regular file')
    })
    it.runIf(haveFifo)(`${cmd} on a FIFO: exit 2 at once (no writer needed)`, async () => {
      const r = await cli([cmd, fifo])
      expect(r.code, r.err).toBe(2)
      expect(r.err).toContain('a FIFO (named pipe), not a regular file')
    })
    it(`${cmd} on a directory: exit 2`, async () => {
      const r = await cli([cmd, dir])
      expect(r.code, r.err).toBe(2)
      expect(r.err).toMatch(/a directory|no such file or preset/)
    })
  }

  it.runIf(haveFifo)('merge on a FIFO: exit 2', async () => {
    const f = join(dir, 'shard.json')
    spawnSync('mkfifo', [f])
    const r = await cli(['merge', f])
    expect(r.code, r.err).toBe(2)
    expect(r.err).toContain('a FIFO (named pipe), not a regular file')
  })

  it('a scenario over 16 MB is refused by its size (a sparse file: nothing is read)', async () => {
    const f = join(dir, 'big.json')
    writeFileSync(f, '')
    truncateSync(f, 16 * 1024 * 1024 + 1)
    for (const cmd of ['validate', 'run']) {
      const r = await cli([cmd, f])
      expect(r.code, r.err).toBe(2)
      expect(r.err).toContain('big.json: cannot read: file too large: 17 MB, the limit is 16 MB')
    }
  })
})

describe('traces the analyzer refuses or bounds', () => {
  it('a CPU id of 99999999 is a malformed line, with its line number', async () => {
    const f = join(dir, 'cpu.txt')
    writeFileSync(f, `# tracer: nop\n${SWITCH('99999999', 5)}\n`)
    const r = await cli(['analyze', f])
    expect(r.code, r.err).toBe(2)
    expect(r.err).toContain('line 2: CPU 99999999: above the largest CPU id a trace may name (8191)')
    // among good lines the bad one is skipped and reported
    writeFileSync(f, `${SWITCH('0', 5)}\n${SWITCH('99999999', 6)}\n${SWITCH('1', 7)}\n`)
    const io = memoryIo()
    expect(await runCli(['analyze', f], io)).toBe(0)
    expect(io.stderr).toContain('1 malformed line(s) skipped; first: line 2: CPU 99999999')
  })

  it('a #P:999999999 header is a malformed line', async () => {
    const f = join(dir, 'p.txt')
    writeFileSync(f, `#P:999999999\n${SWITCH('0', 5)}\n`)
    const io = memoryIo()
    expect(await runCli(['analyze', f, '--json'], io)).toBe(0)
    expect(io.stderr).toContain('line 1: 999999999 CPUs: more than the 8192 a trace may have')
    expect(JSON.parse(io.stdout).variants[0].cpus).toHaveLength(1)
  })

  it('a line without end stops the read at 64 KB: exit 2 naming the line', async () => {
    const f = join(dir, 'long.txt')
    writeFileSync(f, `${SWITCH('0', 5)}\n${'x'.repeat(200_000)}`)
    const r = await cli(['analyze', f])
    expect(r.code, r.err).toBe(2)
    expect(r.err).toContain('line 2 is longer than 64 KB: not ftrace text')
  })

  it('a gzip of zeros (no newline) stops at the line cap; of newlines, at the gunzipped cap', async () => {
    const zeros = join(dir, 'zeros.gz')
    writeFileSync(zeros, gzipSync(Buffer.alloc(4 * 1024 * 1024)))
    const z = await cli(['analyze', zeros])
    expect(z.code, z.err).toBe(2)
    expect(z.err).toContain('line 1 is longer than 64 KB')
    const newlines = join(dir, 'newlines.gz')
    writeFileSync(newlines, gzipSync(Buffer.alloc(3 * 1024 * 1024, 10)))
    const n = await cli(['analyze', newlines, '--max-trace-mb', '1'])
    expect(n.code, n.err).toBe(2)
    expect(n.err).toContain('gunzipped trace too large: over 1 MB, the limit is 1 MB (--max-trace-mb)')
  })

  it('a trace over --max-trace-mb is refused by its size', async () => {
    const f = join(dir, 'sparse.txt')
    writeFileSync(f, '')
    truncateSync(f, 3 * 1024 * 1024)
    const r = await cli(['analyze', f, '--max-trace-mb', '2'])
    expect(r.code, r.err).toBe(2)
    expect(r.err).toContain('trace too large: 3 MB, the limit is 2 MB (--max-trace-mb)')
    expect((await cli(['analyze', f, '--max-trace-mb', '0'])).code).toBe(2)
  })
})

describe('output folders', () => {
  for (const out of ['/proc/schedlab-x', '/dev/null/x']) {
    it(`analyze --out ${out}: exit 2 naming the folder, at once (no recursive mkdir spinning on /proc)`, async () => {
      const f = join(dir, 'ok.txt')
      writeFileSync(f, `${SWITCH('0', 5)}\n`)
      const r = await cli(['analyze', f, '--out', out], diskIo())
      expect(r.code, r.err).toBe(2)
      expect(r.err).toContain(`cannot create the folder ${out}`)
    })
  }

  for (const cmd of ['run', 'compare', 'sweep']) {
    it(`${cmd} --out /proc/x: exit 2 before any simulation`, async () => {
      const f = join(dir, `${cmd}.json`)
      writeFileSync(f, JSON.stringify({ name: 's', topology: 'smp-2', durationMs: 20, variants: [{ name: 'a' }, { name: 'b' }], workloads: [{ type: 'hog', name: 'h' }], sweep: { durationMs: [20, 30] } }))
      const r = await cli([cmd, f, '--out', '/proc/schedlab-x'], diskIo())
      expect(r.code, r.err).toBe(2)
      expect(r.err).toContain('cannot create the folder /proc/schedlab-x: this file system takes no new folders')
    })
  }

  it('serve --data-dir /proc/x: exit 2', async () => {
    const { serveCommand } = await import('./serve')
    const errs: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((t: string) => (errs.push(t), true)) as typeof process.stderr.write
    try {
      expect(await serveCommand(['--data-dir', '/proc/schedlab-x'])).toBe(2)
    } finally {
      process.stderr.write = write
    }
    expect(errs.join('')).toContain('cannot create the folder /proc/schedlab-x')
  })
})
