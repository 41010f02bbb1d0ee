import { h } from '../dom'
import type { JobView, ProgressState } from '../state'
import type { ViewContext } from '../view-context'
import { shallowEqual } from '../store'

/**
 * One progress bar per (variant, seed) job of the last run started from this window. When the
 * run has ended the card collapses to its one-line summary (the rows stay one click away), and
 * it leaves once another run is shown.
 */
export function createProgressView(ctx: ViewContext): { el: HTMLElement } {
  const summary = h('span', { class: 'progress-summary' })
  const toggle = h('button', { class: 'small link', 'data-action': 'toggle-jobs', 'aria-expanded': 'true', onclick: () => setCollapsed(!el.classList.contains('collapsed')) }, 'Hide jobs')
  const head = h('div', { class: 'progress-head' }, summary, toggle)
  const precision = h('div', { class: 'progress-precision', 'data-testid': 'precision-progress', hidden: true })
  const rows = h('div', { class: 'progress-rows' })
  const phase = h('div', { class: 'progress-phase', 'data-testid': 'run-phase', hidden: true })
  const el = h('section', { class: 'card progress', 'data-testid': 'run-progress', hidden: true }, head, phase, precision, rows)
  let lastStatus = ''
  let endedWith: string | null = null
  function setCollapsed(c: boolean): void {
    el.classList.toggle('collapsed', c)
    toggle.textContent = c ? 'Show jobs' : 'Hide jobs'
    toggle.setAttribute('aria-expanded', String(!c))
  }
  const bars = new Map<string, { bar: HTMLProgressElement; label: HTMLElement; row: HTMLElement }>()
  let runId: string | null = null

  const paint = (j: JobView): void => {
    const b = bars.get(j.info.jobId)
    if (!b) return
    b.bar.value = Math.round(j.fraction * 1000)
    b.row.dataset.state = j.state
    b.row.title = j.error ?? ''
    // a resumed run's job that had finished before its host stopped
    const kept = j.info.resumed && j.state === 'done'
    if (kept) b.row.dataset.kept = 'true'
    b.label.textContent = j.state === 'running' ? `${Math.floor(j.fraction * 100)} %` : kept ? 'kept' : j.state
  }

  ctx.store.watch((s) => ({ p: s.progress, shown: s.shownRun?.id ?? null, sweep: s.shownSweep?.id ?? null }), ({ p, shown, sweep }: { p: ProgressState | null; shown: string | null; sweep: string | null }) => {
    if (!p) {
      el.hidden = true
      return
    }
    // an ended run's card stays while its results are shown (or until they are), not beside another run's
    const mine = shown === p.runId || !!shown?.startsWith(`${p.runId}#`) || sweep === p.runId
    // what was on display when the run ended: the card leaves only once something else is opened
    const onDisplay = `${shown} ${sweep}`
    if (p.status === 'running') endedWith = null
    else if (endedWith === null) endedWith = onDisplay
    // once its own results were shown, whatever is opened next is another run's
    if (mine && p.status !== 'running') endedWith = ''
    const other = !mine && (shown !== null || sweep !== null) && onDisplay !== endedWith
    if (p.runId !== runId) {
      runId = p.runId
      bars.clear()
      rows.replaceChildren()
    }
    // a precision run adds jobs as it goes
    for (const { info } of p.jobs) {
      if (bars.has(info.jobId)) continue
      const bar = h('progress', { max: 1000, value: 0, 'aria-label': `${info.variant} seed ${info.seed}` })
      const label = h('span', { class: 'pct' }, 'queued')
      const row = h('div', { class: 'progress-row', 'data-state': 'queued', 'data-job': info.jobId },
        h('span', { class: 'job-name', title: info.cell ? `${info.variant}, ${info.cell.label}` : info.variant },
          `${info.variant} · seed ${info.seed}${info.cell ? ` · cell ${info.cell.index}` : ''}`), bar, label)
      bars.set(info.jobId, { bar, label, row })
      rows.append(row)
    }
    for (const j of p.jobs) paint(j)
    phase.hidden = !p.phase || p.status !== 'running'
    phase.textContent = p.phase ?? ''
    precision.hidden = !p.precision
    if (p.precision) {
      precision.textContent = `precision ${p.precision.target}: ` + p.precision.variants.map((v) =>
        `${v.name} ${v.seeds} seed${v.seeds === 1 ? '' : 's'} ${v.halfWidthPct === null ? '(no interval yet)' : `±${v.halfWidthPct.toFixed(1)} %`}${v.reached ? ' ✓' : ''}`).join(' · ')
    }
    el.hidden = p.status !== 'running' && other
    el.dataset.runId = p.runId
    el.dataset.status = p.status
    const done = p.jobs.filter((j) => j.state === 'done').length
    const failed = p.jobs.filter((j) => j.state === 'failed').length
    const n = p.jobs.length
    if (p.status !== lastStatus) setCollapsed(p.status !== 'running')
    lastStatus = p.status
    summary.textContent = p.status === 'running'
      ? `Running ${n} simulation${n === 1 ? '' : 's'}: ${done} done${failed ? `, ${failed} failed` : ''}`
      : `Run ${p.status}: ${done} of ${n} done${failed ? `, ${failed} failed` : ''}`
  }, { now: true, equals: shallowEqual })
  return { el }
}
