import type { PolicyName } from '../kernel/api'

/**
 * Normalized (validated, defaulted) specs of every workload type: the fields all accept, then
 * hog, periodic, cyclictest, rt-app, hackbench, schbench and noise. Field names follow the
 * scenario language (docs/scenario.md).
 */

/** Fields every workload accepts. */
export interface WorkloadCommon {
  type: string
  name: string
  policy?: PolicyName
  nice?: number
  priority?: number
  sliceUs?: number
  cpus?: number[]
  uclampMin?: number
  uclampMax?: number
  count?: number
  threads?: number
  /** Start offset in microseconds. */
  delayUs?: number
  /** CPU the tasks start on (no fork placement), e.g. to watch the balancer spread them. */
  startCpu?: number
  /** prctl(PR_SET_TIMERSLACK) of the tasks, microseconds (default: the kernel's for fair, 0 for RT). */
  timerSlackUs?: number
}

export interface HogWorkload extends WorkloadCommon { type: 'hog' }

export interface PeriodicWorkload extends WorkloadCommon {
  type: 'periodic'
  runUs: number
  periodUs: number
  /** 'work' (default): runUs is CPU work at capacity 1024; 'wall': busy for runUs whatever the CPU. */
  runMode?: 'work' | 'wall'
  /** Offset of task i's grid: i * staggerUs (default 0: all wake together). */
  staggerUs?: number
}

/** Workload types added by later modules extend this open record. */
export interface GenericWorkload extends WorkloadCommon { [key: string]: unknown }

export type WorkloadSpec =
  | HogWorkload
  | PeriodicWorkload
  | CyclictestWorkload
  | RtAppWorkload
  | HackbenchWorkload
  | SchbenchWorkload
  | NoiseWorkload
  | GenericWorkload

export interface CyclictestWorkload extends WorkloadCommon {
  type: 'cyclictest'
  threads: number
  /** Base interval (-i), microseconds. */
  periodUs: number
  /** Interval increment per thread (-d). */
  distanceUs: number
  /** Cycles per thread (-l); 0 = until the end of the run. */
  loops: number
  /** -r: relative sleeps instead of the absolute timer grid. */
  relative: boolean
  /** -a: pin thread k to the k-th CPU of `cpus` (or of all CPUs), round robin. */
  pin: boolean
  /** --laptop: no /dev/cpu_dma_latency request (deep idle states stay allowed). */
  laptop: boolean
  /** Model cyclictest's main thread (its usleep(10000) loop), on by default. */
  mainThread: boolean
}

export interface HackbenchWorkload extends WorkloadCommon {
  type: 'hackbench'
  groups: number
  /** Senders and receivers per group (-f). */
  fds: number
  /** Messages each sender writes to each receiver (-l). */
  loops: number
  messageBytes: number
  ipc: 'pipe' | 'socket'
  mode: 'process' | 'thread'
  /** Start a new round when one finishes, until the end of the run. */
  repeat: boolean
  /** CPU work of one write()/read() of a message at capacity 1024, microseconds. */
  /** Undefined: the topology's calibration (costs.hackbenchWriteUs / hackbenchReadUs). */
  writeUs?: number
  readUs?: number
  pipeBufferBytes: number
  socketBufferBytes: number
}

export interface SchbenchWorkload extends WorkloadCommon {
  type: 'schbench'
  messageThreads: number
  /** Workers per message thread (-t); resolved against the topology when absent. */
  workers: number
  /** usleep in each request (-s), microseconds. */
  sleepUs: number
  /** Matrix multiplies per request (-n). */
  operations: number
  /** Cache footprint per request (-F), KiB; sets the matrix size. */
  footprintKb: number
  /** CPU work of one request at capacity 1024, microseconds (derived from operations x footprint). */
  requestWorkUs: number
  /** Take the per-CPU lock around the work (-L turns it off). */
  lock: boolean
  /** Requests per second per message thread (-R); 0 = saturate mode. */
  rps: number
  /** -C: calibrate mode (no usleep inside the request timing, no locks). */
  calibrate: boolean
}

/** Scheduling properties of an rt-app task or phase, mapped to the kernel's vocabulary. */
export interface RtAppProps {
  policy?: PolicyName
  /** rt-app `priority`: nice for fair policies, RT priority for fifo/rr. */
  priority?: number
  /** `dl-runtime` of a fair task: its custom slice. */
  sliceUs?: number
  cpus?: number[]
  uclampMin?: number
  uclampMax?: number
}

export type RtAppEvent = { key: string } & (
  | { kind: 'run' | 'runtime' | 'sleep'; us: number }
  | { kind: 'timer'; ref: string; unique: boolean; periodUs: number; absolute: boolean }
  | { kind: 'lock' | 'unlock'; mutex: string }
  | { kind: 'wait' | 'sync'; cond: string; mutex: string }
  | { kind: 'signal' | 'broad'; cond: string }
  | { kind: 'barrier'; name: string }
  | { kind: 'suspend' }
  | { kind: 'resume'; task: string }
  | { kind: 'sem_post' | 'sem_wait'; sem: string }
  | { kind: 'yield' }
  | { kind: 'fork'; task: string }
  /** mem, iorun and memrun, modeled as CPU work of this many microseconds. */
  | { kind: 'work'; from: 'mem' | 'iorun' | 'memrun'; us: number }
)

export interface RtAppPhase {
  name: string
  /** Iterations of this phase; -1 = forever. */
  loop: number
  props: RtAppProps
  events: RtAppEvent[]
}

export interface RtAppTask {
  name: string
  instance: number
  delayUs: number
  /** Passes over all phases; -1 = forever. */
  loop: number
  props: RtAppProps
  phases: RtAppPhase[]
}

export interface RtAppSpec {
  tasks: RtAppTask[]
  /** Capacity of the CPU `run` is calibrated on (rt-app `calibration`); `run` work scales by it. */
  calibrationCapacity: number
  piEnabled: boolean
  cumulativeSlack: boolean
  /** Participants of each barrier: rt-app counts every reference x the task's instances. */
  barriers: Record<string, number>
}

export interface RtAppWorkload extends WorkloadCommon {
  type: 'rt-app'
  rtapp: RtAppSpec
  /** The rt-app file the tasks came from, when given with `file`. */
  source?: string
}

export interface NoiseWorkload extends WorkloadCommon {
  type: 'noise'
  perCpu: number
  perCpuPeriodUs: number
  perCpuRunUs: number
  daemons: number
  daemonPeriodUs: number
  daemonRunUs: number
  kthreads: number
  kthreadPeriodUs: number
  kthreadRunUs: number
  sigma: number
  stallPeriodUs: number
  stallUs: number
  timerDelayUs: number
  timerDelaySigma: number
}

/** Defaults of the noise workload (and of a topology's background noise). */
export const NOISE_DEFAULTS = Object.freeze({
  perCpu: 1, perCpuPeriodUs: 4000, perCpuRunUs: 30,
  daemons: 4, daemonPeriodUs: 100000, daemonRunUs: 800,
  kthreads: 0, kthreadPeriodUs: 100000, kthreadRunUs: 500,
  sigma: 1, stallPeriodUs: 0, stallUs: 0, timerDelayUs: 0, timerDelaySigma: 1
})
