import { describe, expect, it } from 'vitest'
import { Kernel } from './core'
import { resolveKernelConfig } from '../scenario/kernel-config'
import { buildTopology, smpSpec } from './topology'
import { NIL } from './eevdf-tree'
import { avgVruntime, pickEevdf, vruntimeEligible } from './fair'
import { Prng } from '../engine/prng'

/** Drive the tree directly through a kernel's arrays and compare pick_eevdf with brute force. */
describe('EevdfTree + pick_eevdf', () => {
  it('finds the eligible entity with the earliest deadline (random trees, many seeds)', () => {
    const topo = buildTopology(smpSpec(1))
    const cfg = resolveKernelConfig({ hz: 250, profile: 'tip-2026', features: {} }, undefined, 1)
    for (const seed of [1, 2, 3, 4, 5]) {
      const k = new Kernel(topo, cfg, seed, 256)
      k.ntasks = 200
      const rng = new Prng(seed)
      const inTree = new Set<number>()
      const add = (t: number): void => {
        k.weight[t] = [15, 335, 1024, 3121, 88761][rng.below(5)]
        k.vruntime[t] = 1e9 + rng.below(20_000_000)
        k.deadline[t] = k.vruntime[t] + rng.below(10_000_000)
        k.slice[t] = 100_000 + rng.below(3_000_000)
        k.onRq[t] = 1
        k.sumWVruntime[0] += (k.vruntime[t] - k.zeroVruntime[0]) * k.weight[t]
        k.sumWeight[0] += k.weight[t]
        k.tree.insert(0, t)
        k.cfsNrQueued[0]++
        inTree.add(t)
      }
      const del = (t: number): void => {
        k.tree.remove(0, t)
        k.sumWVruntime[0] -= (k.vruntime[t] - k.zeroVruntime[0]) * k.weight[t]
        k.sumWeight[0] -= k.weight[t]
        k.cfsNrQueued[0]--
        inTree.delete(t)
      }
      for (let step = 0; step < 3000; step++) {
        const t = rng.below(200)
        if (inTree.has(t)) del(t)
        else add(t)
        if (inTree.size < 2) continue
        avgVruntime(k, 0)
        let best = NIL
        let minSlice = Infinity
        let maxSlice = 0
        for (const n of inTree) {
          minSlice = Math.min(minSlice, k.slice[n])
          maxSlice = Math.max(maxSlice, k.slice[n])
          if (!vruntimeEligible(k, 0, k.vruntime[n])) continue
          if (best === NIL || k.deadline[n] < k.deadline[best] || (k.deadline[n] === k.deadline[best] && k.tree.seq[n] < k.tree.seq[best])) best = n
        }
        expect(pickEevdf(k, 0, true)).toBe(best)
        const root = k.tree.root[0]
        expect(k.tree.minSlice[root]).toBe(minSlice)
        expect(k.tree.maxSlice[root]).toBe(maxSlice)
      }
    }
  })
})
