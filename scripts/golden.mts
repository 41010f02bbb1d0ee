/**
 * `npm run golden:update`: regenerate src/golden/digests.json (the result digests the
 * golden test pins). Run it only when model behaviour changed on purpose, and say why in the
 * commit. `npm run golden:update -- --check` only reports what moved.
 */
import { writeFileSync } from 'node:fs'
import { GOLDEN_FILE, goldenCases, readGolden, runGolden } from '../src/golden/cases'

const check = process.argv.includes('--check')
const old = readGolden()
const next: Record<string, string> = {}
let moved = 0
for (const c of goldenCases()) {
  const d = runGolden(c)
  next[c.id] = d
  if (old[c.id] !== d) {
    moved++
    console.log(`${old[c.id] ? 'changed' : 'new    '} ${c.id}`)
  }
}
for (const id of Object.keys(old)) if (!(id in next)) console.log(`removed ${id}`)
console.log(`${Object.keys(next).length} cases, ${moved} moved`)
if (!check) {
  writeFileSync(GOLDEN_FILE, JSON.stringify(next, null, 2) + '\n')
  console.log(`wrote ${GOLDEN_FILE}`)
}
