import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { runCli } from '../cli/index'
import { memoryIo } from '../cli/io'
import { parseScenario, expandRuns } from '../sim/scenario'
import { planWorkloads, whichOnPath } from '../real/workloads'
import { cpioNewc, parentDirs } from './cpio'
import { diskError, VmFailure, VmRefusal } from './errors'
import { ensureGuestImage, INIT_SCRIPT, runArchive } from './guest'
import { resolveKernel, seriesForProfile, systemMirror, userImage } from './images'
import { chooseAccel, qemuArgs } from './qemu'
import { checkVmVariants, featureWrites, guestError, parseGuestReport, planText, preemptInEffect, scaledBaseSliceNs, tcgTurnsWarning, archWarning } from './runner'
import { qemuTopology, qemuTopologyArgs } from './topology'

/** The VM runner's parts that need no QEMU: the image format, topology, plans, reports, refusals. */

const scenario = (extra: Record<string, unknown> = {}) =>
  parseScenario(JSON.stringify({
    name: 'vm unit', topology: 'smp-2', durationMs: 1000,
    variants: [{ name: 'base' }, { name: 'flags', features: { RUN_TO_PARITY: false, NEXT_BUDDY: true } }],
    workloads: [
      { type: 'cyclictest', name: 'ct', threads: 1, periodUs: 2777, sliceUs: 100 },
      { type: 'hog', name: 'hog', count: 2, cpus: [0], nice: 5 },
      { type: 'hackbench', name: 'hb', groups: 1, loops: 100, repeat: true, delayUs: 200000 }
    ],
    ...extra
  }), 'vm-unit.json')

describe('the guest image format', () => {
  it('writes a newc archive that cpio lists back, device nodes and modes included', () => {
    const buf = cpioNewc([...parentDirs(['/bin/x']), { type: 'file', path: '/bin/x', data: 'hello', mode: 0o755 }, { type: 'chardev', path: '/dev/console', major: 5, minor: 1 }, { type: 'symlink', path: '/sh', target: 'bin/x' }])
    expect(buf.toString('latin1', 0, 6)).toBe('070701')
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-cpio-'))
    try {
      writeFileSync(join(dir, 'a.cpio'), buf)
      const r = spawnSync('sh', ['-c', `busybox cpio -t -v < ${join(dir, 'a.cpio')} 2>&1 || cpio -t -v < ${join(dir, 'a.cpio')}`], { encoding: 'utf8' })
      if (r.status === 0 && /bin\/x/.test(r.stdout)) {
        expect(r.stdout).toMatch(/-rwxr-xr-x .* bin\/x/)
        expect(r.stdout).toMatch(/crw------- .* dev\/console/)
        expect(r.stdout).toMatch(/sh -> bin\/x/)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    // the trailer, 4-byte alignment of every header
    expect(buf.includes(Buffer.from('TRAILER!!!'))).toBe(true)
    expect(buf.length % 4).toBe(0)
  })

  it("a run's archive carries its parameters (shell-quoted), plan and files", () => {
    const gz = runArchive({ FEATURES: "NO_RUN_TO_PARITY it's" }, 'duration_ms\t10\n', [{ path: '/out/w0-rtapp.json', text: '{}' }])
    const text = gunzipSync(gz).toString('latin1')
    expect(text).toContain("FEATURES='NO_RUN_TO_PARITY it'\\''s'")
    expect(text).toContain('run/plan')
    expect(text).toContain('out/w0-rtapp.json')
  })

  it('the init script reports on the console and powers off on every error', () => {
    expect(INIT_SCRIPT.startsWith('#!/bin/busybox sh')).toBe(true)
    for (const m of ['booted', 'running', 'shipping', 'done']) expect(INIT_SCRIPT).toContain(`say ${m}`)
    expect(INIT_SCRIPT).toMatch(/fail\(\) \{ say "error: \$\*"; poweroff -f/)
  })
})

describe('topology as QEMU expresses it', () => {
  it('smp-N, sockets with SMT and NUMA nodes', () => {
    expect(qemuTopology(scenario().topology)).toMatchObject({ cpus: 2, sockets: 1, cores: 2, threads: 1, nodes: [] })
    const two = qemuTopology({ name: '2s', clusters: [{ name: 'a', cpus: 2, capacity: 1024, package: 0 }, { name: 'b', cpus: 2, capacity: 1024, package: 1 }] })
    expect(two).toMatchObject({ cpus: 4, sockets: 2, cores: 2, threads: 1, nodes: [{ cpus: [0, 1] }, { cpus: [2, 3] }] })
    expect(qemuTopologyArgs(two, 512)).toEqual(['-smp', '4,sockets=2,cores=2,threads=1', '-m', '512M', '-object', 'memory-backend-ram,id=mem0,size=256M', '-numa', 'node,nodeid=0,cpus=0-1,memdev=mem0', '-object', 'memory-backend-ram,id=mem1,size=256M', '-numa', 'node,nodeid=1,cpus=2-3,memdev=mem1'])
    const x86 = qemuTopology(parseScenario(JSON.stringify({ name: 'x', topology: 'x86-2s', durationMs: 100, workloads: [{ type: 'hog', name: 'h' }] }), 'x.json').topology)
    expect(x86).toMatchObject({ cpus: 80, sockets: 2, cores: 20, threads: 2 })
    expect(x86.nodes).toHaveLength(2)
    expect(x86.distances).toContainEqual({ src: 0, dst: 1, val: 21 })
  })

  it('refuses what QEMU cannot express: asymmetric capacities (rb5), uneven sockets, several LLCs per socket', () => {
    const rb5 = parseScenario(JSON.stringify({ name: 'x', topology: 'rb5', durationMs: 100, workloads: [{ type: 'hog', name: 'h' }] }), 'x.json').topology
    expect(() => qemuTopology(rb5)).toThrow(VmRefusal)
    expect(() => qemuTopology(rb5)).toThrow(/asymmetric CPU capacities.*QEMU cannot express/)
    expect(() => qemuTopology({ name: 'u', clusters: [{ name: 'a', cpus: 2, capacity: 1024, package: 0 }, { name: 'b', cpus: 4, capacity: 1024, package: 1 }] })).toThrow(/sockets of different sizes/)
    const e18 = parseScenario(JSON.stringify({ name: 'x', topology: 'embedded-18', durationMs: 100, workloads: [{ type: 'hog', name: 'h' }] }), 'x.json').topology
    expect(() => qemuTopology(e18)).toThrow(/LLC/)
  })
})

describe('accelerator choice by detection', () => {
  it('TCG without /dev/kvm, or when it is unusable or QEMU cannot use it; KVM when it works; the environment decides when set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-kvm-'))
    try {
      expect(chooseAccel({ kvmPath: join(dir, 'none'), env: {} })).toMatchObject({ accel: 'tcg', reason: expect.stringContaining('no ') })
      const dev = join(dir, 'kvm')
      writeFileSync(dev, '')
      expect(chooseAccel({ kvmPath: dev, env: {}, probe: () => null })).toMatchObject({ accel: 'kvm' })
      expect(chooseAccel({ kvmPath: dev, env: {}, probe: () => 'failed to initialize kvm' })).toMatchObject({ accel: 'tcg', reason: expect.stringContaining('failed to initialize kvm') })
      expect(chooseAccel({ kvmPath: dev, env: { SCHEDLAB_VM_ACCEL: 'tcg' }, probe: () => null })).toMatchObject({ accel: 'tcg' })
      expect(() => chooseAccel({ env: { SCHEDLAB_VM_ACCEL: 'hvf' } })).toThrow(VmRefusal)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('TCG runs with icount, a fixed seed and a fixed clock; KVM with the host CPU', () => {
    const g = { seed: 7, vmlinuz: '/k', initrd: '/i', topologyArgs: ['-smp', '2'], outFile: '/o' }
    const tcg = qemuArgs({ ...g, accel: 'tcg' }).join(' ')
    expect(tcg).toContain('-icount shift=2,sleep=off')
    expect(tcg).toContain('-seed 7')
    expect(tcg).toContain('-rtc base=2020-01-01T00:00:00,clock=vm')
    // virtio notifications in the vCPU thread: an ioeventfd would make the run depend on host timing
    expect(tcg).toContain('virtio-serial-pci,ioeventfd=off')
    const kvm = qemuArgs({ ...g, accel: 'kvm' }).join(' ')
    expect(kvm).toContain('-accel kvm -cpu host')
    expect(kvm).not.toContain('icount')
  })
})

describe('variants in a guest', () => {
  it('writes sched_feat flags, scales the base slice as the kernel does, and plans the workloads of schedlab real', () => {
    const s = scenario()
    expect(featureWrites(s, 0)).toEqual([])
    expect(featureWrites(s, 1)).toEqual(['NO_RUN_TO_PARITY', 'NEXT_BUDDY'])
    expect(scaledBaseSliceNs(700, 2)).toBe(1_400_000)
    expect(scaledBaseSliceNs(700, 16)).toBe(2_800_000)
    expect(scaledBaseSliceNs(700, 4, 'none')).toBe(700_000)
    const plans = planWorkloads(s.workloads, { helper: '/bin/schedlab-helper', durationMs: 1000, ncpus: 2, runDir: '/out', kernelConfig: new Map(), which: (p) => `/usr/bin/${p}` })
    const text = planText(plans, 1000)
    const lines = text.trim().split('\n').map((l) => l.split('\t'))
    expect(lines[0]).toEqual(['duration_ms', '1000'])
    // start order by delay: hackbench (200 ms) last
    expect(lines.slice(1).map((l) => l[1])).toEqual(['w0', 'w1', 'w2'])
    expect(lines[1].slice(2, 7)).toEqual(['0', 'SIGINT', '0', '/out/w0.out', 'nice=0,slice_ns=100000'])
    expect(lines[1].slice(7, 9)).toEqual(['/usr/bin/cyclictest', '-q'])
    expect(lines[2].slice(6, 9)).toEqual(['policy=other,nice=5,cpus=0', '/bin/schedlab-helper', 'load'])
    expect(lines[3].slice(2, 5)).toEqual(['200', 'SIGTERM', '1'])
  })

  it('refuses model-only patches unless the kernel is the user\'s own, and variants that change the kernel', () => {
    const s = scenario({ variants: [{ name: 'base' }, { name: 'patched', patches: ['short-slice-v1'] }] })
    const runs = expandRuns(s)
    expect(() => checkVmVariants(runs, false)).toThrow(/exist only in the model.*--kernel PATH/)
    expect(() => checkVmVariants(runs, true)).not.toThrow()
    const hz = scenario({ variants: [{ name: 'base' }, { name: 'hz', kernel: { hz: 1000 } }] })
    expect(() => checkVmVariants(expandRuns(hz), true)).toThrow(/kernel\.hz/)
  })

  it('reads the guest runner\'s report, the preemption model in effect, and names a missing tool', () => {
    const r = parseGuestReport('start\t100\npid\tw0\t42\npid\tw1\t43\nexit\tw1\t0\npid\tw1.r1\t50\nerror\tw2\t/usr/bin/rt-app: No such file or directory\nkilled\tw0\nend\t900\n')
    expect(r).toMatchObject({ startNs: 100, endNs: 900, pids: [{ id: 'w0', pid: 42 }, { id: 'w1', pid: 43 }, { id: 'w1.r1', pid: 50 }], exits: [{ id: 'w1', status: 0 }], killed: ['w0'] })
    expect(guestError(`${r.errors[0].id}: ${r.errors[0].message}`)).toBeInstanceOf(VmRefusal)
    expect(guestError('w2: /usr/bin/rt-app: No such file or directory').message).toMatch(/tool is missing in the guest/)
    expect(preemptInEffect('none (voluntary) full\n')).toBe('voluntary')
    expect(preemptInEffect('full (lazy)')).toBe('lazy')
    expect(preemptInEffect('')).toBeNull()
  })

  it('a tool this machine lacks is missing from the guest image, with the package that has it', () => {
    const s = scenario({ workloads: [{ type: 'rt-app', name: 'ra', tasks: { t: { run: 1000, sleep: 1000 } } }] })
    expect(() => planWorkloads(s.workloads, { helper: '/bin/schedlab-helper', durationMs: 1000, ncpus: 2, runDir: '/out', kernelConfig: new Map(), which: () => null })).toThrow(/rt-app is not installed.*apt-get install rt-app/)
  })
})

describe('kernel images and faults', () => {
  it('picks the series of the scenario\'s kernel profile, reads the system\'s mirror, and checks a user\'s bzImage', () => {
    expect(seriesForProfile('6.12')).toBe('6.12')
    expect(seriesForProfile('6.6')).toBe('6.12')
    expect(seriesForProfile('tip-2026')).toBe('7.2')
    expect(systemMirror()).toMatch(/^https?:\/\/\S+\/debian$/)
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-img-'))
    try {
      expect(() => userImage(join(dir, 'nothing'))).toThrow(/no such file/)
      writeFileSync(join(dir, 'junk'), Buffer.alloc(4096, 1))
      expect(() => userImage(join(dir, 'junk'))).toThrow(/not an x86 bzImage/)
      const fake = Buffer.alloc(4096)
      fake.write('HdrS', 0x202, 'latin1')
      fake.writeUInt16LE(0x300, 0x20e)
      fake.write('6.99.0-mine (me@box) #1 SMP', 0x500, 'latin1')
      writeFileSync(join(dir, 'bzImage'), fake)
      expect(userImage(join(dir, 'bzImage'))).toMatchObject({ source: 'user', version: '6.99.0-mine', series: null })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a full disk is one clear failure naming the folder', () => {
    const e = diskError(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), '/cache', 'the guest image')
    expect(e).toBeInstanceOf(VmFailure)
    expect(e.message).toMatch(/^the cache disk is full: the guest image needs space in \/cache/)
    const other = new Error('EACCES')
    expect(diskError(other, '/cache', 'x')).toBe(other)
  })

  it('a full cache disk: fetching a kernel and building the guest image fail with one clear line naming the folder', async (ctx) => {
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-full-'))
    const mounted = process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]).status === 0
    try {
      if (!mounted) return ctx.skip('needs root and mount to make a 1 MB disk')
      const e1 = await resolveKernel('6.12', dir).then(() => null, (e: unknown) => e)
      expect(e1).toBeInstanceOf(VmFailure)
      expect((e1 as Error).message).toMatch(new RegExp(`^the cache disk is full: fetching Debian's 6.12 kernel .* needs space in ${dir}`))
      if (!whichOnPath('busybox') || !whichOnPath('cyclictest') || !whichOnPath('hackbench') || !whichOnPath('cc')) return
      const e2 = (() => {
        try {
          ensureGuestImage(dir)
          return null
        } catch (e) {
          return e
        }
      })()
      expect(e2).toBeInstanceOf(VmFailure)
      expect((e2 as Error).message).toMatch(/^the cache disk is full: the guest (image|helper)/)
    } finally {
      if (mounted) spawnSync('umount', [dir])
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the CLI refuses with exit 2 and one line: a topology QEMU cannot express, a missing kernel file, a patch of the model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'schedlab-vmcli-'))
    try {
      const f = (name: string, obj: unknown): string => {
        const p = join(dir, name)
        writeFileSync(p, JSON.stringify(obj))
        return p
      }
      const base = { name: 'x', durationMs: 500, workloads: [{ type: 'cyclictest', name: 'ct' }] }
      const cases: [string[], RegExp][] = [
        [['vm', f('rb5.json', { ...base, topology: 'rb5' })], /topology "rb5": asymmetric CPU capacities/],
        [['vm', f('k.json', { ...base, topology: 'smp-2' }), '--kernel', join(dir, 'no-such-bzImage')], /no such file/],
        [['vm', f('p.json', { ...base, topology: 'smp-2', variants: [{ name: 'p', patches: ['dd-neglag'] }] })], /exist only in the model/]
      ]
      for (const [argv, msg] of cases) {
        const io = memoryIo()
        const code = await runCli(argv, io)
        if (/not installed|needs Linux/.test(io.stderr)) continue // no QEMU here: the refusal says so, also exit 2
        expect(code, io.stderr).toBe(2)
        expect(io.stderr).toMatch(msg)
        expect(io.stderr.trim().split('\n')).toHaveLength(1)
        expect(io.stderr).not.toMatch(/\bat \S+:\d+/)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('TCG turns', () => {
  it('warns that a multi-vCPU TCG guest pauses its vCPUs in turn, never for one vCPU or KVM', () => {
    expect(tcgTurnsWarning('tcg', 2)).toMatch(/2 vCPUs in turn.*1-vCPU topology, or KVM/)
    expect(tcgTurnsWarning('tcg', 1)).toBeNull()
    // a tip-2026 simulation builds HRTICK in only on x86_64 (and the other deferred-rearm arches)
    expect(archWarning(undefined, 'tip-2026')).toMatch(/names no arch.*"arch": "x86_64"/)
    expect(archWarning('arm64', 'tip-2026')).toMatch(/says arch arm64/)
    expect(archWarning('x86_64', 'tip-2026')).toBeNull()
    expect(archWarning(undefined, '6.12')).toBeNull()
    expect(tcgTurnsWarning('kvm', 4)).toBeNull()
  })
})
