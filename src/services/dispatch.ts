import type { z } from 'zod'
import type { Envelope } from '../shared/ipc'

export class InvalidCallError extends Error {}

/**
 * The one gate every call from a renderer passes, in both hosts: the method must be in the
 * contract, its arguments must satisfy the method's schema, and the answer (or the error
 * message, never a stack) travels back in an envelope.
 */
export function createDispatcher(
  schemas: Record<string, z.ZodType>,
  impl: object
): (method: string, args: unknown) => Promise<Envelope<unknown>> {
  const fns = impl as Record<string, unknown>
  return async (method, args) => {
    if (!Object.prototype.hasOwnProperty.call(schemas, method) || typeof fns[method] !== 'function') {
      return { ok: false, error: `unknown method ${JSON.stringify(String(method)).slice(0, 80)}` }
    }
    const parsed = schemas[method].safeParse(args)
    if (!parsed.success) {
      const detail = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.length ? `argument ${i.path.join('.')}` : 'arguments'}: ${i.message}`)
        .join('; ')
      return { ok: false, error: `invalid call to ${method}: ${detail}` }
    }
    try {
      const value = await (fns[method] as (...a: unknown[]) => unknown).apply(impl, parsed.data as unknown[])
      return { ok: true, value }
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) }
    }
  }
}

/** Renderer-side: turn an envelope back into a value or a thrown Error. */
export function unwrap<T>(env: Envelope<T>): T {
  if (env.ok) return env.value
  throw new Error(env.error)
}
