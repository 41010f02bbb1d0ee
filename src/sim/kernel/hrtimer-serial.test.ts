import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { quickScenario } from '../testing'
import type { VariantResult } from '../../shared/result'

/**
 * __hrtimer_run_queues runs one timer function at a time: on a CPU whose timer interrupt wakes
 * several sleepers, each hrtimer_wakeup's try_to_wake_up is over before the next one starts.
 * Other CPUs whose timers expired at the same moment place their own first sleeper meanwhile,
 * so a CPU's second sleeper finds them busy and stays on its previous CPU: tasks woken
 * together every period keep their CPUs, and the same task waits every period.
 */
describe('the sleepers of one timer interrupt are woken one after another', () => {
  // 2 CPUs; A and B sleep on CPU 0, C on CPU 1, all on one 5 ms grid. A and B run 1 ms, C
  // 2.5 ms, so CPU 1 never goes idle while B waits (no newidle pull of B)
  const run = (): VariantResult => simulate(quickScenario({
    topology: 2,
    durationMs: 500,
    workloads: [
      { type: 'periodic', name: 'pair', count: 2, runUs: 1000, periodUs: 5000, startCpu: 0 },
      { type: 'periodic', name: 'solo', count: 1, runUs: 2500, periodUs: 5000, startCpu: 1 }
    ]
  }), 0, 1)

  it('each task keeps its CPU period after period: C never waits, and in every period one of A and B waits for the other', () => {
    const r = run()
    // the first period's wakeups (from the fork placement) are the only moves
    expect(r.stats.migrations).toBeLessThanOrEqual(2)
    const task = (name: string) => r.tasks!.find((t) => t.name === name)!.latencyUs
    // C: the timer slack, the interrupt and the switch, never behind A or B
    expect(task('solo-0').max).toBeLessThan(200)
    // A and B take turns (EEVDF picks between the two woken together): each waits for the
    // other's 1 ms in about half of the periods
    for (const n of ['pair-0', 'pair-1']) {
      const l = task(n)
      expect(l.max).toBeGreaterThan(1000)
      expect(l.avg).toBeGreaterThan(300)
      expect(l.avg).toBeLessThan(800)
    }
  })
})
