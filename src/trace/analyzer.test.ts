import { describe, expect, it } from 'vitest'
import { analyzeText, commGroup, parseWorkloadPattern } from '.'

const L = (cpu: number, ctx: string, us: number, ev: string): string => `${ctx.padStart(20)} [${String(cpu).padStart(3, '0')}] d..2. ${(us / 1e6).toFixed(6)}: ${ev}`
const sw = (a: string, ap: number, st: string, b: string, bp: number): string => `sched_switch: prev_comm=${a} prev_pid=${ap} prev_prio=120 prev_state=${st} ==> next_comm=${b} next_pid=${bp} next_prio=120`
const waking = (c: string, p: number, cpu = 0): string => `sched_waking: comm=${c} pid=${p} prio=120 target_cpu=${String(cpu).padStart(3, '0')}`

describe('trace analyzer', () => {
  it('counts timer latency from the requested expiry, wakeup latency from sched_waking', () => {
    const r = analyzeText([
      '#P:1',
      L(0, 'ct-10', 1000, 'hrtimer_start: hrtimer=aa function=hrtimer_wakeup expires=2050000 softexpires=2000000 mode=ABS'),
      L(0, 'ct-10', 1001, sw('ct', 10, 'S', 'swapper/0', 0)),
      L(0, '<idle>-0', 2057, 'hrtimer_expire_entry: hrtimer=aa function=hrtimer_wakeup now=2057000'),
      L(0, '<idle>-0', 2058, waking('ct', 10)),
      L(0, '<idle>-0', 2065, sw('swapper/0', 0, 'R', 'ct', 10)),
      // a wakeup by another task: no timer, latency = wakeup latency
      L(0, 'ct-10', 2100, sw('ct', 10, 'S', 'swapper/0', 0)),
      L(0, '<idle>-0', 3000, waking('ct', 10)),
      L(0, '<idle>-0', 3010, sw('swapper/0', 0, 'R', 'ct', 10))
    ].join('\n'))
    const ct = r.tasks.find((t) => t.tid === 10)!
    expect(ct.name).toBe('ct-10')
    expect(ct.latencyUs).toMatchObject({ count: 2, min: 10, max: 65 })
    expect(ct.wakeupLatencyUs).toMatchObject({ count: 2, min: 7, max: 10 })
    expect(ct.wakeups).toBe(2)
    expect(ct.contextSwitches).toBe(2)
    expect(r.trace.timerLatency).toBe(true)
    expect(r.workloads[0]).toMatchObject({ name: 'ct', latencyUs: { count: 2 } })
  })

  it('without hrtimer events counts both latencies from sched_waking', () => {
    const r = analyzeText([
      L(0, 'x-1', 10, sw('x', 1, 'S', 'swapper/0', 0)),
      L(0, '<idle>-0', 100, waking('x', 1)),
      L(0, '<idle>-0', 130, sw('swapper/0', 0, 'R', 'x', 1))
    ].join('\n'))
    expect(r.trace.timerLatency).toBe(false)
    expect(r.tasks[0].latencyUs).toMatchObject({ count: 1, max: 30 })
    expect(r.tasks[0].wakeupLatencyUs).toMatchObject({ count: 1, max: 30 })
  })

  it('ignores a waking of a task still on its CPU, and a preempted task\'s wait', () => {
    const r = analyzeText([
      L(0, '<idle>-0', 0, sw('swapper/0', 0, 'R', 'a', 1)),
      L(0, 'a-1', 5, waking('a', 1)),
      L(0, 'a-1', 10, sw('a', 1, 'R+', 'b', 2)),
      L(0, 'b-2', 500, sw('b', 2, 'S', 'a', 1))
    ].join('\n'))
    const a = r.tasks.find((t) => t.tid === 1)!
    expect(a.latencyUs.count).toBe(0)
    expect(a.wakeups).toBe(0)
    expect(a.contextSwitches).toBe(2)
  })

  it('sums CPU time and per-CPU busy time, counting from the span start for what ran before the first switch', () => {
    const r = analyzeText([
      '# schedlab: span start=0.000000000 end=0.001000000',
      L(0, 'a-1', 200, sw('a', 1, 'S', 'swapper/0', 0)),
      L(1, '<idle>-0', 100, sw('swapper/1', 0, 'R', 'b', 2)),
      L(1, 'b-2', 300, 'sched_migrate_task: comm=a pid=1 prio=120 orig_cpu=0 dest_cpu=1'),
      L(0, '<idle>-0', 600, sw('swapper/0', 0, 'R', 'a', 1))
    ].join('\n'))
    const a = r.tasks.find((t) => t.tid === 1)!
    const b = r.tasks.find((t) => t.tid === 2)!
    expect(a.cpuTimeMs).toBeCloseTo(0.2 + 0.4, 9)
    expect(b.cpuTimeMs).toBeCloseTo(0.9, 9)
    expect(a.migrations).toBe(1)
    expect(r.cpus.map((c) => c.busyPct)).toEqual([60, 90])
    expect(r.stats.simulatedMs).toBe(1)
  })

  it('infers a switch the trace does not show from the next event\'s context (tasks whose events a kernel hides)', () => {
    // pid 60's own events are missing: its switch-out to ct happened, unseen, before ct's line
    const r = analyzeText([
      L(0, 'hog-5', 0, sw('hog', 5, 'R+', 'agent', 60)),
      L(0, 'ct-10', 300, 'hrtimer_start: hrtimer=aa function=hrtimer_wakeup expires=2000000 softexpires=2000000 mode=ABS'),
      L(0, 'ct-10', 301, sw('ct', 10, 'S', 'hog', 5))
    ].join('\n'))
    expect(r.trace.inferredSwitches).toBe(1)
    expect(r.tasks.find((t) => t.tid === 60)?.cpuTimeMs).toBeCloseTo(0.3, 9)
    expect(r.tasks.find((t) => t.tid === 10)).toMatchObject({ contextSwitches: 1 })
    expect(r.warnings?.join(' ')).toMatch(/1 switch\(es\) were missing/)
  })

  it('groups workloads by comm, or by --workload patterns first', () => {
    const lines: string[] = []
    let t = 0
    for (const [comm, pid] of [['cyclictest', 11], ['cyclictest', 12], ['hog-0', 21], ['hog-1', 22], ['kworker/1:2', 31]] as const) {
      lines.push(L(0, 'x-99', (t += 10), waking(comm, pid)))
      lines.push(L(0, 'x-99', (t += 10), sw('x', 99, 'S', comm, pid)))
      lines.push(L(0, `${comm}-${pid}`, (t += 10), sw(comm, pid, 'S', 'x', 99)))
    }
    const byComm = analyzeText(lines.join('\n'))
    expect(byComm.workloads.map((w) => [w.name, w.latencyUs.count])).toEqual([['cyclictest', 2], ['hog', 2], ['kworker', 1], ['x', 0]])
    const p = parseWorkloadPattern('burn=^hog')
    if (typeof p === 'string') throw new Error(p)
    const named = analyzeText(lines.join('\n'), { workloads: [p] })
    expect(named.workloads[0]).toMatchObject({ name: 'burn', extra: { tasks: 2 } })
    expect(commGroup('rtapp-task-12')).toBe('rtapp-task')
    expect(commGroup('42')).toBe('42')
    expect(parseWorkloadPattern('x')).toMatch(/NAME=REGEX/)
    expect(parseWorkloadPattern('x=(')).toMatch(/invalid regular expression/)
  })

  it('reports malformed lines and lost events as warnings, never as a failure', () => {
    const r = analyzeText(['oops', L(0, 'a-1', 1, waking('b', 2)), 'CPU:0 [LOST 3 EVENTS]'].join('\n'))
    expect(r.trace).toMatchObject({ malformed: 1, lostEvents: 3, events: 1 })
    expect(r.warnings?.join(' ')).toMatch(/1 malformed line.*line 1/)
    expect(r.warnings?.join(' ')).toMatch(/lost 3 event/)
  })
})
