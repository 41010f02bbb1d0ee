import { contextBridge, ipcRenderer } from 'electron'
import {
  API_EVENTS, API_METHODS, eventChannel, ipcChannel,
  type ApiEventName, type ApiMethods, type Envelope, type EventListener, type SchedlabApi
} from '../shared/ipc'

/**
 * The only thing that crosses into the page: one object whose methods invoke the contract's
 * channels and whose `on` subscribes to its events. No ipcRenderer, no Node.
 */
function invoker(method: keyof ApiMethods) {
  const channel = ipcChannel(method)
  return async (...args: unknown[]): Promise<unknown> => {
    const env = (await ipcRenderer.invoke(channel, ...args)) as Envelope<unknown>
    if (env.ok) return env.value
    throw new Error(env.error)
  }
}

const methods = Object.fromEntries(API_METHODS.map((m) => [m, invoker(m)])) as unknown as ApiMethods

const api: SchedlabApi = {
  ...methods,
  platform: 'electron',
  on<E extends ApiEventName>(event: E, listener: EventListener<E>): () => void {
    if (!API_EVENTS.includes(event)) throw new Error(`unknown event ${String(event)}`)
    const channel = eventChannel(event)
    const wrapped = (_e: unknown, payload: unknown): void => listener(payload as Parameters<EventListener<E>>[0])
    ipcRenderer.on(channel, wrapped)
    return () => {
      ipcRenderer.removeListener(channel, wrapped)
    }
  }
}

contextBridge.exposeInMainWorld('schedlab', api)
