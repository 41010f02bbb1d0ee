import { describe, expect, it } from 'vitest'
import { resolveTopology } from './topologies'
import {
  buildPerfDomains, capacityGreater, effectiveCpuUtil, emCpuEnergy, energyModelUsable, fitsCapacity,
  freqScaleOf, schedutilOppIndex, sugovEffectiveCpuPerf, UCLAMP_MAX, UCLAMP_MIN, UclampRq, utilFitsCpu,
  type UtilBounds
} from './energy'

describe('capacity fitness', () => {
  it('fits_capacity keeps 20% headroom; capacity_greater needs ~5% more', () => {
    expect(fitsCapacity(819, 1024)).toBe(true)
    expect(fitsCapacity(820, 1024)).toBe(false)
    expect(fitsCapacity(227, 284)).toBe(true)
    expect(fitsCapacity(228, 284)).toBe(false)
    expect(capacityGreater(1024, 972)).toBe(true)
    expect(capacityGreater(1024, 973)).toBe(false)
  })

  it('util_fits_cpu with uclamp on rb5 capacities', () => {
    // Without uclamp in use only the utilization counts.
    expect(utilFitsCpu(300, 0, 1024, 284, 284, 0, false)).toBe(0)
    expect(utilFitsCpu(100, 0, 1024, 284, 284, 0, false)).toBe(1)
    // uclamp_max below the little capacity: a big task "fits" a little CPU.
    expect(utilFitsCpu(600, 0, 200, 284, 284, 0, true)).toBe(1)
    // uclamp_min 1024: fits a mid CPU by util, but the boost asks for more than it has.
    expect(utilFitsCpu(100, 1024, 1024, 871, 871, 0, true)).toBe(-1)
    expect(utilFitsCpu(100, 1024, 1024, 1024, 1024, 0, true)).toBe(1)
    // On the biggest CPU a default uclamp_max does not make an oversized task fit.
    expect(utilFitsCpu(900, 0, 1024, 1024, 1024, 0, true)).toBe(0)
    // RT pressure lowers capacity_of.
    expect(utilFitsCpu(700, 0, 1024, 1024, 800, 0, false)).toBe(0)
  })
})

describe('uclamp rq aggregation', () => {
  it('max-aggregates runnable tasks and falls back when the max task leaves', () => {
    const u = new UclampRq(1)
    expect(u.get(0, UCLAMP_MIN)).toBe(0)
    expect(u.get(0, UCLAMP_MAX)).toBe(1024)
    u.inc(0, 100, 1024)
    u.inc(0, 600, 1024)
    expect(u.get(0, UCLAMP_MIN)).toBe(600)
    u.dec(0, 600, 1024)
    expect(u.get(0, UCLAMP_MIN)).toBe(100)
    u.dec(0, 100, 1024)
    expect(u.get(0, UCLAMP_MIN)).toBe(0)
    expect(u.isIdle(0)).toBe(true)
  })

  it('keeps uclamp_max over idle, and overboosts tasks sharing a bucket', () => {
    const u = new UclampRq(1)
    u.inc(0, 0, 300)
    expect(u.get(0, UCLAMP_MAX)).toBe(300)
    u.dec(0, 0, 300)
    expect(u.get(0, UCLAMP_MAX)).toBe(300)
    u.inc(0, 0, 1024)
    expect(u.get(0, UCLAMP_MAX)).toBe(1024)
    u.dec(0, 0, 1024)
    // 210 and 300 share bucket [205, 410): the bucket keeps 300 while either is runnable.
    u.inc(0, 210, 1024)
    u.inc(0, 300, 1024)
    u.dec(0, 300, 1024)
    expect(u.get(0, UCLAMP_MIN)).toBe(300)
    u.dec(0, 210, 1024)
    expect(u.get(0, UCLAMP_MIN)).toBe(0)
  })
})

describe('schedutil and the energy model', () => {
  const rb5 = resolveTopology('rb5')
  const pds = buildPerfDomains(rb5)

  it('rb5 has three perf domains usable for EAS; symmetric or SMT systems have none', () => {
    expect(pds.map((p) => Array.from(p.cpus))).toEqual([[0, 1, 2, 3], [4, 5, 6], [7]])
    expect(pds.map((p) => p.capacity)).toEqual([284, 871, 1024])
    expect(energyModelUsable(rb5, pds)).toBe(true)
    const smp = resolveTopology('smp-8')
    expect(energyModelUsable(smp, buildPerfDomains(smp))).toBe(false)
  })

  it('effective perf adds 25% headroom within [uclamp_min, uclamp_max]', () => {
    expect(sugovEffectiveCpuPerf(400, 0, 1024)).toBe(500)
    expect(sugovEffectiveCpuPerf(400, 600, 1024)).toBe(600)
    expect(sugovEffectiveCpuPerf(400, 0, 450)).toBe(450)
    const b: UtilBounds = { min: 0, max: 0 }
    expect(effectiveCpuUtil(284, 200, 100, 0, 1024, false, false, b)).toBe(284)
    expect(b.max).toBe(284)
    effectiveCpuUtil(871, 100, 0, 0, 1024, true, false, b)
    expect(b.min).toBe(871) // runnable RT without uclamp: full speed
  })

  it('schedutil picks the lowest OPP covering util * 1.25', () => {
    const little = pds[0]
    expect(schedutilOppIndex(little, 284)).toBe(little.freqKhz.length - 1)
    // 142/284 of 1804.8 MHz = 902.4 MHz -> 979.2 MHz.
    expect(little.freqKhz[schedutilOppIndex(little, 142)]).toBe(979200)
    expect(little.freqKhz[schedutilOppIndex(little, 1)]).toBe(300000)
    expect(freqScaleOf(little, little.freqKhz.length - 1)).toBe(1024)
    expect(freqScaleOf(little, 0)).toBe(170)
  })

  it('energy: a small task costs less on a little CPU than on the big one, and more util costs more', () => {
    const util = 100
    const perf = sugovEffectiveCpuPerf(util, 0, 1024)
    const onLittle = emCpuEnergy(pds[0], perf, util, pds[0].capacity)
    const onMid = emCpuEnergy(pds[1], perf, util, pds[1].capacity)
    const onBig = emCpuEnergy(pds[2], perf, util, pds[2].capacity)
    expect(onLittle).toBeLessThan(onMid)
    expect(onMid).toBeLessThan(onBig)
    expect(emCpuEnergy(pds[0], perf, 0, 284)).toBe(0)
    expect(emCpuEnergy(pds[0], 250, 250, 284)).toBeGreaterThan(emCpuEnergy(pds[0], 125, 250, 284))
  })
})
