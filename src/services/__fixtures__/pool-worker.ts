/** A worker for the pool's tests: each payload asks for one behaviour (finish, fail, crash, ...). */
import { serveJobs } from '../worker-protocol'

type Payload =
  | { kind: 'echo'; value: unknown }
  | { kind: 'spin'; ms: number }
  | { kind: 'throw'; message: string }
  | { kind: 'exit'; code: number }
  | { kind: 'uncaught' }
  | { kind: 'oom' }
  | { kind: 'hang'; ms: number }
  | { kind: 'meet'; flag: SharedArrayBuffer; parties: number }

function busy(ms: number, each?: () => boolean): boolean {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (each && each()) return true
  }
  return false
}

serveJobs((payload, ctx) => {
  const p = payload as Payload
  switch (p.kind) {
    case 'echo':
      return { echoed: p.value }
    case 'spin': {
      const start = Date.now()
      const stopped = busy(p.ms, () => {
        ctx.progress((Date.now() - start) * 1e6, p.ms * 1e6)
        return ctx.shouldStop()
      })
      return { stopped, start, end: Date.now() }
    }
    case 'throw':
      throw new Error(p.message)
    case 'exit':
      process.exit(p.code)
      break
    case 'uncaught':
      setTimeout(() => {
        throw new Error('boom outside the job')
      }, 0)
      return new Promise(() => {})
    case 'oom': {
      const hoard: number[][] = []
      for (;;) hoard.push(new Array(1e6).fill(1.5))
    }
    case 'hang':
      busy(p.ms)
      return { stopped: false }
    case 'meet': {
      // Proves parallelism without timing: each job waits (up to a minute) for the others to arrive.
      const arrived = new Int32Array(p.flag)
      Atomics.add(arrived, 0, 1)
      Atomics.notify(arrived, 0)
      const deadline = Date.now() + 60_000
      for (let n = Atomics.load(arrived, 0); n < p.parties && Date.now() < deadline; n = Atomics.load(arrived, 0)) Atomics.wait(arrived, 0, n, 100)
      return { met: Atomics.load(arrived, 0) >= p.parties }
    }
  }
  return null
})
