import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron'
import { API_METHODS, eventChannel, ipcChannel, type HostMethods } from '../shared/ipc'
import { API_ARGS } from '../shared/ipc-schemas'
import type { Backend } from '../services/backend'
import { createDispatcher } from '../services/dispatch'
import { isTrustedRendererUrl } from './sender'

/**
 * Register one handler per contract method. Each call is checked twice before it reaches a
 * service: the sender must be our window's top frame showing our renderer, and the arguments
 * must satisfy the method's schema (in the dispatcher).
 */
export function registerIpc(backend: Backend, host: HostMethods, getWindow: () => BrowserWindow | null, rendererUrl: string): () => void {
  const dispatch = createDispatcher(API_ARGS, { ...backend.service, ...host })

  const trusted = (event: IpcMainInvokeEvent): boolean => {
    const win = getWindow()
    const frame = event.senderFrame
    if (!win || !frame || event.sender !== win.webContents) return false
    if (frame !== win.webContents.mainFrame) return false
    return isTrustedRendererUrl(frame.url, rendererUrl)
  }

  for (const method of API_METHODS) {
    ipcMain.handle(ipcChannel(method), async (event, ...args: unknown[]) => {
      if (!trusted(event)) return { ok: false, error: 'refused: the call did not come from the schedlab window' }
      return dispatch(method, args)
    })
  }

  const off = backend.onEvent((event, payload) => {
    const win = getWindow()
    if (win && !win.isDestroyed()) win.webContents.send(eventChannel(event), payload)
  })

  return () => {
    off()
    for (const method of API_METHODS) ipcMain.removeHandler(ipcChannel(method))
  }
}
