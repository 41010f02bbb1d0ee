/**
 * History's actions: the list of saved runs, opening one (Results, or Sweep for a sweep),
 * renaming, deleting, pinning the baseline, and importing a trace as a run.
 */
import type { StoredRun } from '../../../shared/ipc'
import { errorMessage } from '../dom'
import type { ActionCore } from './core'

export interface HistoryActions {
  openRun(id: string): Promise<void>
  /** Show one cell of a sweep as a run in Results. */
  openSweepCell(sweep: StoredRun, cell: number): void
  renameRun(id: string, name: string): Promise<void>
  deleteRun(id: string): Promise<void>
  pinBaseline(id: string | null): Promise<void>
}

export interface HistoryCommands {
  refreshRuns(): Promise<void>
  importTrace(): Promise<void>
}

export function createHistoryActions(core: ActionCore): HistoryActions & HistoryCommands {
  const { api, store } = core

  async function refreshRuns(): Promise<void> {
    try {
      const [list, settings] = await Promise.all([api.listRuns(), api.getSettings()])
      const shown = core.s.shownRun
      // a sweep's cell shown as a run has the id SWEEP#CELL and keeps its own name
      const cell = !!shown && shown.id.includes('#')
      const fresh = shown ? list.runs.find((r) => r.id === (cell ? shown.id.slice(0, shown.id.indexOf('#')) : shown.id)) : undefined
      const sweep = core.s.shownSweep
      const freshSweep = sweep ? list.runs.find((r) => r.id === sweep.id) : undefined
      store.set({
        runs: list.runs,
        settings,
        shownRun: !shown || !fresh ? null : !cell && fresh.name !== shown.name ? { ...shown, name: fresh.name } : shown,
        shownSweep: !sweep || !freshSweep ? null : freshSweep.name !== sweep.name ? { ...sweep, name: freshSweep.name } : sweep
      })
      core.setProblem('store', list.problems.length ? {
        title: 'Some saved runs could not be read (they were moved aside, not deleted)',
        lines: list.problems.map((p) => ({ text: p.message }))
      } : null)
    } catch (err) {
      core.setProblem('store', { title: 'Could not list the saved runs', lines: [{ text: errorMessage(err) }] })
    }
  }

  async function openRun(id: string): Promise<void> {
    await core.guard('Could not open the run', async () => {
      const run = await api.getRun(id)
      if (run.sweep) {
        store.set({ shownSweep: run })
        core.selectTab('sweep')
        return
      }
      store.set({ shownRun: run })
      core.selectTab('results')
    })
  }

  api.on('runs-changed', () => void refreshRuns())

  return {
    refreshRuns,
    openRun,
    openSweepCell(sweep, cell) {
      const c = sweep.sweep?.cells.find((x) => x.index === cell)
      if (!c) return
      const label = sweep.sweep!.axes.map((a, i) => `${a.path}=${JSON.stringify(c.values[i])}`).join(', ')
      store.set({
        shownRun: {
          ...sweep, id: `${sweep.id}#${cell}`, name: `${sweep.name} [${label}]`, kind: undefined, sweep: undefined,
          results: c.results, seeds: [...new Set(c.results.map((r) => r.seed))].sort((a, b) => a - b)
        }
      })
      core.selectTab('results')
    },
    async renameRun(id, name) {
      await core.guard('Rename failed', async () => {
        await api.renameRun(id, name)
      })
    },
    async deleteRun(id) {
      await core.guard('Delete failed', async () => {
        await api.deleteRun(id)
        if (core.s.shownRun?.id === id || core.s.shownRun?.id.startsWith(`${id}#`)) store.set({ shownRun: null })
        if (core.s.shownSweep?.id === id) store.set({ shownSweep: null })
      })
    },
    async pinBaseline(id) {
      await core.guard('Pinning the baseline failed', async () => {
        store.set({ settings: await api.setBaseline(id) })
      })
    },
    async importTrace() {
      await core.guard('Could not import the trace', async () => {
        const r = await api.importTraceFile()
        if (!r) return
        if (!r.ok) {
          core.showProblem(r.problem, 'Trace import', false)
          return
        }
        await refreshRuns()
        await openRun(r.run.id)
      })
    }
  }
}
