import { h } from '../dom'
import type { ViewContext } from '../view-context'
import { parseOption } from '../run-options'
import { shallowEqual } from '../store'
import { MOD } from './toolbar'
import { createVariantsMenu } from './variants-menu'
import { createVmControls } from './vm-controls'

const seconds = (ms: number) => (ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${ms} ms`)

/**
 * What the next run runs: variants, seeds, duration, the published duration, then Run and
 * Cancel. Empty fields keep the scenario's values (shown as placeholders). Issue 12's precision
 * field goes in the marked slot.
 */
export function createRunBar(ctx: ViewContext): { el: HTMLElement } {
  const { store, actions } = ctx
  const number = (key: 'seeds' | 'durationMs', testid: string, label: string, width: string) => {
    const input = h('input', {
      type: 'text', inputmode: 'numeric', class: 'num', 'data-testid': testid, 'aria-label': label, style: `width:${width}`,
      oninput: () => {
        const v = parseOption(key, input.value)
        input.setAttribute('aria-invalid', String(Number.isNaN(v)))
        actions.setRunOptions({ [key]: v })
      }
    })
    return input
  }
  const seeds = number('seeds', 'seeds-input', 'Seeds (empty: the scenario\'s)', '3.6em')
  const duration = number('durationMs', 'duration-input', 'Duration in ms (empty: the scenario\'s)', '5.6em')
  const published = h('input', {
    type: 'checkbox', 'data-testid': 'published-toggle',
    onchange: () => actions.setRunOptions({ published: published.checked })
  })
  const publishedLabel = h('label', { class: 'run-field', title: 'Run for the duration of the published test this scenario reproduces (the CLI\'s --published)' }, published, h('span', {}, 'Published'))
  const runBtn = h('button', { class: 'primary', 'data-testid': 'run-button', title: `Run the scenario (${MOD}+Enter)`, onclick: () => void actions.run() }, '▶ Run')
  const realBtn = h('button', { 'data-testid': 'run-real-button', title: 'Run the scenario on this machine\'s kernel (schedlab real)', disabled: true, onclick: () => void actions.runReal() }, '▶ Real')
  const cancelBtn = h('button', { 'data-testid': 'cancel-button', 'aria-label': 'Cancel', title: 'Cancel the running simulations (Esc); what they computed is kept, marked partial', disabled: true, onclick: () => void actions.cancel() }, '■', h('span', { class: 'wide-only' }, ' Cancel'))
  const variants = createVariantsMenu(ctx)
  // Issue 12's precision field: stop adding seeds when this interval is tight enough.
  const precision = h('input', {
    type: 'text', 'data-testid': 'precision-input', class: 'precision', spellcheck: 'false',
    placeholder: 'precision', 'aria-label': 'Precision',
    title: 'WORKLOAD.METRIC:PCT, e.g. cyclictest.p99:5: run seeds until every variant\'s 95 % interval of that figure is within PCT % of it (empty: the scenario\'s seeds)',
    oninput: () => actions.setRunOptions({ precision: precision.value.trim() || null })
  })

  const el = h('div', { class: 'run-bar', role: 'toolbar', 'aria-label': 'Run' },
    variants.el,
    h('label', { class: 'run-field' }, 'Seeds', seeds),
    h('label', { class: 'run-field' }, 'Duration', duration, h('span', { class: 'unit wide-only' }, 'ms')),
    publishedLabel,
    h('span', { class: 'run-slot', 'data-slot': 'precision' }, precision),
    h('span', { class: 'spacer' }),
    runBtn, realBtn, createVmControls(ctx).el, cancelBtn)

  store.watch((s) => s.validation, (v) => {
    if (v.state !== 'ok') return
    seeds.placeholder = String(v.seeds.length)
    duration.placeholder = String(v.durationMs)
    published.disabled = v.publishedDurationMs === undefined
    publishedLabel.title = v.publishedDurationMs === undefined
      ? 'This scenario gives no publishedDurationMs (the duration of the published test it reproduces)'
      : `Run for ${seconds(v.publishedDurationMs)}, the duration of the published test (the CLI's --published)`
    publishedLabel.lastElementChild!.textContent = v.publishedDurationMs === undefined ? 'Published' : `Published (${seconds(v.publishedDurationMs)})`
    if (published.disabled && store.state.runOptions.published) {
      published.checked = false
      actions.setRunOptions({ published: false })
    }
  }, { now: true })
  store.watch((s) => s.runOptions, (o) => {
    // a field follows the store when the store changed it (New resets the run bar), not while typed into
    const follow = (input: HTMLInputElement, key: 'seeds' | 'durationMs', v: number | null) => {
      if (parseOption(key, input.value) !== v && !(Number.isNaN(v) && Number.isNaN(parseOption(key, input.value)))) input.value = v === null ? '' : String(v)
    }
    follow(seeds, 'seeds', o.seeds)
    follow(duration, 'durationMs', o.durationMs)
    published.checked = o.published
    duration.disabled = o.published
    if ((precision.value.trim() || null) !== o.precision) precision.value = o.precision ?? ''
  }, { now: true })
  store.watch((s) => ({ running: s.runningId !== null, connected: s.connected, real: s.appInfo?.real }), ({ running, connected, real }) => {
    runBtn.disabled = running || !connected
    cancelBtn.disabled = !running || !connected
    // where the machine cannot run scenarios for real, the button stays and says why
    realBtn.disabled = running || !connected || !real?.available
    realBtn.title = real?.available ? 'Run the scenario on this machine\'s kernel (schedlab real): each variant x seed as a repeat, measured from a trace' : `Real runs are not possible here: ${real?.reason ?? 'unknown'}`
  }, { now: true, equals: shallowEqual })
  return { el }
}
