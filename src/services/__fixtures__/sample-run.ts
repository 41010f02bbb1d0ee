import type { StoredRun } from '../../shared/ipc'

/** A small, structurally complete saved run for store tests. */
export function sampleRun(id: string, createdAt: string, name = id): StoredRun {
  const lat = { count: 1, min: 1, avg: 1, p50: 1, p90: 1, p99: 1, p99_9: 1, max: 1 }
  return {
    format: 1, id, name, scenarioName: 'scn', scenarioFile: 'scn.json', createdAt, status: 'done',
    variants: ['base'], seeds: [1], durationMs: 100, wallMs: 5, version: '0.1.0',
    scenarioText: '{ "name": "scn" }',
    results: [{
      name: 'base', seed: 1,
      stats: { events: 1, wallMs: 1, simulatedMs: 100, contextSwitches: 0, migrations: 0, wakeups: 0, sysPct: 0 },
      workloads: [{ name: 'w', type: 'hog', latencyUs: lat }], tasks: [], cpus: [],
      unreasonableIdle: { events: { '2.5-3ms': 0, '3-4ms': 0, '4ms+': 0 } }
    }],
    errors: []
  }
}
