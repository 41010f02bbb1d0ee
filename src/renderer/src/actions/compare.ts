/** Compare's actions and the exports of tables and charts (Results and Compare alike). */
import type { ExportFormat, StoredRun } from '../../../shared/ipc'
import type { StandardMetric } from '../../../shared/tables'
import type { CompareColumnData } from '../state'
import type { ActionCore } from './core'

export interface CompareActions {
  compareRuns(ids: string[]): Promise<void>
  showComparison(columns: CompareColumnData[], baseline: number): void
  exportTable(columns: CompareColumnData[], baseline: number, format: ExportFormat, title: string, metrics?: StandardMetric[]): Promise<void>
  exportPng(name: string, png: () => Promise<Uint8Array<ArrayBuffer>>): Promise<void>
}

export function createCompareActions(core: ActionCore): CompareActions {
  const { api, store } = core
  const showComparison = (columns: CompareColumnData[], baseline: number): void => {
    store.set({ comparison: { columns, baseline: Math.min(Math.max(0, baseline), Math.max(0, columns.length - 1)) } })
    core.selectTab('compare')
  }
  return {
    showComparison,
    async compareRuns(ids) {
      await core.guard('Could not open the comparison', async () => {
        const base = core.s.settings.baselineRunId
        const runs = core.s.runs
        const created = (id: string) => runs.find((r) => r.id === id)?.createdAt ?? ''
        const order = base && runs.some((r) => r.id === base) && !ids.includes(base) ? [base, ...ids] : ids
        // Oldest first reads as "before -> after"; the pinned baseline leads regardless.
        const sorted = [...order].sort((a, b) => (a === base ? -1 : b === base ? 1 : created(a).localeCompare(created(b))))
        const loaded: StoredRun[] = await Promise.all(sorted.map((id) => api.getRun(id)))
        showComparison(loaded.flatMap((run) => run.variants.map((variant) => ({ run, variant }))), 0)
      })
    },
    async exportTable(columns, baseline, format, title, metrics) {
      await core.guard('Export failed', async () => {
        await api.exportTable({ columns: columns.map((c) => ({ runId: c.run.id, variant: c.variant })), baseline, format, title, ...(metrics ? { metrics } : {}) })
      })
    },
    async exportPng(name, png) {
      await core.guard('PNG export failed', async () => {
        await api.exportPng(name.replace(/[^\w.-]+/g, '-'), await png())
      })
    }
  }
}
