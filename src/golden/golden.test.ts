import { describe, expect, it } from 'vitest'
import { GOLDEN_UPDATE_COMMAND, goldenCases, readGolden, runGolden } from './cases'

/**
 * Byte-identical behaviour: every preset (all variants) and bench scenario, run briefly, must
 * give the digest committed in digests.json. An optimization that moves a digest has changed
 * the model; a deliberate model change regenerates the file in its commit.
 */
describe('golden digests', () => {
  it('every preset and bench scenario gives its committed result digest', () => {
    const golden = readGolden()
    const cases = goldenCases()
    const moved: string[] = []
    for (const c of cases) {
      const d = runGolden(c)
      if (golden[c.id] !== d) moved.push(`${c.id}: ${golden[c.id] ?? '(none)'} -> ${d}`)
    }
    const stale = Object.keys(golden).filter((id) => !cases.some((c) => c.id === id))
    const msg =
      `results changed for ${moved.length} case(s)${stale.length ? `, ${stale.length} stale entr(ies): ${stale.join(', ')}` : ''}:\n  ${moved.join('\n  ')}\n` +
      `If you changed model behaviour on purpose, run \`${GOLDEN_UPDATE_COMMAND}\` and commit src/golden/digests.json ` +
      'saying why in the message; otherwise this is a bug (an optimization must keep results byte-identical).'
    expect(moved.length === 0 && stale.length === 0, msg).toBe(true)
    // about 40 s of CPU: on a loaded machine it takes several times that (a hang guard only)
  }, 600_000)
})
