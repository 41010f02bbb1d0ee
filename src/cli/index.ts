import { ScenarioError } from '../sim/scenario'
import { parseArgs, USAGE, usageOf } from './args'
import { InputError, UsageError } from './errors'
import { compareCommand, listCommand, runCommand, validateCommand } from './commands'
import { nodeIo, type CliIo } from './io'
import { analyzeCommand } from './analyze'
import { hostCommand, realCommand } from './real'
import { vmCommand } from './vm'
import { explainCommand } from './explain'
import { calibrateCommand } from './calibrate'
import { mergeCommand, sweepCommand } from './sweep'
import type { SimulateFn } from './simulator'
import { patchCheckCommand, patchNewCommand } from './patch'
import { PatchError } from '../sim/patch-api/evaluate'
import { FileLimitError } from '../services/bounded-read'
import { DirError } from '../services/data-dir'
import { SetPathError } from '../sim/scenario/set'

/**
 * The headless `schedlab` command. `runCli` is the whole program minus process handling, so it
 * is tested in-process: it returns the exit code (0 success, 2 invalid input, 1 internal error)
 * and never lets a stack trace reach the user unless SCHEDLAB_DEBUG is set.
 */
export async function runCli(argv: readonly string[], io: CliIo = nodeIo(), simulate?: SimulateFn): Promise<number> {
  try {
    const c = parseArgs(argv)
    switch (c.cmd) {
      case 'help':
        io.out(((c.topic && usageOf(c.topic)) || USAGE) + '\n')
        return 0
      case 'version':
        io.out(`schedlab ${version()}\n`)
        return 0
      case 'run':
        return await runCommand(c, io, simulate)
      case 'compare':
        return await compareCommand(c, io, simulate)
      case 'validate':
        return validateCommand(c, io)
      case 'topologies':
        return c.host ? hostCommand(c.json, io) : listCommand(c.cmd, c.json, io)
      case 'patches':
      case 'presets':
        return listCommand(c.cmd, c.json, io)
      case 'serve':
        return await serve(c.args, io)
      case 'patch':
        return c.action === 'new' ? patchNewCommand(c.target, io) : patchCheckCommand(c.target, c.json, io)
      case 'analyze':
        return await analyzeCommand(c, io)
      case 'real':
        return await realCommand(c, io)
      case 'vm':
        return await vmCommand(c, io)
      case 'explain':
        return await explainCommand(c, io)
      case 'calibrate':
        return await calibrateCommand(c, io)
      case 'sweep':
        return await sweepCommand(c, io, simulate)
      case 'merge':
        return await mergeCommand(c.dirs, c.json, c.out, io)
    }
  } catch (e) {
    if (e instanceof ScenarioError) {
      io.err(e.format() + '\n')
      return 2
    }
    if (e instanceof PatchError) {
      // a patch module's problem while simulating (src/sim/patch-api): the user's code, located
      io.err(`schedlab: ${e.message}\n`)
      return 2
    }
    if (e instanceof InputError || e instanceof FileLimitError || e instanceof DirError || e instanceof SetPathError) {
      io.err(`schedlab: ${e.message}\n`)
      return 2
    }
    if (e instanceof UsageError) {
      io.err(`schedlab: ${e.message}\n\n${USAGE}\n`)
      return 2
    }
    io.err(`schedlab: internal error: ${e instanceof Error ? e.message : String(e)}\n`)
    if (process.env.SCHEDLAB_DEBUG && e instanceof Error) io.err(`${e.stack}\n`)
    return 1
  }
}

/** `serve` lives in src/cli/serve.ts (the web host); absent from builds without it. */
async function serve(args: string[], io: CliIo): Promise<number> {
  const specifier = './serve'
  let mod: { serveCommand?: (argv: readonly string[]) => Promise<number> }
  try {
    mod = (await import(/* @vite-ignore */ specifier)) as typeof mod
  } catch {
    mod = {}
  }
  if (typeof mod.serveCommand !== 'function') {
    io.err('serve: not available in this build\n')
    return 1
  }
  return mod.serveCommand(args)
}

function version(): string {
  try {
    return (JSON.parse(nodeIo().readFile(`${__dirname}/../../package.json`)) as { version: string }).version
  } catch {
    return 'unknown'
  }
}

/** The process entry: exit code, and a reader that closes the pipe early (`| head`) is no error. */
export async function main(argv: readonly string[]): Promise<void> {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0)
    })
  }
  process.exitCode = await runCli(argv)
}

const invokedDirectly = typeof require !== 'undefined' && typeof module !== 'undefined' && require.main === module
if (invokedDirectly) void main(process.argv.slice(2))
