import { Menu, app, type MenuItemConstructorOptions } from 'electron'
import { basename } from 'node:path'
import type { MenuCommand } from '../shared/ipc'

export type SendCommand = (command: MenuCommand, path?: string) => void

/**
 * The application menu. Items send commands to the renderer, which owns the document; the
 * accelerators the renderer handles itself (Run, Save, ...) are shown but not registered, so
 * a key press does not fire twice.
 */
export function buildMenu(send: SendCommand, recentFiles: readonly string[]): Menu {
  const shown = (accelerator: string) => ({ accelerator, registerAccelerator: false })
  const isMac = process.platform === 'darwin'
  const recent: MenuItemConstructorOptions[] = recentFiles.length
    ? recentFiles.map((p) => ({ label: basename(p), sublabel: p, click: () => send('open-recent', p) }))
    : [{ label: 'No recent files', enabled: false }]
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: '&File',
      submenu: [
        { label: 'New Scenario', ...shown('CmdOrCtrl+N'), click: () => send('new') },
        { label: 'Open Scenario…', ...shown('CmdOrCtrl+O'), click: () => send('open') },
        { label: 'Open Recent', submenu: recent },
        { type: 'separator' },
        { label: 'Save', ...shown('CmdOrCtrl+S'), click: () => send('save') },
        { label: 'Save As…', ...shown('CmdOrCtrl+Shift+S'), click: () => send('save-as') },
        { type: 'separator' },
        { label: 'Import rt-app JSON…', click: () => send('import-rtapp') },
        { label: 'Import Trace…', click: () => send('import-trace') },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' }
      ]
    },
    { role: 'editMenu' },
    {
      label: '&Run',
      submenu: [
        { label: 'Run Scenario', ...shown('CmdOrCtrl+Enter'), click: () => send('run') },
        { label: 'Run on This Machine', click: () => send('run-real') },
        { label: 'Run in a VM', click: () => send('run-vm') },
        { label: 'Cancel Run', ...shown('Escape'), click: () => send('cancel') }
      ]
    },
    {
      label: '&View',
      submenu: [
        { label: 'Toggle Light/Dark Theme', ...shown('CmdOrCtrl+Shift+L'), click: () => send('toggle-theme') },
        { type: 'separator' },
        { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
        ...(app.isPackaged ? [] : [{ type: 'separator' as const }, { role: 'reload' as const }, { role: 'toggleDevTools' as const }])
      ]
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [{ label: 'Keyboard Shortcuts', ...shown('F1'), click: () => send('shortcuts') }]
    }
  ]
  return Menu.buildFromTemplate(template)
}
