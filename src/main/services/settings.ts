import type { Settings, Theme } from '../../shared/ipc'
import type { KeyValueStore } from './kv'

const THEMES: readonly Theme[] = ['light', 'dark', 'system']
const MAX_RECENT = 10

/** User settings kept in the key-value store next to the run index. */
export class SettingsService {
  constructor(private readonly kv: KeyValueStore) {}

  get(): Settings {
    const theme = this.kv.get('theme')
    const baseline = this.kv.get('baselineRunId')
    const recent = this.kv.get('recentFiles')
    return {
      theme: THEMES.includes(theme as Theme) ? (theme as Theme) : 'system',
      baselineRunId: typeof baseline === 'string' ? baseline : null,
      recentFiles: Array.isArray(recent) ? recent.filter((r): r is string => typeof r === 'string').slice(0, MAX_RECENT) : []
    }
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
