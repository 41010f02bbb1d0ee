/**
 * Job scripts that run a sweep's shards on a cluster: a Slurm job array (one array task per
 * shard, `--array=0-(N-1)`) and a Kubernetes Indexed Job (one completion index per shard). Both
 * run `schedlab sweep SCENARIO --shard I/N --out DIR/shard-I` against storage every node sees;
 * `schedlab merge DIR/shard-*` joins the shards afterwards (docs/cluster.md).
 */

export interface ClusterJob {
  /** Sweep title, for the job name and comments. */
  name: string
  cells: number
  shards: number
  /** Absolute output folder on shared storage. */
  outDir: string
  /** Absolute path of the scenario (a copy in outDir). */
  scenarioFile: string
  /** The command that runs schedlab on the nodes, e.g. `node /opt/schedlab/bin/schedlab.mjs`. */
  schedlab: string
  /** Options passed to every shard (--seeds, --duration-ms, --variant ...). */
  args: string[]
  partition?: string
  cpusPerTask?: number
  timeLimit?: string
}

/** Single-quote for the shell. */
export function shq(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`
}

export function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'sweep'
}

export function mergeCommandLine(j: Pick<ClusterJob, 'outDir' | 'schedlab'>): string {
  return `${j.schedlab} merge ${shq(j.outDir)}/shard-* --json > ${shq(j.outDir)}/sweep.json`
}

export function slurmScript(j: ClusterJob): string {
  const lines = [
    '#!/bin/bash',
    `# schedlab sweep "${j.name.replace(/[\r\n]/g, ' ')}": ${j.cells} cells in ${j.shards} shards, one array task per shard.`,
    `# When the job is done: ${mergeCommandLine(j)}`,
    `#SBATCH --job-name=schedlab-${slug(j.name)}`,
    `#SBATCH --array=0-${j.shards - 1}`,
    `#SBATCH --output=${j.outDir}/slurm-%A_%a.out`,
    `#SBATCH --cpus-per-task=${j.cpusPerTask ?? 1}`,
    ...(j.partition ? [`#SBATCH --partition=${j.partition}`] : []),
    ...(j.timeLimit ? [`#SBATCH --time=${j.timeLimit}`] : []),
    'set -euo pipefail',
    '# SCHEDLAB in the environment overrides how schedlab is started on the nodes',
    `if [ -n "\${SCHEDLAB:-}" ]; then schedlab() { $SCHEDLAB "$@"; }; else schedlab() { ${j.schedlab} "$@"; }; fi`,
    `schedlab sweep ${shq(j.scenarioFile)} --shard "$SLURM_ARRAY_TASK_ID/${j.shards}" --out ${shq(j.outDir)}/"shard-$SLURM_ARRAY_TASK_ID"${j.args.map((a) => ' ' + shq(a)).join('')}`
  ]
  return lines.join('\n') + '\n'
}

export interface K8sJob extends ClusterJob {
  image: string
  /** PersistentVolumeClaim holding outDir (mounted at the same path). */
  claim: string
  mountPath: string
}

/** A Kubernetes Indexed Job; JOB_COMPLETION_INDEX is the shard. Not tested against a cluster here. */
export function k8sManifest(j: K8sJob): string {
  const cmd = `${j.schedlab} sweep ${shq(j.scenarioFile)} --shard "$JOB_COMPLETION_INDEX/${j.shards}" --out ${shq(j.outDir)}/"shard-$JOB_COMPLETION_INDEX"${j.args.map((a) => ' ' + shq(a)).join('')}`
  const y = (s: string): string => JSON.stringify(s)
  return [
    `# schedlab sweep "${j.name.replace(/[\r\n]/g, ' ')}": ${j.cells} cells in ${j.shards} shards (kubectl apply -f this file).`,
    `# When the job is complete: ${mergeCommandLine(j)}`,
    'apiVersion: batch/v1',
    'kind: Job',
    'metadata:',
    `  name: schedlab-${slug(j.name)}`,
    'spec:',
    '  completionMode: Indexed',
    `  completions: ${j.shards}`,
    `  parallelism: ${j.shards}`,
    '  backoffLimit: 3',
    '  template:',
    '    spec:',
    '      restartPolicy: Never',
    '      containers:',
    '        - name: schedlab',
    `          image: ${y(j.image)}`,
    `          command: ["sh", "-c", ${y(cmd)}]`,
    '          resources:',
    `            requests: { cpu: "${j.cpusPerTask ?? 1}" }`,
    '          env:',
    `            - { name: SCHEDLAB_WORKERS, value: "${j.cpusPerTask ?? 1}" }`,
    '          volumeMounts:',
    `            - { name: sweep, mountPath: ${y(j.mountPath)} }`,
    '      volumes:',
    `        - { name: sweep, persistentVolumeClaim: { claimName: ${y(j.claim)} } }`
  ].join('\n') + '\n'
}
