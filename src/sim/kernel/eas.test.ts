import { describe, expect, it } from 'vitest'
import { quickScenario } from '../testing'
import { rb5Spec } from './topologies'
import { every, runPlacement } from './fair-sched-testing'
import { TASK_RUNNING } from './sched'
import type { WorkloadSpec } from '../scenario/workload-specs'

const MS = 1_000_000
const LITTLE = [0, 1, 2, 3]
const GOVERNORS: Record<string, boolean>[] = [{}, { SCHEDUTIL: true }]

/** CPUs a task was seen queued or running on, sampled every 100 us after `fromMs`. */
function cpusSeen(workloads: WorkloadSpec[], features: Record<string, boolean>, durationMs: number, fromMs: number) {
  const seen = new Set<number>()
  const s = quickScenario({ topology: rb5Spec(), kernel: { features }, durationMs, workloads })
  const run = runPlacement(s, 1, (k) => every(k, fromMs * MS, 100_000, durationMs * MS, () => {
    if (k.state[0] === TASK_RUNNING) seen.add(k.taskCpu[0])
  }))
  return { seen, ...run }
}

describe('rb5: asymmetric capacity, uclamp and EAS', () => {
  for (const features of GOVERNORS) {
    const label = features.SCHEDUTIL ? 'with EAS' : 'without EAS'
    it(`a task with uclamp_min 1024 wakes on the big CPU (${label})`, () => {
      const { seen } = cpusSeen(
        [{ type: 'periodic', name: 'boost', runUs: 500, periodUs: 5000, uclampMin: 1024 } as WorkloadSpec], features, 500, 20
      )
      expect([...seen]).toEqual([7])
    })
  }

  it('a small periodic task with EAS stays on little CPUs at a low frequency', () => {
    const { seen, fs, result } = cpusSeen(
      [{ type: 'periodic', name: 'small', runUs: 1000, periodUs: 16_000 } as WorkloadSpec], { SCHEDUTIL: true }, 1000, 50
    )
    expect(fs.eas).toBe(true)
    for (const c of seen) expect(LITTLE).toContain(c)
    // schedutil runs the little cluster well below its top OPP most of the time.
    const res = result.cpus[0].freqResidency!
    const top = res['1804800'] ?? 0
    expect(top).toBeLessThan(20)
    expect(result.counters?.['eas.enabled']).toBe(1)
  })

  for (const features of GOVERNORS) {
    const label = features.SCHEDUTIL ? 'with EAS' : 'without EAS'
    it(`a task growing past a little CPU's capacity is moved up as misfit (${label})`, () => {
      const moves: [number, number][] = []
      const s = quickScenario({ topology: rb5Spec(), kernel: { features }, durationMs: 400, workloads: [{ type: 'hog', name: 'grow', startCpu: 0 } as WorkloadSpec] })
      const { result } = runPlacement(s, 1, (k) => every(k, 0, 100_000, 400 * MS, () => {
        const c = k.taskCpu[0]
        if (c >= 0 && (moves.length === 0 || moves[moves.length - 1][1] !== c)) moves.push([k.now, c])
      }))
      // Little first, then a mid CPU once util passes 80% of 284, then the big CPU.
      expect(moves[0][1]).toBe(0)
      expect(moves[1][1]).toBeGreaterThanOrEqual(4)
      expect(moves[1][0]).toBeLessThan(60 * MS)
      expect(moves[moves.length - 1][1]).toBe(7)
      expect(result.counters?.['lb.MC.activePushed']).toBeGreaterThanOrEqual(1)
    })
  }
})

describe('uclamp bookkeeping from the first clamped task (sched_uclamp_used)', () => {
  it('counting the runnable tasks only once a clamp appears gives the results and runqueue clamps of counting from the start', () => {
    const workloads = [
      { type: 'periodic', name: 'plain', count: 6, runUs: 700, periodUs: 3000, staggerUs: 211 },
      { type: 'hog', name: 'hog', count: 2 },
      // clamped tasks arrive later, on runqueues with default tasks counted lazily
      { type: 'periodic', name: 'capped', runUs: 2000, periodUs: 7000, uclampMax: 300, delayUs: 40_000 },
      { type: 'periodic', name: 'boost', runUs: 300, periodUs: 5000, uclampMin: 700, delayUs: 60_000 }
    ] as WorkloadSpec[]
    const s = quickScenario({ topology: rb5Spec(), kernel: { features: { SCHEDUTIL: true } }, durationMs: 150, workloads })
    const sample = (fromStart: boolean) => {
      const clamps: number[] = []
      const run = runPlacement(s, 3, (k, fs) => {
        fs.uclampCounting = fromStart
        every(k, 1_000_000, 250_000, 150 * MS, () => {
          for (let c = 0; c < k.ncpus; c++) clamps.push(fs.uclamp.get(c, 0), fs.uclamp.get(c, 1), fs.uclamp.isIdle(c) ? 1 : 0)
        })
      })
      const { wallMs: _w, ...stats } = run.result.stats
      return { clamps, result: JSON.stringify({ ...run.result, stats }), used: run.fs.uclampUsed }
    }
    const lazy = sample(false)
    const counted = sample(true)
    expect(lazy.used).toBe(true)
    expect(lazy.result).toBe(counted.result)
    // once the first clamped task ran (40 ms), the runqueues' clamps are the same
    const from = 40 * 4 * 8 * 3
    expect(lazy.clamps.slice(from)).toEqual(counted.clamps.slice(from))
  })
})
