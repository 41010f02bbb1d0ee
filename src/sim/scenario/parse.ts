import type { PolicyName } from '../kernel/api'
import { buildTopology } from '../kernel/topology'
import type { TopologySpec } from '../kernel/topology-types'
import { IssueSink, ScenarioError } from './errors'
import { estimateEvents, formatCount as fmtCount, taskCount } from './estimate'

export { taskCount }
import { lastEntry, readLenient, reservedKeys, toPlain, type JObject, type JValue, type LenientDoc } from './jsonc'
import { isKnownPatch, knownFeatureNames, listPatches } from './patch-adapter'
import { syntaxErrorPath, type JsonPath } from './paths'
import { isFair, readRtApp, type RtAppContext } from './rtapp'
import { DEFAULT_DURATION_MS, DEFAULT_MAX_EVENTS, SCENARIO, TOPOLOGY, WORKLOAD, type ScenarioParsed, type WorkloadParsed } from './schema'
import { z } from 'zod'
import { DEFAULT_TOPOLOGY, resolveTopologyName } from './topology-adapter'
import type { KernelSpec, Scenario, SweepAxis, VariantSpec } from './types'
import {
  NOISE_DEFAULTS, type NoiseWorkload, type RtAppProps, type WorkloadCommon, type WorkloadSpec
} from './workload-specs'
import type { KernelProfile, PreemptModelName } from '../kernel/features'
import { parseSetPath, setPathProblem } from './set'
import { closest, validateInto } from './zod-issues'
import { paramProblem, PatchError, UnknownPatchError, type PatchModuleInfo, type PatchModuleSource } from '../patch-api/evaluate'

export interface ParseOptions {
  /** Topology preset name replacing the scenario's (`--topology`). */
  topology?: string
  /** Replaces durationMs before the event estimate (`--duration-ms`). */
  durationMs?: number
  /**
   * The host's limit on one run's estimated events (`--max-events`, or the workbench's
   * maxEventsPerRun setting); default DEFAULT_MAX_EVENTS. A scenario's own "maxEvents" may lower
   * it for that scenario, never raise it: text from anywhere cannot buy itself hours of CPU.
   */
  maxEvents?: number
  /**
   * Reads a file referenced by the scenario (rt-app `file`), relative to the scenario file.
   * Returns the text and the name to use in messages; throws (any Error) when unreadable.
   */
  readFile?(path: string, fromFile: string): { text: string; file: string }
  /**
   * This machine, for `"topology": "host"` and `"kernel": { "profile": "host" }`. Detected outside
   * the simulator (src/real/host-specs.ts: sysfs, /proc, the kernel config), called only when a
   * scenario asks for it.
   */
  host?: () => HostSpecs
  /**
   * Reads and compiles a patch module a variant names (a path relative to the scenario file, or
   * a name in the patch library): the host's patch loader (src/services/patch-loader.ts). Throws
   * (any Error; a PatchError with the line) when it is missing or does not compile. Without it,
   * only built-in patches are known.
   */
  readPatch?(ref: string, fromFile: string): PatchModuleSource
  /**
   * Runs a patch module's top level to learn its name, flags and parameters (evaluatePatch), so
   * that a variant's "features" and "patchParams" are checked here with their JSON paths. Given by
   * the command line (the user's own process); the workbench's hosts leave it out and the
   * simulation worker checks the same when the run starts.
   */
  inspectPatch?(src: PatchModuleSource): PatchModuleInfo
  /**
   * Patches given on the command line (`--patch FILE`, relative to the working directory): added
   * to every variant that names no patch.
   */
  addPatches?: string[]
}

/** What the simulator needs of the host machine, detected by the caller. */
export interface HostSpecs {
  topology?: TopologySpec
  /** features: switches this machine's release has on top of its profile (stable backports). */
  kernel?: { profile: KernelProfile; hz: KernelSpec['hz']; preempt?: PreemptModelName; features?: Record<string, boolean>; notes: string[] }
  /** Why there is no host to read (not Linux, ...). */
  unavailable?: string
}

/** The scenario name of this machine, as a topology and as a kernel profile. */
export const HOST = 'host'

const SCENARIO_TOP = SCENARIO.extend({ workloads: z.array(z.unknown()).min(1).max(256) })

/** Upper bound on tasks created at start, over all workloads. */
export const MAX_TASKS = 20000
/** A plain rt-app file whose threads never finish and that gives no duration runs this long. */
export const RTAPP_ENDLESS_DURATION_MS = 10_000
/** Cap for an rt-app file whose threads all finish on their own (global.duration -1). */
export const RTAPP_FINITE_CAP_MS = 600_000

/**
 * Parse scenario text (or a plain rt-app file) into the normalized Scenario.
 * Throws ScenarioError with every issue found, each with file, JSON path, line and column.
 */
export function parseScenario(text: string, file: string, opts: ParseOptions = {}): Scenario {
  const doc = readLenient(text)
  const sink = new IssueSink(file, doc)
  for (const e of doc.errors) sink.issues.push({ path: syntaxErrorPath(e.path), message: e.message, line: e.line, column: e.column })
  sink.throwIfAny()
  const root = doc.root
  if (!root || root.kind !== 'object') {
    sink.error([], 'a scenario must be a JSON object')
    sink.throwIfAny()
  }
  claimReservedKeys(root, [], sink)
  const obj = root as JObject
  if (lastEntry(obj, 'tasks') && !lastEntry(obj, 'workloads')) return importRtApp(text, file, { topology: opts.topology, durationMs: opts.durationMs, maxEvents: opts.maxEvents, host: opts.host })

  const plain = toPlain(root, {
    onDuplicate: (path, key) => sink.warn([...path, key], `duplicate key "${key}": the last value is used`)
  }) as Record<string, unknown>
  // Workloads are checked one by one so that one bad workload does not hide the others' issues.
  const top = validateInto(SCENARIO_TOP, plain, sink, [], root)
  const rawWorkloads = Array.isArray(plain.workloads) ? plain.workloads : []
  const workloads = rawWorkloads.map((w, i) => validateInto(WORKLOAD, w, sink, ['workloads', i], doc.at(['workloads', i])))
  // A bad top-level field must not hide the problems the checks below find elsewhere (unknown
  // patches, rt-app tasks, ...): go on with that field at its default, so that every problem
  // is reported in one pass. The issues already reported still make the parse fail.
  const parsed = top ?? withoutFailedFields(plain)
  if (!parsed) sink.throwIfAny()
  return normalize({ ...(parsed as ScenarioParsed), workloads: workloads as WorkloadParsed[] }, doc, sink, file, opts)
}

/**
 * The top level parsed with the object keys that failed removed (their defaults apply), or
 * undefined when that does not give a valid top level (a required field is wrong). Array items
 * are never removed, so that the indexes in later messages stay those of the text.
 */
function withoutFailedFields(plain: Record<string, unknown>): z.output<typeof SCENARIO_TOP> | undefined {
  const copy = structuredClone(plain)
  for (let round = 0; round < 4; round++) {
    const r = SCENARIO_TOP.safeParse(copy)
    if (r.success) return r.data
    let removed = false
    for (const issue of r.error.issues) {
      const path = issue.path.filter((x): x is string | number => typeof x !== 'symbol')
      // The deepest object key on the path: the failing field itself, or what holds a bad item.
      let k = path.length - 1
      while (k >= 0 && typeof path[k] !== 'string') k--
      if (k < 0) return undefined
      let parent: unknown = copy
      for (const seg of path.slice(0, k)) parent = parent && typeof parent === 'object' ? (parent as Record<string | number, unknown>)[seg] : undefined
      if (parent && typeof parent === 'object' && !Array.isArray(parent) && (path[k] as string) in parent) {
        delete (parent as Record<string, unknown>)[path[k] as string]
        removed = true
      }
    }
    if (!removed) return undefined
  }
  return undefined
}

/** `__proto__`, `constructor`, `prototype` anywhere: unknown fields, and nothing else said below them. */
function claimReservedKeys(root: JValue | undefined, base: JsonPath, sink: IssueSink): void {
  for (const r of reservedKeys(root, base)) sink.claim(r.path, `unknown key "${r.key}" (a JavaScript built-in name; no scenario or rt-app field is called that)`, r.keyOffset)
}

function baseName(file: string): string {
  const b = file.split(/[\\/]/).pop() ?? file
  return b.replace(/\.jsonc?$/i, '')
}

function normalize(p: ScenarioParsed, doc: LenientDoc, sink: IssueSink, file: string, opts: ParseOptions): Scenario {
  let host: HostSpecs | undefined
  const hostSpecs = (): HostSpecs => (host ??= opts.host?.() ?? { unavailable: 'this program does not read the machine it runs on' })
  // a topology file named in the scenario is relative to it, one given with --topology to the working directory
  const topology = resolveTopology(opts.topology ?? p.topology, opts.topology ? undefined : ['topology'], sink, hostSpecs, (path) => readTopologyFile(path, opts.topology ? CWD_FILE : file, opts))
  // With an unknown topology, keep checking the rest against the largest one allowed.
  const topo = buildTopology(topology ?? resolveTopologyName('smp-1024') as TopologySpec)
  const ctx: RtAppContext = { ncpus: topo.cpus.length, capacities: topo.cpus.map((c) => c.capacityOrig) }

  checkFeatures(p.kernel.features, ['kernel', 'features'], sink)
  const variantNames = new Set<string>()
  const userPatches: PatchModuleSource[][] = []
  p.variants.forEach((v, i) => {
    if (variantNames.has(v.name)) sink.error(['variants', i, 'name'], `duplicate variant name "${v.name}"`)
    variantNames.add(v.name)
    const mine: PatchModuleSource[] = (userPatches[i] = [])
    const infos: PatchModuleInfo[] = []
    const added = v.patches.length === 0 && opts.addPatches !== undefined && opts.addPatches.length > 0
    if (added) v.patches = [...opts.addPatches!]
    v.patches.forEach((name, j) => {
      if (isKnownPatch(name)) return
      const problem = readPatchModule(name, added ? CWD_FILE : file, opts, mine)
      if (added && problem !== null) {
        sink.error(['variants', i, 'patches'], `--patch ${name}: ${problem === 'unknown' ? 'no such file or patch (see `schedlab patches`)' : problem}`)
        return
      }
      if (problem === null) {
        const info = inspectPatchModule(mine[mine.length - 1], opts, ['variants', i, 'patches', j], sink)
        if (info) {
          if (infos.some((x) => x.name === info.name)) sink.error(['variants', i, 'patches', j], `two patch modules of this variant are named "${info.name}"`)
          infos.push(info)
        }
        return
      }
      const hint = isPatchPath(name) ? undefined : closest(name, listPatches().map((x) => x.name))
      sink.error(['variants', i, 'patches', j], problem === 'unknown'
        ? `unknown patch "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; see \`schedlab patches\`${isPatchPath(name) ? '' : ' (a patch module is named by its path, e.g. "./my-idea.ts")'}`
        : problem)
    })
    // a patch module's own flags are known once it is loaded
    const inspected = opts.inspectPatch !== undefined && infos.length === mine.length
    checkFeatures(v.features, ['variants', i, 'features'], sink, mine.length > 0 && !inspected, inspected ? infos : [])
    if (v.patchParams !== undefined && mine.length === 0) {
      sink.error(['variants', i, 'patchParams'], 'patchParams set the parameters of patch modules, and this variant has none')
    } else if (v.patchParams !== undefined && inspected) {
      checkPatchParams(v.patchParams, infos, ['variants', i, 'patchParams'], sink)
    }
  })

  // Names first (defaults: type, type-2 ...), so that variants can refer to any workload.
  const names: string[] = []
  const typeCount: Record<string, number> = {}
  p.workloads.forEach((w, i) => {
    if (!w) return
    typeCount[w.type] = (typeCount[w.type] ?? 0) + 1
    const name = w.name ?? (typeCount[w.type] === 1 ? w.type : `${w.type}-${typeCount[w.type]}`)
    if (names.includes(name)) sink.error(['workloads', i, 'name'], `duplicate workload name "${name}"`)
    names[i] = name
  })
  const base = p.workloads.map((w, i) => (w ? normalizeWorkload(w, names[i], i, doc, sink, file, ctx, opts) : undefined))
  const enabled = (list: (WorkloadSpec | undefined)[], disabled: boolean[]): WorkloadSpec[] =>
    list.filter((w, i): w is WorkloadSpec => !!w && !disabled[i])
  const baseDisabled = p.workloads.map((w) => !!w?.disabled)
  const background = backgroundOf(topology, p, names)
  const workloads = withBackground(enabled(base, baseDisabled), background)
  const someFailed = base.some((w) => !w)

  const variantWorkloads = p.variants.map((v, i) => {
    if (!v.workloads) return undefined
    const list = [...base]
    const disabled = [...baseDisabled]
    for (const [name, over] of Object.entries(v.workloads)) {
      const path: JsonPath = ['variants', i, 'workloads', name]
      const idx = names.indexOf(name)
      if (idx < 0) {
        // a workload that did not parse has no name yet: its error is the one to report, not this consequence
        if (!p.workloads.some((w) => !w)) sink.error(path, `no workload named "${name}" (workloads: ${names.join(', ')})`)
        continue
      }
      const banned = Object.keys(over).filter((k) => k === 'type' || k === 'name' || k === 'tasks' || k === 'global' || k === 'file')
      if (banned.length > 0) {
        sink.error([...path, banned[0]], `a variant cannot change "${banned[0]}" of a workload; add another workload and disable one of them instead`)
        continue
      }
      const merged = { ...(toPlain(doc.at(['workloads', idx])) as object), ...over }
      const parsedW = validateInto(WORKLOAD, merged, sink, path, doc.at(path))
      if (!parsedW) continue
      list[idx] = normalizeWorkload(parsedW, name, idx, doc, sink, file, ctx, opts)
      disabled[idx] = !!parsedW.disabled
    }
    return withBackground(enabled(list, disabled), background)
  })

  const lists: [JsonPath, WorkloadSpec[]][] = [[['workloads'], workloads], ...variantWorkloads.map((l, i): [JsonPath, WorkloadSpec[]] => [['variants', i, 'workloads'], l ?? workloads])]
  const checked = new Set<WorkloadSpec[]>()
  for (const [path, list] of lists) {
    // A variant without workload changes runs the base list: check (and report) it once.
    if (checked.has(list)) continue
    checked.add(list)
    // (A workload with problems of its own is not "disabled": those problems are reported.)
    if (list.length === 0 && !someFailed) sink.error(path, 'every workload is disabled: nothing would run')
    let tasks = 0
    for (const w of list) {
      const n = taskCount(w)
      tasks += n
      if (tasks > MAX_TASKS) {
        sink.error(['workloads', names.indexOf(w.name)], `${tasks} tasks in total exceed the limit of ${MAX_TASKS} (this workload creates ${n})`)
        break
      }
    }
  }
  sink.throwIfAny()

  const hostKernel = (path: JsonPath): HostSpecs['kernel'] => {
    const k = hostSpecs().kernel
    if (!k) sink.error(path, `"host" is this machine's kernel, which only schedlab on Linux reads (${hostSpecs().unavailable ?? 'not detected'})`)
    else sink.note(`kernel profile "host" is ${k.profile}, HZ ${k.hz}${k.preempt ? `, preempt ${k.preempt}` : ''} (${k.notes.join('; ')})`)
    return k
  }
  const given = (path: JsonPath): boolean => doc.at(path) !== undefined
  const fromHost = p.kernel.profile === HOST ? hostKernel(['kernel', 'profile']) : undefined
  // the host release's stable backports, under what the scenario sets itself
  const withHostFeatures = (own: Record<string, boolean>): Record<string, boolean> => {
    const h = hostSpecs().kernel?.features
    return h ? { ...h, ...own } : own
  }
  sink.throwIfAny()
  const kernel: KernelSpec = {
    hz: fromHost && !given(['kernel', 'hz']) ? fromHost.hz : p.kernel.hz,
    profile: (fromHost ? fromHost.profile : p.kernel.profile) as KernelSpec['profile'],
    features: fromHost ? withHostFeatures(p.kernel.features) : p.kernel.features,
    ...(p.kernel.baseSliceUs !== undefined ? { baseSliceUs: p.kernel.baseSliceUs } : {}),
    ...(p.kernel.tunableScaling !== undefined ? { tunableScaling: p.kernel.tunableScaling } : {}),
    ...(p.kernel.preempt !== undefined ? { preempt: p.kernel.preempt } : fromHost?.preempt ? { preempt: fromHost.preempt } : {}),
    ...(p.kernel.costs !== undefined ? { costs: p.kernel.costs } : {}),
    ...(p.kernel.timerSlackUs !== undefined ? { timerSlackUs: p.kernel.timerSlackUs } : {}),
    ...(p.kernel.nrMigrate !== undefined ? { nrMigrate: p.kernel.nrMigrate } : {}),
    ...(p.kernel.debug !== undefined ? { debug: p.kernel.debug } : {}),
    ...(p.kernel.coalesce !== undefined ? { coalesce: p.kernel.coalesce } : {})
  }
  const variantKernel = (v: ScenarioParsed['variants'][number], i: number): VariantSpec['kernel'] => {
    const k = { ...v.kernel } as Omit<NonNullable<VariantSpec['kernel']>, 'profile'> & { profile?: string }
    if (k.profile !== HOST) return k as VariantSpec['kernel']
    const h = hostKernel(['variants', i, 'kernel', 'profile'])
    if (!h) return k as VariantSpec['kernel']
    return { ...k, profile: h.profile, ...(given(['variants', i, 'kernel', 'hz']) ? {} : { hz: h.hz }), ...(k.preempt !== undefined || !h.preempt ? {} : { preempt: h.preempt }) }
  }
  const variants: VariantSpec[] = p.variants.map((v, i) => ({
    name: v.name,
    patches: v.patches.filter(isKnownPatch),
    features: v.kernel?.profile === HOST ? withHostFeatures(v.features) : v.features,
    ...(userPatches[i]?.length ? { userPatches: userPatches[i] } : {}),
    ...(v.patchParams !== undefined ? { patchParams: v.patchParams } : {}),
    ...(v.kernel ? { kernel: variantKernel(v, i) } : {}),
    ...(variantWorkloads[i] ? { workloads: variantWorkloads[i] } : {})
  }))
  const asked = doc.at(['maxEvents']) !== undefined ? p.maxEvents : undefined
  const s: Scenario = {
    name: p.name ?? baseName(file),
    file,
    topology: topology as TopologySpec,
    kernel,
    durationMs: opts.durationMs ?? p.durationMs,
    seed: p.seed,
    seeds: p.seeds,
    variants,
    workloads,
    maxEvents: effectiveMaxEvents(asked, opts.maxEvents, sink),
    ...(p.sweep !== undefined ? { sweep: checkSweep(p.sweep, sink, toPlain(doc.root)) } : {}),
    ...(p.description !== undefined ? { description: p.description } : {}),
    ...(p.publishedDurationMs !== undefined ? { publishedDurationMs: p.publishedDurationMs } : {}),
    warnings: sink.warnings
  }
  checkEstimate(s, sink, (name) => names.indexOf(name), asked !== undefined && asked > s.maxEvents! ? ` (the scenario's "maxEvents": ${asked} does not raise this host's limit)` : '')
  sink.throwIfAny()
  return s
}

/**
 * The topology's background activity as a noise workload named "background" (the first free
 * name), unless the scenario turns it off; null when the topology has none.
 */
function backgroundOf(topology: TopologySpec | undefined, p: ScenarioParsed, names: string[]): NoiseWorkload | null {
  if (!topology?.noise || p.backgroundNoise === false) return null
  let name = 'background'
  for (let i = 2; names.includes(name); i++) name = `background-${i}`
  return { type: 'noise', name, ...NOISE_DEFAULTS, ...topology.noise }
}

/** A workload list with the background appended, when it has no noise workload of its own. */
function withBackground(list: WorkloadSpec[], background: NoiseWorkload | null): WorkloadSpec[] {
  if (!background || list.some((w) => w.type === 'noise')) return list
  return [...list, background]
}

/** Largest sweep grid (cells) accepted. */
export const MAX_SWEEP_CELLS = 10000

function checkSweep(sweep: Record<string, unknown[]>, sink: IssueSink, root: unknown): SweepAxis[] {
  const axes = Object.entries(sweep).map(([path, values]) => ({ path, values }))
  for (const a of axes) {
    const parsed = parseSetPath(a.path.trim())
    if (typeof parsed === 'string') sink.error(['sweep', a.path], parsed === '' ? 'empty path' : `${parsed} (write paths as in --set, e.g. workloads[0].sliceUs)`)
    else if (parsed[0] === 'sweep') sink.error(['sweep', a.path], 'a sweep cannot set the sweep itself')
    else {
      // what `schedlab sweep` will meet setting it, seen here (and so by `validate`)
      const problem = setPathProblem(root, parsed)
      if (problem) sink.error(['sweep', a.path], problem)
    }
  }
  const cells = axes.reduce((n, a) => n * a.values.length, 1)
  if (cells > MAX_SWEEP_CELLS) sink.error(['sweep'], `${cells} cells (${axes.map((a) => a.values.length).join(' x ')}) exceed the limit of ${MAX_SWEEP_CELLS}`)
  return axes
}

/** A stand-in "file" of the working directory, for paths given on the command line. */
const CWD_FILE = './(command line)'

/** A topology file (`schedlab calibrate` writes them): its spec, or why it cannot be used. */
function readTopologyFile(path: string, from: string, opts: ParseOptions): TopologySpec | string {
  if (!opts.readFile) return `topology file "${path}" cannot be read here (no file access); inline the topology object`
  let loaded: { text: string; file: string }
  try {
    loaded = opts.readFile(path, from)
  } catch (e) {
    return `cannot read topology file "${path}": ${(e as Error).message}`
  }
  const doc = readLenient(loaded.text)
  if (doc.errors.length > 0) return `${loaded.file}: ${doc.errors[0].message} (line ${doc.errors[0].line})`
  const r = TOPOLOGY.safeParse(toPlain(doc.root))
  if (!r.success || typeof r.data === 'string') {
    const issue = r.success ? { path: [], message: 'a topology file holds a topology object' } : r.error.issues[0]
    return `${loaded.file}: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`
  }
  return r.data as TopologySpec
}

function resolveTopology(
  t: ScenarioParsed['topology'], path: JsonPath | undefined, sink: IssueSink, host?: () => HostSpecs,
  readFile?: (path: string) => TopologySpec | string
): TopologySpec | undefined {
  if (typeof t === 'string') {
    const h = t === HOST && host ? host() : undefined
    const r = h
      ? (h.topology ?? `"host" is this machine's topology, which only schedlab on Linux reads (${h.unavailable ?? 'not detected'})`)
      : /\.jsonc?$/i.test(t) && readFile ? readFile(t) : resolveTopologyName(t)
    if (typeof r === 'string') {
      if (path) sink.error(path, r)
      else sink.issues.push({ path: '--topology', message: r })
      return undefined
    }
    return r
  }
  const total = t.clusters.reduce((n, c) => n + c.cpus, 0)
  if (total > 1024 && path) sink.error([...path, 'clusters'], `${total} CPUs: at most 1024 are supported`)
  const nodes = Math.max(...t.clusters.map((c) => c.node ?? c.package ?? 0)) + 1
  const d = t.numaDistance
  if (d && path && (d.length !== nodes || d.some((row) => row.length !== nodes))) {
    sink.error([...path, 'numaDistance'], `needs ${nodes} rows of ${nodes} distances (one per NUMA node of the clusters)`)
  }
  return t as TopologySpec
}

/** Does a variant's patch entry name a file (rather than a built-in or library patch)? */
export function isPatchPath(name: string): boolean {
  return /[\\/]/.test(name) || /\.(ts|mts|js|mjs)$/i.test(name)
}

/**
 * Read a patch module into `into`; null when read, 'unknown' when there is no such patch, else
 * the problem in a sentence.
 */
function readPatchModule(name: string, file: string, opts: ParseOptions, into: PatchModuleSource[]): string | null {
  if (!opts.readPatch) {
    return isPatchPath(name) ? `patch module "${name}" cannot be read here (no file access); run it with schedlab or the workbench` : 'unknown'
  }
  try {
    into.push(opts.readPatch(name, file))
    return null
  } catch (err) {
    if (err instanceof UnknownPatchError) return 'unknown'
    return err instanceof PatchError && err.line !== undefined
      ? `patch module ${err.file}:${err.line}:${err.column ?? 1}: ${err.message}`
      : `patch module "${name}": ${err instanceof Error ? err.message : String(err)}`
  }
}

/** Run a patch module's top level (opts.inspectPatch) for its name, flags and parameters. */
function inspectPatchModule(src: PatchModuleSource, opts: ParseOptions, path: JsonPath, sink: IssueSink): PatchModuleInfo | null {
  if (!opts.inspectPatch) return null
  try {
    return opts.inspectPatch(src)
  } catch (err) {
    const e = err instanceof PatchError ? err : null
    const at = e?.line !== undefined ? `${e.file}:${e.line}:${e.column ?? 1}` : src.file
    sink.error(path, `patch module ${at}: ${err instanceof Error ? err.message : String(err)}`)
    return null
  }
}

/** "patchParams": { NAME: { param: value } } against the variant's patch modules. */
function checkPatchParams(given: Record<string, Record<string, number>>, infos: readonly PatchModuleInfo[], path: JsonPath, sink: IssueSink): void {
  for (const [name, values] of Object.entries(given)) {
    const info = infos.find((x) => x.name === name)
    if (!info) {
      sink.error([...path, name], `no patch module of this variant is named "${name}" (its modules: ${infos.map((x) => x.name).join(', ')})`)
      continue
    }
    for (const [k, v] of Object.entries(values)) {
      const d = info.params[k]
      if (!d) {
        const names = Object.keys(info.params)
        const hint = closest(k, names)
        sink.error([...path, name, k], `patch ${name} declares no parameter "${k}"${hint ? ` (did you mean "${hint}"?)` : ''} (its parameters: ${names.join(', ') || 'none'})`)
        continue
      }
      const problem = paramProblem(d, v)
      if (problem) sink.error([...path, name, k], `${problem}${d.doc ? ` (${d.doc})` : ''}`)
    }
  }
}

function checkFeatures(features: Record<string, boolean>, path: JsonPath, sink: IssueSink, deferUpperCase = false, modules: readonly PatchModuleInfo[] = []): void {
  const known = knownFeatureNames()
  const own = modules.flatMap((m) => Object.keys(m.features))
  for (const k of Object.keys(features)) {
    if (known.includes(k) || own.includes(k)) continue
    if (deferUpperCase && /^[A-Z][A-Z0-9_]*$/.test(k)) continue
    const hint = closest(k, [...own, ...known])
    sink.error([...path, k], `unknown feature "${k}"${hint ? ` (did you mean "${hint}"?)` : ''}; see \`schedlab patches\`${modules.length ? ` (this variant's patch modules declare: ${own.join(', ') || 'none'})` : ''}`)
  }
}

function normalizeCommon(w: WorkloadParsed, name: string, path: JsonPath, sink: IssueSink, ncpus: number, rtDefault: number): WorkloadCommon {
  const policy: PolicyName = w.policy ?? (w.priority !== undefined ? 'fifo' : 'other')
  if (isFair(policy) && w.priority !== undefined) {
    sink.error([...path, 'priority'], `priority is the RT priority of fifo/rr tasks; a ${policy} task takes "nice"`)
  }
  if (!isFair(policy) && w.nice !== undefined) sink.error([...path, 'nice'], `nice applies to fair policies; a ${policy} task takes "priority" (1..99)`)
  if (w.startCpu !== undefined && w.startCpu >= ncpus) sink.error([...path, 'startCpu'], `CPU ${w.startCpu} does not exist (the topology has ${ncpus} CPUs)`)
  if (w.startCpu !== undefined && w.cpus && !w.cpus.includes(w.startCpu)) sink.error([...path, 'startCpu'], `startCpu ${w.startCpu} is outside cpus [${w.cpus.join(', ')}]`)
  if (w.cpus) {
    const bad = w.cpus.filter((c) => c >= ncpus)
    if (bad.length > 0) sink.error([...path, 'cpus'], `CPU ${bad.join(', ')} does not exist (the topology has ${ncpus} CPUs: 0..${ncpus - 1})`)
  }
  if (w.uclampMin !== undefined && w.uclampMax !== undefined && w.uclampMin > w.uclampMax) {
    sink.error([...path, 'uclampMin'], `uclampMin ${w.uclampMin} is above uclampMax ${w.uclampMax}`)
  }
  let sliceUs = w.sliceUs
  if (sliceUs !== undefined && sliceUs > 0) {
    const c = Math.min(100000, Math.max(100, sliceUs))
    if (c !== sliceUs) sink.warn([...path, 'sliceUs'], `slice ${sliceUs} us clamped to ${c} us as the kernel does (0.1..100 ms)`)
    sliceUs = c
  }
  if (sliceUs !== undefined && !isFair(policy)) sink.warn([...path, 'sliceUs'], `sliceUs applies to fair tasks; ignored for ${policy}`)
  const out: WorkloadCommon = { type: w.type, name, policy }
  if (isFair(policy)) out.nice = w.nice ?? 0
  else out.priority = w.priority ?? rtDefault
  if (sliceUs !== undefined) out.sliceUs = sliceUs
  if (w.cpus) out.cpus = [...new Set(w.cpus)].sort((a, b) => a - b)
  if (w.uclampMin !== undefined) out.uclampMin = w.uclampMin
  if (w.uclampMax !== undefined) out.uclampMax = w.uclampMax
  if (w.delayUs !== undefined) out.delayUs = w.delayUs
  if (w.startCpu !== undefined) out.startCpu = w.startCpu
  if (w.timerSlackUs !== undefined) out.timerSlackUs = w.timerSlackUs
  return out
}

/** Default RT priority when a workload asks for fifo/rr without one (rt-app's default). */
const DEFAULT_RT_PRIORITY = 10

function normalizeWorkload(
  w: WorkloadParsed,
  name: string,
  i: number,
  doc: LenientDoc,
  sink: IssueSink,
  file: string,
  ctx: RtAppContext,
  opts: ParseOptions
): WorkloadSpec | undefined {
  const path: JsonPath = ['workloads', i]
  const { type: _t, name: _n, policy: _p, nice: _ni, priority: _pr, sliceUs: _s, cpus: _c, uclampMin: _u1, uclampMax: _u2, delayUs: _d, disabled: _x, startCpu: _sc, timerSlackUs: _ts, ...rest } = w
  switch (w.type) {
    case 'cyclictest': {
      // cyclictest bumps a fifo/rr priority of 0 to threads + 1.
      const common = normalizeCommon(w, name, path, sink, ctx.ncpus, w.threads + 1)
      return { ...common, ...rest, type: 'cyclictest' } as WorkloadSpec
    }
    case 'hackbench':
    case 'periodic':
    case 'noise':
    case 'hog': {
      const common = normalizeCommon(w, name, path, sink, ctx.ncpus, DEFAULT_RT_PRIORITY)
      return { ...common, ...rest, type: w.type } as WorkloadSpec
    }
    case 'schbench': {
      const common = normalizeCommon(w, name, path, sink, ctx.ncpus, DEFAULT_RT_PRIORITY)
      const workers = w.workers ?? Math.ceil(ctx.ncpus / w.messageThreads)
      const side = Math.floor(Math.sqrt((w.footprintKb * 1024) / 3 / 8))
      const requestWorkUs = w.requestWorkUs ?? (w.operations * side ** 3 * SCHBENCH_MAC_NS) / 1000
      return { ...common, ...rest, type: 'schbench', workers, requestWorkUs } as WorkloadSpec
    }
    case 'rt-app': {
      const common = normalizeCommon(w, name, path, sink, ctx.ncpus, DEFAULT_RT_PRIORITY)
      if ((w.tasks === undefined) === (w.file === undefined)) {
        sink.error(path, 'an rt-app workload needs exactly one of "tasks" or "file"')
        return undefined
      }
      const defaults: RtAppProps = {
        ...(w.policy !== undefined || w.priority !== undefined ? { policy: common.policy as PolicyName } : {}),
        ...(w.nice !== undefined ? { priority: w.nice } : w.priority !== undefined ? { priority: w.priority } : {}),
        ...(common.sliceUs !== undefined ? { sliceUs: common.sliceUs } : {}),
        ...(common.cpus ? { cpus: common.cpus } : {}),
        ...(common.uclampMin !== undefined ? { uclampMin: common.uclampMin } : {}),
        ...(common.uclampMax !== undefined ? { uclampMax: common.uclampMax } : {})
      }
      let tasksNode: JValue | undefined
      let globalNode: JValue | undefined
      let base: JsonPath = path
      let rsink = sink
      let source: string | undefined
      if (w.file !== undefined) {
        if (!opts.readFile) {
          sink.error([...path, 'file'], 'rt-app files cannot be read here (no file access); inline the tasks with "tasks"')
          return undefined
        }
        let loaded: { text: string; file: string }
        try {
          loaded = opts.readFile(w.file, file)
        } catch (e) {
          sink.error([...path, 'file'], `cannot read rt-app file "${w.file}": ${(e as Error).message}`)
          return undefined
        }
        source = loaded.file
        const sub = readLenient(loaded.text)
        rsink = new IssueSink(loaded.file, sub)
        for (const e of sub.errors) rsink.issues.push({ path: syntaxErrorPath(e.path), message: e.message, line: e.line, column: e.column })
        if (sub.root && sub.root.kind === 'object') {
          claimReservedKeys(sub.root, [], rsink)
          checkRtAppRoot(sub.root, [], rsink)
          tasksNode = lastEntry(sub.root, 'tasks')?.value
          globalNode = lastEntry(sub.root, 'global')?.value
        } else if (rsink.ok) rsink.error([], 'an rt-app file must be a JSON object with "tasks"')
        base = []
      } else {
        const wnode = doc.at(path)
        tasksNode = wnode?.kind === 'object' ? lastEntry(wnode, 'tasks')?.value : undefined
        globalNode = wnode?.kind === 'object' ? lastEntry(wnode, 'global')?.value : undefined
      }
      const read = rsink === sink || rsink.ok ? readRtApp(tasksNode, globalNode, base, rsink, ctx, defaults) : undefined
      if (rsink !== sink) sink.absorb(rsink)
      if (!read) return undefined
      return { ...common, type: 'rt-app', rtapp: read.spec, ...(source ? { source } : {}) } as WorkloadSpec
    }
  }
}

/** Model: one multiply-add of schbench's naive matrix multiply at capacity 1024, ns. */
export const SCHBENCH_MAC_NS = 0.5

function checkRtAppRoot(root: JObject, base: JsonPath, sink: IssueSink): void {
  for (const e of root.entries) {
    if (e.key === 'tasks' || e.key === 'global') continue
    if (e.key === 'resources') sink.warn([...base, 'resources'], 'legacy "resources" section ignored (resources are created from the events)', e.keyOffset)
    else sink.error([...base, e.key], `unknown top-level key "${e.key}" in an rt-app file (expected "tasks" and "global")`, e.keyOffset)
  }
}



/** The scenario's maxEvents, capped at the host's limit (with a warning when it asked for more). */
function effectiveMaxEvents(asked: number | undefined, host: number | undefined, sink: IssueSink): number {
  const limit = host ?? DEFAULT_MAX_EVENTS
  if (asked === undefined) return limit
  if (asked > limit) {
    sink.warn(['maxEvents'], `maxEvents ${asked} is above this host's limit of ${fmtCount(limit)}, which applies (raise it with --max-events, or the maxEventsPerRun setting)`)
  }
  return Math.min(asked, limit)
}

/** Refuse when the run of any variant would be beyond the event limit. */
export function checkEstimate(s: Scenario, sink: IssueSink, indexOf?: (workload: string) => number, note = ''): void {
  const lists = [s.workloads, ...s.variants.map((v) => v.workloads).filter((l): l is WorkloadSpec[] => !!l)]
  let worst = s
  let worstTotal = -1
  for (const workloads of lists) {
    const total = estimateEvents({ ...s, workloads }).total
    if (total > worstTotal) {
      worstTotal = total
      worst = { ...s, workloads }
    }
  }
  checkOne(worst, sink, indexOf ?? ((name) => s.workloads.findIndex((w) => w.name === name)), note)
}

function checkOne(s: Scenario, sink: IssueSink, indexOf: (workload: string) => number, note: string): void {
  const limit = s.maxEvents ?? DEFAULT_MAX_EVENTS
  const est = estimateEvents(s)
  if (est.total <= limit) return
  const top = [...est.workloads].sort((a, b) => b.events - a.events)[0]
  const path: JsonPath = top && top.events > est.ticks ? ['workloads', indexOf(top.name)] : ['durationMs']
  sink.error(
    path,
    `refused: this run would simulate about ${fmtCount(est.total)} events (${top && top.events > est.ticks ? `workload "${top.name}" about ${fmtCount(top.events)}` : `${fmtCount(est.ticks)} ticks`}) over ${s.durationMs} ms, above the limit of ${fmtCount(limit)}${note}. ` +
      `Shorten durationMs (--duration-ms), or raise the limit with --max-events ${Math.ceil(est.total * 1.2)} (the maxEventsPerRun setting in the workbench; a scenario's "maxEvents" can only lower it)`
  )
}

export interface ImportOptions {
  /** Topology preset name (`--topology`); default DEFAULT_TOPOLOGY. */
  topology?: string
  /** This machine, for `--topology host` (see ParseOptions.host). */
  host?: () => HostSpecs
  durationMs?: number
  seed?: number
  maxEvents?: number
  name?: string
}

/** A plain rt-app file as a whole scenario: one rt-app workload on a given or default topology. */
export function importRtApp(text: string, file: string, opts: ImportOptions = {}): Scenario {
  const doc = readLenient(text)
  const sink = new IssueSink(file, doc)
  for (const e of doc.errors) sink.issues.push({ path: syntaxErrorPath(e.path), message: e.message, line: e.line, column: e.column })
  sink.throwIfAny()
  if (!doc.root || doc.root.kind !== 'object' || !lastEntry(doc.root, 'tasks')) {
    sink.error([], 'an rt-app file must be a JSON object with "tasks"')
    sink.throwIfAny()
  }
  const root = doc.root as JObject
  claimReservedKeys(root, [], sink)
  checkRtAppRoot(root, [], sink)
  const topoName = opts.topology ?? DEFAULT_TOPOLOGY
  if (!opts.topology) sink.note(`plain rt-app file without --topology: running on ${DEFAULT_TOPOLOGY}`)
  const topology = resolveTopology(topoName, undefined, sink, opts.host, (path) => readTopologyFile(path, CWD_FILE, opts))
  sink.throwIfAny()
  const topo = buildTopology(topology as TopologySpec)
  const ctx: RtAppContext = { ncpus: topo.cpus.length, capacities: topo.cpus.map((c) => c.capacityOrig) }
  const read = readRtApp(lastEntry(root, 'tasks')?.value, lastEntry(root, 'global')?.value, [], sink, ctx)
  sink.throwIfAny()
  if (!read) throw new ScenarioError(file, [{ path: '(root)', message: 'invalid rt-app file' }])
  let durationMs = opts.durationMs
  if (durationMs === undefined) {
    if (read.durationS > 0) durationMs = read.durationS * 1000
    else if (read.endless) {
      durationMs = RTAPP_ENDLESS_DURATION_MS
      sink.warn(['global', 'duration'], `threads loop forever and no duration is given: simulating ${durationMs / 1000} s (set --duration-ms)`)
    } else durationMs = RTAPP_FINITE_CAP_MS
  }
  const name = opts.name ?? baseName(file)
  const s: Scenario = {
    name,
    file,
    topology: topology as TopologySpec,
    kernel: { hz: 250, profile: 'tip-2026', features: {} },
    durationMs,
    seed: opts.seed ?? 1,
    seeds: 1,
    variants: [{ name: 'base', patches: [], features: {} }],
    workloads: [{ type: 'rt-app', name: 'rt-app', policy: 'other', nice: 0, rtapp: read.spec, source: file } as WorkloadSpec],
    maxEvents: opts.maxEvents ?? DEFAULT_MAX_EVENTS,
    warnings: sink.warnings
  }
  checkEstimate(s, sink)
  sink.throwIfAny()
  return s
}

export { DEFAULT_DURATION_MS }
