import type { ApiEvents, JobInfo, RunStatus } from '../../../shared/ipc'
import { h, replace } from '../dom'

type JobState = 'queued' | 'running' | 'done' | 'failed' | 'canceled'

interface JobRow {
  info: JobInfo
  state: JobState
  fraction: number
  bar: HTMLProgressElement
  label: HTMLElement
  row: HTMLElement
}

/** One progress bar per (variant, seed) job of the current run. */
export class ProgressView {
  readonly el: HTMLElement
  private readonly head: HTMLElement
  private readonly rows: HTMLElement
  private runId: string | null = null
  private jobs = new Map<string, JobRow>()

  constructor() {
    this.head = h('div', { class: 'progress-head' })
    this.rows = h('div', { class: 'progress-rows' })
    this.el = h('section', { class: 'card progress', 'data-testid': 'run-progress', hidden: true }, this.head, this.rows)
  }

  get activeRunId(): string | null {
    return this.runId
  }

  start(runId: string, jobs: JobInfo[]): void {
    this.runId = runId
    this.jobs.clear()
    replace(this.rows, jobs.map((info) => {
      const bar = h('progress', { max: 1000, value: 0, 'aria-label': `${info.variant} seed ${info.seed}` })
      const label = h('span', { class: 'pct' }, 'queued')
      const row = h('div', { class: 'progress-row', 'data-state': 'queued', 'data-job': info.jobId },
        h('span', { class: 'job-name', title: info.variant }, `${info.variant} · seed ${info.seed}`), bar, label)
      this.jobs.set(info.jobId, { info, state: 'queued', fraction: 0, bar, label, row })
      return row
    }))
    this.el.hidden = false
    this.el.dataset.runId = runId
    this.el.dataset.status = 'running'
    this.renderHead('running')
  }

  progress(e: ApiEvents['run-progress']): void {
    if (e.runId !== this.runId) return
    for (const p of e.jobs) {
      const j = this.jobs.get(p.jobId)
      if (!j || j.state !== 'queued' && j.state !== 'running') continue
      j.state = 'running'
      j.fraction = p.durationNs > 0 ? Math.min(1, p.simNs / p.durationNs) : 0
      this.paint(j)
    }
    this.renderHead('running')
  }

  job(e: ApiEvents['run-job']): void {
    if (e.runId !== this.runId) return
    const j = this.jobs.get(e.jobId)
    if (!j) return
    j.state = e.state
    if (e.state === 'done') j.fraction = 1
    if (e.error && e.state === 'failed') j.row.title = e.error.message
    this.paint(j)
    this.renderHead('running')
  }

  finish(e: ApiEvents['run-finished']): void {
    if (e.runId !== this.runId) return
    for (const j of this.jobs.values()) {
      if (j.state === 'queued' || j.state === 'running') {
        j.state = 'canceled'
        this.paint(j)
      }
    }
    this.el.dataset.status = e.status
    this.renderHead(e.status)
    this.runId = null
  }

  private paint(j: JobRow): void {
    j.bar.value = Math.round(j.fraction * 1000)
    j.row.dataset.state = j.state
    j.label.textContent = j.state === 'running' ? `${Math.floor(j.fraction * 100)} %` : j.state
  }

  private renderHead(status: RunStatus): void {
    const all = [...this.jobs.values()]
    const done = all.filter((j) => j.state === 'done').length
    const failed = all.filter((j) => j.state === 'failed').length
    const text = status === 'running'
      ? `Running ${all.length} simulation${all.length === 1 ? '' : 's'}: ${done} done${failed ? `, ${failed} failed` : ''}`
      : `Run ${status}: ${done} of ${all.length} done${failed ? `, ${failed} failed` : ''}`
    this.head.textContent = text
  }
}
