#!/usr/bin/env node
// The `schedlab` command for global installs (`npm install -g`): runs the TypeScript CLI
// (src/cli/index.ts) through tsx's loader, in-process, and exits with its code.
import { createRequire } from 'node:module'
import { register as registerCjs } from 'tsx/cjs/api'
import { register as registerEsm } from 'tsx/esm/api'

registerCjs()
registerEsm()
const require = createRequire(import.meta.url)
const { main } = require('../src/cli/index.ts')
await main(process.argv.slice(2))
