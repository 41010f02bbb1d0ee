/**
 * A web host in its own process, for tests that send it what could kill it: an exception
 * escaping a listener ends this process, which the test sees. Serves a tiny renderer folder
 * (with a symlink pointing out of it) and the result-worker fixture; prints
 * `{ "port", "token", "rendererDir" }` on stdout, closes on SIGTERM or when stdin ends.
 * argv: DATA_DIR
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createBackend } from '../../services/backend'
import { MemoryKv, TSX_WORKER_ARGV, fixtureWorker } from '../../services/test-helpers'
import { startWebHost } from '../serve-host'

async function main(): Promise<void> {
  const dir = process.argv[2]
  const rendererDir = join(dir, 'renderer')
  mkdirSync(join(rendererDir, 'assets'), { recursive: true })
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>schedlab</title>')
  writeFileSync(join(rendererDir, 'help.html'), '<!doctype html><title>help</title>')
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)')
  writeFileSync(join(dir, 'secret.txt'), 'secret')
  symlinkSync(join(dir, 'secret.txt'), join(rendererDir, 'assets', 'leak.txt'))
  symlinkSync(dir, join(rendererDir, 'up'))
  const backend = await createBackend({
    dataDir: join(dir, 'data'), kv: new MemoryKv(), workerPath: fixtureWorker('result-worker.ts'),
    execArgv: TSX_WORKER_ARGV, poolSize: 1, version: '0.0.0-test', platform: 'web'
  })
  const host = await startWebHost({ backend, rendererDir })
  const stop = (): void => {
    void host.close().then(() => backend.close()).then(() => process.exit(0))
  }
  process.on('SIGTERM', stop)
  process.stdin.on('end', stop)
  process.stdin.resume()
  process.stdout.write(JSON.stringify({ port: host.port, token: host.token, rendererDir }) + '\n')
}

void main()
