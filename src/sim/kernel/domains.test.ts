import { describe, expect, it } from 'vitest'
import { resolveTopology } from './topologies'
import {
  buildSchedDomains, cpusShareCache, nrIdleScanFromUtil, sdBalanceIntervalJiffies, SD_ASYM_CPUCAPACITY,
  SD_ASYM_CPUCAPACITY_FULL, SD_BALANCE_FORK, SD_BALANCE_NEWIDLE, SD_BALANCE_WAKE, SD_NUMA, SD_PREFER_SIBLING,
  SD_SERIALIZE, SD_SHARE_CPUCAPACITY, SD_SHARE_LLC, SD_WAKE_AFFINE, type SchedDomain
} from './domains'

function chain(sd: SchedDomain | null): SchedDomain[] {
  const out: SchedDomain[] = []
  for (let d = sd; d; d = d.parent) out.push(d)
  return out
}

describe('sched domains', () => {
  it('smp-8: one MC domain of 8 single-CPU groups with sd_init defaults', () => {
    const d = buildSchedDomains(resolveTopology('smp-8'))
    const c = chain(d.sd[3])
    expect(c.map((s) => s.name)).toEqual(['MC'])
    const mc = c[0]
    expect(mc.groups.map((g) => g.firstCpu)).toEqual([3, 4, 5, 6, 7, 0, 1, 2])
    expect(mc.flags & (SD_SHARE_LLC | SD_WAKE_AFFINE | SD_BALANCE_NEWIDLE | SD_PREFER_SIBLING)).toBe(
      SD_SHARE_LLC | SD_WAKE_AFFINE | SD_BALANCE_NEWIDLE | SD_PREFER_SIBLING
    )
    expect(mc.flags & SD_BALANCE_WAKE).toBe(0)
    expect([mc.minInterval, mc.maxInterval, mc.balanceInterval, mc.busyFactor, mc.imbalancePct, mc.cacheNiceTries]).toEqual([8, 16, 8, 16, 117, 1])
    expect(d.sdLlcSize[0]).toBe(8)
    expect(d.sdLlc[5]).toBe(d.sd[5])
    // The LLC state is shared by all CPUs of the LLC.
    expect(d.sdLlcShared[0]).toBe(d.sdLlcShared[7])
  })

  it('rb5: a single MC level with full asymmetric capacity (PKG degenerates)', () => {
    const d = buildSchedDomains(resolveTopology('rb5'))
    const c = chain(d.sd[0])
    expect(c.map((s) => s.name)).toEqual(['MC'])
    expect(c[0].flags & (SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL)).toBe(SD_ASYM_CPUCAPACITY | SD_ASYM_CPUCAPACITY_FULL)
    expect(d.sdAsymCpucapacity[0]).toBe(c[0])
    expect(c[0].groups.map((g) => g.sgc.capacity)).toEqual([284, 284, 284, 284, 871, 871, 871, 1024])
  })

  it('embedded-18: MC per cluster under PKG; the LLC is the cluster', () => {
    const d = buildSchedDomains(resolveTopology('embedded-18'))
    const c = chain(d.sd[6])
    expect(c.map((s) => `${s.name}:${s.spanWeight}`)).toEqual(['MC:4', 'PKG:18'])
    expect(c[1].groups.map((g) => [g.firstCpu, g.weight])).toEqual([[6, 4], [10, 4], [14, 4], [0, 2], [2, 4]])
    expect(c[1].flags & SD_SHARE_LLC).toBe(0)
    expect(c[1].cacheNiceTries).toBe(1)
    expect(d.sdLlcSize[0]).toBe(2)
    expect(d.sdLlcSize[17]).toBe(4)
    expect(cpusShareCache(d, 2, 5)).toBe(true)
    expect(cpusShareCache(d, 5, 6)).toBe(false)
    // Groups are shared between the CPUs of a domain level.
    expect(d.sd[0]!.parent!.groups.find((g) => g.firstCpu === 6)).toBe(c[1].groups[0])
  })

  it('x86-2s: SMT, MC (socket LLC), NUMA; PKG and NODE degenerate', () => {
    const d = buildSchedDomains(resolveTopology('x86-2s'))
    const c = chain(d.sd[0])
    expect(c.map((s) => `${s.name}:${s.spanWeight}`)).toEqual(['SMT:2', 'MC:40', 'NUMA:80'])
    const [smt, mc, numa] = c
    expect(smt.flags & SD_SHARE_CPUCAPACITY).toBeTruthy()
    expect(smt.imbalancePct).toBe(110)
    expect(smt.cacheNiceTries).toBe(0)
    expect(mc.groups).toHaveLength(20)
    expect(mc.groups[0].cores).toBe(1)
    expect(mc.groups[0].flags & SD_SHARE_CPUCAPACITY).toBeTruthy()
    expect(numa.flags & (SD_NUMA | SD_SERIALIZE)).toBe(SD_NUMA | SD_SERIALIZE)
    expect(numa.flags & SD_PREFER_SIBLING).toBe(0)
    // Distance 21 <= node_reclaim_distance: wake-affine and fork balancing stay.
    expect(numa.flags & (SD_WAKE_AFFINE | SD_BALANCE_FORK)).toBe(SD_WAKE_AFFINE | SD_BALANCE_FORK)
    expect(numa.cacheNiceTries).toBe(2)
    expect(numa.groups.map((g) => g.weight)).toEqual([40, 40])
    // One LLC per node: 1/8 of the node may stay imbalanced.
    expect(numa.imbNumaNr).toBe(5)
    expect(d.sdNuma[0]).toBe(numa)
    expect(d.smtMask[5]).toEqual(Int32Array.of(4, 5))
  })

  it('power11-160: the LLC is the SMT8 core; distant NUMA loses wake-affine', () => {
    const d = buildSchedDomains(resolveTopology('power11-160'))
    const c = chain(d.sd[41])
    expect(c.map((s) => `${s.name}:${s.spanWeight}`)).toEqual(['SMT:4', 'MC:8', 'PKG:40', 'NUMA:160'])
    expect(d.sdLlcSize[41]).toBe(8)
    expect(c[3].flags & SD_WAKE_AFFINE).toBe(0)
    expect(c[3].flags & SD_BALANCE_NEWIDLE).toBeTruthy()
    expect(c[3].groups.map((g) => g.firstCpu)).toEqual([40, 80, 120, 0])
  })

  it('a 1-CPU system has no domain', () => {
    const d = buildSchedDomains(resolveTopology('smp-1'))
    expect(d.sd[0]).toBeNull()
    expect(d.sdLlcSize[0]).toBe(1)
  })

  it('SIS_UTIL nr_idle_scan falls with the square of LLC utilization', () => {
    expect(nrIdleScanFromUtil(0, 4, 117)).toBe(4)
    // Seed 004's computation: 4-CPU LLC at ~60.5% utilization scans only 2 CPUs.
    expect(nrIdleScanFromUtil(2476, 4, 117)).toBe(2)
    expect(nrIdleScanFromUtil(4 * 700, 4, 117)).toBe(1)
    // About 85% and above: no scan at all.
    expect(nrIdleScanFromUtil(4 * 880, 4, 117)).toBe(0)
    expect(nrIdleScanFromUtil(160 * 300, 160, 117)).toBeGreaterThan(nrIdleScanFromUtil(160 * 500, 160, 117))
  })

  it('balance interval: busy CPUs stretch it by busy_factor, clamped to HZ*ncpus/10', () => {
    const d = buildSchedDomains(resolveTopology('smp-8'))
    const mc = d.sd[0]!
    expect(sdBalanceIntervalJiffies(mc, false, 250, 8)).toBe(2)
    expect(sdBalanceIntervalJiffies(mc, true, 250, 8)).toBe(31)
    expect(sdBalanceIntervalJiffies(mc, true, 100, 2)).toBe(12)
    mc.balanceInterval = mc.maxInterval * 100
    expect(sdBalanceIntervalJiffies(mc, true, 250, 8)).toBe(200)
  })
})
