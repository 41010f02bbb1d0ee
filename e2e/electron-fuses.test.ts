/**
 * The packaging step's Electron fuses (electron-builder.yml, `electronFuses`), tested without an
 * Electron binary (none can be downloaded here): electron-builder itself loads and validates the
 * configuration, turns it into the @electron/fuses config it flips, and that config is flipped
 * on a stand-in binary that carries Electron's fuse wire (sentinel, version, length, states as
 * Electron 45 ships them); reading the wire back gives each fuse's packaged state.
 * On a packaged build: `npm run fuses -- dist/linux-unpacked/schedlab` (README).
 */
import { describe, expect, it } from 'vitest'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { FuseV1Options, getCurrentFuseWire, flipFuses, type FuseV1Config } from '@electron/fuses'
import { FuseState, SENTINEL } from '@electron/fuses/dist/constants'
import { tempDir } from '../src/services/test-helpers'
import { ROOT } from './host'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
  getConfig(projectDir: string, configPath: string | null, fromOptions: unknown): Promise<Record<string, unknown>>
  validateConfiguration(config: unknown, debug: { isEnabled: boolean; add(): void }): Promise<void>
}
// The package index first: its modules import each other in that order.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PlatformPackager } = require('app-builder-lib') as {
  PlatformPackager: { prototype: { generateFuseConfig(fuses: unknown): Promise<FuseV1Config> } }
}

/** What each fuse must be in the packaged app (docs/security.md, item by item). */
const WANTED: [FuseV1Options, boolean][] = [
  [FuseV1Options.RunAsNode, false],
  [FuseV1Options.EnableCookieEncryption, true],
  [FuseV1Options.EnableNodeOptionsEnvironmentVariable, false],
  [FuseV1Options.EnableNodeCliInspectArguments, false],
  [FuseV1Options.EnableEmbeddedAsarIntegrityValidation, true],
  [FuseV1Options.OnlyLoadAppFromAsar, true],
  [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot, false],
  [FuseV1Options.GrantFileProtocolExtraPrivileges, false]
]

/** A stand-in Electron binary: bytes around Electron's fuse wire with its default states. */
function fakeElectron(path: string): void {
  const on = FuseState.ENABLE
  const off = FuseState.DISABLE
  // Electron's defaults: run-as-node on, cookie encryption off, NODE_OPTIONS on, inspect on,
  // asar integrity off, only-asar off, V8 snapshot off, file privileges on; then a 9th fuse.
  const defaults = [on, off, on, on, off, off, off, on, on]
  const wire = Buffer.from([...Buffer.from(SENTINEL), 1, defaults.length, ...defaults])
  writeFileSync(path, Buffer.concat([Buffer.alloc(4096, 0x90), wire, Buffer.alloc(4096, 0x90)]))
}

describe('Electron fuses in the packaging step', () => {
  it('electron-builder accepts the configuration', async () => {
    const config = await getConfig(ROOT, null, null)
    await expect(validateConfiguration(config, { isEnabled: false, add() {} })).resolves.toBeUndefined()
    expect(config.asar).toBe(true)
    expect(config.electronFuses).toBeDefined()
  })

  it('every fuse is set, to the state docs/security.md gives', async () => {
    const config = await getConfig(ROOT, null, null)
    const fuses = await PlatformPackager.prototype.generateFuseConfig(config.electronFuses)
    for (const [fuse, state] of WANTED) expect(fuses[fuse as keyof typeof fuses], FuseV1Options[fuse]).toBe(state)
    const doc = readFileSync(join(ROOT, 'docs', 'security.md'), 'utf8')
    for (const [fuse] of WANTED) expect(doc, FuseV1Options[fuse]).toContain(FuseV1Options[fuse])
  })

  it('flipping them on an Electron fuse wire gives the packaged states', async () => {
    const t = tempDir()
    try {
      const bin = join(t.dir, 'schedlab')
      fakeElectron(bin)
      const config = await getConfig(ROOT, null, null)
      const fuses = await PlatformPackager.prototype.generateFuseConfig(config.electronFuses)
      expect(await flipFuses(bin, fuses)).toBe(1)
      const wire = await getCurrentFuseWire(bin)
      for (const [fuse, state] of WANTED) {
        expect(wire[fuse as keyof typeof wire], FuseV1Options[fuse]).toBe(state ? FuseState.ENABLE : FuseState.DISABLE)
      }
      // A fuse newer than @electron/fuses knows keeps Electron's default.
      expect((wire as Record<number, number>)[8]).toBe(FuseState.ENABLE)
    } finally {
      t.cleanup()
    }
  })
})
