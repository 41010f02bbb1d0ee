import { describe, expect, it } from 'vitest'
import { capacityFromDmips, presetSpec, resolveTopology, TOPOLOGY_PRESETS, UnknownTopologyError } from './topologies'
import { idleStatesOf } from './topology'

describe('topology presets', () => {
  it('rb5 has 4 little + 3 mid + 1 big with capacities derived from the device tree', () => {
    const t = resolveTopology('rb5')
    expect(t.cpus.map((c) => c.capacityOrig)).toEqual([284, 284, 284, 284, 871, 871, 871, 1024])
    expect(t.cpus.map((c) => c.clusterName)).toEqual(['little', 'little', 'little', 'little', 'mid', 'mid', 'mid', 'big'])
    expect(t.asymCapacity).toBe(true)
    expect(t.smt).toBe(false)
    // One shared L3: a single LLC.
    expect(new Set(t.cpus.map((c) => c.llc)).size).toBe(1)
    // 448 DMIPS/MHz at 1804.8 MHz against 1024 at 2841.6 MHz.
    expect(capacityFromDmips(448, 1804800, 1024 * 2841600)).toBe(284)
  })

  it('rb5 energy model: ascending OPPs ending at the DT maximum, power rising with frequency', () => {
    const t = resolveTopology('rb5')
    const maxKhz = t.spec.clusters.map((c) => c.opps![c.opps!.length - 1].freqKhz)
    expect(maxKhz).toEqual([1804800, 2419200, 2841600])
    for (const cl of t.spec.clusters) {
      const opps = cl.opps!
      for (let i = 1; i < opps.length; i++) {
        expect(opps[i].freqKhz).toBeGreaterThan(opps[i - 1].freqKhz)
        expect(opps[i].powerMw).toBeGreaterThan(opps[i - 1].powerMw)
      }
    }
    // A little core at its top OPP draws far less than the prime core at its top OPP.
    const top = (i: number): number => t.spec.clusters[i].opps![t.spec.clusters[i].opps!.length - 1].powerMw
    expect(top(0) * 5).toBeLessThan(top(2))
  })

  it('rb5 idle states: cpuidle exit latency is entry + exit of the DT state', () => {
    const t = resolveTopology('rb5')
    expect(idleStatesOf(t, 0).map((s) => [s.exitLatencyUs, s.targetResidencyUs])).toEqual([[1, 1], [891, 3934]])
    expect(idleStatesOf(t, 7).map((s) => [s.exitLatencyUs, s.targetResidencyUs])).toEqual([[1, 1], [1763, 4488]])
  })

  it('embedded-18: five LLC clusters 0-1, 2-5, 6-9, 10-13, 14-17', () => {
    const t = resolveTopology('embedded-18')
    expect(t.cpus).toHaveLength(18)
    const llcs = t.cpus.map((c) => c.llc)
    expect(llcs).toEqual([0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4])
    expect(t.asymCapacity).toBe(false)
  })

  it('x86-2s: 2 sockets x 20 cores x SMT2, one node per socket', () => {
    const t = resolveTopology('x86-2s')
    expect(t.cpus).toHaveLength(80)
    expect(t.smt).toBe(true)
    expect(new Set(t.cpus.map((c) => c.core)).size).toBe(40)
    expect(t.nodes).toBe(2)
    expect(t.cpus[39].node).toBe(0)
    expect(t.cpus[40].node).toBe(1)
  })

  it('power11-160: 4 nodes of 40 CPUs, SMT8 cores scheduled as SMT4 small cores', () => {
    const t = resolveTopology('power11-160')
    expect(t.cpus).toHaveLength(160)
    expect(t.nodes).toBe(4)
    expect(new Set(t.cpus.map((c) => c.llc)).size).toBe(20)
    expect(new Set(t.cpus.map((c) => c.core)).size).toBe(40)
    expect(t.numaDistance[0][3]).toBe(40)
  })

  it('smp-N for any N, custom cluster specs, and a clear error otherwise', () => {
    expect(resolveTopology('smp-3').cpus).toHaveLength(3)
    expect(resolveTopology({ name: 'mine', clusters: [{ name: 'a', cpus: 2, capacity: 512 }, { name: 'b', cpus: 2, capacity: 1024 }] }).asymCapacity).toBe(true)
    expect(presetSpec('smp-0')).toBeUndefined()
    expect(() => resolveTopology('rb6')).toThrow(UnknownTopologyError)
    expect(() => resolveTopology('rb6')).toThrow(/unknown topology "rb6".*rb5.*smp-N/)
  })

  it('every preset documents where its numbers come from', () => {
    const names = TOPOLOGY_PRESETS.map((p) => p.name)
    expect(names).toEqual(['rb5', 'embedded-18', 'x86-2s', 'power11-160', 'smp-N'])
    for (const p of TOPOLOGY_PRESETS) {
      expect(p.description.length).toBeGreaterThan(10)
      expect(p.source.length).toBeGreaterThan(10)
    }
  })
})
