import { lastEntry, readLenient } from './jsonc'
import { importRtApp, parseScenario, type ImportOptions } from './parse'
import { DEFAULT_TOPOLOGY } from './topology-adapter'

/**
 * An rt-app file as the text of a new scenario (the desktop "import rt-app" command): the
 * file's `tasks` and `global` are copied verbatim, comments, key order and duplicate keys
 * included, into one rt-app workload. The rt-app file is checked first (ScenarioError if bad).
 */
export function rtappScenarioText(text: string, file: string, opts: ImportOptions = {}): string {
  const s = importRtApp(text, file, opts)
  const doc = readLenient(text)
  const root = doc.root
  if (!root || root.kind !== 'object') throw new Error('unreachable: importRtApp accepted a non-object')
  const slice = (key: string): string | undefined => {
    const v = lastEntry(root, key)?.value
    return v ? text.slice(v.offset, v.offset + v.length) : undefined
  }
  const global = slice('global')
  const tasks = slice('tasks') as string
  const base = file.split(/[\\/]/).pop() ?? file
  const out = [
    `// Imported from the rt-app file ${base}. Choose the topology and add variants to compare.`,
    '{',
    `  "name": ${JSON.stringify(s.name)},`,
    `  "topology": ${JSON.stringify(opts.topology ?? DEFAULT_TOPOLOGY)},`,
    `  "durationMs": ${s.durationMs},`,
    '  "variants": [{ "name": "base" }],',
    '  "workloads": [',
    '    {',
    '      "type": "rt-app",',
    '      "name": "rt-app",',
    ...(global ? [`      "global": ${global},`] : []),
    `      "tasks": ${tasks}`,
    '    }',
    '  ]',
    '}',
    ''
  ].join('\n')
  parseScenario(out, file)
  return out
}
