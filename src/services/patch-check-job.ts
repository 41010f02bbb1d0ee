/** The simulation worker's side of checking a patch module: load it there, never in a host. */
import type { PatchCheckResult } from '../shared/ipc'
import { evaluatePatch, patchModuleInfo, type PatchModuleSource } from '../sim/patch-api/evaluate'
import { problemOf } from './patch-library'

export interface PatchCheckJob {
  job: 'patch-check'
  src: PatchModuleSource
}

export function isPatchCheckJob(x: unknown): x is PatchCheckJob {
  return typeof x === 'object' && x !== null && (x as { job?: unknown }).job === 'patch-check'
}

export function runPatchCheck(job: PatchCheckJob): PatchCheckResult {
  try {
    return { ok: true, info: patchModuleInfo(evaluatePatch(job.src).patch) }
  } catch (err) {
    return { ok: false, problem: problemOf(err) }
  }
}
