/** Tests of the mitt-based hook bus: priority order, awaiting, results and handler isolation (on an untyped event map, Record<string, unknown>). */
import { describe, expect, it } from 'vitest'
import { makeMittHooks } from '../../src/shell/hooks.js'
import { memoryLogger } from '../../src/shell/logger.js'

describe('makeMittHooks', () => {
  it('calls handlers in ascending priority, ties in registration order, and passes event and data', async () => {
    const bus = makeMittHooks<Record<string, unknown>>({ logger: memoryLogger() })
    const calls: Array<string> = []
    bus.register('e', (event, data) => calls.push(`b:${event}:${JSON.stringify(data)}`), { priority: 10 })
    bus.register('e', () => calls.push('c'), { priority: 10 })
    bus.register('e', () => calls.push('a'), { priority: -5 })
    bus.register('e', () => calls.push('default'))
    bus.register('other', () => calls.push('never'))
    await bus.emit('e', { x: 1 })
    expect(calls).toEqual(['a', 'default', 'b:e:{"x":1}', 'c'])
    expect(bus.list('e').map((r) => r.priority)).toEqual([-5, 0, 10, 10])
  })

  it('awaits each async handler before the next and returns the results in call order', async () => {
    const bus = makeMittHooks<Record<string, unknown>>({ logger: memoryLogger() })
    const calls: Array<string> = []
    bus.register('e', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      calls.push('slow')
      return 1
    })
    bus.register('e', () => {
      calls.push('fast')
      return 2
    }, { priority: 1 })
    expect(await bus.emit('e', null)).toEqual([1, 2])
    expect(calls).toEqual(['slow', 'fast'])
  })

  it('isolates a throwing or rejecting handler: logged, others still run, emit resolves', async () => {
    const logger = memoryLogger()
    const bus = makeMittHooks<Record<string, unknown>>({ logger })
    const calls: Array<string> = []
    bus.register('e', () => {
      throw new Error('boom')
    }, { name: 'thrower', priority: 1 })
    bus.register('e', async () => {
      throw new Error('async boom')
    }, { name: 'rejecter', priority: 2 })
    bus.register('e', () => {
      calls.push('survivor')
      return 'ok'
    }, { priority: 3 })
    await expect(bus.emit('e', {})).resolves.toEqual(['ok'])
    expect(calls).toEqual(['survivor'])
    const warnings = logger.messages('warning')
    expect(warnings).toHaveLength(2)
    expect(warnings[0]).toContain('thrower')
    expect(warnings[0]).toContain('boom')
    expect(warnings[1]).toContain('rejecter')
  })

  it('unregisters idempotently and leaves other handlers in place', async () => {
    const bus = makeMittHooks<Record<string, unknown>>({ logger: memoryLogger() })
    const calls: Array<string> = []
    const off = bus.register('e', () => calls.push('a'), { name: 'a' })
    bus.register('e', () => calls.push('b'), { name: 'b' })
    off()
    off()
    await bus.emit('e', {})
    expect(calls).toEqual(['b'])
    expect(bus.list('e')).toEqual([{ event: 'e', name: 'b', priority: 0 }])
  })

  it('a handler registered during an emit does not run in that emit', async () => {
    const bus = makeMittHooks<Record<string, unknown>>({ logger: memoryLogger() })
    const calls: Array<string> = []
    bus.register('e', () => {
      calls.push('first')
      bus.register('e', () => calls.push('late'))
    })
    await bus.emit('e', {})
    expect(calls).toEqual(['first'])
    await bus.emit('e', {})
    expect(calls).toEqual(['first', 'first', 'late'])
  })

  it('emitting an event nobody listens to resolves to no results', async () => {
    await expect(makeMittHooks<Record<string, unknown>>().emit('nobody', {})).resolves.toEqual([])
  })
})
