/**
 * Explanations of rows where the simulation disagrees with the published direction, or that
 * are not run: a modeling limit or a finding. Keyed by row id or by "<seed>/<table>".
 */
export const NOTES: Record<string, string> = {}
