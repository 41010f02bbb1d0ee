import { gzipSync } from 'node:zlib'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseFtraceLine, stateLetters, tsToNs } from './ftrace-text'
import { readFtraceFile, readFtraceString } from './reader'
import type { SchedEvent } from './events'

describe('ftrace text lines', () => {
  it('reads the tracefs layout (irq-info flags, 6 decimals), as this machine writes it', () => {
    const e = parseFtraceLine('      cyclictest-15220   [001] d..2.   537.371365: sched_switch: prev_comm=bash prev_pid=15220 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120')
    expect(e).toEqual({
      type: 'sched_switch', ts: 537_371_365_000, cpu: 1, pid: 15220, comm: 'cyclictest',
      prevComm: 'bash', prevPid: 15220, prevPrio: 120, prevState: 'D', nextComm: 'swapper/1', nextPid: 0, nextPrio: 120
    })
    expect(parseFtraceLine('          <idle>-0       [001] d.h1.   537.371399: hrtimer_expire_entry: hrtimer=0000000033095e81 function=hrtimer_wakeup now=537371398231')).toMatchObject({
      type: 'hrtimer_expire_entry', pid: 0, comm: '<idle>', timer: '0000000033095e81', function: 'hrtimer_wakeup', now: 537371398231
    })
    expect(parseFtraceLine('      Compositor-15189   [001] d..1.   537.371464: hrtimer_start: hrtimer=00000000207f52fb function=hrtimer_wakeup expires=537401512747 softexpires=537401462747 mode=ABS was_armed=0')).toMatchObject({
      type: 'hrtimer_start', pid: 15189, comm: 'Compositor', expires: 537401512747, softexpires: 537401462747
    })
    expect(parseFtraceLine('            bash-15216   [000] d..2.   537.370924: sched_wakeup_new: comm=bash pid=15220 prio=120 target_cpu=001')).toMatchObject({
      type: 'sched_wakeup_new', taskComm: 'bash', taskPid: 15220, targetCpu: 1
    })
  })

  it('reads comms with spaces and dashes, a tgid column, no flags, and nanosecond timestamps', () => {
    expect(parseFtraceLine('  Web Content-1234  (   1200) [003] ..... 12.000000001: sched_waking: comm=kworker/u8:2-ev pid=77 prio=120 target_cpu=002')).toMatchObject({
      comm: 'Web Content', pid: 1234, cpu: 3, ts: 12_000_000_001, taskComm: 'kworker/u8:2-ev', taskPid: 77, targetCpu: 2
    })
    expect(parseFtraceLine('rt-app-task-0-42 [000] 1.5: sched_migrate_task: comm=rt-app-task-0 pid=42 prio=120 orig_cpu=0 dest_cpu=1')).toMatchObject({
      comm: 'rt-app-task-0', pid: 42, ts: 1_500_000_000, origCpu: 0, destCpu: 1
    })
  })

  it('reads trace-cmd report\'s pretty forms, its raw form with numeric states, and perf script', () => {
    expect(parseFtraceLine('   cyclictest-1234  [001]  5075.958079: sched_switch:         cyclictest:1234 [120] S ==> trace-cmd:5678 [120]')).toMatchObject({
      prevComm: 'cyclictest', prevPid: 1234, prevState: 'S', nextComm: 'trace-cmd', nextPid: 5678, nextPrio: 120
    })
    expect(parseFtraceLine('   <idle>-0  [002]  5075.958001: sched_wakeup:         cyclictest:1234 [120] success=1 CPU:002')).toMatchObject({
      type: 'sched_wakeup', taskComm: 'cyclictest', taskPid: 1234, targetCpu: 2
    })
    expect(parseFtraceLine('   hog-9  [000]  1.000000: sched_switch:         prev_comm=hog prev_pid=9 prev_prio=120 prev_state=0 next_comm=ct next_pid=10 next_prio=120')).toMatchObject({ prevState: 'R' })
    expect(stateLetters('1')).toBe('S')
    expect(stateLetters('256')).toBe('R+')
    expect(stateLetters('3')).toBe('S|D')
    expect(parseFtraceLine('       hackbench  4242 [000]  100.000001: sched:sched_waking: comm=hackbench pid=4243 prio=120 target_cpu=001')).toMatchObject({
      type: 'sched_waking', comm: 'hackbench', pid: 4242, taskPid: 4243
    })
  })

  it('classifies headers, other events, lost-event notes and malformed lines without throwing', () => {
    expect(parseFtraceLine('# tracer: nop').type).toBe('comment')
    expect(parseFtraceLine('# entries-in-buffer/entries-written: 40494/40494   #P:2')).toEqual({ type: 'meta', meta: { type: 'cpus', count: 2 } })
    expect(parseFtraceLine('cpus=4')).toEqual({ type: 'meta', meta: { type: 'cpus', count: 4 } })
    expect(parseFtraceLine('   x-1 [000] 1.000000: irq_handler_entry: irq=11 name=eth0')).toEqual({ type: 'other', event: 'irq_handler_entry' })
    expect(parseFtraceLine('CPU:1 [LOST 123 EVENTS]')).toEqual({ type: 'lost', cpu: 1, count: 123 })
    expect(parseFtraceLine('garbage here').type).toBe('malformed')
    expect(parseFtraceLine('   x-1 [000] 1.000000: sched_switch: truncated').type).toBe('malformed')
    expect(parseFtraceLine('# schedlab: span start=0.000000000 end=2.500000000')).toEqual({ type: 'meta', meta: { type: 'span', startNs: 0, endNs: 2_500_000_000 } })
    expect(parseFtraceLine('# schedlab: task pid=3 latency=0 type=hog workload=my hogs')).toEqual({ type: 'meta', meta: { type: 'task', pid: 3, workload: 'my hogs', workloadType: 'hog', recordLatency: false } })
    expect(tsToNs('3', '123456789123')).toBe(3_123_456_789)
  })
})

describe('streaming reader', () => {
  const text = [
    '# tracer: nop',
    '   a-1 [000] 1.000000: sched_waking: comm=b pid=2 prio=120 target_cpu=000',
    'this line is broken',
    '   a-1 [000] 1.000010: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120',
    'CPU:0 [LOST 5 EVENTS]',
    '   b-2 [000] 1.000020: sched_stat_runtime: comm=b pid=2 runtime=10 [ns]'
  ].join('\r\n')

  it('counts lines, events, other events, malformed lines (with examples) and lost events', () => {
    const events: SchedEvent[] = []
    const s = readFtraceString(text, { event: (e) => events.push(e) })
    expect(events.map((e) => e.type)).toEqual(['sched_waking', 'sched_switch'])
    expect(s).toMatchObject({ lines: 6, events: 2, otherEvents: 1, malformed: 1, lostEvents: 5 })
    expect(s.malformedExamples).toEqual([{ line: 3, text: 'this line is broken', reason: 'not an ftrace event line' }])
  })

  it('streams plain and gzipped files in chunks, with lines split across chunk boundaries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-trace-'))
    const lines: string[] = []
    for (let i = 0; i < 60_000; i++) lines.push(`   a-1 [000] ${(1 + i / 1e6).toFixed(6)}: sched_waking: comm=b\u00e9 pid=2 prio=120 target_cpu=000`)
    const big = lines.join('\n')
    writeFileSync(join(dir, 't.txt'), big)
    writeFileSync(join(dir, 't.txt.gz'), gzipSync(big))
    try {
      for (const f of ['t.txt', 't.txt.gz']) {
        let n = 0
        let bad = 0
        const s = await readFtraceFile(join(dir, f), { event: (e) => { n++; if (e.type !== 'sched_waking' || e.taskComm !== 'b\u00e9') bad++ } })
        expect(n).toBe(60_000)
        expect(bad).toBe(0)
        expect(s.malformed).toBe(0)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
