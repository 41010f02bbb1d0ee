import { describe, expect, it } from 'vitest'
import { privateMountOf } from './tracefs'

describe('private tracefs mounts of other runs', () => {
  it('are recognized by place and name, with the mounting pid when the name has one', () => {
    expect(privateMountOf('/tmp/schedlab-tracefs-4242-AbC123', '/tmp')).toEqual({ pid: 4242 })
    expect(privateMountOf('/tmp/schedlab-tracefs-Jm2QAd', '/tmp')).toEqual({ pid: null })
    expect(privateMountOf('/sys/kernel/tracing', '/tmp')).toBeNull()
    expect(privateMountOf('/sys/kernel/debug/tracing', '/tmp')).toBeNull()
    expect(privateMountOf('/srv/schedlab-tracefs-4242-AbC123', '/tmp')).toBeNull()
  })
})
