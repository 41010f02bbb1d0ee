// Regenerates the hook reference in docs/patches.md from the model's hook points (`npm run docs:patches`).
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { withHookReference } from '../src/sim/patch-api/docs'

const target = fileURLToPath(new URL('../docs/patches.md', import.meta.url))
writeFileSync(target, withHookReference(readFileSync(target, 'utf8')))
console.log(`wrote ${target}`)
