/**
 * zod schemas of the argument tuple of every contract method (src/shared/ipc.ts). Both hosts
 * validate each call against these before it reaches a service. Kept apart from ipc.ts so the
 * sandboxed preload, which cannot load npm modules, does not pull zod in.
 */
import { z } from 'zod'
import type { HostMethods, ServiceMethods } from './ipc'
import { scenarioTooLarge, traceTooLarge } from './limits'

const id = z.string().regex(/^[A-Za-z0-9._-]{1,120}$/, 'not a valid id')
/** Scenario text: generous but bounded, so a runaway caller cannot pin the host's memory. */
const text = z.string().check((ctx) => {
  const big = scenarioTooLarge(ctx.value)
  if (big) ctx.issues.push({ code: 'custom', message: big, input: ctx.value })
})
const fileName = z.string().min(1).max(4096)
const doc = z.object({ name: z.string().min(1).max(4096), path: z.string().max(4096).nullable(), text })
const column = z.object({ runId: id, variant: z.string().min(1).max(500) })
const exportReq = z.object({
  columns: z.array(column).min(1).max(64),
  format: z.enum(['csv', 'md', 'txt', 'json']),
  baseline: z.number().int().min(0).max(63),
  title: z.string().max(500),
  metrics: z.array(z.enum(['count', 'avg', 'p50', 'p90', 'p99', 'p99_9', 'max', 'timeSec'])).max(8).optional()
}).refine((r) => r.baseline < r.columns.length, { message: 'baseline must index a column', path: ['baseline'] })

const startReq = z.object({
  text,
  file: fileName,
  name: z.string().max(500).optional(),
  variants: z.array(z.string().min(1).max(500)).max(256).optional(),
  seeds: z.number().int().min(1).max(1000).optional(),
  durationMs: z.number().int().min(1).max(86_400_000).optional(),
  published: z.boolean().optional(),
  precision: z.string().min(1).max(600).optional(),
  maxSeeds: z.number().int().min(1).max(1000).optional(),
  kernel: z.string().min(1).max(4096).optional()
})
/** A trace sent as text (the browser's import; the desktop app streams files of any size). */
const traceText = z.string().check((ctx) => {
  const big = traceTooLarge(ctx.value)
  if (big) ctx.issues.push({ code: 'custom', message: big, input: ctx.value })
})
const selector = z.union([
  z.enum(['max', 'p50', 'p90', 'p99', 'p99_9']),
  z.string().regex(/^p(\d{1,2}(\.\d{1,6})?|100)$/, 'a percentile p<0..100>') as unknown as z.ZodType<`p${number}`, `p${number}`>,
  z.number().int().min(0).max(1e12)
])
const runVariant = { runId: id, variant: z.string().min(1).max(500), seed: z.number().int().min(0).max(2 ** 32 - 1) }
const explainReq = z.object({
  ...runVariant,
  workload: z.string().min(1).max(500).optional(),
  sample: selector.optional(),
  idle: z.object({ bucket: z.enum(['2.5-3ms', '3-4ms', '4ms+']), index: z.number().int().min(0).max(1e9) }).strict().optional(),
  requestId: z.string().min(1).max(100).optional()
}).strict().refine((r) => (r.idle !== undefined) !== (r.workload !== undefined), { message: 'give a workload (and sample) or an idle event, not both' })
const traceReq = z.object({
  ...runVariant,
  startNs: z.number().min(0).max(1e15).optional(),
  endNs: z.number().min(0).max(1e15).optional()
}).strict().refine((r) => r.startNs === undefined || r.endNs === undefined || r.startNs < r.endNs, { message: 'startNs must be before endNs', path: ['endNs'] })

/** A patch library name: a file name without its .ts, never a path. */
const patchName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'a patch name is 1-64 letters, digits, "-", "_" or "." (no path)')
/** A patch module's source, at most 1 MB (as the library reads it). */
const patchSource = z.string().max(1 << 20, 'a patch module is at most 1 MB')

export const SERVICE_ARGS = {
  appInfo: z.tuple([]),
  editorInfo: z.tuple([]),
  listPresets: z.tuple([]),
  readPreset: z.tuple([id]),
  validateScenario: z.tuple([text, fileName]),
  importRtApp: z.tuple([text, fileName]),
  startRun: z.tuple([startReq]),
  startRealRun: z.tuple([startReq]),
  startVmRun: z.tuple([startReq]),
  cancelRun: z.tuple([id]),
  resumeRun: z.tuple([id]),
  importTrace: z.tuple([traceText, fileName]),
  listRuns: z.tuple([]),
  getRun: z.tuple([id]),
  renameRun: z.tuple([id, z.string().trim().min(1).max(500)]),
  deleteRun: z.tuple([id]),
  setBaseline: z.tuple([id.nullable()]),
  getSettings: z.tuple([]),
  updateSettings: z.tuple([z.object({
    theme: z.enum(['light', 'dark', 'system']).optional(),
    layout: z.object({ historyPx: z.number().finite().min(0).max(10_000), editorPct: z.number().finite().min(0).max(100) }).strict().optional(),
    exportPrefs: z.object({ scale: z.union([z.literal(2), z.literal(3)]), theme: z.enum(['light', 'dark', 'shown']) }).strict().optional(),
    limits: z.object({
      maxEventsPerRun: z.number().min(1000).max(1e13).optional(),
      maxTotalEvents: z.number().min(1000).max(1e15).optional(),
      memoryShare: z.number().min(0.01).max(0.95).optional()
    }).strict().optional()
  }).strict()]),
  exportContent: z.tuple([exportReq]),
  explain: z.tuple([explainReq]),
  cancelExplain: z.tuple([z.string().min(1).max(100)]),
  perfettoTrace: z.tuple([traceReq]),
  listPatchModules: z.tuple([]),
  checkPatchModule: z.tuple([patchName, patchSource]),
  savePatchModule: z.tuple([patchName, patchSource]),
  deletePatchModule: z.tuple([patchName])
} satisfies Record<keyof ServiceMethods, z.ZodType>

export const HOST_ARGS = {
  openScenario: z.tuple([]),
  openRecent: z.tuple([fileName]),
  importRtAppFile: z.tuple([]),
  importTraceFile: z.tuple([]),
  saveScenario: z.tuple([doc, z.boolean()]),
  exportTable: z.tuple([exportReq]),
  exportPng: z.tuple([z.string().min(1).max(200), z.instanceof(Uint8Array).refine((b) => b.byteLength <= 64_000_000, 'PNG too large')]),
  exportPerfetto: z.tuple([traceReq]),
  setDirty: z.tuple([z.boolean()])
} satisfies Record<keyof HostMethods, z.ZodType>

export const API_ARGS = { ...SERVICE_ARGS, ...HOST_ARGS }


/** Compile-time check: each schema accepts exactly its method's parameters. */
type SchemaMatches<M, S extends Record<keyof M, z.ZodType>> = {
  [K in keyof M]: M[K] extends (...a: infer P) => unknown
    ? (z.input<S[K]> extends P ? (P extends z.input<S[K]> ? true : false) : false)
    : false
}
type AllTrue<T> = T[keyof T] extends true ? true : false
type Expect<T extends true> = T
export type ServiceArgsCheck = Expect<AllTrue<SchemaMatches<ServiceMethods, typeof SERVICE_ARGS>>>
export type HostArgsCheck = Expect<AllTrue<SchemaMatches<HostMethods, typeof HOST_ARGS>>>
