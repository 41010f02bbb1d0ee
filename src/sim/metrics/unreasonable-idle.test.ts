import { describe, expect, it } from 'vitest'
import { UnreasonableIdleDetector } from './unreasonable-idle'
import { quickScenario } from '../testing'
import { smpSpec } from '../kernel/topology'
import { runPlacement } from '../kernel/fair-sched-testing'
import type { WorkloadSpec } from '../scenario/workload-specs'

const MS = 1_000_000
const any = (): boolean => true

describe('unreasonable idle detector', () => {
  it('counts an idle period longer than 2.5 ms only if a runnable task waited through all of it', () => {
    const d = new UnreasonableIdleDetector(2, 4)
    d.taskWaits(0, 1 * MS)
    d.cpuIdle(1, 2 * MS)
    d.cpuBusy(1, 5.5 * MS, any) // 3.5 ms, task 0 waiting since before: 3-4 ms
    d.cpuIdle(1, 6 * MS)
    d.taskStops(0)
    d.taskWaits(1, 7 * MS)
    d.cpuBusy(1, 12 * MS, any) // task 1 started waiting after the CPU went idle: no event
    d.cpuIdle(1, 13 * MS)
    d.taskWaits(2, 12.5 * MS)
    d.cpuBusy(1, 15 * MS, any) // 2 ms: too short
    expect(d.buckets()).toEqual({ '2.5-3ms': 0, '3-4ms': 1, '4ms+': 0 })
  })

  it('ignores tasks that may not run on the idle CPU, and keeps a wait across migrations', () => {
    const d = new UnreasonableIdleDetector(2, 4)
    d.taskWaits(0, 0)
    d.cpuIdle(1, 0)
    d.cpuBusy(1, 10 * MS, (p, cpu) => !(p === 0 && cpu === 1))
    d.cpuIdle(1, 10 * MS)
    d.taskMoved(0, 11 * MS)
    d.cpuBusy(1, 12.8 * MS, any)
    expect(d.buckets()).toEqual({ '2.5-3ms': 1, '3-4ms': 0, '4ms+': 0 })
  })

  for (const hz of [250, 1000]) {
    it(`a fair task behind an RT hog waits until the RT pressure on its CPU is noticed (HZ ${hz})`, () => {
      const s = quickScenario({
        topology: smpSpec(2),
        kernel: { hz },
        durationMs: 60,
        workloads: [
          { type: 'hog', name: 'rt', policy: 'fifo', priority: 50, cpus: [1] } as WorkloadSpec,
          { type: 'hog', name: 'fair', startCpu: 1 } as WorkloadSpec
        ]
      })
      const { result } = runPlacement(s)
      // One runnable CFS task is "balanced" until CPU 1's own balance sees its capacity
      // reduced by RT (capacity_of < 100/117 of capacity_orig), then it moves to CPU 0.
      expect(result.tasks[1].lastCpu).toBe(0)
      expect(result.tasks[1].cpuTimeMs).toBeLessThan(40)
      expect(result.unreasonableIdle.events).toEqual({ '2.5-3ms': 0, '3-4ms': 0, '4ms+': 1 })
    })
  }

  it('no event when the idle balancer takes a waiting task within the first millisecond tick', () => {
    const s = quickScenario({
      topology: smpSpec(2),
      kernel: { hz: 1000 },
      durationMs: 50,
      workloads: [{ type: 'hog', name: 'h', count: 2, startCpu: 1 } as WorkloadSpec]
    })
    const { result } = runPlacement(s)
    expect(new Set(result.tasks.map((t) => t.lastCpu))).toEqual(new Set([0, 1]))
    expect(result.unreasonableIdle.events).toEqual({ '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 })
  })
})
