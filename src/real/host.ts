import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { cpus as osCpus, platform, release } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'

/**
 * This machine as a real run and the simulator see it: kernel release, online CPUs and their
 * topology (capacities, SMT siblings, packages, shared caches), cpuidle states with their exit
 * latencies, HZ and the preemption model. Read from /proc and sysfs; nothing here runs in the
 * simulator (it stays free of I/O: the detected specs are passed in).
 */

export type PreemptModel = 'none' | 'voluntary' | 'full' | 'lazy' | 'rt'

export interface HostIdleState {
  name: string
  exitLatencyUs: number
  targetResidencyUs: number
  disabled: boolean
}

export interface HostCpu {
  id: number
  capacity: number
  package: number
  core: number
  /** The last-level cache this CPU shares (its shared_cpu_list), as a key. */
  llc: string
  /** CPUs sharing this CPU's core (SMT). */
  siblings: number[]
  /** cluster_id where the architecture reports one (arm64), else -1. */
  cluster: number
  maxFreqKhz: number | null
  idleStates: HostIdleState[]
}

export interface HostInfo {
  os: string
  kernel: string
  /** uname -v: build flags such as PREEMPT_DYNAMIC. */
  version: string
  cpus: HostCpu[]
  model: string
  hz: number | null
  hzSource: string | null
  preempt: PreemptModel | null
  preemptSource: string | null
  cpuidleDriver: string | null
  cpuidleGovernor: string | null
  autogroup: boolean | null
  /** CONFIG_* values from /proc/config.gz or /boot/config-RELEASE (empty when unreadable). */
  config: Map<string, string>
  configSource: string | null
}

const SYS_CPU = '/sys/devices/system/cpu'

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return null
  }
}

/** "0-3,5,7-8" -> [0,1,2,3,5,7,8] */
export function parseCpuList(s: string | null): number[] {
  if (!s) return []
  const out: number[] = []
  for (const part of s.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim())
    if (!m) continue
    const a = Number(m[1])
    const b = m[2] === undefined ? a : Number(m[2])
    for (let c = a; c <= b; c++) out.push(c)
  }
  return out
}

export function parseKernelConfig(text: string): Map<string, string> {
  const m = new Map<string, string>()
  for (const line of text.split('\n')) {
    const x = /^(CONFIG_\w+)=(.*)$/.exec(line)
    if (x) m.set(x[1], x[2].replace(/^"|"$/g, ''))
  }
  return m
}

function kernelConfig(rel: string): { config: Map<string, string>; source: string | null } {
  try {
    return { config: parseKernelConfig(gunzipSync(readFileSync('/proc/config.gz')).toString('utf8')), source: '/proc/config.gz' }
  } catch {
    // not built with IKCONFIG_PROC
  }
  const boot = `/boot/config-${rel}`
  const t = read(boot)
  if (t) return { config: parseKernelConfig(t), source: boot }
  return { config: new Map(), source: null }
}

/** The preemption model in effect: debugfs, then preempt= on the command line, dmesg, the config. */
export function detectPreempt(config: Map<string, string>, sources: { debugfs?: string | null; cmdline?: string | null; dmesg?: string | null } = {}): { model: PreemptModel | null; source: string | null } {
  const debugfs = sources.debugfs !== undefined ? sources.debugfs : read('/sys/kernel/debug/sched/preempt')
  if (debugfs) {
    // "none voluntary (full) lazy": the current one in parentheses
    const cur = /\((\w+)\)/.exec(debugfs)?.[1]
    if (cur && isModel(cur)) return { model: cur, source: '/sys/kernel/debug/sched/preempt' }
  }
  if (config.get('CONFIG_PREEMPT_RT') === 'y') return { model: 'rt', source: 'CONFIG_PREEMPT_RT' }
  const dynamic = config.get('CONFIG_PREEMPT_DYNAMIC') === 'y' || config.size === 0
  const cmdline = sources.cmdline !== undefined ? sources.cmdline : read('/proc/cmdline')
  const boot = cmdline ? /(?:^|\s)preempt=(\w+)/.exec(cmdline)?.[1] : undefined
  if (dynamic && boot && isModel(boot)) return { model: boot, source: '/proc/cmdline preempt=' }
  const dmesg = sources.dmesg !== undefined ? sources.dmesg : readDmesg()
  const dyn = dmesg ? /Dynamic Preempt: (\w+)/.exec(dmesg)?.[1] : undefined
  if (dyn && isModel(dyn)) return { model: dyn, source: 'dmesg "Dynamic Preempt"' }
  if (config.get('CONFIG_PREEMPT_LAZY') === 'y') return { model: 'lazy', source: 'CONFIG_PREEMPT_LAZY' }
  if (config.get('CONFIG_PREEMPT') === 'y') return { model: 'full', source: 'CONFIG_PREEMPT' }
  if (config.get('CONFIG_PREEMPT_VOLUNTARY') === 'y') return { model: 'voluntary', source: 'CONFIG_PREEMPT_VOLUNTARY' }
  if (config.get('CONFIG_PREEMPT_NONE') === 'y') return { model: 'none', source: 'CONFIG_PREEMPT_NONE' }
  return { model: null, source: null }
}

function isModel(s: string): s is PreemptModel {
  return s === 'none' || s === 'voluntary' || s === 'full' || s === 'lazy' || s === 'rt'
}

function readDmesg(): string | null {
  const r = spawnSync('dmesg', [], { encoding: 'utf8', maxBuffer: 64 << 20 })
  return r.status === 0 ? r.stdout : null
}

function idleStates(cpu: number): HostIdleState[] {
  const dir = join(SYS_CPU, `cpu${cpu}`, 'cpuidle')
  let names: string[] = []
  try {
    names = readdirSync(dir).filter((n) => /^state\d+$/.test(n)).sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)))
  } catch {
    return []
  }
  return names.map((s) => ({
    name: read(join(dir, s, 'name')) ?? s,
    exitLatencyUs: Number(read(join(dir, s, 'latency')) ?? 0),
    targetResidencyUs: Number(read(join(dir, s, 'residency')) ?? 0),
    disabled: read(join(dir, s, 'disable')) === '1'
  }))
}

function llcKey(cpu: number): string {
  const dir = join(SYS_CPU, `cpu${cpu}`, 'cache')
  let best = -1
  let key = 'all'
  try {
    for (const idx of readdirSync(dir).filter((n) => /^index\d+$/.test(n))) {
      const level = Number(read(join(dir, idx, 'level')) ?? -1)
      const type = read(join(dir, idx, 'type'))
      if (type === 'Instruction' || level <= best) continue
      best = level
      key = `L${level}:${read(join(dir, idx, 'shared_cpu_list')) ?? cpu}`
    }
  } catch {
    // no cache information: one LLC for all
  }
  return key
}

export function onlineCpus(): number[] {
  const list = parseCpuList(read(join(SYS_CPU, 'online')))
  return list.length > 0 ? list : osCpus().map((_, i) => i)
}

let cached: HostInfo | null = null

/** Detect this machine (once per process). */
export function detectHost(): HostInfo {
  if (cached) return cached
  const rel = release()
  const { config, source } = kernelConfig(rel)
  const hzVal = config.get('CONFIG_HZ')
  const preempt = platform() === 'linux' ? detectPreempt(config) : { model: null, source: null }
  const cpus: HostCpu[] = onlineCpus().map((id) => {
    const topo = join(SYS_CPU, `cpu${id}`, 'topology')
    const freq = read(join(SYS_CPU, `cpu${id}`, 'cpufreq', 'cpuinfo_max_freq'))
    return {
      id,
      capacity: Number(read(join(SYS_CPU, `cpu${id}`, 'cpu_capacity')) ?? 1024) || 1024,
      package: Number(read(join(topo, 'physical_package_id')) ?? 0),
      core: Number(read(join(topo, 'core_id')) ?? id),
      llc: llcKey(id),
      siblings: parseCpuList(read(join(topo, 'thread_siblings_list')) ?? String(id)),
      cluster: Number(read(join(topo, 'cluster_id')) ?? -1),
      maxFreqKhz: freq ? Number(freq) : null,
      idleStates: idleStates(id)
    }
  })
  const autogroup = read('/proc/sys/kernel/sched_autogroup_enabled')
  cached = {
    os: platform(),
    kernel: rel,
    version: spawnSync('uname', ['-v'], { encoding: 'utf8' }).stdout?.trim() ?? '',
    cpus,
    model: osCpus()[0]?.model ?? '',
    hz: hzVal ? Number(hzVal) : null,
    hzSource: hzVal ? `${source} CONFIG_HZ` : null,
    preempt: preempt.model,
    preemptSource: preempt.source,
    cpuidleDriver: read(join(SYS_CPU, 'cpuidle', 'current_driver')),
    cpuidleGovernor: read(join(SYS_CPU, 'cpuidle', 'current_governor_ro')) ?? read(join(SYS_CPU, 'cpuidle', 'current_governor')),
    autogroup: autogroup === null ? null : autogroup === '1',
    config,
    configSource: source
  }
  return cached
}

/** Refuse (with the reason) when this is no Linux a real run can use. */
export function linuxOrReason(): string | null {
  if (platform() !== 'linux') return `this is ${platform()}, not Linux: real runs and the host topology need a Linux kernel`
  if (!existsSync('/proc/self/stat')) return 'no /proc: real runs need Linux\'s procfs'
  return null
}
