import type { PresetInfo } from '../../../shared/ipc'
import { h, replace } from '../dom'

export interface ToolbarHandlers {
  newDoc(): void
  open(): void
  save(): void
  importRtApp(): void
  preset(id: string): void
  run(): void
  cancel(): void
  toggleTheme(): void
  help(): void
}

const mod = /Mac|iPhone|iPad/.test(navigator.platform) ? '⌘' : 'Ctrl'

/** File actions, presets, the document name with its unsaved mark, variant choice, Run/Cancel. */
export class Toolbar {
  readonly el: HTMLElement
  private readonly presetSelect: HTMLSelectElement
  private readonly docName: HTMLElement
  private readonly dirtyMark: HTMLElement
  private readonly runBtn: HTMLButtonElement
  private readonly cancelBtn: HTMLButtonElement
  private readonly variantBox: HTMLElement
  private readonly variantSummary: HTMLElement
  private readonly variantList: HTMLElement
  private variants: string[] = []
  private readonly unchecked = new Set<string>()

  constructor(private readonly on: ToolbarHandlers) {
    this.presetSelect = h('select', {
      'data-testid': 'preset-select', 'aria-label': 'Presets', title: 'Load a preset scenario',
      onchange: () => {
        const id = this.presetSelect.value
        this.presetSelect.value = ''
        if (id) this.on.preset(id)
      }
    }, h('option', { value: '' }, 'Presets…'))
    this.docName = h('span', { class: 'doc-name', 'data-testid': 'doc-name' }, 'untitled')
    this.dirtyMark = h('span', { class: 'dirty', 'data-testid': 'dirty-indicator', title: 'Unsaved changes', hidden: true }, '●')
    this.runBtn = h('button', { class: 'primary', 'data-testid': 'run-button', title: `Run the scenario (${mod}+Enter)`, onclick: () => this.on.run() }, '▶ Run')
    this.cancelBtn = h('button', { 'data-testid': 'cancel-button', title: 'Cancel the running simulations (Esc)', disabled: true, onclick: () => this.on.cancel() }, '■ Cancel')
    this.variantSummary = h('summary', { title: 'Choose which variants to run' }, 'Variants')
    this.variantList = h('div', { class: 'variant-list' })
    this.variantBox = h('details', { class: 'variant-pick', 'data-testid': 'variant-pick', hidden: true }, this.variantSummary, this.variantList)

    this.el = h('header', { class: 'toolbar' },
      h('span', { class: 'brand' }, 'schedlab'),
      h('div', { class: 'group' },
        h('button', { 'data-testid': 'new-button', title: 'New scenario', onclick: () => this.on.newDoc() }, 'New'),
        h('button', { 'data-testid': 'open-button', title: `Open a scenario (${mod}+O)`, onclick: () => this.on.open() }, 'Open…'),
        h('button', { 'data-testid': 'save-button', title: `Save the scenario (${mod}+S)`, onclick: () => this.on.save() }, 'Save'),
        h('button', { 'data-testid': 'import-button', title: 'Import an rt-app JSON file as a new scenario', onclick: () => this.on.importRtApp() }, 'Import rt-app…'),
        this.presetSelect),
      h('div', { class: 'group doc' }, this.dirtyMark, this.docName),
      h('div', { class: 'group run' }, this.variantBox, this.runBtn, this.cancelBtn),
      h('div', { class: 'group end' },
        h('button', { class: 'icon', 'data-testid': 'theme-toggle', title: `Light/dark theme (${mod}+Shift+L)`, 'aria-label': 'Toggle theme', onclick: () => this.on.toggleTheme() }, '◐'),
        h('button', { class: 'icon', 'data-testid': 'help-button', title: 'Keyboard shortcuts (F1)', 'aria-label': 'Keyboard shortcuts', onclick: () => this.on.help() }, '?')))
  }

  setPresets(presets: PresetInfo[]): void {
    replace(this.presetSelect, h('option', { value: '' }, 'Presets…'),
      presets.map((p) => h('option', { value: p.id, title: p.description }, p.name)))
  }

  setDoc(name: string, dirty: boolean): void {
    this.docName.textContent = name
    this.docName.title = name
    this.dirtyMark.hidden = !dirty
  }

  setRunning(running: boolean): void {
    this.runBtn.disabled = running
    this.cancelBtn.disabled = !running
  }

  /** Offer the scenario's variants; a variant unticked before stays unticked. */
  setVariants(names: string[]): void {
    if (names.join('\n') === this.variants.join('\n')) return
    this.variants = names
    for (const n of [...this.unchecked]) if (!names.includes(n)) this.unchecked.delete(n)
    this.variantBox.hidden = names.length < 2
    replace(this.variantList, names.map((n) => h('label', {},
      h('input', {
        type: 'checkbox', checked: !this.unchecked.has(n), value: n,
        onchange: (e: Event) => {
          if ((e.target as HTMLInputElement).checked) this.unchecked.delete(n)
          else this.unchecked.add(n)
          this.renderVariantSummary()
        }
      }), ' ', n)))
    this.renderVariantSummary()
  }

  /** The variants to run, or undefined for all. */
  selectedVariants(): string[] | undefined {
    if (this.unchecked.size === 0 || this.variants.length < 2) return undefined
    return this.variants.filter((v) => !this.unchecked.has(v))
  }

  private renderVariantSummary(): void {
    const n = this.variants.length - this.unchecked.size
    this.variantSummary.textContent = `Variants ${n}/${this.variants.length}`
  }
}
