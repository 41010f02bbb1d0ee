/**
 * The scenario language: parse scenario text (or a plain rt-app file) into the normalized
 * Scenario, expand variants x seeds into runs, and describe the language (JSON Schema, docs).
 */
export { parseScenario, importRtApp, MAX_TASKS, HOST, type ParseOptions, type ImportOptions, type HostSpecs } from './parse'
export { expandRuns, type ExpandOptions, type RunSpec } from './expand'
export { scenarioJsonSchema } from './json-schema'
export { ScenarioError, formatIssues, type ScenarioIssue } from './errors'
export { estimateEvents, formatCount, type EventEstimate } from './estimate'
export { listPatches, knownFeatureNames, type PatchInfo } from './patch-adapter'
export { topologyPresets, resolveTopologyName, DEFAULT_TOPOLOGY, type TopologyPresetInfo } from './topology-adapter'
export { DEFAULT_DURATION_MS, DEFAULT_MAX_EVENTS, WORKLOAD_TYPES } from './schema'
export type * from './types'
export type * from './workload-specs'
export { rtappScenarioText } from './rtapp-import'
export { applySets, parseSetArg, setArgsOf, type SetArg } from './set'
