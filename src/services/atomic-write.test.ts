/**
 * A write that fails half way (a full disk: ENOSPC) leaves no temporary file behind; it used to
 * stay in the runs folder until the next start.
 */
import { mkdtempSync, promises as fsp, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { writeFileAtomic } from './atomic-write'

afterEach(() => vi.restoreAllMocks())

describe('writeFileAtomic on a full disk', () => {
  it('removes its temporary file and reports ENOSPC', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-atomic-'))
    try {
      const open = fsp.open.bind(fsp)
      vi.spyOn(fsp, 'open').mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
        const fh = await open(...args)
        // a partial write, then the disk is full
        fh.writeFile = async (data: unknown) => {
          await fh.write(String(data).slice(0, 10))
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
        }
        return fh
      })
      await expect(writeFileAtomic(join(dir, 'run-a.json'), '{"format":1,"results":[]}')).rejects.toMatchObject({ code: 'ENOSPC' })
      expect(readdirSync(dir)).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
