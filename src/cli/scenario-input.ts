/**
 * Reading SCENARIO on the command line: a file path, else a preset id; parsed with the command's
 * options (--topology, --duration, --max-events, --set, --patch), includes resolved beside the file.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { readPreset } from '../services/presets'
import { parseScenario, type Scenario } from '../sim/scenario'
import { applySets, SetPathError, type SetArg } from '../sim/scenario/set'
import { hostSpecs } from '../real/host-specs'
import { InputError } from './errors'
import type { CliIo } from './io'
import { cliPatchOptions } from './patch'

export interface LoadOptions {
  topology?: string
  durationMs?: number
  maxEvents?: number
  sets?: SetArg[]
  /** --patch FILE: added to every variant that names no patch. */
  patches?: string[]
}

/** SCENARIO's text: a file path, else a preset id. */
export function readScenarioText(arg: string, io: CliIo): { file: string; text: string } {
  if (io.exists(arg)) {
    try {
      return { file: arg, text: io.readFile(arg) }
    } catch (e) {
      throw new InputError(`${arg}: cannot read: ${(e as Error).message}`)
    }
  }
  const preset = readPreset(arg.replace(/\.json$/, ''))
  if (!preset) throw new InputError(`${arg}: no such file or preset (see \`schedlab presets\`)`)
  return { file: preset.file, text: preset.text }
}

/** Parse scenario text with the command-line options (`file` names it in messages and resolves includes). */
export function parseScenarioText(text: string, file: string, io: CliIo, opts: LoadOptions): Scenario {
  if (opts.sets && opts.sets.length > 0) text = setsApplied(text, opts.sets)
  return parseScenario(text, file, {
    topology: opts.topology,
    durationMs: opts.durationMs,
    maxEvents: opts.maxEvents,
    host: hostSpecs,
    readFile: (path, from) => {
      const full = isAbsolute(path) ? path : join(dirname(resolve(from)), path)
      return { text: io.readFile(full), file: path }
    },
    ...cliPatchOptions(),
    ...(opts.patches?.length ? { addPatches: opts.patches } : {})
  })
}

/** The text with the --set edits; one that cannot apply is an input error (exit 2, `validate --json` reports it). */
export function setsApplied(text: string, sets: readonly SetArg[]): string {
  try {
    return applySets(text, sets)
  } catch (e) {
    if (e instanceof SetPathError) throw new InputError(e.message)
    throw e
  }
}

/** Read SCENARIO: a file path, else a preset id. */
export function loadScenario(arg: string, io: CliIo, opts: LoadOptions): Scenario {
  const { file, text } = readScenarioText(arg, io)
  return parseScenarioText(text, file, io, opts)
}
