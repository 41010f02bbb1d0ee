import { describe, expect, it } from 'vitest'
import { parseScenario, type HostSpecs } from '../sim/scenario'
import type { HostCpu, HostInfo } from './host'
import { hostKernelSpec, hostTopologySpec, nearestProfile, stableBackports } from './host-specs'

const idle = [{ name: 'POLL', exitLatencyUs: 0, targetResidencyUs: 0, disabled: false }, { name: 'C6', exitLatencyUs: 133, targetResidencyUs: 600, disabled: true }]
const cpu = (id: number, over: Partial<HostCpu> = {}): HostCpu => ({ id, capacity: 1024, package: 0, core: id, llc: 'L3:all', siblings: [id], cluster: -1, maxFreqKhz: null, idleStates: idle, ...over })
const host = (cpus: HostCpu[], over: Partial<HostInfo> = {}): HostInfo => ({
  os: 'linux', kernel: '6.18.44-x', version: '#1 SMP PREEMPT_DYNAMIC', cpus, model: 'Test CPU', hz: 250, hzSource: '/proc/config.gz CONFIG_HZ', preempt: 'none', preemptSource: 'dmesg',
  cpuidleDriver: 'haltpoll', cpuidleGovernor: 'haltpoll', autogroup: true, config: new Map(), configSource: null, ...over
})

describe('the host as topology and kernel profile', () => {
  it('takes the newest modeled profile not newer than the release', () => {
    expect(nearestProfile('6.18.44-fc-v669').profile).toBe('6.17')
    expect(nearestProfile('6.19.2').profile).toBe('6.19')
    expect(nearestProfile('6.12.0-rt').profile).toBe('6.12')
    expect(nearestProfile('5.15.0')).toMatchObject({ profile: '6.6', note: expect.stringMatching(/older than every modeled/) })
    expect(nearestProfile('7.1.0').profile).toBe('tip-2026')
    // 6.18.5 took 6.19's proportional newidle balance (NI_RANDOM, with the revert of the
    // max_newidle_lb_cost bump); earlier 6.18 releases and other series did not
    expect(stableBackports('6.18.44-fc-v669', [])).toEqual({ NI_RANDOM: true })
    expect(stableBackports('6.18.4', [])).toBeUndefined()
    expect(stableBackports('6.17.9', [])).toBeUndefined()
  })

  it('groups identical CPUs into clusters, SMT siblings made adjacent, disabled idle states left out', () => {
    const smt = hostTopologySpec(host([cpu(0, { core: 0, siblings: [0, 2] }), cpu(1, { core: 1, siblings: [1, 3] }), cpu(2, { core: 0, siblings: [0, 2] }), cpu(3, { core: 1, siblings: [1, 3] })]), () => 0)
    expect(smt.clusters).toEqual([{ name: 'host', cpus: 4, capacity: 1024, smt: 2, llc: 0, package: 0, node: 0, idleStates: [{ name: 'POLL', exitLatencyUs: 0, targetResidencyUs: 0 }] }])
    expect(smt.cpuMap).toEqual([0, 2, 1, 3])
    expect(smt.source).toMatch(/Simulated CPU i is host CPU 0, 2, 1, 3/)
    const bigLittle = hostTopologySpec(host([cpu(0, { capacity: 512, llc: 'L2:0-1' }), cpu(1, { capacity: 512, llc: 'L2:0-1' }), cpu(2, { capacity: 1024, llc: 'L2:2' })]), () => 0)
    expect(bigLittle.clusters.map((c) => [c.name, c.cpus, c.capacity, c.llc])).toEqual([['host0', 2, 512, 0], ['host1', 1, 1024, 1]])
  })

  it('maps HZ and the preemption model onto what the model knows, saying so', () => {
    expect(hostKernelSpec(host([cpu(0)]))).toMatchObject({ profile: '6.17', hz: 250, preempt: 'none' })
    expect(hostKernelSpec(host([cpu(0)], { preempt: 'rt', hz: 1200 }))).toMatchObject({ hz: 1000, preempt: 'full', notes: expect.arrayContaining([expect.stringMatching(/PREEMPT_RT is modeled as full/), 'HZ 1200 is not modeled: 1000']) })
  })

  it('is what "topology": "host" and "profile": "host" resolve to; without a host, a clear error at the JSON path', () => {
    const h = host([cpu(0), cpu(1)])
    const specs: HostSpecs = { topology: hostTopologySpec(h, () => 0), kernel: hostKernelSpec(h) }
    const text = (k: object) => JSON.stringify({ name: 'h', topology: 'host', kernel: { profile: 'host', ...k }, durationMs: 100, workloads: [{ type: 'hog', name: 'hog', cpus: [1] }] })
    const s = parseScenario(text({}), 'h.json', { host: () => specs })
    expect(s.topology.name).toBe('host')
    expect(s.kernel).toMatchObject({ profile: '6.17', hz: 250, preempt: 'none' })
    expect(s.warnings?.join(' ')).toMatch(/kernel profile "host" is 6.17, HZ 250, preempt none/)
    expect(parseScenario(text({ hz: 1000, preempt: 'full' }), 'h.json', { host: () => specs }).kernel).toMatchObject({ hz: 1000, preempt: 'full', profile: '6.17' })
    // 6.18.44's stable backport comes with the host profile; the scenario's own switch wins
    expect(s.kernel.features).toMatchObject({ NI_RANDOM: true })
    expect(parseScenario(text({ features: { NI_RANDOM: false } }), 'h.json', { host: () => specs }).kernel.features).toMatchObject({ NI_RANDOM: false })
    expect(() => parseScenario(text({}), 'h.json', { host: () => ({ unavailable: 'this is darwin, not Linux' }) })).toThrow(/topology: "host" is this machine's topology, which only schedlab on Linux reads \(this is darwin, not Linux\)/)
    expect(() => parseScenario(text({}), 'h.json')).toThrow(/"host" is this machine's/)
  })
})
