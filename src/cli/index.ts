/**
 * schedlab command line. Minimal dispatcher: only `serve` so far (the scenario/CLI work adds
 * run, compare, validate, patches, topologies and presets).
 */
import { serveCommand } from './serve'

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv
  if (cmd === 'serve') return serveCommand(rest)
  process.stderr.write(`schedlab: unknown command ${cmd === undefined ? '(none)' : `"${cmd}"`}\nusage: schedlab serve [--port N] [--data-dir DIR]\n`)
  return 2
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`schedlab: internal error: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
})
