import type { SchedlabApi } from '../shared/ipc'

declare global {
  interface Window {
    /** Exposed by the Electron preload; absent in a browser, where the web host's client stands in. */
    schedlab?: SchedlabApi
  }
}

export {}
