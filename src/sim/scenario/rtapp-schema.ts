import { z } from 'zod'

/**
 * The rt-app grammar (reference/workloads.md section 1) as zod schemas: one source for the
 * ordered rt-app reader (rtapp.ts), the editor's JSON Schema and docs/scenario.md.
 * Event keys match by prefix, in this order (`runtime` before `run`, `memrun` before `mem`).
 */

const us = (what: string) => z.number().min(0).max(3.6e9).meta({ description: `${what}, microseconds` })
const name = (what: string) => z.string().min(1).meta({ description: what })

export interface RtAppEventDef {
  name: string
  schema: z.ZodType
  doc: string
  /** Modeled only approximately: a warning is given when used. */
  approximate?: boolean
}

export const TIMER_SCHEMA = z
  .strictObject({
    ref: z.string().min(1).default('unknown').meta({ description: 'Timer name; names starting with "unique" give one timer per thread, others are shared by all users' }),
    period: us('Period').default(0),
    mode: z.enum(['relative', 'absolute']).default('relative').meta({ description: 'When a deadline is missed: "relative" restarts the grid from now, "absolute" keeps it' })
  })
  .meta({ description: 'Periodic wakeup on an absolute grid starting at the thread start (t0 + delay)' })

const CONDVAR = z.strictObject({ ref: name('Condition variable'), mutex: name('Mutex held by the caller') })

const MEMRUN = z
  .strictObject({
    type: z.enum(['read', 'write', 'chase']).default('write'),
    size: z.number().int().min(1).meta({ description: 'Buffer size, bytes' }),
    count: z.number().int().min(1).default(1),
    stride: z.number().int().min(1).default(64),
    pattern: z.enum(['random', 'sequential']).default('sequential'),
    ref: z.string().optional()
  })
  .meta({ description: 'Memory access pattern; modeled as CPU work (see docs)' })

export const RTAPP_EVENTS: readonly RtAppEventDef[] = [
  { name: 'runtime', schema: us('Busy wall time'), doc: 'Busy loop until this much wall time has passed, whatever the CPU speed.' },
  { name: 'run', schema: us('Work'), doc: 'Fixed work calibrated on the `calibration` CPU: takes longer on a lower-capacity CPU.' },
  { name: 'sleep', schema: us('Sleep'), doc: 'Relative sleep.' },
  { name: 'timer', schema: TIMER_SCHEMA, doc: 'Sleep until the next period of a timer; a missed deadline does not sleep. Records wu_lat and slack.' },
  { name: 'lock', schema: name('Mutex'), doc: 'Take a mutex, blocking while another thread holds it (priority inheritance with `pi_enabled`).' },
  { name: 'unlock', schema: name('Mutex'), doc: 'Release a mutex and wake one waiter.' },
  { name: 'wait', schema: CONDVAR, doc: 'pthread_cond_wait: release the mutex, sleep until signalled, take the mutex again.' },
  { name: 'signal', schema: name('Condition variable'), doc: 'Wake one waiter of the condition variable (lost if nobody waits).' },
  { name: 'broad', schema: name('Condition variable'), doc: 'Wake every waiter of the condition variable.' },
  { name: 'sync', schema: CONDVAR, doc: 'Signal the condition variable, then wait on it, atomically with respect to the mutex.' },
  { name: 'barrier', schema: name('Barrier'), doc: 'Wait until every participant arrived; participants = references to the name x instances of the referring task.' },
  { name: 'suspend', schema: z.unknown().meta({ description: 'Ignored (rt-app waits on the task object\'s own name); may be value-less' }), doc: 'Sleep until another thread resumes this task (no memory: an earlier resume is lost).' },
  { name: 'resume', schema: name('Task object name'), doc: 'Wake every suspended instance of the named task.' },
  { name: 'sem_post', schema: name('Semaphore'), doc: 'Post a semaphore (starts at 0, posts accumulate).' },
  { name: 'sem_wait', schema: name('Semaphore'), doc: 'Wait for a semaphore post.' },
  { name: 'yield', schema: z.unknown().meta({ description: 'Ignored' }), doc: 'sched_yield().' },
  { name: 'fork', schema: name('Task object name'), doc: 'Start a new thread from that task definition (at most 1024 forks per task).' },
  { name: 'memrun', schema: MEMRUN, doc: 'Memory accesses, modeled as CPU work: count x size/stride accesses of 0.5 ns (sequential) or 80 ns (random or chase).', approximate: true },
  { name: 'mem', schema: z.number().int().min(0).meta({ description: 'Bytes to memset' }), doc: 'memset of this many bytes, modeled as CPU work at 10 bytes/ns.', approximate: true },
  { name: 'iorun', schema: z.number().int().min(0).meta({ description: 'Bytes to write' }), doc: 'write() to io_device, modeled as 1 us of CPU work per mem_buffer_size chunk.', approximate: true }
]

/** The event definition a key selects by rt-app's prefix rule, or undefined. */
export function eventOfKey(key: string): RtAppEventDef | undefined {
  return RTAPP_EVENTS.find((e) => key.startsWith(e.name))
}

export const RTAPP_POLICIES = ['SCHED_OTHER', 'SCHED_BATCH', 'SCHED_IDLE', 'SCHED_FIFO', 'SCHED_RR', 'SCHED_DEADLINE'] as const

const cpuList = z.array(z.number().int().min(0)).min(1)

/** Properties allowed on a task or on a phase. */
export const RTAPP_PROPS = {
  policy: z.enum(RTAPP_POLICIES).meta({ description: 'Scheduling policy (SCHED_DEADLINE is not modeled)' }),
  priority: z.number().int().min(-20).max(99).meta({ description: 'Nice value (-20..19) for OTHER/BATCH/IDLE, RT priority (1..99) for FIFO/RR' }),
  'dl-runtime': us('For a fair task: its custom slice (sched_attr.sched_runtime)'),
  'dl-period': us('SCHED_DEADLINE period (accepted, unused)'),
  'dl-deadline': us('SCHED_DEADLINE deadline (accepted, unused)'),
  cpus: cpuList.meta({ description: 'CPU affinity' }),
  nodes_membind: z.array(z.number().int().min(0)).meta({ description: 'NUMA memory binding (accepted, not modeled)' }),
  taskgroup: z.string().meta({ description: 'cgroup path starting with "/" (accepted; flattened with a warning: groups are not modeled)' }),
  util_min: z.number().int().min(0).max(1024).meta({ description: 'uclamp min' }),
  util_max: z.number().int().min(0).max(1024).meta({ description: 'uclamp max' })
} as const

export const RTAPP_TASK_KEYS = {
  instance: z.number().int().min(0).max(4096).default(1).meta({ description: 'Number of threads created from this task; 0 = only started by `fork`' }),
  delay: us('Start offset from t0').default(0),
  loop: z.number().int().min(-1).meta({ description: 'Passes over the phases (-1 = forever; default -1, or 1 pass of `loop` iterations when there are no phases)' }),
  phases: z.record(z.string(), z.record(z.string(), z.unknown())).meta({ description: 'Ordered phases; without it the task body is one phase' }),
  // Legacy deadline keys at task level (rt-app still reads them).
  period: us('Legacy SCHED_DEADLINE period (accepted, unused)'),
  deadline: us('Legacy SCHED_DEADLINE deadline (accepted, unused)')
} as const

export const RTAPP_PHASE_LOOP = z.number().int().min(-1).default(1).meta({ description: 'Iterations of the phase (-1 = forever)' })

export const RTAPP_GLOBAL = z
  .strictObject({
    duration: z.number().int().min(-1).default(-1).meta({ description: 'Seconds; -1 = until the threads finish (the scenario duration caps it)' }),
    calibration: z.union([z.string().regex(/^CPU\d+$/), z.number().int().min(1)]).default('CPU0').meta({ description: '"CPUn": `run` is calibrated on CPU n; an integer (ns per loop): calibrated on a capacity-1024 CPU' }),
    default_policy: z.enum(RTAPP_POLICIES).default('SCHED_OTHER').meta({ description: 'Policy of tasks that give none' }),
    pi_enabled: z.boolean().default(false).meta({ description: 'Priority-inheritance mutexes' }),
    lock_pages: z.boolean().optional().meta({ description: 'Accepted; no effect (memory is not modeled)' }),
    logdir: z.string().optional().meta({ description: 'Accepted; no effect (results come from schedlab)' }),
    log_basename: z.string().optional().meta({ description: 'Accepted; no effect' }),
    log_size: z.union([z.number().int(), z.enum(['file', 'disable', 'auto'])]).optional().meta({ description: 'Accepted; no effect' }),
    ftrace: z.union([z.string(), z.boolean()]).optional().meta({ description: 'Accepted; no effect (use schedlab --trace)' }),
    gnuplot: z.boolean().optional().meta({ description: 'Accepted; no effect' }),
    io_device: z.string().optional().meta({ description: 'Target of `iorun` (accepted; IO is modeled as CPU work)' }),
    mem_buffer_size: z.number().int().min(1).default(4194304).meta({ description: 'Bytes per `mem`/`iorun` chunk' }),
    cumulative_slack: z.boolean().default(false).meta({ description: 'Sum the slack of every timer of a phase instead of keeping the last' })
  })
  .meta({ description: 'rt-app global section (duration, calibration, default_policy, pi_enabled ... ; log and ftrace keys are accepted and ignored)' })

/**
 * Loose shape of a task for the editor: known properties plus prefix-matched event keys. Every
 * key is optional, as in rt-app (the reader gives the defaults): the editor must accept every
 * task the reader accepts.
 */
export const RTAPP_TASK_EDITOR = z
  .looseObject({ ...RTAPP_TASK_KEYS, ...RTAPP_PROPS })
  .partial()
  .meta({ id: 'RtAppTask', description: 'An rt-app task object: properties, then events in key order (or `phases`)' })

export const RTAPP_TASKS_EDITOR = z.record(z.string(), RTAPP_TASK_EDITOR)

/**
 * What the scenario schema checks of an rt-app section: only the shape. The ordered reader
 * (rtapp.ts) checks the grammar, because duplicate keys and key order matter there; the editor
 * schema substitutes RTAPP_TASKS_EDITOR / RTAPP_GLOBAL for these markers.
 */
export const RTAPP_TASKS_INPUT = z
  .record(z.string(), z.record(z.string(), z.unknown()))
  .meta({ description: 'rt-app tasks (key = thread name), in the rt-app grammar (see "rt-app grammar")' })

export const RTAPP_GLOBAL_INPUT = z.record(z.string(), z.unknown()).meta({ description: RTAPP_GLOBAL.description ?? 'rt-app global section' })
