import { z } from 'zod'
import { knownFeatureNames, listPatches } from './patch-adapter'
import { RTAPP_EVENTS, RTAPP_GLOBAL, RTAPP_GLOBAL_INPUT, RTAPP_TASK_EDITOR, RTAPP_TASKS_INPUT } from './rtapp-schema'
import { FEATURES, SCENARIO, VARIANT } from './schema'

type Json = Record<string, unknown>

/**
 * The JSON Schema (draft 2020-12) the editor uses, generated from the same zod schemas that
 * validate. The rt-app sections get the editor form of the rt-app grammar (known properties plus
 * prefix-matched event keys), and feature/patch names are enumerated for completion.
 */
export function scenarioJsonSchema(): Json {
  const eventProps = rtappEventPatterns()
  const root = z.toJSONSchema(SCENARIO, {
    io: 'input',
    unrepresentable: 'any',
    override: (ctx) => {
      const js = ctx.jsonSchema as Json
      if (ctx.zodSchema === RTAPP_TASKS_INPUT) {
        replace(js, { type: 'object', description: RTAPP_TASKS_INPUT.description, additionalProperties: rtappTaskSchema(eventProps) })
      } else if (ctx.zodSchema === RTAPP_GLOBAL_INPUT) {
        replace(js, z.toJSONSchema(RTAPP_GLOBAL, { io: 'input', unrepresentable: 'any' }) as Json)
        delete js.$schema
      } else if (ctx.zodSchema === FEATURES) {
        js.propertyNames = { enum: knownFeatureNames() }
      } else if (ctx.zodSchema === VARIANT.shape.patches) {
        // built-in names (completion adds them with their docs) or a patch module's path or library name
        js.items = { type: 'string', minLength: 1, examples: listPatches().map((p) => p.name) }
      }
    }
  }) as Json
  hoistDefs(root, root)
  return root
}

/**
 * Sub-schemas generated on their own carry their `$defs` where they were spliced in, but their
 * `#/$defs/...` references resolve against the document root: move every nested `$defs` there.
 */
function hoistDefs(node: unknown, root: Json): void {
  if (Array.isArray(node)) {
    for (const x of node) hoistDefs(x, root)
    return
  }
  if (node === null || typeof node !== 'object') return
  const o = node as Json
  for (const v of Object.values(o)) hoistDefs(v, root)
  if (o !== root && o.$defs && typeof o.$defs === 'object') {
    root.$defs = { ...((root.$defs as Json) ?? {}), ...(o.$defs as Json) }
    delete o.$defs
  }
}

function replace(target: Json, next: Json): void {
  for (const k of Object.keys(target)) delete target[k]
  Object.assign(target, next)
}

function rtappEventPatterns(): Json {
  const out: Json = {}
  for (const e of RTAPP_EVENTS) {
    const s = z.toJSONSchema(e.schema, { io: 'input', unrepresentable: 'any' }) as Json
    delete s.$schema
    out[`^${e.name}`] = { ...s, description: e.doc }
  }
  return out
}

function rtappTaskSchema(eventProps: Json): Json {
  const task = z.toJSONSchema(RTAPP_TASK_EDITOR, { io: 'input', unrepresentable: 'any' }) as Json
  delete task.$schema
  delete task.id
  const phase: Json = {
    type: 'object',
    description: 'A phase: properties, then events in key order',
    properties: { loop: { type: 'integer', minimum: -1, description: 'Iterations of the phase (-1 = forever)' }, ...((task.properties as Json) ?? {}) },
    patternProperties: eventProps
  }
  for (const k of ['instance', 'delay', 'phases', 'period', 'deadline']) delete (phase.properties as Json)[k]
  const props = { ...((task.properties as Json) ?? {}) }
  props.phases = { type: 'object', description: 'Ordered phases', additionalProperties: phase }
  return { ...task, properties: props, patternProperties: eventProps, additionalProperties: true }
}
