import { describe, expect, it } from 'vitest'
import { detectPreempt, parseCpuList, parseKernelConfig } from './host'
import { parseProcStat } from './procfs'

describe('host detection', () => {
  it('takes the preemption model from debugfs, preempt=, dmesg, then the config', () => {
    const dyn = parseKernelConfig('CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT is not set\nCONFIG_HZ=250\n')
    expect(detectPreempt(dyn, { debugfs: 'none voluntary (full) lazy', cmdline: null, dmesg: null })).toEqual({ model: 'full', source: '/sys/kernel/debug/sched/preempt' })
    expect(detectPreempt(dyn, { debugfs: null, cmdline: 'root=/dev/vda preempt=voluntary', dmesg: 'Dynamic Preempt: none' }).model).toBe('voluntary')
    expect(detectPreempt(dyn, { debugfs: null, cmdline: 'root=/dev/vda', dmesg: '[0.1] Dynamic Preempt: lazy' })).toEqual({ model: 'lazy', source: 'dmesg "Dynamic Preempt"' })
    expect(detectPreempt(dyn, { debugfs: null, cmdline: null, dmesg: null })).toEqual({ model: 'none', source: 'CONFIG_PREEMPT_NONE' })
    expect(detectPreempt(parseKernelConfig('CONFIG_PREEMPT_RT=y\n'), { debugfs: null, cmdline: null, dmesg: null }).model).toBe('rt')
    expect(dyn.get('CONFIG_HZ')).toBe('250')
  })

  it('parses CPU lists and /proc/PID/stat (comms with spaces and parentheses)', () => {
    expect(parseCpuList('0-3,5,7-8')).toEqual([0, 1, 2, 3, 5, 7, 8])
    const p = parseProcStat('42 (my (odd) comm) S 1 42 42 0 -1 4194560 0 0 0 0 150 50 7 3 20 0 1 0 1234 0 0')!
    expect(p).toMatchObject({ pid: 42, ppid: 1, pgrp: 42, comm: 'my (odd) comm', self: 2, children: 0.1, start: 1234, kthread: false })
    expect(parseProcStat('2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 2 0 0')!.kthread).toBe(true)
  })
})
