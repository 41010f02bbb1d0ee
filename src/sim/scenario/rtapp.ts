import type { PolicyName } from '../kernel/api'
import type { IssueSink } from './errors'
import { toPlain, type JEntry, type JObject, type JValue } from './jsonc'
import type { JsonPath } from './paths'
import { eventOfKey, RTAPP_EVENTS, RTAPP_GLOBAL, RTAPP_PHASE_LOOP, RTAPP_PROPS, RTAPP_TASK_KEYS, type RtAppEventDef } from './rtapp-schema'
import type { RtAppEvent, RtAppPhase, RtAppProps, RtAppSpec, RtAppTask } from './workload-specs'
import { closest, describeValue, validateInto } from './zod-issues'

/**
 * The ordered rt-app reader. It walks the lenient tree (not a plain object) because rt-app's
 * event order is key order and workgen-style files repeat keys; every finding is located at the
 * key's own text position, so the second `"run"` of a phase is reported where it is written.
 */

export interface RtAppContext {
  ncpus: number
  capacities: readonly number[]
}

export interface RtAppRead {
  spec: RtAppSpec
  /** global.duration in seconds (-1 = until the threads finish). */
  durationS: number
  /** True when some thread never finishes on its own (loop -1 somewhere). */
  endless: boolean
}

const MIN_SLICE_US = 100
const MAX_SLICE_US = 100_000
/** Cost model of the memory and IO events (documented in rtapp-schema.ts). */
const MEMSET_BYTES_PER_NS = 10
const SEQ_ACCESS_NS = 0.5
const RANDOM_ACCESS_NS = 80
const IO_CHUNK_US = 1

const POLICY_MAP: Record<string, PolicyName | 'deadline'> = {
  SCHED_OTHER: 'other',
  SCHED_BATCH: 'batch',
  SCHED_IDLE: 'idle',
  SCHED_FIFO: 'fifo',
  SCHED_RR: 'rr',
  SCHED_DEADLINE: 'deadline'
}

const TASK_ONLY_KEYS = Object.keys(RTAPP_TASK_KEYS)
const PROP_KEYS = Object.keys(RTAPP_PROPS)
const GLOBAL_KEYS = Object.keys(RTAPP_GLOBAL.shape)

export function isFair(p: PolicyName): boolean {
  return p === 'other' || p === 'batch' || p === 'idle'
}

/** rt-app's default priority for a policy: nice 0 for fair policies, RT priority 10 otherwise. */
function defaultPriority(p: PolicyName): number {
  return isFair(p) ? 0 : 10
}

export function readRtApp(
  tasksNode: JValue | undefined,
  globalNode: JValue | undefined,
  base: JsonPath,
  sink: IssueSink,
  ctx: RtAppContext,
  defaults: RtAppProps = {}
): RtAppRead | undefined {
  const before = sink.issues.length
  const global = readGlobal(globalNode, [...base, 'global'], sink, ctx)

  if (!tasksNode) {
    sink.error(base, 'rt-app needs a "tasks" object')
    return undefined
  }
  if (tasksNode.kind !== 'object') {
    sink.error([...base, 'tasks'], `"tasks" must be an object of tasks, got ${tasksNode.kind === 'array' ? 'an array' : describeValue(toPlain(tasksNode))}`, tasksNode.offset)
    return undefined
  }
  if (tasksNode.entries.length === 0) sink.error([...base, 'tasks'], 'no tasks defined', tasksNode.offset)

  const defaultPolicy = global?.defaultPolicy ?? 'other'
  const tasks: RtAppTask[] = []
  const seen = new Set<string>()
  for (const entry of tasksNode.entries) {
    const path = [...base, 'tasks', entry.key]
    if (seen.has(entry.key)) {
      sink.error(path, `duplicate task name "${entry.key}" (json-c would drop the first definition)`, entry.keyOffset)
      continue
    }
    seen.add(entry.key)
    if (!entry.value || entry.value.kind !== 'object') {
      sink.error(path, `a task must be an object, got ${entry.value ? describeValue(toPlain(entry.value)) : 'nothing'}`, entry.value?.offset ?? entry.keyOffset)
      continue
    }
    const t = readTask(entry.key, entry.value, path, sink, ctx, defaultPolicy, defaults)
    if (t) tasks.push(t)
  }

  if (sink.issues.length > before || !global) return undefined
  crossCheck(tasks, tasksNode, base, sink)
  if (sink.issues.length > before) return undefined

  const spec: RtAppSpec = {
    tasks,
    calibrationCapacity: global.calibrationCapacity,
    piEnabled: global.piEnabled,
    cumulativeSlack: global.cumulativeSlack,
    barriers: countBarriers(tasks)
  }
  resolveTimerModes(tasks)
  const endless = tasks.some((t) => t.instance > 0 && (t.loop === -1 || t.phases.some((p) => p.loop === -1)))
  return { spec, durationS: global.durationS, endless }
}

interface GlobalRead {
  durationS: number
  defaultPolicy: PolicyName
  calibrationCapacity: number
  piEnabled: boolean
  cumulativeSlack: boolean
}

function readGlobal(node: JValue | undefined, path: JsonPath, sink: IssueSink, ctx: RtAppContext): GlobalRead | undefined {
  const raw = node ? toPlain(node) : {}
  if (node && node.kind !== 'object') {
    sink.error(path, `"global" must be an object, got ${describeValue(raw)}`, node.offset)
    return undefined
  }
  // rt-app ignores keys it does not know in global; we keep going but say so.
  const known: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (GLOBAL_KEYS.includes(k)) known[k] = v
    else {
      const hint = closest(k, GLOBAL_KEYS)
      sink.warn([...path, k], `unknown rt-app global key ignored${hint ? ` (did you mean "${hint}"?)` : ''}`)
    }
  }
  const g = validateInto(RTAPP_GLOBAL, known, sink, path, node)
  if (!g) return undefined
  const policy = POLICY_MAP[g.default_policy]
  if (policy === 'deadline') {
    sink.error([...path, 'default_policy'], 'SCHED_DEADLINE is not modeled by schedlab')
    return undefined
  }
  let calibrationCapacity = 1024
  if (typeof g.calibration === 'string') {
    const cpu = Number(g.calibration.slice(3))
    if (cpu >= ctx.ncpus) {
      sink.error([...path, 'calibration'], `calibration CPU ${cpu} does not exist (the topology has ${ctx.ncpus} CPUs)`)
      return undefined
    }
    calibrationCapacity = ctx.capacities[cpu]
  }
  return { durationS: g.duration, defaultPolicy: policy, calibrationCapacity, piEnabled: g.pi_enabled, cumulativeSlack: g.cumulative_slack }
}

function readTask(
  name: string,
  obj: JObject,
  path: JsonPath,
  sink: IssueSink,
  ctx: RtAppContext,
  defaultPolicy: PolicyName,
  defaults: RtAppProps
): RtAppTask | undefined {
  const before = sink.issues.length
  const scalar = (key: keyof typeof RTAPP_TASK_KEYS): unknown => {
    const e = lastOf(obj, key)
    if (!e) return undefined
    return validateInto(RTAPP_TASK_KEYS[key], toPlain(e.value), sink, [...path, key], e.value)
  }
  const instance = (scalar('instance') as number | undefined) ?? 1
  const delayUs = (scalar('delay') as number | undefined) ?? 0
  const loopEntry = lastOf(obj, 'loop')
  const taskLoop = loopEntry ? (scalar('loop') as number | undefined) : undefined
  for (const legacy of ['period', 'deadline'] as const) {
    if (lastOf(obj, legacy)) {
      scalar(legacy)
      sink.warn([...path, legacy], `legacy SCHED_DEADLINE key ignored`)
    }
  }

  const propsRaw = readProps(obj, path, sink, ctx)
  // Task level: the policy defaults to the workload's, then to global.default_policy.
  const policy = propsRaw.policy ?? defaults.policy ?? defaultPolicy
  const sameClass = defaults.policy === undefined || isFair(defaults.policy) === isFair(policy)
  const props: RtAppProps = {
    policy,
    priority: propsRaw.priority ?? (sameClass ? defaults.priority : undefined) ?? defaultPriority(policy),
    sliceUs: propsRaw.sliceUs ?? defaults.sliceUs,
    cpus: propsRaw.cpus ?? defaults.cpus,
    uclampMin: propsRaw.uclampMin ?? defaults.uclampMin,
    uclampMax: propsRaw.uclampMax ?? defaults.uclampMax
  }
  checkPriority(props, lastOf(obj, 'priority') ? [...path, 'priority'] : path, sink)

  const phasesEntry = lastOf(obj, 'phases')
  const phases: RtAppPhase[] = []
  let loop: number
  let policyNow = policy
  if (phasesEntry) {
    loop = taskLoop ?? -1
    const pv = phasesEntry.value
    if (!pv || pv.kind !== 'object') {
      sink.error([...path, 'phases'], '"phases" must be an object of phases', pv?.offset ?? phasesEntry.keyOffset)
      return undefined
    }
    if (pv.entries.length === 0) sink.error([...path, 'phases'], 'no phases defined', pv.offset)
    // Event keys next to "phases" are not read by rt-app.
    for (const e of obj.entries) {
      if (eventOfKey(e.key) && !PROP_KEYS.includes(e.key) && !TASK_ONLY_KEYS.includes(e.key)) {
        sink.warn([...path, e.key], 'event outside "phases" is ignored (rt-app reads only the phases)', e.keyOffset)
      }
    }
    checkKeys(obj, path, sink, [...TASK_ONLY_KEYS, ...PROP_KEYS], true)
    for (const pe of pv.entries) {
      const ppath = [...path, 'phases', pe.key]
      if (!pe.value || pe.value.kind !== 'object') {
        sink.error(ppath, 'a phase must be an object', pe.value?.offset ?? pe.keyOffset)
        continue
      }
      const ph = readPhase(pe.key, pe.value, ppath, sink, ctx, name, policyNow)
      if (ph) {
        policyNow = ph.props.policy ?? policyNow
        phases.push(ph)
      }
    }
  } else {
    // No phases: the task body is one phase whose `loop` is the task's; the task then runs once
    // (or forever when it gives no loop), as rt-app does.
    checkKeys(obj, path, sink, [...TASK_ONLY_KEYS, ...PROP_KEYS], false)
    const events = readEvents(obj, path, sink, name)
    if (events.length === 0) sink.error(path, 'no events found: a task needs events (run, sleep, timer ...) or phases', obj.offset)
    phases.push({ name: 'phase0', loop: taskLoop ?? 1, props: {}, events })
    loop = taskLoop !== undefined ? 1 : -1
  }
  if (loop === 0) sink.warn(loopEntry ? [...path, 'loop'] : path, 'loop 0: the task does nothing')
  if (sink.issues.length > before) return undefined
  return { name, instance, delayUs, loop, props, phases }
}

function readPhase(name: string, obj: JObject, path: JsonPath, sink: IssueSink, ctx: RtAppContext, task: string, policyBefore: PolicyName): RtAppPhase | undefined {
  const before = sink.issues.length
  const loopE = lastOf(obj, 'loop')
  const loop = loopE ? (validateInto(RTAPP_PHASE_LOOP, toPlain(loopE.value), sink, [...path, 'loop'], loopE.value) ?? 1) : 1
  if (loop === 0) sink.error([...path, 'loop'], 'phase loop 0 never ends in rt-app; use -1 for forever or a count >= 1')
  checkKeys(obj, path, sink, ['loop', ...PROP_KEYS], false)
  const raw = readProps(obj, path, sink, ctx)
  const props: RtAppProps = { ...raw }
  // A phase that changes the policy without a priority gets that policy's default.
  if (raw.policy !== undefined && raw.priority === undefined) props.priority = defaultPriority(raw.policy)
  const policy = raw.policy ?? policyBefore
  if (props.priority !== undefined) checkPriority({ ...props, policy }, lastOf(obj, 'priority') ? [...path, 'priority'] : path, sink)
  if (raw.sliceUs !== undefined && !isFair(policy)) sink.warn([...path, 'dl-runtime'], `dl-runtime is the slice of fair tasks; ignored for ${policy}`)
  const events = readEvents(obj, path, sink, task)
  if (events.length === 0) sink.error(path, 'no events found: a phase needs events (run, sleep, timer ...)', obj.offset)
  if (sink.issues.length > before) return undefined
  return { name, loop, props, events }
}

function lastOf(o: JObject, key: string): JEntry | undefined {
  for (let i = o.entries.length - 1; i >= 0; i--) if (o.entries[i].key === key) return o.entries[i]
  return undefined
}

/** Keys that are neither events nor known properties are errors (a misspelt event would be lost). */
function checkKeys(obj: JObject, path: JsonPath, sink: IssueSink, allowed: string[], hasPhases: boolean): void {
  for (const e of obj.entries) {
    if (allowed.includes(e.key) || eventOfKey(e.key)) continue
    const hint = closest(e.key, [...allowed, ...RTAPP_EVENTS.map((ev) => ev.name)])
    const what = hasPhases ? 'task property' : 'rt-app event or property'
    sink.error([...path, e.key], `unknown key "${e.key}": not an ${what}${hint ? ` (did you mean "${hint}"?)` : ''}; events: ${RTAPP_EVENTS.map((ev) => ev.name).join(', ')}`, e.keyOffset)
  }
}

function readProps(obj: JObject, path: JsonPath, sink: IssueSink, ctx: RtAppContext): RtAppProps & { policy?: PolicyName } {
  const out: RtAppProps = {}
  const get = <K extends keyof typeof RTAPP_PROPS>(key: K): unknown => {
    const e = lastOf(obj, key)
    if (!e) return undefined
    if (!e.value) {
      sink.error([...path, key], `"${key}" needs a value`, e.keyOffset)
      return undefined
    }
    return validateInto(RTAPP_PROPS[key], toPlain(e.value), sink, [...path, key], e.value)
  }
  const policy = get('policy') as string | undefined
  if (policy !== undefined) {
    const p = POLICY_MAP[policy]
    if (p === 'deadline') sink.error([...path, 'policy'], 'SCHED_DEADLINE is not modeled by schedlab (unsupported policy)')
    else out.policy = p
  }
  const prio = get('priority') as number | undefined
  if (prio !== undefined) out.priority = prio
  const rt = get('dl-runtime') as number | undefined
  if (rt !== undefined && rt > 0) {
    const clamped = Math.min(MAX_SLICE_US, Math.max(MIN_SLICE_US, rt))
    if (clamped !== rt) sink.warn([...path, 'dl-runtime'], `slice ${rt} us clamped to ${clamped} us as the kernel does (0.1..100 ms)`)
    out.sliceUs = clamped
  }
  for (const k of ['dl-period', 'dl-deadline'] as const) if (get(k) !== undefined) sink.warn([...path, k], `${k} is a SCHED_DEADLINE parameter; ignored`)
  const cpus = get('cpus') as number[] | undefined
  if (cpus) {
    const bad = cpus.filter((c) => c >= ctx.ncpus)
    if (bad.length > 0) sink.error([...path, 'cpus'], `CPU ${bad.join(', ')} does not exist (the topology has ${ctx.ncpus} CPUs: 0..${ctx.ncpus - 1})`)
    else out.cpus = [...new Set(cpus)].sort((a, b) => a - b)
  }
  if (get('nodes_membind') !== undefined) sink.warn([...path, 'nodes_membind'], 'NUMA memory binding is not modeled; ignored')
  const tg = get('taskgroup') as string | undefined
  if (tg !== undefined && tg !== '') {
    if (!tg.startsWith('/')) sink.error([...path, 'taskgroup'], `taskgroup "${tg}" must start with "/"`)
    else sink.warn([...path, 'taskgroup'], `taskgroup ${tg} flattened: cgroups are not modeled, the thread runs in the root group`)
  }
  const umin = get('util_min') as number | undefined
  const umax = get('util_max') as number | undefined
  if (umin !== undefined) out.uclampMin = umin
  if (umax !== undefined) out.uclampMax = umax
  if (umin !== undefined && umax !== undefined && umin > umax) sink.error([...path, 'util_min'], `util_min ${umin} is above util_max ${umax}`)
  return out
}

function checkPriority(props: RtAppProps, path: JsonPath, sink: IssueSink): void {
  const p = props.policy
  const v = props.priority
  if (p === undefined || v === undefined) return
  if (isFair(p) && (v < -20 || v > 19)) sink.error(path, `priority is the nice value for SCHED_${p.toUpperCase()} and must be in -20..19, got ${v}`)
  if (!isFair(p) && (v < 1 || v > 99)) sink.error(path, `priority is the RT priority for SCHED_${p.toUpperCase()} and must be in 1..99, got ${v}`)
}

function readEvents(obj: JObject, path: JsonPath, sink: IssueSink, task: string): RtAppEvent[] {
  const events: RtAppEvent[] = []
  for (const e of obj.entries) {
    if (PROP_KEYS.includes(e.key) || TASK_ONLY_KEYS.includes(e.key)) continue
    const def = eventOfKey(e.key)
    if (!def) continue
    const ev = readEvent(def, e, [...path, e.key], sink, task)
    if (ev) events.push(ev)
  }
  return events
}

function readEvent(def: RtAppEventDef, e: JEntry, path: JsonPath, sink: IssueSink, task: string): RtAppEvent | undefined {
  const key = e.key
  const needsValue = def.name !== 'suspend' && def.name !== 'yield'
  if (!e.value && needsValue) {
    sink.error(path, `event "${key}" needs a value`, e.keyOffset)
    return undefined
  }
  const before = sink.issues.length
  const v = validateInto(def.schema, e.value ? toPlain(e.value) : null, sink, path, e.value)
  // validateInto locates by path, which is ambiguous for duplicate keys: re-anchor at this entry.
  for (let i = before; i < sink.issues.length; i++) {
    const loc = sink.doc?.lineCol(e.value?.offset ?? e.keyOffset)
    if (loc && sink.issues[i].line === undefined) Object.assign(sink.issues[i], loc)
  }
  if (sink.issues.length > before) return undefined
  if (def.approximate) sink.warn(path, `${def.name} is modeled as CPU work (no memory or IO model)`, e.keyOffset)
  switch (def.name) {
    case 'run':
    case 'runtime':
    case 'sleep':
      return { key, kind: def.name, us: v as number }
    case 'timer': {
      const t = v as { ref: string; period: number; mode: 'relative' | 'absolute' }
      if (t.period <= 0) sink.warn(path, 'timer period 0: the timer never sleeps')
      return { key, kind: 'timer', ref: t.ref, unique: t.ref.startsWith('unique'), periodUs: t.period, absolute: t.mode === 'absolute' }
    }
    case 'lock':
    case 'unlock':
      return { key, kind: def.name, mutex: v as string }
    case 'wait':
    case 'sync': {
      const c = v as { ref: string; mutex: string }
      return { key, kind: def.name, cond: c.ref, mutex: c.mutex }
    }
    case 'signal':
    case 'broad':
      return { key, kind: def.name, cond: v as string }
    case 'barrier':
      return { key, kind: 'barrier', name: v as string }
    case 'suspend':
      if (e.value && typeof toPlain(e.value) === 'string' && toPlain(e.value) !== task) {
        sink.warn(path, `suspend waits on the task's own name "${task}" (rt-app ignores the value since 2025)`, e.keyOffset)
      }
      return { key, kind: 'suspend' }
    case 'resume':
      return { key, kind: 'resume', task: v as string }
    case 'sem_post':
    case 'sem_wait':
      return { key, kind: def.name, sem: v as string }
    case 'yield':
      return { key, kind: 'yield' }
    case 'fork':
      return { key, kind: 'fork', task: v as string }
    case 'mem':
      return { key, kind: 'work', from: 'mem', us: (v as number) / MEMSET_BYTES_PER_NS / 1000 }
    case 'iorun':
      return { key, kind: 'work', from: 'iorun', us: ioChunks(v as number) * IO_CHUNK_US }
    case 'memrun': {
      const m = v as { type: string; size: number; count: number; stride: number; pattern: string }
      const accesses = m.count * Math.ceil(m.size / m.stride)
      const ns = m.type === 'chase' || m.pattern === 'random' ? RANDOM_ACCESS_NS : SEQ_ACCESS_NS
      return { key, kind: 'work', from: 'memrun', us: (accesses * ns) / 1000 }
    }
    default:
      return undefined
  }
}

/** iorun writes in mem_buffer_size chunks; the default 4 MiB buffer. */
function ioChunks(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / 4194304))
}

function crossCheck(tasks: RtAppTask[], tasksNode: JObject, base: JsonPath, sink: IssueSink): void {
  const names = new Set(tasks.map((t) => t.name))
  const forkTargets = new Set<string>()
  for (const t of tasks) {
    const tnode = tasksNode.entries.find((e) => e.key === t.name)?.value as JObject | undefined
    for (const [pi, ph] of t.phases.entries()) {
      const held = new Set<string>()
      for (const ev of ph.events) {
        const p = eventPath(base, t, pi, ev.key)
        const off = keyOffset(tnode, t.phases.length > 1 || hasPhases(tnode) ? ph.name : undefined, ev.key)
        if (ev.kind === 'fork') {
          if (!names.has(ev.task)) sink.error(p, `fork of unknown task "${ev.task}" (tasks: ${[...names].join(', ')})`, off)
          forkTargets.add(ev.task)
        }
        if (ev.kind === 'resume' && !names.has(ev.task)) sink.warn(p, `resume of "${ev.task}", which is not a task: nothing is woken`, off)
        if (ev.kind === 'lock') held.add(ev.mutex)
        if (ev.kind === 'unlock') held.delete(ev.mutex)
        if ((ev.kind === 'wait' || ev.kind === 'sync') && !held.has(ev.mutex)) {
          sink.warn(p, `${ev.kind} on "${ev.cond}" without holding mutex "${ev.mutex}" (lock it first, as pthread_cond_wait requires)`, off)
        }
      }
    }
  }
  for (const t of tasks) {
    const usesBarrier = t.phases.some((p) => p.events.some((e) => e.kind === 'barrier'))
    if (usesBarrier && (forkTargets.has(t.name) || t.instance === 0)) {
      sink.warn([...base, 'tasks', t.name], 'barriers do not work with forked threads in rt-app (participants are counted at start)')
    }
  }
}

function hasPhases(tnode: JObject | undefined): boolean {
  return !!tnode?.entries.some((e) => e.key === 'phases')
}

function eventPath(base: JsonPath, t: RtAppTask, phaseIndex: number, key: string): JsonPath {
  return t.phases.length === 1 && t.phases[0].name === 'phase0' && phaseIndex === 0
    ? [...base, 'tasks', t.name, key]
    : [...base, 'tasks', t.name, 'phases', t.phases[phaseIndex].name, key]
}

function keyOffset(tnode: JObject | undefined, phase: string | undefined, key: string): number | undefined {
  if (!tnode) return undefined
  let o: JObject | undefined = tnode
  if (phase !== undefined) {
    const ph = tnode.entries.find((e) => e.key === 'phases')?.value
    o = ph?.kind === 'object' ? (ph.entries.find((e) => e.key === phase)?.value as JObject | undefined) : undefined
  }
  return o?.entries.find((e) => e.key === key)?.keyOffset
}

/** rt-app counts each reference to a barrier once per instance of the referring task. */
function countBarriers(tasks: RtAppTask[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const t of tasks) for (const ph of t.phases) for (const ev of ph.events) if (ev.kind === 'barrier') out[ev.name] = (out[ev.name] ?? 0) + t.instance
  return out
}

/** A timer resource is absolute when any of its users says so (rt-app keeps one flag per timer). */
function resolveTimerModes(tasks: RtAppTask[]): void {
  const abs = new Set<string>()
  const keyOf = (t: RtAppTask, ref: string, unique: boolean): string => (unique ? `${t.name}\u0000${ref}` : ref)
  for (const t of tasks) for (const ph of t.phases) for (const ev of ph.events) if (ev.kind === 'timer' && ev.absolute) abs.add(keyOf(t, ev.ref, ev.unique))
  for (const t of tasks) for (const ph of t.phases) for (const ev of ph.events) if (ev.kind === 'timer') ev.absolute = abs.has(keyOf(t, ev.ref, ev.unique))
}
