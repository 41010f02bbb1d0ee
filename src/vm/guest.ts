import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { helperSourceText } from '../real/helper'
import { cpioGz, parentDirs, type CpioEntry } from './cpio'
import { diskError, VmRefusal } from './errors'
import { which } from './images'
import { makeDirs } from '../trace/make-dirs'

/**
 * The guest: an initramfs of busybox, rt-tests' cyclictest and hackbench, rt-app and schbench
 * where this machine has them (each with the libraries ldd lists), our helper built static, and
 * an init script. Built once per tool set and cached (the key hashes every file in it). A run
 * appends a small archive of its own (/run/params, /run/plan, rt-app files): the kernel unpacks
 * concatenated archives in order.
 *
 * The init script mounts proc, sysfs, devtmpfs, debugfs and tracefs, applies the run's
 * sched_feat flags, preemption model and base slice in debugfs, starts tracing (the events of
 * `schedlab real`, mono clock), runs the plan with the helper (the guest's own clock times it),
 * stops tracing, copies each CPU's raw ring buffer and the events' formats into /out and ships
 * /out as a tar over a virtio console port named "schedlab", then powers off. It reports on the
 * serial console with "schedlab-vm: " lines (booted, running, shipping, done, error: ...).
 */

export const GUEST_MARK = 'schedlab-vm:'

export const INIT_SCRIPT = `#!/bin/busybox sh
# schedlab's guest init (src/vm/guest.ts): one run, then power off.
/bin/busybox mkdir -p /proc /sys /dev /tmp /out /usr/bin /usr/sbin /sbin
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/shm && mount -t tmpfs tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
say() { echo "${GUEST_MARK} $*"; }
fail() { say "error: $*"; poweroff -f; sleep 100000; }
say booted
[ -r /run/params ] || fail "no run parameters in the initramfs"
. /run/params
T=/sys/kernel/tracing
D=/sys/kernel/debug/sched
[ -d $T/events ] || fail "the kernel has no tracefs (it needs CONFIG_FTRACE, CONFIG_TRACING and the sched and timer events: docs/vm.md)"
PORT=
for p in /sys/class/virtio-ports/*; do
  [ "$(cat $p/name 2>/dev/null)" = schedlab ] && PORT=/dev/\${p##*/}
done
[ -n "$PORT" ] || fail "no virtio console port (the kernel needs CONFIG_VIRTIO_PCI=y and CONFIG_VIRTIO_CONSOLE=y: docs/vm.md)"
uname -r > /out/uname
cat /sys/devices/system/cpu/online > /out/online
cat /proc/cmdline > /out/cmdline
if [ -r $D/features ]; then cat $D/features > /out/features.boot; fi
for f in $FEATURES; do
  [ -w $D/features ] || fail "cannot set sched_feat $f: the kernel has no writable sched/features in debugfs (CONFIG_DEBUG_FS, CONFIG_SCHED_DEBUG on older kernels)"
  echo $f > $D/features 2>/dev/null || fail "sched_feat $f is not a flag of this kernel (it has: $(cat $D/features))"
done
if [ -n "$PREEMPT" ]; then
  [ -w $D/preempt ] || fail "this kernel cannot switch its preemption model to $PREEMPT (no sched/preempt in debugfs: CONFIG_PREEMPT_DYNAMIC)"
  echo $PREEMPT > $D/preempt 2>/dev/null || fail "this kernel does not offer preemption model $PREEMPT (it offers: $(cat $D/preempt))"
fi
if [ -n "$BASE_SLICE_NS" ]; then
  echo $BASE_SLICE_NS > $D/base_slice_ns 2>/dev/null || fail "cannot set the base slice (sched/base_slice_ns)"
fi
cat $D/features > /out/features 2>/dev/null
cat $D/preempt > /out/preempt 2>/dev/null
cat $D/base_slice_ns > /out/base_slice_ns 2>/dev/null
echo 0 > $T/tracing_on
echo mono > $T/trace_clock || fail "the trace clock mono is missing"
echo $BUFFER_KB > $T/buffer_size_kb || fail "cannot size the trace buffer to $BUFFER_KB KiB per CPU (raise the guest's memory)"
mkdir -p /out/formats
for e in $EVENTS; do
  [ -e $T/events/$e/enable ] || fail "this kernel has no $e trace event (docs/vm.md's config fragment)"
  echo 1 > $T/events/$e/enable
  cp $T/events/$e/format /out/formats/\${e##*/}
done
cat $T/buffer_subbuf_size_kb > /out/subbuf_kb 2>/dev/null || echo 4 > /out/subbuf_kb
grep -w hrtimer_wakeup /proc/kallsyms > /out/kallsyms 2>/dev/null
for w in $TOOLS; do command -v $w > /dev/null || fail "$w is missing in the guest image"; done
say running
echo 1 > $T/tracing_on
schedlab-helper plan /run/plan /out/run.txt || fail "the guest's runner failed (exit $?)"
echo 0 > $T/tracing_on
say shipping
for c in $T/per_cpu/cpu*; do
  n=\${c##*/cpu}
  schedlab-helper rawdump $c/trace_pipe_raw > /out/cpu$n.raw
  cat $c/stats > /out/stats$n
done
tar -c -f $PORT -C /out . || fail "could not ship the results over $PORT"
sync
say done
poweroff -f
`

/** The tools the image may hold: required ones refuse the build when missing. */
const TOOLS: readonly { name: string; pkg: string; required: boolean }[] = [
  { name: 'busybox', pkg: 'busybox-static', required: true },
  { name: 'cyclictest', pkg: 'rt-tests', required: true },
  { name: 'hackbench', pkg: 'rt-tests', required: true },
  { name: 'rt-app', pkg: 'rt-app', required: false },
  { name: 'schbench', pkg: '', required: false }
]

export const TOOL_PACKAGES: Record<string, string> = Object.fromEntries(TOOLS.filter((t) => t.pkg).map((t) => [t.name, t.pkg]))

export interface GuestImage {
  path: string
  /** Tools in the image: name -> path in the guest. */
  tools: Record<string, string>
  key: string
  /** Tools this machine lacks, so the image has not: name -> Debian package. */
  missing: Record<string, string>
}

/** The helper (src/real/helper.c) built static for the guest, cached by its source's hash. */
export function staticHelper(cacheDir: string): string {
  const src = helperSourceText()
  const hash = createHash('sha256').update(src.text).digest('hex').slice(0, 16)
  const dir = join(cacheDir, 'bin')
  const bin = join(dir, `schedlab-helper-static-${hash}`)
  if (existsSync(bin)) return bin
  try {
    makeDirs(dir)
  } catch (e) {
    throw diskError(e, cacheDir, 'the guest helper')
  }
  const cc = process.env.CC || 'cc'
  const tmp = `${bin}.${process.pid}.tmp`
  const r = spawnSync(cc, ['-O2', '-static', '-pthread', '-o', tmp, src.path], { encoding: 'utf8' })
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') throw new VmRefusal(`the guest needs a small helper built with a C compiler, and there is none ("${cc}" not found): install Debian's gcc and libc6-dev, or set CC`)
  if (r.status !== 0) {
    rmSync(tmp, { force: true })
    const msg = (r.stderr || r.stdout || '').trim()
    if (/No space left/i.test(msg)) throw diskError(new Error('No space left on device'), cacheDir, 'the guest helper')
    if (/cannot find -lc|-lpthread/.test(msg)) throw new VmRefusal(`building the guest helper statically needs the C library's static archive: apt-get install libc6-dev`)
    throw new VmRefusal(`building the guest helper (${src.path}) statically with ${cc} failed: ${msg.split('\n').slice(0, 3).join(' | ')}`)
  }
  renameSync(tmp, bin)
  return bin
}

/** What ldd says a dynamic program needs (absolute paths), empty for static ones. */
export function sharedLibraries(path: string): string[] {
  const r = spawnSync('ldd', [path], { encoding: 'utf8' })
  if (r.status !== 0) return []
  const out: string[] = []
  for (const line of r.stdout.split('\n')) {
    const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line)
    if (m) out.push(m[1])
  }
  return out
}

/**
 * The guest image for this machine's tools, built now unless cached. `only` limits the tools
 * (tests: an image without one of them).
 */
export function ensureGuestImage(cacheDir: string, opts: { log?: (l: string) => void; which?: (p: string) => string | null } = {}): GuestImage {
  const find = opts.which ?? which
  const files = new Map<string, Buffer | string>()
  const modes = new Map<string, number>()
  const tools: Record<string, string> = {}
  const missing: Record<string, string> = {}
  for (const t of TOOLS) {
    const host = find(t.name)
    if (!host) {
      if (t.required) throw new VmRefusal(`${t.name} is not installed on this machine, and the guest image needs it: apt-get install ${t.pkg}`)
      if (t.pkg) missing[t.name] = t.pkg
      continue
    }
    const real = realpathSync(host)
    const guestPath = t.name === 'busybox' ? '/bin/busybox' : `/usr/bin/${t.name}`
    files.set(guestPath, readFileSync(real))
    modes.set(guestPath, 0o755)
    tools[t.name] = guestPath
    for (const lib of sharedLibraries(real)) {
      if (files.has(lib)) continue
      // the dynamic loader is exec()ed by the kernel: it needs the x bit like the libraries keep
      files.set(lib, readFileSync(realpathSync(lib)))
      modes.set(lib, 0o755)
    }
  }
  const helper = staticHelper(cacheDir)
  files.set('/bin/schedlab-helper', readFileSync(helper))
  modes.set('/bin/schedlab-helper', 0o755)
  tools['schedlab-helper'] = '/bin/schedlab-helper'
  files.set('/init', INIT_SCRIPT)
  modes.set('/init', 0o755)

  const paths = [...files.keys()].sort()
  const h = createHash('sha256')
  for (const p of paths) h.update(`${p}\0${(modes.get(p) ?? 0o644).toString(8)}\0`).update(files.get(p) as Buffer).update('\0')
  const key = h.digest('hex').slice(0, 16)
  const dir = join(cacheDir, 'initramfs')
  const path = join(dir, `guest-${key}.cpio.gz`)
  if (existsSync(path)) return { path, tools, key, missing }
  opts.log?.(`building the guest image (${Object.keys(tools).join(', ')}) into ${dir}`)
  const entries: CpioEntry[] = [
    ...parentDirs([...paths, '/dev/x', '/proc/x', '/sys/x', '/tmp/x', '/out/x', '/run/x', '/usr/sbin/x', '/sbin/x']),
    { type: 'chardev', path: '/dev/console', major: 5, minor: 1 },
    { type: 'chardev', path: '/dev/null', major: 1, minor: 3, mode: 0o666 },
    ...paths.map((p) => ({ type: 'file' as const, path: p, data: files.get(p) as Buffer | string, mode: modes.get(p) ?? 0o644 }))
  ]
  try {
    makeDirs(dir)
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, cpioGz(entries))
    renameSync(tmp, path)
  } catch (e) {
    throw diskError(e, cacheDir, 'the guest image (about 5 MB)')
  }
  return { path, tools, key, missing }
}

/** The run's own archive: /run/params (shell variables), /run/plan, and the workloads' files. */
export function runArchive(params: Record<string, string>, plan: string, files: readonly { path: string; text: string }[]): Buffer {
  const sh = Object.entries(params).map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'\n`).join('')
  const all = [{ path: '/run/params', text: sh }, { path: '/run/plan', text: plan }, ...files]
  return cpioGz([...parentDirs(all.map((f) => f.path)), ...all.map((f) => ({ type: 'file' as const, path: f.path, data: f.text }))])
}
