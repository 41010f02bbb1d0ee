import { spawn, spawnSync } from 'node:child_process'
import { accessSync, constants, existsSync } from 'node:fs'
import { VmCancelled, VmFailure, VmRefusal } from './errors'
import { which } from './images'
import { GUEST_MARK } from './guest'

/**
 * QEMU for `schedlab vm`: the accelerator (KVM where /dev/kvm works, else TCG with icount so
 * that a run is deterministic per seed), the command line, and one guest's life: started under
 * the helper's `pdeath` (QEMU dies with us, even when we are killed), its serial console read
 * line by line for the guest's "schedlab-vm:" reports, bounded by a wall-clock budget for the
 * boot and one for the whole run, killed on cancel. Nothing outlives `runGuest`.
 */

export const QEMU = 'qemu-system-x86_64'
/** icount shift under TCG: 2^2 ns of guest time per instruction (a ~69 us cyclictest floor). */
export const ICOUNT_SHIFT = 2
/** The guest's real-time clock starts here, whatever the date: part of what makes a run repeatable. */
export const RTC_BASE = '2020-01-01T00:00:00'

export interface AccelChoice {
  accel: 'kvm' | 'tcg'
  /** Why: "KVM: /dev/kvm is usable", "no /dev/kvm", "SCHEDLAB_VM_ACCEL=tcg", ... */
  reason: string
}

/** Why QEMU cannot run here (not installed), or null. */
export function qemuUnavailableReason(): string | null {
  if (process.platform !== 'linux') return `schedlab vm needs Linux (this is ${process.platform})`
  if (!which(QEMU)) return `${QEMU} is not installed: apt-get install qemu-system-x86`
  return null
}

const kvmBroken = new Map<string, string>()

/** Remember that KVM could not boot a kernel here (a nested or paravirtual /dev/kvm): use TCG from now on. */
export function markKvmBroken(why: string): void {
  kvmBroken.set('kvm', why)
}

/**
 * KVM when /dev/kvm can be opened read-write and QEMU starts a VM with it, else TCG. The
 * environment's SCHEDLAB_VM_ACCEL=kvm|tcg decides when set. `probe` (tests) replaces the QEMU start.
 */
export function chooseAccel(o: { kvmPath?: string; env?: NodeJS.ProcessEnv; probe?: () => string | null } = {}): AccelChoice {
  const env = o.env ?? process.env
  const forced = env.SCHEDLAB_VM_ACCEL
  if (forced === 'tcg' || forced === 'kvm') return { accel: forced, reason: `SCHEDLAB_VM_ACCEL=${forced}` }
  if (forced) throw new VmRefusal(`SCHEDLAB_VM_ACCEL must be kvm or tcg, got "${forced}"`)
  const path = o.kvmPath ?? '/dev/kvm'
  if (!existsSync(path)) return { accel: 'tcg', reason: `no ${path}: TCG with icount (deterministic per seed)` }
  try {
    accessSync(path, constants.R_OK | constants.W_OK)
  } catch {
    return { accel: 'tcg', reason: `${path} is not usable by this user: TCG with icount` }
  }
  const broken = kvmBroken.get('kvm')
  if (broken) return { accel: 'tcg', reason: `KVM could not boot a kernel here (${broken}): TCG with icount` }
  const err = (o.probe ?? probeKvm)()
  if (err) return { accel: 'tcg', reason: `QEMU cannot use KVM (${err}): TCG with icount` }
  return { accel: 'kvm', reason: `KVM: ${path} is usable` }
}

let probed: string | null | undefined

/** Start QEMU with KVM on an empty machine and quit at once: null when it works, else its error. */
function probeKvm(): string | null {
  if (probed !== undefined) return probed
  const r = spawnSync(QEMU, ['-accel', 'kvm', '-machine', 'none', '-display', 'none', '-nodefaults', '-no-user-config', '-qmp', 'stdio'], { input: '{"execute":"qmp_capabilities"}\n{"execute":"quit"}\n', encoding: 'utf8', timeout: 20_000 })
  probed = r.status === 0 ? null : (r.stderr || r.error?.message || `exit ${r.status}`).trim().split('\n')[0]
  return probed
}

/**
 * Boot-time work the runs do not need, left out to shorten each boot by about a second of guest
 * time: the jitter entropy source's self-calibration, loading the compiled-in certificates,
 * crypto and BPF self-registrations. Nothing of the scheduler is touched.
 */
const BOOT_SKIP = ['jent_mod_init', 'load_system_certificate_list', 'crypto_kdf108_init', 'bpf_dummy_struct_ops_init', 'bpf_tcp_ca_kfunc_init']

export interface GuestSpec {
  accel: AccelChoice['accel']
  seed: number
  vmlinuz: string
  initrd: string
  /** -smp / -m / -numa arguments (src/vm/topology.ts). */
  topologyArgs: string[]
  /** Where the guest's virtio console port "schedlab" writes (its tar of results). */
  outFile: string
  append?: string
}

/** QEMU's command line for one run. */
export function qemuArgs(g: GuestSpec): string[] {
  const accel = g.accel === 'kvm' ? ['-accel', 'kvm', '-cpu', 'host'] : ['-accel', 'tcg,thread=single', '-icount', `shift=${ICOUNT_SHIFT},sleep=off`, '-cpu', 'max']
  return [
    ...accel,
    '-seed', String(g.seed),
    '-rtc', `base=${RTC_BASE},clock=vm`,
    ...g.topologyArgs,
    '-display', 'none', '-no-reboot', '-nodefaults', '-no-user-config',
    '-chardev', 'stdio,id=con,signal=off',
    '-serial', 'chardev:con',
    '-device', 'virtio-serial-pci,ioeventfd=off',
    '-chardev', `file,id=out,path=${g.outFile}`,
    '-device', 'virtserialport,chardev=out,name=schedlab',
    '-kernel', g.vmlinuz,
    '-initrd', g.initrd,
    '-append', `console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init initcall_blacklist=${BOOT_SKIP.join(',')}${g.append ? ' ' + g.append : ''}`
  ]
}

export interface GuestRun {
  /** The console's lines (the last few hundred). */
  console: string[]
  /** The guest's "schedlab-vm:" reports in order. */
  marks: string[]
  /** Wall time until the guest reported it booted, ms (null: it never did). */
  bootMs: number | null
  wallMs: number
}

export interface RunGuestOptions {
  /** A helper binary whose `pdeath` mode execs QEMU tied to our life. */
  helper: string
  /** Wall-clock budget until the guest says it booted. */
  bootBudgetMs: number
  /** Wall-clock budget for the whole run. */
  budgetMs: number
  signal?: AbortSignal
  /** Each guest report as it arrives (progress). */
  onMark?: (mark: string) => void
  /** Each console line (debugging: SCHEDLAB_VM_CONSOLE=1 echoes them). */
  onConsole?: (line: string) => void
}

const CONSOLE_KEEP = 400

/** Boot the guest and wait for it to power off, within the budgets. Throws VmFailure/VmCancelled. */
export function runGuest(args: string[], o: RunGuestOptions): Promise<GuestRun> {
  return new Promise((resolvePromise, reject) => {
    if (o.signal?.aborted) return reject(new VmCancelled())
    const started = Date.now()
    const child = spawn(o.helper, ['pdeath', QEMU, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    const consoleLines: string[] = []
    const marks: string[] = []
    let bootMs: number | null = null
    let stderr = ''
    let buf = ''
    let ending: Error | null = null
    const onLine = (raw: string): void => {
      const line = raw.replace(/\r$/, '').replace(/\x1b\[[0-9;?]*[a-zA-Z]|\x1bc/g, '')
      consoleLines.push(line)
      if (consoleLines.length > CONSOLE_KEEP) consoleLines.shift()
      o.onConsole?.(line)
      const at = line.indexOf(GUEST_MARK)
      if (at < 0) return
      const mark = line.slice(at + GUEST_MARK.length).trim()
      marks.push(mark)
      if (mark === 'booted' && bootMs === null) bootMs = Date.now() - started
      o.onMark?.(mark)
    }
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (d: string) => {
      buf += d
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, nl))
        buf = buf.slice(nl + 1)
      }
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000)
    })
    child.stdin.on('error', () => {
      // QEMU gone
    })
    const kill = (why: Error): void => {
      if (!ending) ending = why
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL')
      } catch {
        try {
          child.kill('SIGKILL')
        } catch {
          // gone
        }
      }
    }
    const tick = setInterval(() => {
      const t = Date.now() - started
      if (bootMs === null && t > o.bootBudgetMs) kill(new VmFailure(`the guest did not boot within ${Math.round(o.bootBudgetMs / 1000)} s of wall time${lastConsole(consoleLines)}`))
      else if (t > o.budgetMs) kill(new VmFailure(`the guest hung: no result within its wall-clock budget of ${Math.round(o.budgetMs / 1000)} s (last report: ${marks[marks.length - 1] ?? 'none'})${lastConsole(consoleLines)}`))
    }, 250)
    const onAbort = (): void => kill(new VmCancelled())
    o.signal?.addEventListener('abort', onAbort, { once: true })
    const onExit = (): void => kill(new VmCancelled())
    process.once('exit', onExit)
    child.on('error', (e) => {
      ending = ending ?? new VmRefusal(`cannot start ${QEMU}: ${e.message}`)
    })
    child.on('close', (code, sig) => {
      clearInterval(tick)
      o.signal?.removeEventListener('abort', onAbort)
      process.removeListener('exit', onExit)
      if (buf) onLine(buf)
      // the group may hold nothing else; make sure
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL')
      } catch {
        // gone
      }
      if (ending) return reject(ending)
      const result: GuestRun = { console: consoleLines, marks, bootMs, wallMs: Date.now() - started }
      if (code !== 0 || sig) {
        const msg = stderr.trim().split('\n').filter(Boolean).slice(-2).join(' | ')
        if (/Could not access KVM|failed to initialize kvm|kvm_init_vcpu/i.test(msg)) return reject(new VmFailure(`QEMU could not use KVM: ${msg}`))
        if (/linux kernel|kernel image|Error loading uncompressed kernel|not a valid|could not load kernel/i.test(msg)) return reject(new VmRefusal(`QEMU cannot load the kernel image: ${msg}`))
        return reject(new VmFailure(`QEMU exited with ${sig ?? `status ${code}`}: ${msg || 'no message'}${lastConsole(consoleLines)}`))
      }
      resolvePromise(result)
    })
  })
}

function lastConsole(lines: readonly string[]): string {
  const tail = lines.filter((l) => l.trim() !== '').slice(-3)
  return tail.length > 0 ? `; the console's last lines: ${tail.map((l) => l.trim().slice(0, 160)).join(' | ')}` : '; the console stayed silent'
}
