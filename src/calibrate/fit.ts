/**
 * The fit of `schedlab calibrate`: a few positive parameters (costs, noise) adjusted so that
 * simulated figures match measured ones. The loss is the weighted mean squared log ratio of
 * simulated to measured values; the search is a deterministic Levenberg-Marquardt in log space,
 * which
 * needs few evaluations: each one is a set of simulations, a noisy function of the parameters.
 */

export interface FitParam {
  name: string
  init: number
  min: number
  max: number
}

export interface Target {
  name: string
  /** The measured value (from a real run, a trace or a published table). */
  real: number
  /** How much the target counts in the loss (default 1). */
  weight?: number
  /** Where the measured value comes from, for the report. */
  source?: string
}

export interface Residual {
  name: string
  real: number
  sim: number
  /** sim / real - 1 */
  error: number
  weight: number
  source?: string
}

export interface FitResult {
  params: Record<string, number>
  residuals: Residual[]
  loss: number
  evaluations: number
}

/** Simulated values of every target for one parameter vector. */
export type Evaluate = (params: Record<string, number>) => number[]

export function lossOf(targets: readonly Target[], sims: readonly number[]): number {
  let sum = 0
  let w = 0
  targets.forEach((t, i) => {
    const weight = t.weight ?? 1
    const s = sims[i]
    const r = !(s > 0) || !(t.real > 0) ? 10 : Math.log(s / t.real)
    sum += weight * r * r
    w += weight
  })
  return w > 0 ? sum / w : 0
}

export function residualsOf(targets: readonly Target[], sims: readonly number[]): Residual[] {
  return targets.map((t, i) => ({
    name: t.name, real: t.real, sim: sims[i], error: t.real !== 0 ? sims[i] / t.real - 1 : NaN, weight: t.weight ?? 1,
    ...(t.source !== undefined ? { source: t.source } : {})
  }))
}

const round = (x: number): number => Number(x.toPrecision(3))

/**
 * Levenberg-Marquardt in log space: residuals r_i = sqrt(w_i) log(sim_i / real_i), the
 * Jacobian by finite differences (each parameter scaled by 1.2, one evaluation each), a damped
 * Gauss-Newton step, kept when the loss drops (the damping falls), else retried with more
 * damping. Costs one evaluation per parameter and iteration plus the trials: far fewer than a
 * coordinate search when an evaluation is a set of simulations. Values are rounded to 3
 * significant digits and kept in their bounds.
 */
export function fit(params: readonly FitParam[], targets: readonly Target[], evaluate: Evaluate, opts: { iterations?: number; log?: (line: string) => void } = {}): FitResult {
  const cache = new Map<string, number[]>()
  let evaluations = 0
  const sims = (p: Record<string, number>): number[] => {
    const key = params.map((x) => p[x.name]).join(',')
    let s = cache.get(key)
    if (!s) {
      s = evaluate(p)
      evaluations++
      cache.set(key, s)
    }
    return s
  }
  const clampRound = (q: FitParam, v: number): number => round(Math.min(q.max, Math.max(q.min, v)))
  const residual = (p: Record<string, number>): number[] => {
    const s = sims(p)
    return targets.map((t, i) => Math.sqrt(t.weight ?? 1) * (!(s[i] > 0) || !(t.real > 0) ? 10 : Math.log(s[i] / t.real)))
  }
  let cur: Record<string, number> = {}
  for (const q of params) cur[q.name] = clampRound(q, q.init)
  let best = lossOf(targets, sims(cur))
  opts.log?.(`start: loss ${best.toFixed(4)} ${fmtParams(cur)}`)
  let lambda = 0.3
  const h = Math.log(1.2)
  for (let it = 0; it < (opts.iterations ?? 6); it++) {
    const r0 = residual(cur)
    // Jacobian of the residuals in log(parameter)
    const J = params.map((q) => {
      const up = clampRound(q, cur[q.name] * Math.exp(h))
      const step = Math.log(up / cur[q.name])
      if (step === 0) return r0.map(() => 0)
      const r1 = residual({ ...cur, [q.name]: up })
      return r1.map((x, i) => (x - r0[i]) / step)
    })
    let improved = false
    for (let attempt = 0; attempt < 4 && !improved; attempt++) {
      const n = params.length
      const A = Array.from({ length: n }, (_, a) => Array.from({ length: n }, (_, b) => J[a].reduce((acc, x, i) => acc + x * J[b][i], 0)))
      const g = Array.from({ length: n }, (_, a) => -J[a].reduce((acc, x, i) => acc + x * r0[i], 0))
      for (let a = 0; a < n; a++) A[a][a] += lambda * (A[a][a] + 1e-6)
      const d = solve(A, g)
      const trial: Record<string, number> = {}
      params.forEach((q, a) => { trial[q.name] = clampRound(q, cur[q.name] * Math.exp(Math.max(-1.5, Math.min(1.5, d[a])))) })
      const l = lossOf(targets, sims(trial))
      if (l < best - 1e-9) {
        best = l
        cur = trial
        lambda = Math.max(1e-3, lambda / 3)
        improved = true
        opts.log?.(`iteration ${it + 1}: loss ${best.toFixed(4)} ${fmtParams(cur)}`)
      } else {
        lambda *= 4
      }
    }
    if (!improved) break
  }
  return { params: cur, residuals: residualsOf(targets, sims(cur)), loss: best, evaluations }
}

/** Gaussian elimination with partial pivoting; a singular system leaves those steps 0. */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length
  const M = A.map((row, i) => [...row, b[i]])
  for (let c = 0; c < n; c++) {
    let p = c
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[p][c])) p = r
    if (Math.abs(M[p][c]) < 1e-12) continue
    ;[M[c], M[p]] = [M[p], M[c]]
    for (let r = 0; r < n; r++) {
      if (r === c) continue
      const f = M[r][c] / M[c][c]
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k]
    }
  }
  return M.map((row, i) => (Math.abs(row[i]) < 1e-12 ? 0 : row[n] / row[i]))
}

function fmtParams(p: Record<string, number>): string {
  return Object.entries(p).map(([k, v]) => `${k}=${v}`).join(' ')
}
