/**
 * The renderer's WebSocket API client (src/renderer/src/api/web.ts) against a real web host,
 * in Node with the `ws` package standing in for the browser's WebSocket: what the page tells the
 * user when a scenario is over the limit, and when the host closed the connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import WebSocket from 'ws'
import { createBackend, type Backend } from '../src/services/backend'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker, tempDir } from '../src/services/test-helpers'
import { startWebHost, type WebHost } from '../src/cli/serve-host'
import { MAX_SCENARIO_BYTES } from '../src/shared/limits'
import { closeReason, connectWebApi } from '../src/renderer/src/api/web'

const t = tempDir()
let backend: Backend
let host: WebHost
const g = globalThis as Record<string, unknown>
const saved = { WebSocket: g.WebSocket, window: g.window }

beforeAll(async () => {
  const rendererDir = join(t.dir, 'renderer')
  mkdirSync(rendererDir, { recursive: true })
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>schedlab</title>')
  backend = await createBackend({
    dataDir: join(t.dir, 'data'), kv: new MemoryKv(), workerPath: fixtureWorker('result-worker.ts'),
    execArgv: TSX_WORKER_ARGV, poolSize: 1, version: '0.0.0-test', platform: 'web'
  })
  host = await startWebHost({ backend, rendererDir })
  g.WebSocket = WebSocket
  g.window = { addEventListener() {} }
})

afterAll(async () => {
  Object.assign(g, saved)
  await host.close()
  await backend.close()
  t.cleanup()
})

describe('the browser API client', () => {
  it('reports a scenario over the limit as "scenario too large: 17 MB, the limit is N MB" and keeps the connection', async () => {
    const loc = { protocol: 'http:', host: `127.0.0.1:${host.port}`, search: `?token=${host.token}` } as Location
    const { api } = await connectWebApi(loc)
    const text = 'x'.repeat(17 * 1024 * 1024)
    const expected = `scenario too large: 17 MB, the limit is ${MAX_SCENARIO_BYTES / 1048576} MB`
    await expect(api.validateScenario(text, 'big.json')).rejects.toThrow(expected)
    await expect(api.startRun({ text, file: 'big.json' })).rejects.toThrow(expected)
    await expect(api.importRtApp(text, 'big.json')).rejects.toThrow(expected)
    // The connection is still there: the next call answers.
    expect((await api.appInfo()).platform).toBe('web')
  })

  it('explains a connection the host closed for a too large message', () => {
    expect(closeReason(1009)).toMatch(/too large/)
    expect(closeReason(1006)).toMatch(/lost/)
  })
})
