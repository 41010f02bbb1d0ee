/**
 * A worker whose trace jobs hold their thread until the test opens a gate, then analyze the
 * trace for real: a trace import that is still running, for as long as a test needs, without
 * any timing. SCHEDLAB_TEST_GATE names a folder: the worker writes `started` there when a
 * trace job begins and waits (its thread blocked, as by a long analysis) for `open`.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { serveJobs } from '../worker-protocol'
import { isTraceJob, runTraceJob } from '../trace-job'

serveJobs((payload) => {
  if (!isTraceJob(payload)) throw new Error('this worker only analyzes traces')
  const gate = process.env.SCHEDLAB_TEST_GATE
  if (!gate) throw new Error('SCHEDLAB_TEST_GATE is not set')
  writeFileSync(join(gate, 'started'), String(payload.text.length))
  const nap = new Int32Array(new SharedArrayBuffer(4))
  while (!existsSync(join(gate, 'open'))) Atomics.wait(nap, 0, 0, 5)
  return runTraceJob(payload)
})
