/**
 * A real run this machine cannot do, said in one line (the CLI exits 2 with it): not Linux,
 * no tracefs or not permitted, a workload tool missing (with the Debian package that has it),
 * a variant that needs another kernel.
 */
export class RealRefusal extends Error {
  override name = 'RealRefusal'
}

/** The run was cancelled (Ctrl+C, the workbench's cancel): everything was cleaned up. */
export class RealCancelled extends Error {
  override name = 'RealCancelled'
  constructor() {
    super('cancelled')
  }
}

/** With `requireQuiet`, the machine did not become quiet within the wait: nothing was run. */
export class RealNotQuiet extends Error {
  override name = 'RealNotQuiet'
  constructor(readonly waitedSec: number, readonly loadCpus: number) {
    super(`the machine did not become quiet in ${waitedSec} s (others use ${loadCpus} CPUs); nothing was run`)
  }
}

/**
 * By name, not instanceof: a script loading these modules both as ESM and as CommonJS (tsx)
 * holds two copies of each class.
 */
export function isRealError(e: unknown, name: 'RealRefusal' | 'RealCancelled' | 'RealNotQuiet'): e is Error {
  return e instanceof Error && e.name === name
}
