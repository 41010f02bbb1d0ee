import { nsTimestamp as timestamp } from '../sim/metrics/trace'
import type { SchedEvent, TraceMeta } from './events'

/**
 * SchedEvents back to ftrace text (the tracefs layout, nanosecond timestamps), so a real run's
 * trace can be kept as a file that `schedlab analyze`, Perfetto and traceshark read. Binary
 * records carry only the context pid; its comm is the last one the trace named for that pid.
 */
export class FtraceFormatter {
  private readonly comms = new Map<number, string>([[0, '<idle>']])

  header(ncpus: number): string[] {
    return ['# tracer: nop', '#', `# entries-in-buffer/entries-written: 0/0   #P:${ncpus}`, '#', '#           TASK-PID     CPU#  TIMESTAMP  FUNCTION', '#              | |         |      |         |']
  }

  private learn(e: SchedEvent): void {
    switch (e.type) {
      case 'sched_switch':
        if (e.prevPid !== 0) this.comms.set(e.prevPid, e.prevComm)
        if (e.nextPid !== 0) this.comms.set(e.nextPid, e.nextComm)
        break
      case 'sched_waking':
      case 'sched_wakeup':
      case 'sched_wakeup_new':
      case 'sched_migrate_task':
        this.comms.set(e.taskPid, e.taskComm)
        break
      case 'sched_process_fork':
        this.comms.set(e.parentPid, e.parentComm)
        this.comms.set(e.childPid, e.childComm)
        break
      default:
    }
  }

  line(e: SchedEvent): string {
    const comm = (e.comm || this.comms.get(e.pid) || '<...>').replace(/\s/g, '_')
    this.learn(e)
    const head = `${`${comm}-${e.pid}`.padStart(22)} [${String(e.cpu).padStart(3, '0')}] ${timestamp(e.ts)}:`
    const cpu3 = (c: number): string => String(Math.max(0, c)).padStart(3, '0')
    switch (e.type) {
      case 'sched_switch':
        return `${head} sched_switch: prev_comm=${e.prevComm} prev_pid=${e.prevPid} prev_prio=${e.prevPrio} prev_state=${e.prevState} ==> next_comm=${e.nextComm} next_pid=${e.nextPid} next_prio=${e.nextPrio}`
      case 'sched_waking':
      case 'sched_wakeup':
      case 'sched_wakeup_new':
        return `${head} ${e.type}: comm=${e.taskComm} pid=${e.taskPid} prio=${e.prio} target_cpu=${cpu3(e.targetCpu)}`
      case 'sched_migrate_task':
        return `${head} sched_migrate_task: comm=${e.taskComm} pid=${e.taskPid} prio=${e.prio} orig_cpu=${e.origCpu} dest_cpu=${e.destCpu}`
      case 'sched_process_fork':
        return `${head} sched_process_fork: comm=${e.parentComm} pid=${e.parentPid} child_comm=${e.childComm} child_pid=${e.childPid}`
      case 'hrtimer_start':
        return `${head} hrtimer_start: hrtimer=${e.timer} function=${e.function || '0'} expires=${e.expires} softexpires=${e.softexpires} mode=ABS`
      case 'hrtimer_expire_entry':
        return `${head} hrtimer_expire_entry: hrtimer=${e.timer} function=${e.function || '0'} now=${e.now}`
      case 'hrtimer_cancel':
        return `${head} hrtimer_cancel: hrtimer=${e.timer}`
    }
  }
}

/** `# schedlab:` lines for a trace's end: its span and the tasks' workloads. */
export function metaLines(span: { startNs: number; endNs: number } | null, tasks: Iterable<Extract<TraceMeta, { type: 'task' }>>): string[] {
  const out: string[] = []
  if (span) out.push(`# schedlab: span start=${timestamp(span.startNs).trim()} end=${timestamp(span.endNs).trim()}`)
  for (const t of tasks) out.push(`# schedlab: task pid=${t.pid} latency=${t.recordLatency ? 1 : 0}${t.workloadType ? ` type=${t.workloadType}` : ''} workload=${t.workload}`)
  return out
}
