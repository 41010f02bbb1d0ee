import { describe, expect, it } from 'vitest'
import { parseScenario } from '../scenario'
import type { HackbenchWorkload } from '../scenario/workload-specs'
import { channelCapacity } from './pipe'
import { fastCpus, scenarioText, simulateText } from './testing/run-sim'

const oneIdleState = (n: number, exitLatencyUs: number) => ({ name: 'x', clusters: [{ name: 'c', cpus: n, capacity: 1024, idleStates: [{ name: 'deep', exitLatencyUs, targetResidencyUs: 10 }] }] })

describe('cyclictest', () => {
  it('alone on an idle CPU, every latency equals the modeled wakeup cost: idle exit + timer irq + switch (+ timer slack if fair)', () => {
    for (const [exitUs, irqUs, switchUs, slackUs, policy] of [[20, 4, 3, 0, 'other'], [35, 1, 6, 0, 'other'], [150, 2, 2, 0, 'other'], [20, 4, 3, 50, 'other'], [20, 4, 3, 50, 'fifo']] as const) {
      const r = simulateText(
        scenarioText([{ type: 'cyclictest', periodUs: 1000, policy }], oneIdleState(2, exitUs), 200, { kernel: { timerSlackUs: slackUs, costs: { timerIrqUs: irqUs, contextSwitchUs: switchUs, selectUs: 0, selectPerCpuUs: 0 } } })
      )
      const expected = exitUs + irqUs + switchUs + (policy === 'fifo' ? 0 : slackUs)
      const l = r.workloads[0].latencyUs
      expect(l.count).toBe(199)
      expect(l.min).toBe(expected)
      expect(l.max).toBe(expected)
      expect(r.workloads[0].extra?.missedPeriods).toBe(0)
    }
  })

  it('models the main thread: SCHED_OTHER, a usleep(10000) loop, not measured; mainThread: false leaves only the measurement threads', () => {
    const run = (w: object) => simulateText(scenarioText([{ type: 'cyclictest', periodUs: 1000, policy: 'fifo', priority: 80, ...w }], fastCpus(2), 1000))
    const r = run({})
    const main = r.tasks.find((t) => t.name === 'cyclictest-main')
    expect(main).toBeDefined()
    // a relative 10 ms sleep (+ the 50 us slack of a fair task) and its short loop: about 99 wakeups in 1 s
    expect(main!.wakeups).toBeGreaterThanOrEqual(97)
    expect(main!.wakeups).toBeLessThanOrEqual(100)
    // only the measurement thread's samples are cyclictest's latency
    expect(r.workloads[0].latencyUs.count).toBe(999)
    const off = run({ mainThread: false })
    expect(off.tasks.some((t) => t.name === 'cyclictest-main')).toBe(false)
    expect(off.workloads[0].latencyUs.count).toBe(999)
  })

  it('a workload\'s timerSlackUs (prctl) replaces the kernel default', () => {
    // one CPU: without the main thread, whose wakeups would move the maximum
    const lat = (w: object) => simulateText(scenarioText([{ type: 'cyclictest', periodUs: 1000, mainThread: false, ...w }], oneIdleState(1, 20), 50)).workloads[0].latencyUs.max
    expect(lat({}) - lat({ timerSlackUs: 0 })).toBe(50)
    expect(lat({ timerSlackUs: 10 }) - lat({ timerSlackUs: 0 })).toBe(10)
  })

  it('thread k uses periodUs + k x distanceUs; loops stop the threads', () => {
    const r = simulateText(scenarioText([{ type: 'cyclictest', threads: 2, periodUs: 1000, distanceUs: 1000, loops: 10 }], fastCpus(2), 100))
    expect(r.workloads[0].extra?.cycles).toBe(20)
    expect(r.workloads[0].latencyUs.count).toBe(20)
  })

  it('skips missed periods as cyclictest does when an RT task holds the CPU', () => {
    const r = simulateText(
      scenarioText([
        { type: 'cyclictest', periodUs: 1000, cpus: [0] },
        { type: 'rt-app', tasks: { blocker: { policy: 'SCHED_FIFO', priority: 50, cpus: [0], delay: 10500, loop: 1, run: 5000 } } }
      ], fastCpus(1), 30)
    )
    expect(r.workloads[0].extra?.missedPeriods).toBe(4)
    expect(r.workloads[0].latencyUs.max).toBeGreaterThanOrEqual(4500)
  })

  it('pin places thread k on CPU k of cpus', () => {
    const r = simulateText(scenarioText([{ type: 'cyclictest', threads: 3, pin: true, cpus: [1, 3] }], fastCpus(4), 20))
    const measuring = r.tasks.filter((t) => t.name !== 'cyclictest-main')
    expect(measuring.map((t) => t.lastCpu)).toEqual([1, 3, 1])
    expect(measuring.every((t) => t.migrations === 0)).toBe(true)
  })

  it('an RT cyclictest preempts a fair hog at once; a fair one waits for it', () => {
    const mk = (policy: string) => simulateText(scenarioText([{ type: 'cyclictest', policy, ...(policy === 'fifo' ? { priority: 90 } : {}), cpus: [0] }, { type: 'hog', cpus: [0] }], fastCpus(1), 300))
    expect(mk('fifo').workloads[0].latencyUs.max).toBeLessThan(20)
    expect(mk('other').workloads[0].latencyUs.max).toBeGreaterThan(100)
  })
})

describe('hackbench', () => {
  const hb = (groups: number, extra: object = {}, cpus = 4) =>
    simulateText(scenarioText([{ type: 'hackbench', groups, mode: 'thread', ipc: 'pipe', loops: 50, ...extra }], 'smp-' + cpus, 10000))

  it('delivers every message, reports the completion time and the workers\' wakeup latencies', () => {
    const r = hb(1)
    const w = r.workloads[0]
    expect(w.extra?.messages).toBe(20 * 20 * 50)
    expect(w.timeSec).toBeGreaterThan(0)
    // the run stops once hackbench is done (nothing else to simulate)
    expect(w.timeSec).toBeLessThanOrEqual(r.stats.simulatedMs / 1000 + 1e-6)
    // 20 x 20 x 50 messages, each a write and a read of 1.2 us at least, over 4 CPUs.
    expect(w.timeSec).toBeGreaterThan((20000 * 2.4e-6) / 4)
    expect(w.latencyUs.count).toBeGreaterThan(20)
    expect(w.latencyUs.count).toBe(r.tasks.reduce((n, t) => n + t.latencyUs.count, 0))
  })

  it('thread pipe with more groups takes longer', () => {
    const t1 = hb(1).workloads[0].timeSec ?? 0
    const t4 = hb(4).workloads[0].timeSec ?? 0
    const t8 = hb(8).workloads[0].timeSec ?? 0
    expect(t4).toBeGreaterThan(t1 * 1.5)
    expect(t8).toBeGreaterThan(t4 * 1.5)
  })

  it('writers block when the buffer is full: a one-page pipe forces more wakeups', () => {
    const wakeups = (r: ReturnType<typeof hb>) => r.tasks.reduce((n, t) => n + t.wakeups, 0)
    expect(wakeups(hb(1, { pipeBufferBytes: 4096, loops: 20 }))).toBeGreaterThan(wakeups(hb(1, { loops: 20 })) * 1.5)
  })

  it('channel capacity: 16 pipe pages of 40 100-byte messages; sockets charge skb overhead', () => {
    const s = parseScenario(scenarioText([{ type: 'hackbench', ipc: 'pipe' }, { type: 'hackbench', ipc: 'socket' }]), 't.json')
    expect(channelCapacity(s.workloads[0] as HackbenchWorkload)).toBe(640)
    expect(channelCapacity(s.workloads[1] as HackbenchWorkload)).toBe(315)
  })

  it('thread mode costs more than process mode (shared file table)', () => {
    // 0.08 us more per syscall: over seeds, since one run's scheduling moves the time as much
    const time = (mode: string) => [1, 2, 3, 4].reduce((a, seed) => a + (simulateText(scenarioText([{ type: 'hackbench', groups: 2, mode, ipc: 'pipe', loops: 50 }], 'smp-4', 10000), 0, seed).workloads[0].timeSec ?? 0), 0)
    expect(time('thread')).toBeGreaterThan(time('process'))
  })

  it('policy rr on hackbench: RT workers are not slowed by fair hogs, fair ones are', () => {
    const t = (policy: string, hog: boolean) =>
      simulateText(scenarioText([{ type: 'hackbench', groups: 1, fds: 4, loops: 200, policy, ipc: 'pipe' }, ...(hog ? [{ type: 'hog', count: 4 }] : [])], fastCpus(1), 2000)).workloads[0].timeSec ?? 0
    expect(t('rr', true)).toBeLessThan(t('rr', false) * 1.1)
    expect(t('other', true)).toBeGreaterThan(t('other', false) * 1.3)
  })

  it('repeat keeps it running as a background load', () => {
    const r = simulateText(scenarioText([{ type: 'hackbench', groups: 1, fds: 2, loops: 10, repeat: true }], fastCpus(2), 50))
    expect(r.workloads[0].extra?.rounds).toBeGreaterThan(10)
    expect(r.stats.simulatedMs).toBeGreaterThanOrEqual(49)
  })
})

describe('schbench', () => {
  it('each request includes the usleep and the work; workers report wakeup latencies', () => {
    const r = simulateText(scenarioText([{ type: 'schbench', messageThreads: 1, workers: 2, requestWorkUs: 1000 }], fastCpus(4), 200))
    const w = r.workloads[0]
    expect(w.requestLatencyUs?.min).toBeGreaterThanOrEqual(1100)
    expect(w.extra?.requests).toBeGreaterThan(100)
    expect(w.latencyUs.count).toBeGreaterThan(100)
    // The message thread's own wakeups are not in the workload's latency.
    expect(w.latencyUs.count).toBe(r.tasks.filter((t) => t.name.includes('w')).reduce((n, t) => n + t.latencyUs.count, 0))
  })

  it('wakeup latency is the message thread\'s wakeup only, not the usleep or lock waits (now - wake_time)', () => {
    // 2 workers on 4 CPUs: no queueing, so each woken worker runs within the wakeup path; a
    // usleep wakeup would add the 50 us timer slack
    const r = simulateText(scenarioText([{ type: 'schbench', messageThreads: 1, workers: 2, requestWorkUs: 1000 }], fastCpus(4), 200))
    const w = r.workloads[0]
    const requests = Number(w.extra?.requests)
    // one sample per request: the wakeup that starts it
    expect(Math.abs(w.latencyUs.count - requests)).toBeLessThanOrEqual(2)
    expect(w.latencyUs.max).toBeLessThan(50)
  })

  it('the per-CPU lock makes a preempted holder delay the others', () => {
    const lat = (lock: boolean) => simulateText(scenarioText([{ type: 'schbench', workers: 4, requestWorkUs: 3000, sleepUs: 0, lock }], fastCpus(1), 300)).workloads[0].requestLatencyUs?.p99 ?? 0
    expect(lat(true)).toBeGreaterThan(lat(false))
  })

  it('RPS mode serves the requested rate', () => {
    const rps = simulateText(scenarioText([{ type: 'schbench', workers: 4, requestWorkUs: 100, rps: 500 }], fastCpus(4), 3000)).workloads[0].extra?.rps ?? 0
    expect(rps).toBeGreaterThan(450)
    expect(rps).toBeLessThan(550)
  })
})
