import { h, replace } from '../dom'
import type { ViewContext } from '../view-context'
import { shallowEqual } from '../store'

/**
 * The Variants button and its menu: tick the variants the next run runs. The menu is placed
 * with fixed coordinates under its button so no pane or toolbar clips it; Esc or a click
 * outside closes it (and Esc stops there: it must not cancel a run).
 */
export function createVariantsMenu(ctx: ViewContext): { el: HTMLElement } {
  const { store, actions } = ctx
  const button = h('button', {
    class: 'variants-button', 'data-testid': 'variants-button', 'aria-haspopup': 'true', 'aria-expanded': 'false',
    title: 'Choose which variants to run', disabled: true
  }, 'Variants')
  const list = h('ul', { class: 'variant-items', role: 'group', 'aria-label': 'Variants to run' })
  // the patch library: a variant running one of its modules is added to the scenario
  const patchSelect = h('select', { 'data-testid': 'variant-patch-select', 'aria-label': 'Patch module for a new variant' })
  const addPatch = h('button', {
    class: 'small', 'data-action': 'add-patch-variant', title: 'Add a variant running this patch module to the scenario',
    onclick: () => {
      if (!patchSelect.value) return
      actions.addPatchVariant(patchSelect.value)
      close()
    }
  }, 'Add variant')
  const patchRow = h('div', { class: 'variant-patch', 'data-testid': 'variant-patch' }, h('span', {}, 'With a patch: '), patchSelect, addPatch)
  const refreshPatches = async (): Promise<void> => {
    const lib = await actions.listPatches()
    const names = lib?.modules.map((m) => `${m.example ? 'example: ' : ''}${m.name}`) ?? []
    replace(patchSelect, (lib?.modules ?? []).map((m, i) => h('option', { value: m.name }, names[i])))
    patchRow.hidden = names.length === 0
  }
  const menu = h('div', { class: 'popover variants-menu', 'data-testid': 'variants-menu', hidden: true, role: 'dialog', 'aria-label': 'Variants to run' },
    list,
    patchRow,
    h('div', { class: 'popover-actions' },
      h('button', { class: 'small', 'data-action': 'all', onclick: () => { for (const n of store.state.variants) actions.setVariantChecked(n, true) } }, 'All'),
      h('button', { class: 'small', 'data-action': 'close', onclick: () => close() }, 'Done')))
  document.body.append(menu)

  const place = (): void => {
    // Under the button, kept inside the window whichever side of it the button sits.
    const r = button.getBoundingClientRect()
    menu.style.top = `${Math.round(r.bottom + 4)}px`
    menu.style.maxHeight = `${Math.max(120, window.innerHeight - r.bottom - 16)}px`
    const w = menu.offsetWidth
    menu.style.left = `${Math.round(Math.max(4, Math.min(r.left, window.innerWidth - w - 4)))}px`
  }
  const open = (): void => {
    menu.hidden = false
    void refreshPatches().then(place)
    place()
    button.setAttribute('aria-expanded', 'true')
    menu.querySelector<HTMLInputElement>('input')?.focus()
  }
  function close(): void {
    if (menu.hidden) return
    menu.hidden = true
    button.setAttribute('aria-expanded', 'false')
  }
  button.addEventListener('click', () => (menu.hidden ? open() : close()))
  menu.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault()
      e.stopPropagation()
      close()
      button.focus()
    }
  })
  window.addEventListener('mousedown', (e) => {
    if (!menu.hidden && !menu.contains(e.target as Node) && !button.contains(e.target as Node)) close()
  }, { capture: true })
  window.addEventListener('resize', () => { if (!menu.hidden) place() })

  const boxes = new Map<string, HTMLInputElement>()
  store.watch((s) => s.variants, (variants) => {
    boxes.clear()
    replace(list, variants.map((n) => {
      const box = h('input', { type: 'checkbox', value: n, onchange: () => actions.setVariantChecked(n, box.checked) })
      boxes.set(n, box)
      return h('li', {}, h('label', {}, box, ' ', n))
    }))
  }, { now: true })
  store.watch((s) => ({ variants: s.variants, unchecked: s.unchecked }), ({ variants, unchecked }) => {
    for (const [n, box] of boxes) box.checked = !unchecked.includes(n)
    const on = variants.filter((n) => !unchecked.includes(n)).length
    button.disabled = variants.length === 0
    button.textContent = variants.length ? `Variants ${on}/${variants.length} ▾` : 'Variants'
    button.classList.toggle('partial', on < variants.length)
  }, { now: true, equals: shallowEqual })
  return { el: button }
}
