import { h } from '../dom'
import type { ViewContext } from '../view-context'
import { shallowEqual } from '../store'

/**
 * The run bar's VM button and kernel picker: Debian's kernels by series (the cached version
 * shown, else "fetched on first use"), or a bzImage path typed in. The button stays where the
 * host cannot run VMs and says why in its title.
 */
export function createVmControls(ctx: ViewContext): { el: HTMLElement } {
  const { store, actions } = ctx
  const OWN = '__own__'
  const select = h('select', { 'data-testid': 'vm-kernel-select', 'aria-label': 'Kernel for VM runs', title: 'The kernel a VM run boots', onchange: () => (path.hidden = select.value !== OWN) }) as HTMLSelectElement
  const path = h('input', { type: 'text', 'data-testid': 'vm-kernel-path', class: 'vm-kernel-path', placeholder: '/path/to/bzImage', spellcheck: 'false', 'aria-label': 'Path to your bzImage', hidden: true, size: 18 }) as HTMLInputElement
  const btn = h('button', {
    'data-testid': 'run-vm-button', disabled: true,
    onclick: () => {
      const k = select.value === OWN ? path.value.trim() : select.value
      void actions.runVm(k || undefined)
    }
  }, '▶ VM')
  const el = h('span', { class: 'vm-controls' }, btn, select, path)

  store.watch((s) => ({ running: s.runningId !== null, connected: s.connected, vm: s.appInfo?.vm }), ({ running, connected, vm }) => {
    btn.disabled = running || !connected || !vm?.available
    btn.title = vm?.available
      ? `Run the scenario on a mainline kernel in QEMU (schedlab vm): each variant x seed boots its own guest${vm.accel ? `; ${vm.accel}` : ''}`
      : `VM runs are not possible here: ${vm?.reason ?? 'unknown'}`
    const keep = select.value
    const options = [h('option', { value: '' }, 'profile\'s kernel'), ...(vm?.kernels ?? []).map((k) => h('option', { value: k.kernel }, k.label)), h('option', { value: OWN }, 'your bzImage…')]
    select.replaceChildren(...options)
    if ([...select.options].some((o) => o.value === keep)) select.value = keep
    path.hidden = select.value !== OWN
    select.disabled = !vm?.available
  }, { now: true, equals: shallowEqual })
  return { el }
}
