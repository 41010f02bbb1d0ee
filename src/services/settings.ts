import type { ExportPrefs, HostLimits, PaneLayout, Settings, SettingsPatch, Theme } from '../shared/ipc'
import type { KeyValueStore } from './kv'
import { parseLimits, resolveLimits } from './limits'

const THEMES: readonly Theme[] = ['light', 'dark', 'system']
const MAX_RECENT = 10
const DEFAULT_EXPORT: ExportPrefs = { scale: 2, theme: 'light' }

const finite = (v: unknown, lo: number, hi: number): v is number => typeof v === 'number' && Number.isFinite(v) && v >= lo && v <= hi

function layoutOf(v: unknown): PaneLayout | null {
  const l = v as Partial<PaneLayout> | null
  return l && typeof l === 'object' && finite(l.historyPx, 0, 10_000) && finite(l.editorPct, 0, 100) ? { historyPx: l.historyPx, editorPct: l.editorPct } : null
}

function exportPrefsOf(v: unknown): ExportPrefs {
  const e = v as Partial<ExportPrefs> | null
  if (!e || typeof e !== 'object') return DEFAULT_EXPORT
  return {
    scale: e.scale === 3 ? 3 : 2,
    theme: e.theme === 'dark' || e.theme === 'shown' ? e.theme : 'light'
  }
}

/** User settings kept in the key-value store next to the run index. */
export class SettingsService {
  /** `overrides`: limits given on the command line (`schedlab serve --max-events ...`), above the saved ones. */
  constructor(private readonly kv: KeyValueStore, private readonly overrides: Partial<HostLimits> = {}) {}

  /** The limits in force: command line, then the saved setting, then the defaults. */
  limits(): HostLimits {
    return resolveLimits(parseLimits(this.kv.get('limits')), this.overrides)
  }

  /** Save limits (merged into the saved ones); a command-line override still wins in this process. */
  setLimits(patch: Partial<HostLimits>): Settings {
    this.kv.set('limits', { ...parseLimits(this.kv.get('limits')), ...parseLimits(patch) })
    return this.get()
  }

  get(): Settings {
    const theme = this.kv.get('theme')
    const baseline = this.kv.get('baselineRunId')
    const recent = this.kv.get('recentFiles')
    return {
      theme: THEMES.includes(theme as Theme) ? (theme as Theme) : 'system',
      baselineRunId: typeof baseline === 'string' ? baseline : null,
      recentFiles: Array.isArray(recent) ? recent.filter((r): r is string => typeof r === 'string').slice(0, MAX_RECENT) : [],
      limits: this.limits(),
      layout: layoutOf(this.kv.get('layout')),
      exportPrefs: exportPrefsOf(this.kv.get('exportPrefs'))
    }
  }

  /** Apply what a window changed (theme, pane layout, export preferences). */
  update(patch: SettingsPatch): Settings {
    if (patch.theme && THEMES.includes(patch.theme)) this.kv.set('theme', patch.theme)
    if (patch.layout && layoutOf(patch.layout)) this.kv.set('layout', layoutOf(patch.layout))
    if (patch.exportPrefs) this.kv.set('exportPrefs', exportPrefsOf(patch.exportPrefs))
    return this.get()
  }

  setTheme(theme: Theme): Settings {
    this.kv.set('theme', theme)
    return this.get()
  }

  setBaseline(id: string | null): Settings {
    this.kv.set('baselineRunId', id)
    return this.get()
  }

  /** Move `path` to the front of the recent list. */
  addRecent(path: string): Settings {
    const rest = this.get().recentFiles.filter((p) => p !== path)
    this.kv.set('recentFiles', [path, ...rest].slice(0, MAX_RECENT))
    return this.get()
  }

  removeRecent(path: string): Settings {
    this.kv.set('recentFiles', this.get().recentFiles.filter((p) => p !== path))
    return this.get()
  }

  /** Opaque per-host values (the Electron window's bounds). */
  getRaw(key: string): unknown {
    return this.kv.get(key)
  }

  setRaw(key: string, value: unknown): void {
    this.kv.set(key, value)
  }
}
