/**
 * The run bar's actions: which variants and options to run, starting a simulated or real run,
 * cancelling it, and following its progress (the progress card shows it).
 */
import type { ApiEvents, StartRunResult } from '../../../shared/ipc'
import { errorMessage } from '../dom'
import type { JobView, RunOptions } from '../state'
import { runOptionsProblem } from '../run-options'
import type { ActionCore } from './core'
import type { HistoryActions } from './history'

export interface RunActions {
  run(): Promise<void>
  /** Run the scenario on this machine's kernel (where the host allows it). */
  runReal(): Promise<void>
  /** Run the scenario on a mainline kernel in a VM: 6.12, 7.2 or a bzImage path (default: the scenario's profile's). */
  runVm(kernel?: string): Promise<void>
  cancel(): Promise<void>
  /** Continue an interrupted run (History's Resume): its finished seeds and cells are kept, the rest run. */
  resumeRun(id: string): Promise<void>
  setVariantChecked(name: string, checked: boolean): void
  setRunOptions(patch: Partial<RunOptions>): void
}

export function createRunActions(core: ActionCore<Pick<HistoryActions, 'openRun'>>): RunActions {
  const { api, store } = core

  /** The variants to run, or undefined for all. */
  function selectedVariants(): string[] | undefined {
    const all = core.s.variants
    const picked = all.filter((n) => !core.s.unchecked.includes(n))
    return picked.length === all.length ? undefined : picked
  }

  /** Follow a run the host accepted: the progress card shows its jobs (a resumed run's finished ones done). */
  function follow(r: StartRunResult): void {
    if (!r.ok) {
      store.set({ runningId: null })
      core.showProblem(r.problem)
      return
    }
    core.setProblem('scenario', null)
    core.setProblem('run', null)
    store.set({
      runningId: r.runId,
      progress: { runId: r.runId, status: 'running', jobs: r.jobs.map((info): JobView => (info.resumed ? { info, state: 'done', fraction: 1 } : { info, state: 'queued', fraction: 0 })) }
    })
  }

  async function resumeRun(id: string): Promise<void> {
    if (core.s.runningId || !core.s.connected) return
    store.set({ runningId: 'starting' })
    try {
      follow(await api.resumeRun(id))
    } catch (err) {
      store.set({ runningId: null })
      core.setProblem('run', { title: 'The run could not be resumed', lines: [{ text: errorMessage(err) }] })
    }
  }

  async function startRun(how: 'sim' | 'real' | 'vm', kernel?: string): Promise<void> {
    if (core.s.runningId || !core.s.connected) return
    const { text, name } = core.s.doc
    if (text.trim() === '') {
      core.setProblem('scenario', { title: 'Nothing to run', lines: [{ text: 'The editor is empty: pick a preset from Presets, or open a scenario.' }] })
      return
    }
    const bad = runOptionsProblem(core.s.runOptions)
    if (bad) {
      core.setProblem('run', { title: 'The run bar has a value that cannot run', lines: [{ text: bad }] })
      return
    }
    // Marks the window busy before the host answers, so a second press does not start twice.
    store.set({ runningId: 'starting' })
    try {
      const o = core.s.runOptions
      const precision = o.precision?.trim()
      const req = {
        text, file: name, variants: selectedVariants(),
        ...(o.seeds !== null ? { seeds: o.seeds } : {}),
        ...(o.published ? { published: true } : o.durationMs !== null ? { durationMs: o.durationMs } : {}),
        ...(precision && how === 'sim' ? { precision } : {}),
        ...(how === 'vm' && kernel ? { kernel } : {})
      }
      follow(how === 'real' ? await api.startRealRun(req) : how === 'vm' ? await api.startVmRun(req) : await api.startRun(req))
    } catch (err) {
      store.set({ runningId: null })
      core.setProblem('run', { title: 'The run could not start', lines: [{ text: errorMessage(err) }] })
    }
  }

  function updateJobs(runId: string, fn: (j: JobView) => JobView): void {
    const p = core.s.progress
    if (!p || p.runId !== runId) return
    store.set({ progress: { ...p, jobs: p.jobs.map(fn) } })
  }

  api.on('run-progress', (e) => {
    const by = new Map(e.jobs.map((j) => [j.jobId, j]))
    updateJobs(e.runId, (j) => {
      const p = by.get(j.info.jobId)
      if (!p || (j.state !== 'queued' && j.state !== 'running')) return j
      return { ...j, state: 'running', fraction: p.durationNs > 0 ? Math.min(1, p.simNs / p.durationNs) : 0 }
    })
  })
  api.on('run-job', (e) => updateJobs(e.runId, (j) => j.info.jobId !== e.jobId ? j : {
    ...j, state: e.state, fraction: e.state === 'done' ? 1 : j.fraction,
    error: e.state === 'failed' ? e.error?.message : j.error
  }))
  // Seeds a precision run added.
  api.on('run-jobs', (e) => {
    const p = core.s.progress
    if (!p || p.runId !== e.runId) return
    store.set({ progress: { ...p, jobs: [...p.jobs, ...e.jobs.map((info): JobView => ({ info, state: 'queued', fraction: 0 }))] } })
  })
  api.on('run-precision', (e) => {
    const p = core.s.progress
    if (p && p.runId === e.runId) store.set({ progress: { ...p, precision: e.precision } })
  })
  api.on('run-phase', (e) => {
    const p = core.s.progress
    if (p && p.runId === e.runId) store.set({ progress: { ...p, phase: e.text + (e.fraction !== undefined ? ` ${Math.floor(e.fraction * 100)} %` : '') } })
  })
  api.on('run-finished', (e) => void finished(e))

  async function finished(e: ApiEvents['run-finished']): Promise<void> {
    updateJobs(e.runId, (j) => (j.state === 'queued' || j.state === 'running' ? { ...j, state: 'canceled' } : j))
    const p = core.s.progress
    if (p && p.runId === e.runId) store.set({ progress: { ...p, status: e.status } })
    if (e.runId !== core.s.runningId) return
    store.set({ runningId: null })
    const failures = e.errors.filter((x) => x.kind !== 'canceled')
    if (failures.length > 0) {
      core.setProblem('run', {
        title: `${failures.length} simulation${failures.length === 1 ? '' : 's'} failed${e.run ? '; the others were saved' : ''}`,
        lines: failures.map((x) => ({ text: `${x.variant} · seed ${x.seed} (${x.kind}): ${x.message}` }))
      })
    }
    if (e.run) await core.actions.openRun(e.run.id)
  }

  return {
    setVariantChecked(name, checked) {
      const unchecked = core.s.unchecked.filter((n) => n !== name)
      if (!checked) unchecked.push(name)
      store.set({ unchecked })
    },
    setRunOptions(patch) {
      store.set((s) => ({ runOptions: { ...s.runOptions, ...patch } }))
    },
    run: () => startRun('sim'),
    resumeRun,
    async runReal() {
      const real = core.s.appInfo?.real
      if (real && !real.available) {
        core.setProblem('run', { title: 'Real runs are not possible here', lines: [{ text: real.reason ?? 'unknown reason' }] })
        return
      }
      return startRun('real')
    },
    async runVm(kernel) {
      const vm = core.s.appInfo?.vm
      if (vm && !vm.available) {
        core.setProblem('run', { title: 'VM runs are not possible here', lines: [{ text: vm.reason ?? 'unknown reason' }] })
        return
      }
      return startRun('vm', kernel)
    },
    async cancel() {
      const id = core.s.runningId
      if (!id || id === 'starting') return
      await core.guard('Cancel failed', async () => {
        await api.cancelRun(id)
      })
    }
  }
}
