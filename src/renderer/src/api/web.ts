import {
  API_EVENTS, type ApiEventName, type ApiEvents, type EventListener, type ExportOutcome, type SchedlabApi,
  type ScenarioDoc, type ServiceMethods
} from '../../../shared/ipc'
import { SERVICE_METHODS } from '../../../shared/ipc'
import { download, pickTextFile } from './browser-files'
import { MAX_MESSAGE_BYTES, formatMb, scenarioTooLarge, traceTooLarge, utf8Length } from '../../../shared/limits'

/**
 * The renderer's API in a browser, against `schedlab serve`: service methods travel over the
 * page's WebSocket, file delivery uses the browser (file pickers, downloads).
 */

/** What the page says when the host closed the connection, by WebSocket close code. */
export function closeReason(code: number): string {
  if (code === 1009) return `the schedlab web host closed the connection: a message was too large (the limit is ${formatMb(MAX_MESSAGE_BYTES)})`
  if (code === 1007 || code === 1002) return 'the schedlab web host closed the connection: it received a malformed message'
  return 'the connection to the schedlab web host was lost'
}

/** Methods whose first argument is (or carries, as `text`) scenario text. */
const SCENARIO_METHODS = new Set(['validateScenario', 'importRtApp', 'startRun', 'startRealRun', 'startVmRun'])

/**
 * Why a call must not be sent, or null. Checked here because the host cannot answer a message
 * over its frame limit: it can only drop the connection, which would read as "lost".
 */
function refusal(method: string, args: unknown[], wire: string): string | null {
  if (SCENARIO_METHODS.has(method)) {
    const a = args[0]
    const text = typeof a === 'string' ? a : typeof a === 'object' && a !== null ? (a as { text?: unknown }).text : undefined
    const big = typeof text === 'string' ? scenarioTooLarge(text) : null
    if (big) return big
  }
  if (method === 'importTrace' && typeof args[0] === 'string') {
    const big = traceTooLarge(args[0])
    if (big) return big
  }
  const bytes = wire.length > MAX_MESSAGE_BYTES ? wire.length : utf8Length(wire)
  return bytes > MAX_MESSAGE_BYTES ? `message too large: ${formatMb(bytes)}, the limit is ${formatMb(MAX_MESSAGE_BYTES)}` : null
}

type Pending = { resolve(v: unknown): void; reject(e: Error): void }

export interface WebConnection {
  api: SchedlabApi
  /** Resolves when the connection to the host is lost. */
  closed: Promise<void>
}

export async function connectWebApi(loc: Location = window.location): Promise<WebConnection> {
  const token = new URLSearchParams(loc.search).get('token') ?? ''
  const ws = new WebSocket(`${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws?token=${encodeURIComponent(token)}`)
  await new Promise<void>((ok, fail) => {
    ws.addEventListener('open', () => ok(), { once: true })
    ws.addEventListener('error', () => fail(new Error('could not connect to the schedlab web host (is `schedlab serve` still running, and is the token in the URL current?)')), { once: true })
  })
  const pending = new Map<number, Pending>()
  const listeners = new Map<ApiEventName, Set<(p: unknown) => void>>()
  let nextId = 1
  const closed = new Promise<void>((done) => {
    ws.addEventListener('close', (ev) => {
      const reason = closeReason(ev.code)
      for (const p of pending.values()) p.reject(new Error(reason))
      pending.clear()
      done()
    })
  })
  ws.addEventListener('message', (ev) => {
    const msg = JSON.parse(String(ev.data)) as { id?: number; ok?: boolean; value?: unknown; error?: string; event?: ApiEventName; payload?: unknown }
    if (typeof msg.id === 'number') {
      const p = pending.get(msg.id)
      pending.delete(msg.id)
      if (!p) return
      if (msg.ok) p.resolve(msg.value)
      else p.reject(new Error(msg.error ?? 'unknown error'))
    } else if (msg.event) {
      for (const l of listeners.get(msg.event) ?? []) l(msg.payload)
    }
  })

  const call = (method: string, args: unknown[]): Promise<unknown> => {
    if (ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error('the connection to the schedlab web host was lost'))
    const id = nextId++
    const wire = JSON.stringify({ id, method, args })
    const refused = refusal(method, args, wire)
    if (refused) return Promise.reject(new Error(refused))
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject })
      ws.send(wire)
    })
  }
  const service = Object.fromEntries(
    SERVICE_METHODS.map((m) => [m, (...args: unknown[]) => call(m, args)])
  ) as unknown as ServiceMethods

  let dirty = false
  window.addEventListener('beforeunload', (e) => {
    if (dirty) e.preventDefault()
  })

  const api: SchedlabApi = {
    ...service,
    platform: 'web',

    async openScenario() {
      const f = await pickTextFile('.json,.jsonc,application/json')
      return f ? { name: f.name, path: null, text: f.text } : null
    },
    async openRecent() {
      throw new Error('recent files are not available in the browser; use Open')
    },
    async importRtAppFile() {
      const f = await pickTextFile('.json,application/json')
      return f ? service.importRtApp(f.text, f.name) : null
    },
    async importTraceFile() {
      const f = await pickTextFile('.txt,.trace,.log,.gz,text/plain')
      return f ? service.importTrace(f.text, f.name) : null
    },
    async saveScenario(doc: ScenarioDoc) {
      const name = /\.jsonc?$/i.test(doc.name) ? doc.name : `${doc.name}.json`
      download(name, new Blob([doc.text], { type: 'application/json' }))
      return { name, path: null, text: doc.text }
    },
    async exportTable(req): Promise<ExportOutcome> {
      const c = await service.exportContent(req)
      download(c.fileName, new Blob([c.text], { type: c.mime }))
      return { saved: true, name: c.fileName }
    },
    async exportPerfetto(req): Promise<ExportOutcome> {
      const t = await service.perfettoTrace(req)
      const bin = atob(t.base64)
      const bytes = new Uint8Array(bin.length)
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
      download(t.fileName, new Blob([bytes], { type: 'application/octet-stream' }))
      return { saved: true, name: t.fileName }
    },
    async exportPng(name, png): Promise<ExportOutcome> {
      const file = name.toLowerCase().endsWith('.png') ? name : `${name}.png`
      download(file, new Blob([png], { type: 'image/png' }))
      return { saved: true, name: file }
    },
    async setDirty(d) {
      dirty = d
    },

    on<E extends ApiEventName>(event: E, listener: EventListener<E>): () => void {
      if (!API_EVENTS.includes(event)) throw new Error(`unknown event ${String(event)}`)
      let set = listeners.get(event)
      if (!set) listeners.set(event, (set = new Set()))
      const l = listener as (p: unknown) => void
      set.add(l)
      return () => set.delete(l)
    }
  }
  return { api, closed }
}

export type { ApiEvents }
