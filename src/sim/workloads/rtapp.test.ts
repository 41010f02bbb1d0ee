import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseScenario, ScenarioError } from '../scenario'
import { createToolWorkload } from './registry'
import { runFake } from './testing/fake-kernel'
import { rtappScenario, runScenarioOnFake } from './testing/run-fake'

const metrics = (run: ReturnType<typeof runScenarioOnFake>, thread: string) => {
  const t = run.workloads[0].threads?.find((x) => x.name === thread)
  if (!t) throw new Error(`no thread ${thread}: ${run.workloads[0].threads?.map((x) => x.name).join(', ')}`)
  return t
}

describe('rt-app interpreter (fake kernel)', () => {
  it('a barrier holds every participant until the last arrives', () => {
    // rt-app doc example7's timeline: both tasks meet at FIRST at 3 ms, SECOND at 6 ms, THIRD at 9 ms.
    const run = runScenarioOnFake(
      rtappScenario({
        task0: { loop: -1, runtime1: 1000, sleep1: 2000, barrier1: 'FIRST', runtime2: 2000, barrier2: 'SECOND', runtime3: 1000, sleep3: 2000, barrier3: 'THIRD' },
        task1: { loop: -1, runtime1: 2000, barrier1: 'FIRST', runtime2: 1000, sleep2: 2000, barrier2: 'SECOND', runtime3: 2000, barrier3: 'THIRD' }
      }, 'smp-2', 91)
    )
    for (const name of ['task0-0', 'task1-1']) {
      const m = metrics(run, name)
      expect(m.iterations).toBe(10)
      expect(m.metrics.period.min).toBeGreaterThanOrEqual(9000)
      expect(m.metrics.period.max).toBeLessThan(9000 + 5)
    }
  })

  it('a barrier with three participants releases them at the latest arrival', () => {
    const run = runScenarioOnFake(
      rtappScenario({
        fast: { loop: 5, run: 1000, barrier: 'B' },
        mid: { loop: 5, run: 3000, barrier: 'B' },
        slow: { loop: 5, run: 7000, barrier: 'B' }
      }, 'smp-4', 100)
    )
    for (const name of ['fast-0', 'mid-1', 'slow-2']) {
      const m = metrics(run, name)
      expect(m.iterations).toBe(5)
      // Every iteration lasts as long as the slowest participant's.
      expect(m.metrics.period.min).toBeGreaterThanOrEqual(7000)
    }
    expect(run.tasks.every((t) => t.state === 'exited')).toBe(true)
  })

  it('timers keep an absolute grid and report slack and wakeup latency', () => {
    const run = runScenarioOnFake(rtappScenario({ thread0: { instance: 1, loop: -1, run: 10000, timer: { ref: 'unique', period: 100000 } } }, 'smp-1', 1000), { wakeupNs: 3000 })
    const m = metrics(run, 'thread0-0')
    expect(m.iterations).toBeGreaterThanOrEqual(9)
    expect(m.metrics.period.avg).toBeCloseTo(100000, -1)
    // The run takes 10 ms (+ the wakeup), so the timer is reached ~90 ms before its deadline.
    expect(m.metrics.slack.avg).toBeGreaterThan(89000)
    expect(m.metrics.slack.avg).toBeLessThan(90001)
    expect(m.metrics.wu_lat.max).toBe(3)
  })

  it('a missed timer in relative mode restarts the grid and zeroes wu_lat', () => {
    const run = runScenarioOnFake(rtappScenario({ t: { loop: 20, run: 15000, timer: { ref: 'unique', period: 10000 } } }, 'smp-1', 1000))
    const m = metrics(run, 't-0')
    expect(m.metrics.slack.max).toBeLessThanOrEqual(0)
    expect(m.metrics.wu_lat.max).toBe(0)
    // relative: the period is the run length (no sleeping at all).
    expect(m.metrics.period.avg).toBeCloseTo(15000, -1)
  })

  it('mutexes serialize their critical sections', () => {
    const run = runScenarioOnFake(
      rtappScenario({
        a: { loop: -1, lock: 'm', run: 10000, unlock: 'm' },
        b: { loop: -1, lock: 'm', run: 10000, unlock: 'm' }
      }, 'smp-2', 100)
    )
    const total = metrics(run, 'a-0').iterations + metrics(run, 'b-1').iterations
    expect(total).toBeGreaterThanOrEqual(9)
    expect(total).toBeLessThanOrEqual(10)
  })

  it('suspend/resume ping-pong alternates two threads (example4)', () => {
    const run = runScenarioOnFake(
      rtappScenario({
        thread0: { loop: -1, run: 10000, resume: 'thread1', suspend: 'thread0' },
        thread1: { loop: -1, run: 10000, resume: 'thread0', suspend: 'thread1' }
      }, 'smp-2', 200)
    )
    const a = metrics(run, 'thread0-0')
    const b = metrics(run, 'thread1-1')
    expect(a.iterations + b.iterations).toBeGreaterThan(2)
    expect(Math.abs(a.iterations - b.iterations)).toBeLessThanOrEqual(1)
  })

  it('condition variables: wait releases the mutex and signal wakes the waiter', () => {
    const run = runScenarioOnFake(
      rtappScenario({
        producer: { loop: 5, sleep: 5000, lock: 'm', signal: 'c', unlock: 'm' },
        consumer: { loop: 5, lock: 'm', wait: { ref: 'c', mutex: 'm' }, unlock: 'm', run: 1000 }
      }, 'smp-2', 100)
    )
    expect(metrics(run, 'consumer-1').iterations).toBe(5)
    expect(metrics(run, 'producer-0').iterations).toBe(5)
  })

  it('semaphores remember posts', () => {
    const run = runScenarioOnFake(
      rtappScenario({
        poster: { loop: 3, sem_post: 's', run: 100 },
        waiter: { delay: 10000, loop: 3, sem_wait: 's', run: 100 }
      }, 'smp-2', 50)
    )
    const w = metrics(run, 'waiter-1')
    expect(w.iterations).toBe(3)
    // All three posts happened before the waiter started: it never waited.
    expect(w.metrics.period.max).toBeLessThan(200)
  })

  it('fork starts threads from a task definition, instance 0 only by fork (example9)', () => {
    const run = runScenarioOnFake(
      rtappScenario({
        thread1: { phases: { phase1: { run: 10000, sleep: 10000 } } },
        thread2: { instance: 0, phases: { phase1: { run: 20000, sleep: 20000 } } },
        thread3: { loop: 1, phases: { phase1: { fork: 'thread1', run: 10000, sleep: 10000 }, phase2: { fork: 'thread2', run: 20000, sleep: 20000 } } }
      }, 'smp-4', 200)
    )
    const names = run.workloads[0].threads?.map((t) => t.name) ?? []
    expect(names).toEqual(['thread1-0', 'thread3-1', 'thread1-2-0', 'thread2-3-0'])
    expect(run.workloads[0].extra?.forks).toBe(2)
  })

  it('run is fixed work: it takes longer on a lower-capacity CPU; runtime does not', () => {
    const topo = { name: 'bl', clusters: [{ name: 'big', cpus: 1, capacity: 1024 }, { name: 'little', cpus: 1, capacity: 512 }] }
    const text = JSON.stringify({
      topology: topo,
      durationMs: 100,
      workloads: [{ type: 'rt-app', tasks: { w: { cpus: [1], loop: 3, run: 1000 }, t: { cpus: [1], delay: 50000, loop: 3, runtime: 1000 } } }]
    })
    const run = runScenarioOnFake(text)
    expect(metrics(run, 'w-0').metrics.run.avg).toBeCloseTo(2000, 0)
    expect(metrics(run, 't-1').metrics.run.avg).toBeCloseTo(1000, 0)
  })

  it('phases apply their own affinity, then the task-level one (example8)', () => {
    const run = runScenarioOnFake(
      rtappScenario({ thread0: { cpus: [2], phases: { phase1: { cpus: [0], loop: 1, run: 1500, sleep: 100 }, phase2: { cpus: [1], loop: 1, run: 1500, sleep: 100 }, phase3: { loop: 1, run: 1500, sleep: 100 } } } }, 'smp-4', 20)
    )
    // No task-level loop with phases: the phases repeat until the end of the run.
    expect(metrics(run, 'thread0-0').iterations).toBe(12)
    expect(run.tasks[0].cpus).toEqual([0, 1, 2])
  })
})

const EXAMPLES = join(__dirname, '../../../../shared/rt-app-examples')

describe.runIf(existsSync(EXAMPLES))('rt-app example files run (fake kernel)', () => {
  const names = existsSync(EXAMPLES) ? readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')) : []
  for (const f of names) {
    it(`${f} runs, or is refused`, () => {
      const text = readFileSync(join(EXAMPLES, f), 'utf8')
      let s
      try {
        s = parseScenario(text, f, { topology: 'smp-4', durationMs: 300 })
      } catch (e) {
        if (e instanceof ScenarioError) return // refusals are checked in scenario/parse.test.ts
        throw e
      }
      const inst = s.workloads.map((w, i) => createToolWorkload(w, i)!)
      const run = runFake(inst, { capacities: [1024, 1024, 1024, 1024], durationNs: 300e6 })
      const iterations = run.workloads[0].threads?.reduce((n, t) => n + t.iterations, 0) ?? 0
      expect(iterations).toBeGreaterThan(0)
    })
  }
})

if (!existsSync(EXAMPLES)) {
  describe('rt-app example files run', () => {
    it.skip(`SKIPPED: ${EXAMPLES} is absent (a fresh clone)`, () => {})
  })
}
