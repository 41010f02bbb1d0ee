import type { Theme } from '../../shared/ipc'
import { DARK_CHARTS, LIGHT_CHARTS, type ChartTheme } from './charts/configs'

export type Resolved = 'light' | 'dark'

const media = window.matchMedia('(prefers-color-scheme: dark)')

export function resolveTheme(t: Theme): Resolved {
  return t === 'system' ? (media.matches ? 'dark' : 'light') : t
}

export function chartTheme(r: Resolved): ChartTheme {
  return r === 'dark' ? DARK_CHARTS : LIGHT_CHARTS
}

export function applyTheme(r: Resolved): void {
  document.documentElement.dataset.theme = r
  document.documentElement.style.colorScheme = r
}

export function onSystemThemeChange(cb: () => void): void {
  media.addEventListener('change', cb)
}
