import { describe, expect, it } from 'vitest'
import { parseScenario } from '../scenario'
import type { HackbenchWorkload } from '../scenario/workload-specs'
import { channelCapacity } from './hackbench'
import { runScenarioOnFake } from './testing/run-fake'

const scenario = (workloads: object[], topology = 'smp-2', durationMs = 100): string => JSON.stringify({ topology, durationMs, workloads })

describe('cyclictest (fake kernel)', () => {
  it('alone on an idle CPU, every latency equals the wakeup cost', () => {
    const run = runScenarioOnFake(scenario([{ type: 'cyclictest', periodUs: 1000 }], 'smp-1', 100), { wakeupNs: 4000 })
    const lat = run.workloads[0].latencyUs
    expect(lat.count).toBe(99)
    expect(lat.min).toBe(4)
    expect(lat.max).toBe(4)
    expect(run.workloads[0].extra?.missedPeriods).toBe(0)
  })

  it('thread k uses periodUs + k x distanceUs; loops stop the threads', () => {
    const run = runScenarioOnFake(scenario([{ type: 'cyclictest', threads: 2, periodUs: 1000, distanceUs: 1000, loops: 10 }], 'smp-2', 100))
    expect(run.workloads[0].extra?.cycles).toBe(20)
    expect(run.tasks.every((t) => t.state === 'exited')).toBe(true)
    // The second thread (2 ms interval) finishes its 10 cycles at ~20 ms.
    expect(run.now).toBeGreaterThanOrEqual(20e6)
    expect(run.now).toBeLessThan(21e6)
  })

  it('skips missed periods as cyclictest does when an RT task holds the CPU', () => {
    const run = runScenarioOnFake(
      scenario([
        { type: 'cyclictest', periodUs: 1000, cpus: [0] },
        { type: 'rt-app', tasks: { blocker: { policy: 'SCHED_FIFO', priority: 50, cpus: [0], delay: 10500, loop: 1, run: 5000 } } }
      ], 'smp-1', 30)
    )
    expect(run.workloads[0].extra?.missedPeriods).toBe(4)
    expect(run.workloads[0].latencyUs.max).toBeGreaterThanOrEqual(4500)
  })

  it('pin places thread k on CPU k', () => {
    const run = runScenarioOnFake(scenario([{ type: 'cyclictest', threads: 3, pin: true, cpus: [1, 3] }], 'smp-4', 20))
    expect(run.tasks.map((t) => t.cpus)).toEqual([[1], [3], [1]])
  })
})

describe('hackbench (fake kernel)', () => {
  const hb = (groups: number, extra: object = {}) =>
    runScenarioOnFake(scenario([{ type: 'hackbench', groups, mode: 'thread', ipc: 'pipe', loops: 50, ...extra }], 'smp-4', 5000))

  it('delivers every message and reports the completion time', () => {
    const run = hb(1)
    const w = run.workloads[0]
    expect(w.extra?.messages).toBe(20 * 20 * 50)
    expect(w.timeSec).toBeGreaterThan(0)
    expect(run.tasks.every((t) => t.state === 'exited')).toBe(true)
  })

  it('more groups take longer', () => {
    const t1 = hb(1).workloads[0].timeSec ?? 0
    const t4 = hb(4).workloads[0].timeSec ?? 0
    expect(t4).toBeGreaterThan(t1 * 2)
  })

  it('writers block when the buffer is full: a tiny buffer forces more wakeups', () => {
    const small = hb(1, { pipeBufferBytes: 4096, loops: 20 })
    const big = hb(1, { loops: 20 })
    const wakeups = (r: typeof small) => r.tasks.reduce((n, t) => n + t.latency.count, 0)
    expect(wakeups(small)).toBeGreaterThan(wakeups(big))
    expect(small.workloads[0].extra?.messages).toBe(20 * 20 * 20)
  })

  it('channel capacity: 16 pipe pages of 40 100-byte messages; sockets charge skb overhead', () => {
    const s = parseScenario(scenario([{ type: 'hackbench', ipc: 'pipe' }, { type: 'hackbench', ipc: 'socket' }]), 't.json')
    expect(channelCapacity(s.workloads[0] as HackbenchWorkload)).toBe(640)
    expect(channelCapacity(s.workloads[1] as HackbenchWorkload)).toBe(315)
  })

  it('repeat keeps it running as a background load', () => {
    const run = runScenarioOnFake(scenario([{ type: 'hackbench', groups: 1, fds: 2, loops: 10, repeat: true }], 'smp-2', 50))
    expect(run.workloads[0].extra?.rounds).toBeGreaterThan(10)
    expect(run.now).toBeGreaterThanOrEqual(49e6)
  })
})

describe('schbench (fake kernel)', () => {
  it('each request includes the usleep and the work; workers report wakeup latencies', () => {
    const run = runScenarioOnFake(scenario([{ type: 'schbench', messageThreads: 1, workers: 2, requestWorkUs: 1000 }], 'smp-4', 200))
    const w = run.workloads[0]
    expect(w.requestLatencyUs?.min).toBeGreaterThanOrEqual(1100)
    expect(w.extra?.requests).toBeGreaterThan(100)
    expect(w.latencyUs.count).toBeGreaterThan(100)
  })

  it('the per-CPU lock serializes workers sharing one CPU', () => {
    const run = runScenarioOnFake(scenario([{ type: 'schbench', workers: 4, requestWorkUs: 1000, sleepUs: 0 }], 'smp-1', 100), { sliceNs: 300_000 })
    // Preempted holders make the others wait on the lock: the request latency exceeds the work.
    expect(run.workloads[0].requestLatencyUs?.max).toBeGreaterThan(2000)
  })

  it('RPS mode serves the requested rate', () => {
    const run = runScenarioOnFake(scenario([{ type: 'schbench', workers: 4, requestWorkUs: 100, rps: 500 }], 'smp-4', 3000))
    const rps = run.workloads[0].extra?.rps ?? 0
    expect(rps).toBeGreaterThan(450)
    expect(rps).toBeLessThan(550)
  })
})
