import { readFileSync } from 'node:fs'
import { linuxOrReason } from './host'
import { whichOnPath } from './workloads'

/** Why this machine cannot run the real-kernel tests (they skip and say so), or null. */
export function realTestSkipReason(tools: readonly string[] = ['cyclictest']): string | null {
  const linux = linuxOrReason()
  if (linux) return linux
  if (process.getuid?.() !== 0) return 'not root (tracefs instances need root)'
  if (!/\ttracefs$/m.test(readFileSync('/proc/filesystems', 'utf8'))) return 'the kernel has no tracefs'
  for (const t of tools) if (!whichOnPath(t)) return `${t} is not installed`
  if (!whichOnPath(process.env.CC || 'cc')) return 'no C compiler for the native helper'
  return null
}
