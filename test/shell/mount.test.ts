/** Tests of mount: the usage listener's registration, mounting order, config warnings and cleanup. */
import { describe, expect, it } from 'vitest'
import type { ContextConfig } from '../../src/core/config.js'
import { ContextManager } from '../../src/shell/context-manager.js'
import { makeMittHooks } from '../../src/shell/hooks.js'
import type { HookHandler, HookRegisterOptions } from '../../src/shell/hooks.js'
import { METER_LISTENER, mount, validateMountConfig } from '../../src/shell/mount.js'
import type { Coordinator } from '../../src/shell/mount.js'
import { memoryLogger, silentLogger } from '../../src/shell/logger.js'

/** What a JavaScript caller may pass: rejected by the ContextConfig type, checked at run time. */
const untyped = (config: Readonly<Record<string, unknown>>): ContextConfig => config as ContextConfig

/** A coordinator with a mitt bus that remembers what was mounted and the listeners seen at mount time. */
const fakeCoordinator = (options: { asyncMount?: boolean; failMount?: boolean } = {}) => {
  const hooks = makeMittHooks({ logger: silentLogger })
  const mounted: Array<{ kind: string; instance: unknown; listenersAtMount: number }> = []
  const coordinator: Coordinator = {
    hooks,
    mount: (kind, instance) => {
      if (options.failMount) throw new Error('mount refused')
      const record = () => mounted.push({ kind, instance, listenersAtMount: hooks.list('llm:response').length })
      if (options.asyncMount) return new Promise<void>((resolve) => setTimeout(() => resolve(void record()), 5))
      record()
      return undefined
    },
  }
  return { coordinator, hooks, mounted }
}

describe('mount', () => {
  it('registers exactly one llm:response listener (priority 50, context-simple-meter) before mounting', async () => {
    const { coordinator, hooks, mounted } = fakeCoordinator()
    const cleanup = await mount(coordinator, {}, { logger: silentLogger })
    expect(hooks.list('llm:response')).toEqual([{ event: 'llm:response', name: 'context-simple-meter', priority: 50 }])
    expect(mounted).toHaveLength(1)
    expect(mounted[0].kind).toBe('context')
    expect(mounted[0].instance).toBeInstanceOf(ContextManager)
    expect(mounted[0].listenersAtMount).toBe(1)
    await cleanup()
  })

  it('passes exactly the contract registration arguments to register', async () => {
    const registrations: Array<{ event: string; options: HookRegisterOptions | undefined }> = []
    let unregistered = 0
    const coordinator: Coordinator = {
      hooks: {
        register: (event: string, _handler: HookHandler, options?: HookRegisterOptions) => {
          registrations.push({ event, options })
          return () => void (unregistered += 1)
        },
        emit: () => undefined,
      },
      mount: () => undefined,
    }
    const cleanup = await mount(coordinator, undefined, { logger: silentLogger })
    expect(registrations).toEqual([{ event: 'llm:response', options: { priority: 50, name: 'context-simple-meter' } }])
    expect(METER_LISTENER).toEqual({ event: 'llm:response', priority: 50, name: 'context-simple-meter' })
    await cleanup()
    await cleanup()
    expect(unregistered).toBe(1)
  })

  it('awaits an async coordinator.mount and the cleanup unregisters the listener', async () => {
    const { coordinator, hooks, mounted } = fakeCoordinator({ asyncMount: true })
    const cleanup = await mount(coordinator, {}, { logger: silentLogger })
    expect(mounted).toHaveLength(1)
    await cleanup()
    expect(hooks.list('llm:response')).toEqual([])
  })

  it('routes llm:response through the bus to the manager, which continues', async () => {
    const { coordinator, hooks, mounted } = fakeCoordinator()
    await mount(coordinator, { token_meter: 'actual' }, { logger: silentLogger })
    const manager = mounted[0].instance as ContextManager
    await expect(hooks.emit('llm:response', { usage: { input_tokens: 900, cache_write_tokens: 100 } })).resolves.toEqual([{ action: 'continue' }])
    expect(manager.state.meter.measured).toBe(1000)
    expect(manager.config.token_meter).toBe('actual')
  })

  it('logs each unknown token_meter / compaction_strategy warning once and falls back', async () => {
    const logger = memoryLogger()
    const { coordinator, mounted } = fakeCoordinator()
    await mount(coordinator, untyped({ token_meter: 'tokens', compaction_strategy: null, max_messages: 100 }), { logger })
    const manager = mounted[0].instance as ContextManager
    await manager.idle()
    const warnings = logger.messages('warning')
    expect(warnings.filter((m) => m.includes('unknown token_meter'))).toHaveLength(1)
    expect(warnings.filter((m) => m.includes('unknown compaction_strategy'))).toHaveLength(1)
    expect(warnings.filter((m) => m.includes('config.max_messages: unknown key'))).toHaveLength(1)
    expect(warnings).toHaveLength(3)
    expect(manager.config.token_meter).toBe('estimate')
    expect(manager.config.compaction_strategy).toBe('progressive')
  })

  it('without hooks registers nothing and the cleanup is a no-op', async () => {
    const mounted: Array<unknown> = []
    const cleanup = await mount({ mount: (_kind, instance) => void mounted.push(instance) }, {}, { logger: silentLogger })
    expect(mounted).toHaveLength(1)
    await expect(cleanup()).resolves.toBeUndefined()
  })

  it('unregisters the listener and rethrows when coordinator.mount fails', async () => {
    const { coordinator, hooks } = fakeCoordinator({ failMount: true })
    await expect(mount(coordinator, {}, { logger: silentLogger })).rejects.toThrow('mount refused')
    expect(hooks.list('llm:response')).toEqual([])
  })

  it('rejects a wrongly typed config value with the decoder error and registers nothing', async () => {
    const { coordinator, hooks } = fakeCoordinator()
    await expect(mount(coordinator, untyped({ max_tokens: 'lots' }), { logger: silentLogger })).rejects.toThrow('config.max_tokens')
    expect(hooks.list('llm:response')).toEqual([])
  })
})

describe('validateMountConfig', () => {
  it('converts replay_last_user_on_compaction by truthiness (SPEC 2.8 step 3)', () => {
    expect(validateMountConfig({ replay_last_user_on_compaction: 1 }, silentLogger)).toEqual({ replay_last_user_on_compaction: true })
    expect(validateMountConfig({ replay_last_user_on_compaction: '' }, silentLogger)).toEqual({ replay_last_user_on_compaction: false })
    expect(validateMountConfig({}, silentLogger)).toEqual({})
  })

  it('corrects only the two validated keys and leaves the input untouched', () => {
    const logger = memoryLogger()
    const raw = { token_meter: 'hybrid', compaction_strategy: 'rolling', other: 1 }
    expect(validateMountConfig(raw, logger)).toEqual({ token_meter: 'hybrid', compaction_strategy: 'progressive', other: 1 })
    expect(raw.compaction_strategy).toBe('rolling')
    expect(logger.messages('warning')).toEqual(['context-simple: unknown compaction_strategy "rolling"; falling back to "progressive"'])
    expect(validateMountConfig('not an object', logger)).toBe('not an object')
  })
})
