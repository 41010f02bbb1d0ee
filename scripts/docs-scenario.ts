// Writes docs/scenario.md from the scenario schema (`npm run docs:scenario`).
import { writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { scenarioReferenceMarkdown } from '../src/sim/scenario/docs'

const target = resolve(__dirname, '..', 'docs', 'scenario.md')
writeFileSync(target, scenarioReferenceMarkdown())
console.log(`wrote ${target}`)
