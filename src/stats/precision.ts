/**
 * Runs that stop when the answer is precise enough (`--precision WORKLOAD.METRIC:PCT`): seeds
 * are added per variant, in parallel, until the 95 % interval of the figure is within PCT % of
 * its estimate (half-width / estimate <= PCT / 100), or the seed limit is reached.
 *
 * The rule is checked after each seed in seed order, on seeds first..first+n-1 only, whatever
 * order the parallel runs finish in: the stopping point, and so the result, is the same as a
 * sequential run's (deterministic). Runs of seeds beyond it that were already started are
 * canceled and dropped.
 */
import type { VariantResult } from '../shared/result'
import type { Estimate } from './quantile'
import { workloadStats, type MetricName } from './summary'
import { distinctResults } from './replicas'

/** Seed limit per variant unless --max-seeds says otherwise. */
export const DEFAULT_MAX_SEEDS = 100
/** Independent replicas every variant gets before the rule is checked. */
export const DEFAULT_MIN_SEEDS = 2

export interface PrecisionTarget {
  workload: string
  metric: MetricName
  pct: number
}

const METRIC_ALIASES: Record<string, MetricName> = {
  p50: 'p50', median: 'p50', p90: 'p90', p99: 'p99', 'p99.9': 'p99_9', p99_9: 'p99_9', p999: 'p99_9', time: 'timeSec', timesec: 'timeSec'
}

/** `WORKLOAD.METRIC:PCT` (e.g. `ct.p99:5`, `hackbench.time:2`); an error message otherwise. */
export function parsePrecisionTarget(v: string): (PrecisionTarget & { text: string }) | string {
  const text = v.trim()
  const colon = text.lastIndexOf(':')
  const target = colon > 0 ? text.slice(0, colon) : ''
  // the workload name may itself contain dots: the metric is what follows the dot that names one
  let workload = ''
  let metric: MetricName | undefined
  for (let i = target.indexOf('.'); i > 0 && !metric; i = target.indexOf('.', i + 1)) {
    metric = METRIC_ALIASES[target.slice(i + 1).toLowerCase()]
    workload = target.slice(0, i)
  }
  const pctText = colon > 0 ? text.slice(colon + 1) : ''
  if (!metric || !/^\d+(\.\d+)?$/.test(pctText)) return `expected WORKLOAD.METRIC:PCT with METRIC one of p50, p90, p99, p99.9, time (e.g. cyclictest.p99:5), got "${v}"`
  const pct = Number(pctText)
  if (!(pct > 0 && pct <= 100)) return `PCT must be in (0, 100], got ${pctText}`
  return { workload, metric, pct, text }
}

const ALIASES: Record<string, string> = { ct: 'cyclictest', hb: 'hackbench', sb: 'schbench', rt: 'rt-app' }

/** The workload a target names: its name, else its type (or ct/hb/sb/rt), else a unique prefix; an error message otherwise. */
export function resolveTargetWorkload(workloads: readonly { name: string; type: string }[], name: string): { name: string } | string {
  const names = workloads.map((w) => w.name)
  if (names.includes(name)) return { name }
  const type = ALIASES[name] ?? name
  const byType = workloads.filter((w) => w.type === type)
  if (byType.length === 1) return { name: byType[0].name }
  const byPrefix = names.filter((n) => n.startsWith(name))
  if (byPrefix.length === 1) return { name: byPrefix[0] }
  const why = byType.length > 1 || byPrefix.length > 1 ? 'is ambiguous' : 'names no workload'
  return `"${name}" ${why} (workloads: ${names.join(', ')})`
}

/** The estimate the target names, over these runs of one variant. */
export function targetEstimate(results: readonly VariantResult[], t: Pick<PrecisionTarget, 'workload' | 'metric'>): Estimate | null {
  const ws = distinctResults(results).distinct.flatMap((r) => r.workloads.filter((w) => w.name === t.workload))
  if (ws.length === 0) return null
  const s = workloadStats(ws)
  return t.metric === 'timeSec' ? s.timeSec : s.latency[t.metric]
}

/** Half-width over estimate, percent; null when there is no interval (or too few samples). */
export function relativeHalfWidth(e: Estimate | null): number | null {
  if (!e || e.insufficient || !e.ci95 || !(e.value > 0)) return null
  return ((e.ci95[1] - e.ci95[0]) / 2 / e.value) * 100
}

export function isPrecise(e: Estimate | null, pct: number): boolean {
  const h = relativeHalfWidth(e)
  return h !== null && h <= pct
}

export interface PrecisionJob {
  /** The run's result; rejects when it failed. Canceled runs may resolve to null. */
  result: Promise<VariantResult | null>
  cancel(): void
}

export interface VariantPrecision {
  variantIndex: number
  /** Seeds used (first..first+seeds-1). */
  seeds: number
  /** Relative half-width reached, percent (null: no interval yet). */
  halfWidthPct: number | null
  estimate: Estimate | null
  reached: boolean
  /** Still adding seeds. */
  running: boolean
}

export interface PrecisionOptions {
  variants: readonly number[]
  firstSeed: number
  /** Seeds every variant gets before the rule is checked (at least 1). */
  minSeeds: number
  maxSeeds: number
  /** Runs in flight at once (the worker pool's size). */
  concurrency: number
  target: PrecisionTarget
  submit(variantIndex: number, seed: number): PrecisionJob
  /** After each check of the rule: the state of every variant. */
  onCheck?(state: readonly VariantPrecision[]): void
}

export interface PrecisionOutcome {
  /** Variant by variant (in `variants` order), seeds ascending. */
  results: VariantResult[]
  variants: VariantPrecision[]
}

interface Track {
  state: VariantPrecision
  done: Map<number, VariantResult>
  inFlight: Map<number, PrecisionJob>
  nextSeed: number
}

export async function runToPrecision(o: PrecisionOptions): Promise<PrecisionOutcome> {
  const minSeeds = Math.max(1, Math.min(o.minSeeds, o.maxSeeds))
  const tracks: Track[] = o.variants.map((variantIndex) => ({
    state: { variantIndex, seeds: 0, halfWidthPct: null, estimate: null, reached: false, running: true },
    done: new Map(), inFlight: new Map(), nextSeed: o.firstSeed
  }))
  let inFlight = 0
  let failure: unknown = null
  let wake: (() => void) | null = null
  const limit = Math.max(1, o.concurrency)

  const check = (t: Track): boolean => {
    let changed = false
    while (t.state.running && t.done.has(o.firstSeed + t.state.seeds)) {
      t.state.seeds++
      changed = true
      if (t.state.seeds < minSeeds) continue
      const runs: VariantResult[] = []
      for (let s = 0; s < t.state.seeds; s++) runs.push(t.done.get(o.firstSeed + s)!)
      t.state.estimate = targetEstimate(runs, o.target)
      t.state.halfWidthPct = relativeHalfWidth(t.state.estimate)
      t.state.reached = isPrecise(t.state.estimate, o.target.pct)
      // every seed so far gave the same result: nothing draws on the seed, more add nothing
      const copies = runs.length >= 2 && distinctResults(runs).distinct.length === 1
      if (t.state.reached || copies || t.state.seeds >= o.maxSeeds) {
        t.state.running = false
        for (const j of t.inFlight.values()) j.cancel()
      }
    }
    return changed
  }

  const fill = (): void => {
    while (inFlight < limit && failure === null) {
      // the running variant with the fewest seeds submitted goes next
      const open = tracks.filter((t) => t.state.running && t.nextSeed < o.firstSeed + o.maxSeeds)
      if (open.length === 0) return
      const t = open.reduce((a, b) => (b.nextSeed < a.nextSeed ? b : a))
      const seed = t.nextSeed++
      const job = o.submit(t.state.variantIndex, seed)
      t.inFlight.set(seed, job)
      inFlight++
      job.result.then(
        (r) => {
          inFlight--
          t.inFlight.delete(seed)
          if (t.state.running) {
            if (!r) {
              if (failure === null) failure = new Error(`the run of seed ${seed} was canceled`)
            } else {
              t.done.set(seed, r)
              if (check(t)) o.onCheck?.(tracks.map((x) => x.state))
            }
          }
          wake?.()
        },
        (e: unknown) => {
          inFlight--
          t.inFlight.delete(seed)
          if (t.state.running && failure === null) failure = e
          wake?.()
        }
      )
    }
  }

  for (;;) {
    fill()
    if (failure !== null) {
      for (const t of tracks) for (const j of t.inFlight.values()) j.cancel()
      throw failure
    }
    if (tracks.every((t) => !t.state.running) && inFlight === 0) break
    await new Promise<void>((r) => (wake = r))
    wake = null
  }
  const results: VariantResult[] = []
  for (const t of tracks) for (let s = 0; s < t.state.seeds; s++) results.push(t.done.get(o.firstSeed + s)!)
  return { results, variants: tracks.map((t) => t.state) }
}
