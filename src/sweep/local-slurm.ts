/**
 * A throwaway single-node Slurm on this machine for the cluster test: a generated munge key and
 * slurm.conf in a temp folder, munged, slurmctld and slurmd started on free ports, and stopped
 * (by their pid files) when done. Nothing outside the temp folder is touched: the daemons and
 * the clients find the config through SLURM_CONF and munge through its socket in the folder.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { cpus, hostname, tmpdir } from 'node:os'
import { join } from 'node:path'

export interface LocalSlurm {
  dir: string
  env: NodeJS.ProcessEnv
  stop(): Promise<void>
}

const BINARIES = ['munged', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scontrol', 'sinfo']

function which(bin: string): string | null {
  for (const d of (process.env.PATH ?? '').split(':').concat(['/usr/sbin', '/sbin'])) {
    if (d && existsSync(join(d, bin))) return join(d, bin)
  }
  return null
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/** Poll `ok` every 250 ms until it is true or `ms` have passed. */
export async function waitFor(ok: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms
  for (;;) {
    if (ok()) return true
    if (Date.now() > end) return false
    await new Promise((r) => setTimeout(r, 250))
  }
}

/** Running (a zombie waiting for its reaper has exited). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

function pidOf(file: string): number | null {
  try {
    const n = Number(readFileSync(file, 'utf8').trim())
    return Number.isInteger(n) && n > 1 ? n : null
  } catch {
    return null
  }
}

/** Start it; a string says why it cannot start here (the test skips with it). */
export async function startLocalSlurm(): Promise<LocalSlurm | string> {
  const missing = BINARIES.filter((b) => !which(b))
  if (missing.length > 0) return `Slurm is not installed here (missing ${missing.join(', ')}; .ci/run installs slurmctld slurmd slurm-client munge)`
  if (process.getuid?.() !== 0) return 'the local Slurm runs its daemons as root; this test is not root'
  const dir = mkdtempSync(join(tmpdir(), 'schedlab-slurm-'))
  for (const d of ['state', 'spool', 'log', 'run']) mkdirSync(join(dir, d))
  const keyFile = join(dir, 'munge.key')
  writeFileSync(keyFile, randomBytes(1024), { mode: 0o600 })
  const socket = join(dir, 'run', 'munge.sock')
  const host = hostname().split('.')[0]
  const [ctldPort, slurmdPort] = [await freePort(), await freePort()]
  const conf = join(dir, 'slurm.conf')
  writeFileSync(conf, [
    'ClusterName=schedlabtest',
    `SlurmctldHost=${host}`,
    'SlurmUser=root',
    'SlurmdUser=root',
    'AuthType=auth/munge',
    `AuthInfo=socket=${socket}`,
    'CredType=cred/munge',
    `SlurmctldPort=${ctldPort}`,
    `SlurmdPort=${slurmdPort}`,
    `StateSaveLocation=${dir}/state`,
    `SlurmdSpoolDir=${dir}/spool`,
    `SlurmctldPidFile=${dir}/run/slurmctld.pid`,
    `SlurmdPidFile=${dir}/run/slurmd.pid`,
    `SlurmctldLogFile=${dir}/log/slurmctld.log`,
    `SlurmdLogFile=${dir}/log/slurmd.log`,
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'SwitchType=switch/none',
    'MpiDefault=none',
    'ReturnToService=2',
    'SchedulerType=sched/builtin',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_Core',
    'JobAcctGatherType=jobacct_gather/none',
    'AccountingStorageType=accounting_storage/none',
    'PlugStackConfig=/dev/null',
    `NodeName=${host} CPUs=${cpus().length} RealMemory=1000 State=UNKNOWN`,
    `PartitionName=test Nodes=${host} Default=YES MaxTime=INFINITE State=UP`,
    ''
  ].join('\n'))
  const env = { ...process.env, SLURM_CONF: conf }
  const s: LocalSlurm = { dir, env, stop: () => stop(dir, env) }
  const start = (bin: string, args: string[]): string | null => {
    const r = spawnSync(bin, args, { env, encoding: 'utf8', timeout: 20_000 })
    return r.status === 0 ? null : `${bin} did not start (exit ${r.status}): ${(r.stderr || r.stdout || '').trim().slice(0, 300)}`
  }
  const why =
    start('munged', [`--key-file=${keyFile}`, `--socket=${socket}`, `--pid-file=${dir}/run/munged.pid`, `--log-file=${dir}/log/munged.log`, `--seed-file=${dir}/run/munge.seed`, '--force']) ??
    start('slurmctld', []) ??
    start('slurmd', [])
  const up = why === null && (await waitFor(() => {
    const r = spawnSync('sinfo', ['-h', '-o', '%t'], { env, encoding: 'utf8', timeout: 10_000 })
    return r.status === 0 && /^idle/m.test(r.stdout)
  }, 30_000))
  if (!up) {
    const log = ['slurmctld', 'slurmd'].map((n) => {
      try {
        return readFileSync(join(dir, 'log', `${n}.log`), 'utf8').trim().split('\n').slice(-3).join(' | ')
      } catch {
        return ''
      }
    }).join(' | ')
    await s.stop()
    return why ?? `the local Slurm did not come up in 30 s: ${log.slice(0, 500)}`
  }
  return s
}

async function stop(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const pids = ['slurmctld', 'slurmd', 'munged'].map((n) => pidOf(join(dir, 'run', `${n}.pid`))).filter((p): p is number => p !== null)
  try {
    execFileSync('scontrol', ['shutdown'], { env, stdio: 'ignore', timeout: 10_000 })
  } catch {
    // already down, or never up: the pids below are signalled directly
  }
  const munged = pidOf(join(dir, 'run', 'munged.pid'))
  const daemons = pids.filter((p) => p !== munged)
  await waitFor(() => daemons.every((p) => !alive(p)), 10_000)
  for (const p of pids) {
    if (!alive(p)) continue
    try {
      process.kill(p, 'SIGTERM')
    } catch {
      // exited meanwhile
    }
  }
  if (!(await waitFor(() => pids.every((p) => !alive(p)), 10_000))) {
    for (const p of pids) if (alive(p)) process.kill(p, 'SIGKILL')
  }
  rmSync(dir, { recursive: true, force: true })
}
