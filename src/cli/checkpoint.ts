import { createHash } from 'node:crypto'
import { join } from 'node:path'
import type { RunSpec } from '../sim/scenario'
import type { VariantResult } from '../shared/result'
import { MAX_RESULT_FILE_BYTES } from '../services/bounded-read'
import { InputError } from './errors'
import type { CliIo } from './io'

/**
 * A command's runs kept as they finish, in `DIR/checkpoint.jsonl`: a first line naming the
 * command's runs (a digest of every run's scenario, variant and seed), then one line per finished
 * run. Appended at once, so a killed command leaves every run that had ended (a torn last line is
 * dropped); the same command with --resume runs only the others. Removed when the command ends.
 */
export const CHECKPOINT_FILE = 'checkpoint.jsonl'

export interface CliCheckpoint {
  /** Runs that had finished, by their index in the command's runs. */
  kept: Map<number, VariantResult>
  onResult(index: number, result: VariantResult): void
  /** The command finished (its output is written): the checkpoint is no longer needed. */
  remove(): void
}

function runsDigest(specs: readonly RunSpec[]): string {
  return createHash('sha256').update(JSON.stringify(specs.map((s) => [s.variant, s.variantIndex, s.seed, s.scenario]))).digest('hex')
}

export function openCheckpoint(dir: string, specs: readonly RunSpec[], resume: boolean, io: CliIo, command: string): CliCheckpoint {
  const file = join(dir, CHECKPOINT_FILE)
  const key = runsDigest(specs)
  const kept = new Map<number, VariantResult>()
  if (resume) {
    if (!io.exists(file)) throw new InputError(`--resume: ${file}: no checkpoint here (the ${command} finished, or never ran with --out ${dir})`)
    const lines = io.readFile(file, MAX_RESULT_FILE_BYTES).split('\n')
    let head: { format?: unknown; runs?: unknown } | null
    try {
      head = JSON.parse(lines[0]) as { format?: unknown; runs?: unknown } | null
    } catch {
      head = null
    }
    if (!head || head.format !== 1 || typeof head.runs !== 'string') throw new InputError(`--resume: ${file}: line 1: not a schedlab checkpoint`)
    if (head.runs !== key) throw new InputError(`--resume: ${file} holds the runs of another ${command} (its scenario, --set values or options differ): resume it with the same command line`)
    for (const [n, line] of lines.slice(1).entries()) {
      if (line.trim() === '') continue
      let rec: { index?: unknown; result?: unknown }
      try {
        rec = JSON.parse(line) as typeof rec
      } catch {
        // the line a kill cut short: that run is simply run again
        if (n + 2 === lines.length || lines.slice(n + 2).every((l) => l.trim() === '')) continue
        throw new InputError(`--resume: ${file}: line ${n + 2}: not JSON`)
      }
      const i = rec.index
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= specs.length || !rec.result || typeof rec.result !== 'object') {
        throw new InputError(`--resume: ${file}: line ${n + 2}: not a finished run of this ${command}`)
      }
      kept.set(i, rec.result as VariantResult)
    }
    io.err(`resuming: ${kept.size} of ${specs.length} runs had finished (${file})\n`)
  }
  if (!resume || !io.exists(file)) io.writeFile(file, JSON.stringify({ format: 1, runs: key }) + '\n')
  // after a torn last line, start the next record on a line of its own
  else io.appendFile(file, '\n')
  return {
    kept,
    onResult: (index, result) => io.appendFile(file, JSON.stringify({ index, result }) + '\n'),
    remove: () => io.removeFile(file)
  }
}
