import type { SchedlabApi } from '../../../shared/ipc'
import { connectWebApi } from './web'

/** The API object: the preload's in the desktop app, the WebSocket client in a browser. */
export async function getApi(): Promise<{ api: SchedlabApi; closed: Promise<void> | null }> {
  if (window.schedlab) return { api: window.schedlab, closed: null }
  const c = await connectWebApi()
  return { api: c.api, closed: c.closed }
}
