import { h } from '../dom'
import type { StoredRun } from '../../../shared/ipc'

/** The guest a VM run measured: kernel, accelerator, vCPUs; per variant x seed its settings and cross-check. */
export function vmRecord(run: StoredRun): HTMLElement | null {
  const measured = run.results.filter((r) => r.vm)
  if (measured.length === 0) return null
  const v0 = measured[0].vm!
  const cc = (r: (typeof measured)[number]): string => {
    const c = r.workloads.find((w) => w.crossCheck)?.crossCheck
    return c ? `within ${c.maxAbsDiffUs} us (${c.samples} samples)` : '-'
  }
  const list = (x: unknown): string => (Array.isArray(x) && x.length > 0 ? x.join(' ') : '-')
  return h('section', { class: 'card host-record', 'data-testid': 'vm-record' },
    h('h4', {}, `VM: Linux ${v0.kernel} (${v0.image}), ${v0.cpus} vCPUs, ${v0.accel}${v0.icount !== null ? ` with icount shift ${v0.icount}` : ''}, preempt=${String(v0.preempt ?? '?')}`),
    h('table', {},
      h('thead', {}, h('tr', {}, ['variant', 'seed', 'sched_feat written', 'boot (s)', 'run (s)', 'cyclictest vs trace'].map((c) => h('th', {}, c)))),
      h('tbody', {}, measured.map((r) => h('tr', {},
        h('td', {}, r.name), h('td', {}, r.seed), h('td', {}, list(r.vm!.featuresSet)),
        h('td', {}, ((Number(r.vm!.bootWallMs) || 0) / 1000).toFixed(1)), h('td', {}, ((Number(r.vm!.wallMs) || 0) / 1000).toFixed(1)),
        h('td', {}, cc(r)))))))
}
