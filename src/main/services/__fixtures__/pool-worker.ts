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
  }
  return null
})
