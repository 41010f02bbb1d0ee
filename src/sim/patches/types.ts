/** A seed patch (or a whole series, or a reviewer alternative) as a named set of switches. */
export interface PatchDoc {
  /** What a variant lists in `patches`, e.g. "short-slice-v1" or "short-slice-v1/4". */
  name: string
  /** Seed thread file in shared/seeds and the patch position, e.g. "000 4/8". */
  seed: string
  /** The patch title as posted. */
  title: string
  /** One line: what the switch changes in the model. */
  effect: string
  /** Switches (kernel model flags) this patch turns on (or off). */
  switches: Record<string, boolean>
}
