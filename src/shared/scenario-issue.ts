/** One problem of a scenario: where (JSON path, and line/column when there is text) and what. */
export interface ScenarioIssue {
  /** JSON path in display form, e.g. `workloads[1].periodUs` (`(root)` for the document). */
  path: string
  message: string
  line?: number
  column?: number
  /** Set when the issue is in another file than the scenario (an rt-app `file` reference). */
  file?: string
}
