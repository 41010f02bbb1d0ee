import { describe, expect, it } from 'vitest'
import { simulate } from '../index'
import { quickScenario } from '../testing'
import type { KernelProfile } from './features'
import { niceToWeight } from './weights'

const SEEDS = [1, 2, 3]
const HZS = [100, 250, 1000]
const PROFILES: KernelProfile[] = ['6.12', '6.19', 'tip-2026']

function hogs(nices: number[], hz: number, profile: KernelProfile, seed: number) {
  const s = quickScenario({
    topology: 1,
    durationMs: 10_000,
    kernel: { hz, profile },
    workloads: nices.map((nice, i) => ({ type: 'hog', name: `h${i}`, nice }))
  })
  return simulate(s, 0, seed).tasks.map((t) => t.cpuTimeMs)
}

describe('fair share of always-runnable tasks on one CPU (10 s simulated)', () => {
  for (const profile of PROFILES) {
    for (const hz of HZS) {
      it(`two nice-0 tasks get equal CPU time within 1% (${profile}, HZ ${hz})`, () => {
        for (const seed of SEEDS) {
          const [a, b] = hogs([0, 0], hz, profile, seed)
          expect(a + b).toBeGreaterThan(9_900)
          expect(Math.abs(a - b) / ((a + b) / 2)).toBeLessThan(0.01)
        }
      })
    }
    it(`nice 0 against nice 5 get 1024:335 within 2% (${profile})`, () => {
      for (const seed of SEEDS) {
        for (const hz of HZS) {
          const [a, b] = hogs([0, 5], hz, profile, seed)
          expect(Math.abs(a / b / (1024 / 335) - 1)).toBeLessThan(0.02)
        }
      }
    })
    it(`four tasks of mixed nice values get their weight shares (${profile})`, () => {
      const nices = [-3, 0, 2, 7]
      const w = nices.map(niceToWeight)
      const W = w.reduce((x, y) => x + y, 0)
      for (const seed of SEEDS) {
        const times = hogs(nices, 250, profile, seed)
        const total = times.reduce((x, y) => x + y, 0)
        times.forEach((t, i) => expect(Math.abs(t / total / (w[i] / W) - 1)).toBeLessThan(0.02))
      }
    })
  }
})
