/**
 * The analyzer's limits: CPU ids and task counts beyond them are malformed lines with their line
 * numbers (state grows with what a trace names, so a name must not grow it without bound), and
 * per-task latency state is a short list until a task has many samples: the figures are the
 * same as with one histogram per task.
 */
import { describe, expect, it } from 'vitest'
import { LogHistogram } from '../sim/metrics/histogram'
import { analyzeText, MAX_TRACE_CPUS, MAX_TRACE_TASKS } from '.'

const L = (cpu: number, ctx: string, us: number, ev: string): string => `${ctx.padStart(20)} [${String(cpu).padStart(3, '0')}] d..2. ${(us / 1e6).toFixed(6)}: ${ev}`
const sw = (a: string, ap: number, b: string, bp: number): string => `sched_switch: prev_comm=${a} prev_pid=${ap} prev_prio=120 prev_state=S ==> next_comm=${b} next_pid=${bp} next_prio=120`
const waking = (c: string, p: number): string => `sched_waking: comm=${c} pid=${p} prio=120 target_cpu=000`

/** Task `pid` on CPU 0 wakes at t and runs after `lat` us, once per latency. */
function wakeups(pid: number, lats: number[], t0: number): string[] {
  const out: string[] = []
  let t = t0
  for (const lat of lats) {
    out.push(L(0, '<idle>-0', t, waking('w', pid)), L(0, '<idle>-0', t + lat, sw('swapper/0', 0, 'w', pid)), L(0, `w-${pid}`, t + lat + 5, sw('w', pid, 'swapper/0', 0)))
    t += lat + 10
  }
  return out
}

describe('trace analyzer limits', () => {
  it('documents its limits', () => {
    expect(MAX_TRACE_CPUS).toBe(8192)
    expect(MAX_TRACE_TASKS).toBe(200_000)
  })

  it('a CPU id at the limit is read, one above is a malformed line', () => {
    const r = analyzeText([L(8191, '<idle>-0', 1, sw('swapper', 0, 'a', 5)), L(8192, '<idle>-0', 2, sw('swapper', 0, 'b', 6))].join('\n'))
    expect(r.trace.events).toBe(1)
    expect(r.trace.malformedExamples).toEqual([expect.objectContaining({ line: 2, reason: 'CPU 8192: above the largest CPU id a trace may name (8191)' })])
    expect(r.cpus).toHaveLength(8192)
  })

  it('tasks beyond maxTasks are malformed lines, with their line numbers; the first ones are analyzed', () => {
    const lines: string[] = []
    for (let pid = 1; pid <= 20; pid++) lines.push(...wakeups(pid, [10], pid * 1000))
    const r = analyzeText(lines.join('\n'), { maxTasks: 10 })
    expect(r.tasks.map((t) => t.tid)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    // the 11th task's first line (its waking) is line 31
    expect(r.trace.malformed).toBe(30)
    expect(r.trace.malformedExamples![0]).toMatchObject({ line: 31, reason: 'more than 10 tasks (the limit of tasks in one trace)' })
    expect(r.warnings?.[0]).toContain('30 malformed line(s) skipped (first at line 31')
  })

  it('task lines of our own traces count against the same limit', () => {
    const lines = Array.from({ length: 5 }, (_, i) => `# schedlab: task pid=${i + 1} workload=w type=hog`)
    const r = analyzeText([...lines, ...wakeups(1, [10], 100)].join('\n'), { maxTasks: 3 })
    expect(r.trace.malformedExamples![0]).toMatchObject({ line: 4, reason: 'more than 3 task lines (the limit of tasks in one trace)' })
  })

  it('per-task samples: a list until many, then a histogram; the figures equal one histogram', () => {
    const many = Array.from({ length: 1500 }, (_, i) => 1 + ((i * 7919) % 5000))
    const few = [3, 70, 900]
    const r = analyzeText([...wakeups(1, many, 100), ...wakeups(2, few, 10_000_000)].join('\n'))
    for (const [pid, lats] of [[1, many], [2, few]] as const) {
      const h = new LogHistogram()
      for (const v of lats) h.record(v * 1000)
      expect(r.tasks.find((t) => t.tid === pid)!.latencyUs).toEqual(h.summaryUs())
    }
    const all = new LogHistogram()
    for (const v of [...many, ...few]) all.record(v * 1000)
    expect(r.workloads[0].latencyUs).toEqual(all.summaryUs())
  })
})
