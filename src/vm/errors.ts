/**
 * What `schedlab vm` says when it cannot do a run, in one line each. A refusal is something the
 * user changes (a scenario a VM cannot express, a kernel image that is no kernel or does not
 * boot, a package or tool missing): the CLI exits 2 with it. A failure is the machine's (the
 * guest hung past its wall-clock budget, the cache disk is full, QEMU died): exit 1, the same
 * one line, no stack trace. Either way no QEMU process is left behind.
 */
export class VmRefusal extends Error {
  override name = 'VmRefusal'
}

export class VmFailure extends Error {
  override name = 'VmFailure'
}

/** The run was cancelled (Ctrl+C, SIGTERM, the workbench's cancel): QEMU is gone. */
export class VmCancelled extends Error {
  override name = 'VmCancelled'
  constructor() {
    super('cancelled')
  }
}

/** By name, not instanceof (a script may load these modules twice: ESM and CommonJS under tsx). */
export function isVmError(e: unknown, name: 'VmRefusal' | 'VmFailure' | 'VmCancelled'): e is Error {
  return e instanceof Error && e.name === name
}

/** A write that failed for lack of space becomes one clear failure naming the folder. */
export function diskError(e: unknown, dir: string, what: string): Error {
  const code = (e as NodeJS.ErrnoException | null)?.code
  if (code === 'ENOSPC' || code === 'EDQUOT' || /No space left on device|Disk quota exceeded/i.test(String((e as Error)?.message ?? e))) {
    return new VmFailure(`the cache disk is full: ${what} needs space in ${dir}; free some space there (or set SCHEDLAB_VM_CACHE to a folder on another disk)`)
  }
  return e instanceof Error ? e : new Error(String(e))
}
