import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { parseScenario, ScenarioError } from '../scenario'
import { rtappScenario, scenarioText, simulateText, threadOf } from './testing/run-sim'

describe('rt-app on the simulator', () => {
  it('a barrier holds every participant until the last arrives (example7 timeline)', () => {
    // Both tasks meet at FIRST at 3 ms, SECOND at 6 ms, THIRD at 9 ms: every loop lasts 9 ms.
    const r = simulateText(
      rtappScenario({
        task0: { loop: -1, runtime1: 1000, sleep1: 2000, barrier1: 'FIRST', runtime2: 2000, barrier2: 'SECOND', runtime3: 1000, sleep3: 2000, barrier3: 'THIRD' },
        task1: { loop: -1, runtime1: 2000, barrier1: 'FIRST', runtime2: 1000, sleep2: 2000, barrier2: 'SECOND', runtime3: 2000, barrier3: 'THIRD' }
      }, 2, 100)
    )
    for (const name of ['task0-0', 'task1-1']) {
      const m = threadOf(r, name)
      expect(m.iterations).toBeGreaterThanOrEqual(10)
      expect(m.metrics.period.min).toBeGreaterThanOrEqual(9000)
      expect(m.metrics.period.max).toBeLessThan(9100)
    }
  })

  it('with three participants, each iteration lasts as long as the slowest one', () => {
    const r = simulateText(rtappScenario({ fast: { loop: 5, run: 1000, barrier: 'B' }, mid: { loop: 5, run: 3000, barrier: 'B' }, slow: { loop: 5, run: 7000, barrier: 'B' } }, 4, 100))
    for (const name of ['fast-0', 'mid-1', 'slow-2']) {
      const m = threadOf(r, name)
      expect(m.iterations).toBe(5)
      expect(m.metrics.period.min).toBeGreaterThanOrEqual(7000)
    }
    // A barrier without its last participant holds the others forever.
    const stuck = simulateText(rtappScenario({ a: { loop: 3, run: 100, barrier: 'B' }, b: { loop: 1, run: 100, barrier: 'B' } }, 2, 50))
    expect(threadOf(stuck, 'a-0').iterations).toBe(1)
  })

  it('timers keep an absolute grid; wu_lat is the timer wakeup latency and slack the time to spare', () => {
    const r = simulateText(rtappScenario({ thread0: { loop: -1, run: 10000, timer: { ref: 'unique', period: 100000 } } }, 1, 1000))
    const m = threadOf(r, 'thread0-0')
    expect(m.iterations).toBeGreaterThanOrEqual(9)
    expect(m.metrics.period.avg).toBeGreaterThan(99990)
    expect(m.metrics.period.avg).toBeLessThan(100010)
    expect(m.metrics.slack.avg).toBeGreaterThan(89900)
    expect(m.metrics.slack.avg).toBeLessThan(90000)
    // wu_lat is what the kernel measured for this thread's timer wakeups.
    expect(m.metrics.wu_lat.max).toBeCloseTo(r.tasks[0].latencyUs.max, 0)
  })

  it('a missed timer in relative mode restarts the grid and zeroes wu_lat', () => {
    const m = threadOf(simulateText(rtappScenario({ t: { loop: 20, run: 15000, timer: { ref: 'unique', period: 10000 } } }, 1, 1000)), 't-0')
    expect(m.metrics.slack.max).toBeLessThanOrEqual(0)
    expect(m.metrics.wu_lat.max).toBe(0)
    expect(m.metrics.period.avg).toBeGreaterThanOrEqual(15000)
    expect(m.metrics.period.avg).toBeLessThan(15100)
  })

  it('mutexes serialize their critical sections', () => {
    const r = simulateText(rtappScenario({ a: { loop: -1, lock: 'm', run: 10000, unlock: 'm' }, b: { loop: -1, lock: 'm', run: 10000, unlock: 'm' } }, 2, 100))
    const total = threadOf(r, 'a-0').iterations + threadOf(r, 'b-1').iterations
    expect(total).toBeGreaterThanOrEqual(9)
    expect(total).toBeLessThanOrEqual(10)
  })

  it('priority inheritance: a FIFO waiter lends its priority to the fair owner', () => {
    // The owner holds the lock 10 ms; a fair hog competes for its CPU. With PI the owner runs
    // at FIFO priority and the FIFO waiter gets the lock after ~10 ms; without, much later.
    const tasks = {
      owner: { cpus: [0], loop: 1, lock: 'm', run: 10000, unlock: 'm' },
      hog: { cpus: [0], loop: 1, delay: 100, run: 50000 },
      rt: { cpus: [1], loop: 1, delay: 200, policy: 'SCHED_FIFO', priority: 50, lock: 'm', unlock: 'm' }
    }
    const period = (pi: boolean) => threadOf(simulateText(rtappScenario(tasks, 2, 200, { pi_enabled: pi })), 'rt-2').metrics.period.max
    expect(period(true)).toBeLessThan(12000)
    expect(period(false)).toBeGreaterThan(15000)
  })

  it('suspend/resume ping-pong alternates two threads (example4)', () => {
    const r = simulateText(
      rtappScenario({ thread0: { loop: -1, run: 10000, resume: 'thread1', suspend: 'thread0' }, thread1: { delay: 100, loop: -1, run: 10000, resume: 'thread0', suspend: 'thread1' } }, 2, 200)
    )
    const a = threadOf(r, 'thread0-0').iterations
    const b = threadOf(r, 'thread1-1').iterations
    expect(a + b).toBeGreaterThan(8)
    expect(Math.abs(a - b)).toBeLessThanOrEqual(1)
  })

  it('condition variables: wait releases the mutex and signal wakes the waiter', () => {
    const r = simulateText(rtappScenario({ producer: { loop: 5, sleep: 5000, lock: 'm', signal: 'c', unlock: 'm' }, consumer: { loop: 5, lock: 'm', wait: { ref: 'c', mutex: 'm' }, unlock: 'm', run: 1000 } }, 2, 100))
    expect(threadOf(r, 'consumer-1').iterations).toBe(5)
    expect(threadOf(r, 'producer-0').iterations).toBe(5)
  })

  it('semaphores remember posts', () => {
    const w = threadOf(simulateText(rtappScenario({ poster: { loop: 3, sem_post: 's', run: 100 }, waiter: { delay: 10000, loop: 3, sem_wait: 's', run: 100 } }, 2, 50)), 'waiter-1')
    expect(w.iterations).toBe(3)
    expect(w.metrics.period.max).toBeLessThan(200)
  })

  it('fork starts threads from a task definition; instance 0 runs only when forked (example9)', () => {
    const r = simulateText(
      rtappScenario({
        thread1: { phases: { phase1: { run: 10000, sleep: 10000 } } },
        thread2: { instance: 0, phases: { phase1: { run: 20000, sleep: 20000 } } },
        thread3: { loop: 1, phases: { phase1: { fork: 'thread1', run: 10000, sleep: 10000 }, phase2: { fork: 'thread2', run: 20000, sleep: 20000 } } }
      }, 4, 200)
    )
    expect(r.workloads[0].threads?.map((t) => t.name)).toEqual(['thread1-0', 'thread3-1', 'thread1-2-0', 'thread2-3-0'])
    expect(r.tasks.map((t) => t.name)).toEqual(['thread1-0', 'thread3-1', 'thread1-2-0', 'thread2-3-0'])
  })

  it('run is fixed work: it takes longer on a lower-capacity CPU; runtime does not', () => {
    const topo = { name: 'bl', clusters: [{ name: 'big', cpus: 1, capacity: 1024 }, { name: 'little', cpus: 1, capacity: 512 }] }
    const r = simulateText(scenarioText([{ type: 'rt-app', global: { calibration: 'CPU0' }, tasks: { w: { cpus: [1], loop: 3, run: 1000 }, t: { cpus: [1], delay: 50000, loop: 3, runtime: 1000 } } }], topo, 100))
    expect(threadOf(r, 'w-0').metrics.run.avg).toBeGreaterThan(1990)
    expect(threadOf(r, 'w-0').metrics.run.avg).toBeLessThan(2020)
    expect(threadOf(r, 't-1').metrics.run.avg).toBeGreaterThan(990)
    expect(threadOf(r, 't-1').metrics.run.avg).toBeLessThan(1020)
  })

  it('phases apply their own affinity, then the task-level one (example8)', () => {
    const r = simulateText(rtappScenario({ thread0: { cpus: [2], loop: 1, phases: { phase1: { cpus: [0], run: 1500 }, phase2: { cpus: [1], run: 1500 }, phase3: { run: 1500 } } } }, 4, 20))
    expect(threadOf(r, 'thread0-0').iterations).toBe(3)
    expect(r.tasks[0].lastCpu).toBe(2)
    expect(r.tasks[0].migrations).toBeGreaterThanOrEqual(2)
  })

  it('a fair task\'s dl-runtime is its custom slice: a short slice waits less behind a hog', () => {
    const mk = (slice: number) =>
      simulateText(rtappScenario({ hog: { cpus: [0], run: 100000 }, p: { cpus: [0], loop: -1, 'dl-runtime': slice, run: 500, timer: { ref: 'unique', period: 3777 } } }, 1, 500))
    const short = mk(100).tasks[1].latencyUs.p99
    const long = mk(20000).tasks[1].latencyUs.p99
    expect(short).toBeLessThan(long)
  })

  it('is deterministic: same scenario and seed, same result', () => {
    const text = rtappScenario({ a: { instance: 4, loop: -1, run: 700, sleep: 1300 } }, 2, 200)
    const strip = (r: ReturnType<typeof simulateText>) => JSON.stringify({ ...r, stats: { ...r.stats, wallMs: 0 } })
    expect(strip(simulateText(text))).toBe(strip(simulateText(text)))
  })
})

const EXAMPLES = join(__dirname, '../../../../shared/rt-app-examples')

describe.runIf(existsSync(EXAMPLES))('every rt-app example file runs on the simulator, or is refused', () => {
  const names = existsSync(EXAMPLES) ? readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')) : []
  for (const f of names) {
    it(f, () => {
      const text = readFileSync(join(EXAMPLES, f), 'utf8')
      let s
      try {
        s = parseScenario(text, f, { topology: 'smp-4', durationMs: 300 })
      } catch (e) {
        if (!(e instanceof ScenarioError)) throw e
        // Refused: the message names the unsupported key and its JSON path.
        expect(e.issues[0].path).toMatch(/^tasks\.\w+\.\w+/)
        expect(e.issues[0].message).toMatch(/not modeled|unsupported/)
        return
      }
      const r = simulate(s, 0, 1)
      const iterations = r.workloads[0].threads?.reduce((n, t) => n + t.iterations, 0) ?? 0
      expect(iterations).toBeGreaterThan(0)
    })
  }
})

if (!existsSync(EXAMPLES)) {
  describe('rt-app example files', () => {
    it.skip(`SKIPPED: ${EXAMPLES} is absent (a fresh clone); the rt-app examples are not run`, () => {})
  })
}

