import { h } from '../dom'
import type { Validation } from '../state'
import type { ViewContext } from '../view-context'

function describe(v: Validation): { text: string; tone: '' | 'ok' | 'bad' } {
  const n = (k: number, w: string) => `${k} ${w}${k === 1 ? '' : 's'}`
  switch (v.state) {
    case 'empty': return { text: 'Empty scenario: pick a preset, or type or paste one', tone: '' }
    case 'pending': return { text: 'checking…', tone: '' }
    case 'ok': return { text: `✓ ${v.scenarioName}: ${n(v.variants.length, 'variant')} × ${n(v.seeds.length, 'seed')}`, tone: 'ok' }
    case 'bad': return { text: `✗ ${n(v.problem.issues.length, 'problem')} in the scenario`, tone: 'bad' }
    case 'error': return { text: `validation failed: ${v.message}`, tone: 'bad' }
  }
}

/**
 * The status bar: the verdict on the editor's text and where the data lives. The verdict
 * carries data-state and data-hash (the fingerprint of the text it describes) for tests.
 */
export function createStatusBar(ctx: ViewContext): { el: HTMLElement } {
  const status = h('span', { class: 'validation', 'data-testid': 'validation-status', tabindex: '0', onclick: () => ctx.actions.showScenarioProblems() })
  status.addEventListener('keydown', (e) => { if (e.key === 'Enter') ctx.actions.showScenarioProblems() })
  const info = h('span', { class: 'app-info' })
  const el = h('footer', { class: 'statusbar' }, status, info)
  let shown: Validation | null = null
  ctx.store.watch((s) => s.validation, (v) => {
    // "checking…" only replaces the text of a different document; edits keep the last verdict
    // visible until the new one arrives, so the bar does not flicker while typing.
    status.dataset.state = v.state
    status.dataset.hash = v.hash
    if (v.state === 'pending' && shown && shown.state !== 'empty') return
    shown = v
    const d = describe(v)
    status.textContent = d.text
    status.className = `validation${d.tone ? ` ${d.tone}` : ''}`
    // the problem count opens the Problems list
    const bad = v.state === 'bad'
    status.classList.toggle('clickable', bad)
    status.title = bad ? 'Show the problems' : ''
    if (bad) status.setAttribute('role', 'button')
    else status.removeAttribute('role')
  }, { now: true })
  ctx.store.watch((s) => s.appInfo, (a) => {
    info.textContent = a ? `schedlab ${a.version} · ${a.workers} worker${a.workers === 1 ? '' : 's'} · data in ${a.dataDir}` : ''
  }, { now: true })
  return { el }
}
