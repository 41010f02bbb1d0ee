import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import { describe, expect, it } from 'vitest'
import { runCli } from '../cli/index'
import { memoryIo } from '../cli/io'
import { allReasonCodes } from '../sim/metrics/recorder'
import type { RunOutput } from '../shared/result'
import { ProtoWriter } from '../sim/metrics/protobuf'

const PROTO = fileURLToPath(new URL('./perfetto-protos/perfetto-subset.proto', import.meta.url))
const root = protobuf.loadSync(PROTO)
const Trace = root.lookupType('perfetto.protos.Trace')

interface Decoded {
  packet: {
    timestamp?: number | { toNumber(): number }
    trustedPacketSequenceId?: number
    ftraceEvents?: { cpu: number; lostEvents?: boolean; event: { timestamp: unknown; pid: number; schedSwitch?: Record<string, number | string>; schedWaking?: Record<string, number | string>; cpuIdle?: { state: number; cpuId: number }; schedMigrateTask?: Record<string, number | string> }[] }
    processTree?: { processes: { pid: number; cmdline: string[] }[]; threads: { tid: number; tgid?: number; name: string }[] }
    trackEvent?: { type: string | number; trackUuid: unknown; name: string; debugAnnotations: { name: string; stringValue: string }[] }
    trackDescriptor?: { uuid: unknown; name: string }
    systemInfo?: { utsname: { sysname: string; release: string } }
  }[]
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v))

async function tracedRun(scenario: object, args: string[] = []): Promise<{ trace: Decoded; out: RunOutput }> {
  const io = memoryIo({ 's.json': JSON.stringify(scenario) })
  const code = await runCli(['run', 's.json', '--json', '--trace-format', 'perfetto', '--out', 'out', ...args], io)
  expect(code, io.stderr).toBe(0)
  const files = Object.keys(io.binaries).filter((f) => f.endsWith('.perfetto-trace'))
  expect(files).toHaveLength(1)
  const trace = Trace.toObject(Trace.decode(io.binaries[files[0]]), { longs: Number, enums: String, defaults: false }) as unknown as Decoded
  return { trace, out: JSON.parse(io.stdout) as RunOutput }
}

describe('Perfetto trace', () => {
  it('decodes against the schema, and its switches, wakeups and migrations are the run\'s', async () => {
    const { trace, out } = await tracedRun({
      name: 'perfetto', topology: 'smp-4', durationMs: 60, kernel: { hz: 250 },
      workloads: [
        { type: 'hackbench', name: 'hb', groups: 1, mode: 'thread', ipc: 'pipe', loops: 200, repeat: true },
        { type: 'cyclictest', name: 'ct', periodUs: 1000 },
        { type: 'periodic', name: 'rt', policy: 'fifo', priority: 40, runUs: 300, periodUs: 4000 }
      ]
    })
    const stats = out.variants[0].stats
    let switchIn = 0
    let wakings = 0
    let migrations = 0
    let idleEnter = 0
    let idleExit = 0
    const current = new Map<number, number>()
    const lastTs = new Map<number, number>()
    for (const p of trace.packet) {
      const b = p.ftraceEvents
      if (!b) continue
      expect(b.lostEvents ?? false).toBe(false)
      for (const e of b.event) {
        const ts = num(e.timestamp)
        expect(ts).toBeGreaterThanOrEqual(lastTs.get(b.cpu) ?? 0)
        lastTs.set(b.cpu, ts)
        if (e.schedSwitch) {
          const s = e.schedSwitch
          // each CPU's switches chain: prev is what the last one switched to
          if (current.has(b.cpu)) expect(s.prevPid).toBe(current.get(b.cpu))
          current.set(b.cpu, num(s.nextPid))
          expect([0, 1, 2, 0x10, 0x100]).toContain(num(s.prevState ?? 0))
          expect(e.pid).toBe(num(s.prevPid ?? 0))
          if (num(s.nextPid ?? 0) !== 0 && !String(s.nextComm).startsWith('migration/')) switchIn++
        } else if (e.schedWaking) wakings++
        else if (e.schedMigrateTask) {
          migrations++
          expect(e.schedMigrateTask.destCpu).toBe(b.cpu)
        } else if (e.cpuIdle) {
          expect(e.cpuIdle.cpuId).toBe(b.cpu)
          if (e.cpuIdle.state === 4294967295) idleExit++
          else idleEnter++
        }
      }
    }
    expect(switchIn).toBe(stats.contextSwitches)
    expect(wakings).toBe(stats.wakeups)
    expect(migrations).toBe(stats.migrations)
    expect(idleEnter).toBeGreaterThan(0)
    expect(Math.abs(idleEnter - idleExit)).toBeLessThanOrEqual(4)
    // the kernel version the sched_switch states are decoded with
    expect(trace.packet.find((p) => p.systemInfo)?.systemInfo?.utsname).toMatchObject({ sysname: 'Linux', release: expect.stringMatching(/^6\./) })
    // thread tracks are named: every task is a thread of its workload's process
    const threads = trace.packet.flatMap((p) => p.processTree?.threads ?? [])
    const procs = trace.packet.flatMap((p) => p.processTree?.processes ?? [])
    expect(procs.map((p) => p.cmdline[0])).toEqual(['hb', 'ct', 'rt'])
    for (const t of out.variants[0].tasks) {
      const th = threads.find((x) => x.name === t.name)
      expect(th, t.name).toBeDefined()
      expect(procs.some((p) => p.pid === th!.tgid)).toBe(true)
    }
    // the decisions, on one named track per CPU, with their reason code and sentence
    const tracks = trace.packet.flatMap((p) => (p.trackDescriptor ? [p.trackDescriptor] : []))
    expect(tracks.map((t) => t.name)).toEqual(['CPU 0 decisions', 'CPU 1 decisions', 'CPU 2 decisions', 'CPU 3 decisions'])
    const events = trace.packet.filter((p) => p.trackEvent)
    expect(events.length).toBeGreaterThan(100)
    const codes = new Set(allReasonCodes())
    for (const p of events.slice(0, 2000)) {
      expect(p.trustedPacketSequenceId).toBe(2)
      expect(p.trackEvent!.type).toBe('TYPE_INSTANT')
      expect(codes.has(p.trackEvent!.name), p.trackEvent!.name).toBe(true)
      expect(tracks.some((t) => num(t.uuid) === num(p.trackEvent!.trackUuid))).toBe(true)
      expect(p.trackEvent!.debugAnnotations.find((a) => a.name === 'text')?.stringValue.length).toBeGreaterThan(5)
    }
    expect(events.some((p) => p.trackEvent!.name === 'WAKEUP_RT_PREEMPTS_FAIR')).toBe(true)
  })

  it('encodes varints, nested lengths and long strings the way protobuf decoders read them', () => {
    const w = new ProtoWriter(4)
    w.begin(1)
    w.uint(8, 2 ** 40 + 5)
    w.begin(2)
    w.begin(2)
    w.uint(1, 7)
    w.int(3, -3)
    w.string(2, 't')
    w.end()
    w.end()
    w.end()
    w.begin(1)
    w.begin(45)
    w.begin(1)
    w.string(3, 'x'.repeat(300) + '\u00e9')
    w.end()
    w.end()
    w.end()
    const t = Trace.toObject(Trace.decode(w.take()), { longs: Number }) as unknown as Decoded
    expect(num(t.packet[0].timestamp)).toBe(2 ** 40 + 5)
    expect(t.packet[0].processTree!.threads).toEqual([{ tid: 7, tgid: -3, name: 't' }])
    expect(t.packet[1].systemInfo!.utsname.release).toBe('x'.repeat(300) + '\u00e9')
  })
})
